#!/usr/bin/env bash
#
# test_reproduce_check.sh - scripts/reproduce.sh --check (scripts/reproduce_check.py).
#
#   test_reproduce_check.sh HARNESS
#
# Two "reproductions" made of a sim result and a threads result each: the
# same sim run twice is identical but for provenance (exit 0); a sim result
# changed in one field is reported (exit 1); a threads median moved outside
# both intervals is accepted when the noise accounting recorded a cause
# (flagged trials), and reported without one (exit 1).
set -u
harness=${1:?usage: test_reproduce_check.sh HARNESS}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_reproduce_check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/out" >&2 2>/dev/null; exit 1; }
check() { (cd "$here" && scripts/reproduce.sh --check "$tmp/new" --against "$tmp/ref") >"$tmp/out" 2>&1; }

for d in new ref; do
	mkdir -p "$tmp/$d/raw"
	"$harness" --policy=volt --workload=fib --param n=18 --engine=sim --workers 4 --trials 2 \
		--warmup 0 --quiet --json "$tmp/$d/raw/fib-sim.json" || fail "harness sim run"
done
"$harness" --policy=volt --workload=fib --param n=18 --workers 1 --trials 3 --warmup 0 \
	--quiet --json "$tmp/ref/raw/fib-threads.json" || fail "harness threads run"
cp "$tmp/ref/raw/fib-threads.json" "$tmp/new/raw/fib-threads.json"

check || fail "identical reproductions: exit $?"
grep -q "sim 1 identical, 0 different; threads 1 within intervals" "$tmp/out" || fail "counts"
echo "ok: the same runs agree"

# edit FILE PYTHON: apply a change to the parsed document d.
edit() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
}
cp "$tmp/new/raw/fib-sim.json" "$tmp/sim.json"
edit "$tmp/new/raw/fib-sim.json" 'd["counters_total"]["polls"] += 1'
check && fail "a changed sim result passed"
grep -q "sim result differs: raw/fib-sim.json" "$tmp/out" || fail "sim difference not named"
cp "$tmp/sim.json" "$tmp/new/raw/fib-sim.json"
echo "ok: a changed sim result is named"

move='m = d["median"]; m["makespan_ns"] *= 100; c = m["ci95"]["makespan_ns"]; c["lo"] *= 100; c["hi"] *= 100'
edit "$tmp/new/raw/fib-threads.json" "$move; d['noise']['flagged'] = 0; [t['noise'].update(flagged=False) for t in d['trials']]; d['noise']['c2c_regime_ns'] = None"
edit "$tmp/ref/raw/fib-threads.json" "d['noise']['flagged'] = 0; d['noise']['c2c_regime_ns'] = None"
check && fail "a threads median outside both intervals with no cause passed"
grep -q "no recorded cause" "$tmp/out" || fail "the missing cause is not said"
echo "ok: a threads difference without a recorded cause fails"

edit "$tmp/new/raw/fib-threads.json" "d['noise']['flagged'] = 2"
check || fail "a threads difference with flagged trials: exit $?"
grep -q "here 2 of 3 trials flagged" "$tmp/out" || fail "the flagged trials are not named"
grep -q "1 outside with a recorded cause, 0 without" "$tmp/out" || fail "counts"
echo "ok: a threads difference is put down to its flagged trials"
