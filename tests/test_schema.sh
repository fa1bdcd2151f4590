#!/usr/bin/env bash
#
# test_schema.sh - result files against docs/result.schema.json.
#
#   test_schema.sh HARNESS JSON_CHECK [threads|sim]
#
# Runs every workload (small parameters; the test fails if a workload has
# none here) on both engines (or on the one named: ctest runs the two as
# tests of their own, to keep each short under the sanitizers), three
# trials each, and checks every result
# with json_check (types, sums, medians recomputed from the trials) and with
# the standard JSON Schema validator (tests/validate_results.py, Debian's
# python3-jsonschema). Then removes one documented field at a time from a
# good result and requires the validator to reject each, and checks that
# docs/results.md names every counter, cost and open-loop metric the schema
# requires. Without python3-jsonschema it skips (exit 77), except under CI
# (CI=true), where a missing tool is a failure.

set -u
testlib_name=test_schema
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_schema.sh HARNESS JSON_CHECK}
json_check=${2:?usage: test_schema.sh HARNESS JSON_CHECK}
engines=${3:-threads sim}
case $engines in
threads | sim | "threads sim") ;;
*) echo "test_schema: unknown engine '$engines' (threads, sim)" >&2; exit 2 ;;
esac
for prog in "$harness" "$json_check"; do
	[ -x "$prog" ] || { echo "test_schema: $prog is not an executable file" >&2; exit 1; }
done
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")
json_check=$(cd "$(dirname "$json_check")" && pwd)/$(basename "$json_check")
src=$(cd "$(dirname "$0")/.." && pwd)
schema=$src/docs/result.schema.json
validate=$src/tests/validate_results.py
py=/usr/bin/python3

if ! [ -x "$py" ] || ! "$py" -c 'import jsonschema' 2>/dev/null; then
	if [ "${CI:-}" = true ]; then
		echo "test_schema: FAIL: $py with python3-jsonschema is required under CI" >&2
		exit 1
	fi
	echo "test_schema: skipped: no $py with python3-jsonschema"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_schema.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset PYTHONOPTIMIZE PYTHONPATH PYTHONHOME


# Small parameters per workload: a second or less on two workers.
small_params() {
	case $1 in
	fib) echo "n=18" ;;
	spawn-many) echo "n=2000" ;;
	chained-spawn) echo "n=300" ;;
	yield-many) echo "tasks=20 yields=100" ;;
	ping-pong) echo "pairs=50 rounds=5" ;;
	nqueens) echo "n=8" ;;
	uts) echo "preset=0" ;;
	sort) echo "n=50000 cutoff=1024 merge_cutoff=2048" ;;
	imbalanced) echo "t0_ms=2 t1_ms=2 t2_ms=4 t3_ms=7" ;;
	open-loop) echo "requests=300 service_us=10 io_us=20" ;;
	*) return 1 ;;
	esac
}

workloads=$("$harness" --list | sed -n '/^workloads/,$s/^  \([a-z][a-z0-9-]*\) - .*/\1/p')
[ "$(echo "$workloads" | wc -w)" -ge 10 ] || fail "--list names $(echo $workloads) only"
mkdir "$tmp/r"
n=0
for wl in $workloads; do
	params=$(small_params "$wl") || fail "no small parameters for workload $wl in $0"
	args=()
	for p in $params; do args+=(--param "$p"); done
	for engine in $engines; do
		f="$tmp/r/$wl-$engine.json"
		"$harness" --policy volt --workload "$wl" "${args[@]}" --engine "$engine" --workers 2 \
			--trials 3 --warmup 0 --json "$f" >"$tmp/out" 2>"$tmp/err" </dev/null ||
			fail "$wl on $engine: exit status $?"
		"$json_check" "$f" >"$tmp/out" 2>"$tmp/err" || fail "json_check rejects $wl on $engine"
		n=$((n + 1))
	done
done
pass "json_check accepts $n results (every workload on $engines, medians recomputed)"

"$py" "$validate" "$schema" "$tmp/r" >"$tmp/out" 2>"$tmp/err" || fail "validator rejects a result"
case $engines in
threads) want="threads $n" ;;
sim) want="sim $n" ;;
*) want="sim $((n / 2)), threads $((n / 2))" ;;
esac
grep -q "^validate_results: $n valid ($want), 0 invalid" "$tmp/out" ||
	fail "validator: $(tail -n 1 "$tmp/out")"
pass "$(tail -n 1 "$tmp/out")"

