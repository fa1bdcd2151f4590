#!/usr/bin/env bash
#
# test_answers.sh - the large known answers, once each, through the harness
# binary: UTS T1 and T3 (node, depth and leaf counts) and N-queens 13 and 14
# (solution counts), on 2 workers. The workloads verify themselves (exit 1
# on a wrong answer); this test also reads the counts back from the result
# file, so a verify step that stopped checking would not pass either.
# The figures and their sources are in docs/sources.md. Release builds only
# (about 6 s there; the sanitizer builds run the smaller trees).
#
#   test_answers.sh HARNESS
set -u
harness=${1:?usage: test_answers.sh HARNESS}
py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_answers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# check NAME WORKLOAD PARAM METRIC=VALUE...
check() {
	local name=$1 workload=$2 param=$3
	shift 3
	if ! "$harness" --policy=volt --workload="$workload" --param "$param" --workers 2 \
		--trials 1 --warmup 0 --no-baseline --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL: $name: exit status $?" >&2
		tail -n 5 "$tmp/err" >&2
		failed=$((failed + 1))
		return
	fi
	if "$py" - "$tmp/r.json" "$@" >"$tmp/out" 2>&1 <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
t = r["trials"][0]
assert t["verified"] is True, t["verified"]
for spec in sys.argv[2:]:
    k, v = spec.split("=")
    got = t["metrics"].get(k)
    assert got == float(v), "%s = %r, expected %s" % (k, got, v)
PY
		echo "ok: $name"
		passed=$((passed + 1))
	else
		echo "FAIL: $name: $(tail -n 1 "$tmp/out")" >&2
		failed=$((failed + 1))
	fi
}

check "uts T1" uts preset=T1 nodes=4130071 depth=10 leaves=3305118
check "uts T3" uts preset=T3 nodes=4112897 depth=1572 leaves=3599034
check "nqueens 13" nqueens n=13 solutions=73712
check "nqueens 14" nqueens n=14 solutions=365596
echo "test_answers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
