#!/usr/bin/env bash
#
# test_bound.sh - no result below its own lower bound (harness/driver.c
# check_bound, docs/results.md): a run whose makespan is below
# max(T1/P, longest task), T1 the compute its tasks declared, or (sim) below
# the span of the task graph it ran, or whose
# declared work does not lie in the workers' busy time, exits 1 with one
# line naming the policy, the workers, the makespan and the bound, and
# writes no result. The refused runs are the sim's with cost.causal=0 (a
# step's spawns runnable from its start, as the sim was before it modelled
# time within a step, docs/sim.md: rayon, central-queue, go and
# blumofe-leiserson then finish imbalanced below the floor); the causal
# sim's runs of the same shape, and threads runs, stay within it and are
# written.
#
#   test_bound.sh HARNESS
set -u
harness=${1:?usage: test_bound.sh HARNESS}
py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_bound.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
testlib_name=test_bound
. "$(dirname "$0")/testlib.sh"

# 1, 1, 2 and 3 ms of 100 us leaves: T1 = 7 ms.
shape=(--workload=imbalanced --param t0_ms=1 --param t1_ms=1 --param t2_ms=2 --param t3_ms=3)
small=("${shape[@]}" --trials 1 --warmup 0 --no-baseline --quiet)

# refused NAME PATTERN ARGS...: exit 1, stderr one line matching PATTERN, no
# result file (r.json, or r.POLICY.json of several), no "result:" line.
refused() {
	local name=$1 pattern=$2
	shift 2
	rm -f "$tmp"/r*.json
	"$harness" "$@" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" -eq 1 ] || fail "$name: exit status $rc, expected 1"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: stderr is not one line"
	grep -Eq "$pattern" "$tmp/err" || fail "$name: stderr does not match /$pattern/"
	! compgen -G "$tmp/r*.json" >/dev/null || fail "$name: a result file was written"
	! grep -q '^result:' "$tmp/out" || fail "$name: a result was announced"
	pass "$name"
}

# 4 workers: T1/P = 1.75 ms; the sim's rayon ends at 1.702 ms.
refused "sim rayon 4 workers below T1/P" \
	'^harness: policy rayon, 4 workers: makespan 1\.702 ms is below its lower bound 1\.750 ms, max\(T1/P, longest task\) with T1 = 7\.000 ms of declared work and a longest task of 100\.000 us; result refused$' \
	--engine=sim --policy=rayon --workers 4 --set cost.causal=0 "${small[@]}"
# 128 workers: T1/P = 54.7 us, but no run beats its longest leaf, 100 us;
# central-queue's ends at 4.3 us.
refused "sim central-queue 128 workers below its longest task" \
	'^harness: policy central-queue, 128 workers: makespan [0-9.]+ us is below its lower bound 100\.000 us,' \
	--engine=sim --policy=central-queue --workers 128 --set cost.causal=0 "${small[@]}"
# The span (core/span.h): fib declares no compute, so only its span bounds
# it. fib(5)'s is (n - 1)(2 poll + 2 spawn) + poll = 260 ns at the default costs; on
# 64 workers the acausal sim's rayon runs the whole tree at virtual time 0.
refused "sim rayon fib(5) on 64 workers below its span" \
	'^harness: policy rayon, 64 workers: makespan 0\.000 us is below the span T_inf 0\.260 us of the task graph it ran; result refused$' \
	--engine=sim --policy=rayon --workers 64 --set cost.causal=0 --workload=fib --param n=5 \
	--trials 1 --warmup 0 --no-baseline --quiet
# With the span's recording off (cost.span=0, core/costs.h) a run has no span:
# no trials[].span_ns, nothing checked against it. And the recording changes
# nothing of a schedule: tokio's fib(15) on 8 workers ends at the same virtual
# times with it and without it.
for sw in 1 0; do
	"$harness" --engine=sim --policy=tokio --workers 8 --workload=fib --param n=15 \
		--set cost.span=$sw --trials 2 --warmup 0 --no-baseline --quiet \
		--json "$tmp/span$sw.json" >"$tmp/out" 2>"$tmp/err" || fail "span $sw: exit status $?"
done
"$py" - "$tmp/span1.json" "$tmp/span0.json" >"$tmp/out" 2>&1 <<'PY' || fail "span on/off: $(cat "$tmp/out")"
import json, sys
on, off = (json.load(open(f))["trials"] for f in sys.argv[1:3])
assert all(t["span_ns"] > 0 for t in on), "no span with the recording on"
assert all("span_ns" not in t for t in off), "a span with cost.span=0"
a, b = ([t["makespan_ns"] for t in x] for x in (on, off))
assert a == b, (a, b)
PY
pass "sim: cost.span=0 records no span, and the recording leaves the schedule as it is"
# Several policies in one run: one below its bound refuses the run, and no
# policy's file is written.
refused "sim volt,rayon: the run refused" '^harness: policy rayon, 4 workers: makespan' \
	--engine=sim --policy=volt,rayon --workers 4 --set cost.causal=0 "${small[@]}"

# --explore reports it as what it is, not as a lost task.
"$harness" --engine=sim --policy=rayon --workers 256 --set cost.causal=0 "${shape[@]}" --explore-seed 1 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "explore: exit status $rc, expected 1"
grep -q 'seed 1 found a makespan below its lower bound' "$tmp/out" ||
	fail "explore: the finding is not named"
pass "explore: a makespan below its bound named as such"

# written NAME MIN_NS ARGS...: exit 0, a result whose makespan is at least
# MIN_NS.
written() {
	local name=$1 min=$2
	shift 2
	rm -f "$tmp/r.json"
	"$harness" "$@" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" ||
		fail "$name: exit status $?"
	"$py" - "$tmp/r.json" "$min" >"$tmp/out" 2>&1 <<'PY' || fail "$name: $(cat "$tmp/out")"
import json, sys
r = json.load(open(sys.argv[1]))
for t in r["trials"]:
    assert t["makespan_ns"] >= int(sys.argv[2]), t["makespan_ns"]
PY
	pass "$name"
}
written "sim volt 4 workers within its bound" 1750000 --engine=sim --policy=volt --workers 4 "${small[@]}"
for p in rayon central-queue go blumofe-leiserson; do
	written "causal sim $p 4 workers within its bound" 1750000 --engine=sim --policy=$p --workers 4 \
		"${small[@]}"
done
written "causal sim central-queue 128 workers within its bound" 100000 --engine=sim \
	--policy=central-queue --workers 128 "${small[@]}"
written "threads volt 2 workers within its bound" 3500000 --policy=volt --workers 2 "${small[@]}"
# More workers than this machine may have cores: the OS takes spins away
# and gives them back, and the bound still holds.
written "threads rayon 4 workers within its bound" 1750000 --policy=rayon --workers 4 "${small[@]}"
testlib_done