# One field removed at a time: each must be rejected.
"$py" - "$tmp/r" <<'EOF' >"$tmp/cases" || fail "making broken results"
import json, sys, os
d = sys.argv[1]
cases = [
    ("fib-threads", ["config", "variant"]),
    ("fib-threads", ["config", "knobs"]),
    ("fib-threads", ["baseline", "median_ns_per_task"]),
    ("fib-threads", ["trials", 0, "workers", 1, "steals_remote"]),
    ("fib-threads", ["trials", 2, "verified"]),
    ("fib-threads", ["median", "ci95", "ns_per_task"]),
    ("fib-threads", ["counters_total", "local_pushes"]),
    ("fib-threads", ["per_worker_counters", 0, "runnext_polls"]),
    ("fib-threads", ["histograms", "sched_delay_ns", "p99"]),
    ("fib-threads", ["provenance", "git_revision"]),
    ("fib-sim", ["config", "sim_costs_ns"]),
    ("fib-sim", ["config", "sim_costs_ns", "wake_latency"]),
    ("open-loop-sim", ["histograms", "end_to_end_ns"]),
    ("open-loop-threads", ["trials", 1, "metrics", "late_p99_ns"]),
    ("open-loop-sim", ["trials", 0, "metrics", "achieved_load"]),
    ("uts-sim", ["median", "makespan_ns"]),
]
cases = [c for c in cases if os.path.exists(os.path.join(d, c[0] + ".json"))]
assert len(cases) >= 5, cases
for k, (name, path) in enumerate(cases):
    doc = json.load(open(os.path.join(d, name + ".json")))
    o = doc
    for p in path[:-1]:
        o = o[p]
    del o[path[-1]]
    out = os.path.join(d, "..", "broken-%d.json" % k)
    json.dump(doc, open(out, "w"))
    print(out, name + ":" + ".".join(map(str, path)))
EOF
# shellcheck disable=SC2046
"$py" "$validate" "$schema" $(cut -d' ' -f1 "$tmp/cases") >"$tmp/out" 2>"$tmp/err" &&
	fail "validator accepts every broken result"
while read -r f what; do
	grep -qF "$f: " "$tmp/out" || fail "validator accepts $what removed"
	grep -F "$f: " "$tmp/out" | grep -q "required property" ||
		fail "validator: $what removed, but: $(grep -F "$f: " "$tmp/out" | head -n 1)"
done <"$tmp/cases"
grep -q "^validate_results: 0 valid (none), $(wc -l <"$tmp/cases") invalid" "$tmp/out" ||
	fail "validator: $(tail -n 1 "$tmp/out")"
pass "validator rejects each of $(wc -l <"$tmp/cases") results with one field removed"

# A sim result with a baseline, a threads result with an unknown engine: rejected.
if [ "$engines" = sim ]; then
	"$harness" --policy volt --workload fib --param n=14 --workers 2 --trials 1 --warmup 0 \
		--json "$tmp/r/fib-threads.json" >"$tmp/out" 2>"$tmp/err" </dev/null || fail "fib threads"
fi
if [ "$engines" = threads ]; then
	"$harness" --policy volt --workload fib --param n=14 --engine sim --workers 2 --trials 1 \
		--warmup 0 --json "$tmp/r/fib-sim.json" >"$tmp/out" 2>"$tmp/err" </dev/null || fail "fib sim"
fi
"$py" - "$tmp/r" "$tmp" <<'EOF' || fail "making inconsistent results"
import json, sys, os
r, t = sys.argv[1:]
sim = json.load(open(os.path.join(r, "fib-sim.json")))
thr = json.load(open(os.path.join(r, "fib-threads.json")))
sim["baseline"] = thr["baseline"]
json.dump(sim, open(os.path.join(t, "sim-baseline.json"), "w"))
thr["config"]["engine"] = "simulated"
json.dump(thr, open(os.path.join(t, "bad-engine.json"), "w"))
EOF
for f in sim-baseline bad-engine; do
	"$py" "$validate" "$schema" "$tmp/$f.json" >"$tmp/out" 2>"$tmp/err" &&
		fail "validator accepts $f.json"
	"$json_check" "$tmp/$f.json" >"$tmp/out" 2>"$tmp/err" && fail "json_check accepts $f.json"
done
pass "validator and json_check reject a sim result with a baseline and an unknown engine"

# docs/results.md names every counter, cost and open-loop metric the schema requires.
"$py" - "$schema" "$src/docs/results.md" >"$tmp/out" 2>"$tmp/err" <<'EOF' ||
import json, sys
schema = json.load(open(sys.argv[1]))
doc = open(sys.argv[2]).read()
d = schema["$defs"]
names = d["counters"]["required"] + d["config"]["properties"]["sim_costs_ns"]["required"]
names += schema["allOf"][0]["then"]["properties"]["trials"]["items"]["properties"]["metrics"]["required"]
names += ["sim_costs_ns", "variant"]
missing = [n for n in names if "`%s`" % n not in doc]
assert not missing, "docs/results.md does not name %s" % ", ".join(missing)
print(len(names))
EOF
	fail "docs/results.md is behind the schema"
pass "docs/results.md names all $(cat "$tmp/out") counters, costs, metrics and keys of the schema"

echo "test_schema: $passed passed, $failed failed"
