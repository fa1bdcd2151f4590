#!/usr/bin/env bash
#
# test_runtime_costs.sh - scripts/runtime_costs.py, the sim's costs fitted
# from a real runtime's runs (docs/runtime-costs.md).
#
#   test_runtime_costs.sh HARNESS
#
# A fake peer (HARNESS_PEERS) reports, for fib and spawn-many at 1 and 2
# workers and chained-spawn and yield-many at 1, the makespans the sim itself
# gives at known costs (spawn 300, poll 50, spawn_fresh 400, work.fib 40,
# contended 500, lock_transfer 300, and the base table's cold_start 2000; no
# task list, --no-task-list): the
# fit must recover stage 1's four costs exactly (one worker: the sim is linear
# in them) and land stage 2 on the 2-worker makespans, and the file it writes
# (the base's unfitted costs kept) must give the sim those makespans again.
# Bad input is refused with one line before any run.
set -u
testlib_name=test_runtime_costs
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_runtime_costs.sh HARNESS}
here=$(cd "$(dirname "$0")/.." && pwd)
script=$here/scripts/runtime_costs.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_runtime_costs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir -p peers

truth=(--set cost.spawn=300 --set cost.poll=50 --set cost.spawn_fresh=400 --set cost.work.fib=40
	--set cost.contended=500 --set cost.lock_transfer=300 --set cost.cold_start=2000
	--set cost.cold_after=10000000)
# The base table's costs that the fit does not fit (here cold_start, paid by
# migrated tasks only: none ages in a run) are the runtime's too: the fit
# runs with them, and the file keeps them.
printf '%s\n' '# a base table' 'cold_start = 2000  # not fitted' 'cold_after = 10000000' \
	'spawn = 7' >base.costs
sim_ns() {	# WORKLOAD N WORKERS [COSTS...]: the sim's makespan in ns (N -: yield-many's)
	local wl=$1 n=$2 nw=$3 param=(--param tasks=20 --param yields=100)
	shift 3
	[ "$n" = - ] || param=(--param n="$n")
	"$harness" --engine=sim --policy=tokio-1.28 --workload="$wl" "${param[@]}" --workers "$nw" \
		--trials 1 --warmup 0 --quiet "$@" --json - |
		/usr/bin/python3 -c 'import json, sys; print(int(json.load(sys.stdin)["median"]["makespan_ns"]))'
}
# The makespans the fake runtime reports: the sim's at the true costs, for the
# fit's sizes (fib 12, spawn-many 2000; chained-spawn 500 and yield-many of 20
# tasks of 100 yields at 1 worker) and the check's (fib 14, spawn-many 200).
: >table
for wl in "chained-spawn 500" "yield-many -"; do
	# shellcheck disable=SC2086 # the workload and its size
	echo "$wl 1 $(sim_ns $wl 1 "${truth[@]}")" >>table || fail "the sim at the true costs"
done
for wl in "fib 12" "spawn-many 2000" "fib 14" "spawn-many 200"; do
	for nw in 1 2; do
		# shellcheck disable=SC2086 # the workload and its size
		echo "$wl $nw $(sim_ns $wl $nw "${truth[@]}")" >>table || fail "the sim at the true costs"
	done
done
export FAKE_TABLE=$tmp/table HARNESS_PEERS=$tmp/peers
cat >peers/peer-tokio <<'PEER'
#!/bin/sh
# --workload W --workers N --trials 1 --warmup 1 --param n=K ...
wl=$2 nw=$4
n=-
case "$*" in *"--param n="*) n=$(echo "$@" | sed 's/.*--param n=\([0-9]*\).*/\1/') ;; esac
ns=$(awk -v w="$wl" -v n="$n" -v k="$nw" '$1 == w && $2 == n && $3 == k {print $4}' "$FAKE_TABLE")
[ -n "$ns" ] || { echo "peer-tokio: no figure for $wl n=$n at $nw" >&2; exit 1; }
tasks=$n
[ "$wl" = yield-many ] && tasks=20
[ "$wl" = fib ] && tasks=$(/usr/bin/python3 -c "a,b=0,1
for _ in range($n + 1): a,b=b,a+b
print(2*a-1)")
echo '{"peer":"tokio","runtime":"tokio","version":"9.9-test","workload":"'"$wl"'","workers":'"$nw"',"params":{},"counters_available":false}'
echo '{"trial":0,"warmup":true,"ns":1,"tasks":1,"verified":true,"cpu_user_ns":1,"cpu_sys_ns":0,"counters":{}}'
echo '{"trial":1,"warmup":false,"ns":'"$ns"',"tasks":'"$tasks"',"verified":true,"cpu_user_ns":1,"cpu_sys_ns":0,"counters":{}}'
PEER
chmod +x peers/peer-tokio

fit=(--policy tokio-1.28 --harness "$harness" --fib-n 12 --spawn-n 2000 --chain-n 500 --trials 1
	--yield-tasks 20 --yields 100 --third spawn_fresh --fib-work --base base.costs --no-task-list)
/usr/bin/python3 "$script" "${fit[@]}" --out fitted.costs --check >out 2>err ||
	fail "the fit: exit $?"
grep -qx "spawn = 300" fitted.costs && grep -qx "poll = 50" fitted.costs &&
	grep -qx "spawn_fresh = 400" fitted.costs && grep -qx "work.fib = 40" fitted.costs ||
	fail "stage 1 did not recover spawn 300, poll 50, spawn_fresh 400 and work.fib 40: $(grep -E '^(spawn|poll|spawn_fresh|work.fib) =' fitted.costs)"
pass "stage 1 recovers the runtime's spawn, poll, spawn_fresh and work.fib from its 1-worker runs"
grep -q "task_list" fitted.costs && fail "a fit with --no-task-list wrote a task_list line"
pass "a fit with --no-task-list runs the sim without the task list"

# The runtime's mechanisms the sim has as switches (tokio-1.28: the task list; go:
# the semaphore table) reach every sim run of the fit and its file; and stage 2,
# where Newton's method stalls (a flat start: no slope to follow), starts again
# from the grid's best point. The sim stubbed: no run.
/usr/bin/python3 - "$here/scripts" <<'PY' || fail "the switches or stage 2's restart"
import os, sys, tempfile, types
sys.path.insert(0, sys.argv[1])
import runtime_costs as rc
seen = []
rc.run_harness = lambda args, what: seen.append(args) or {
    "median": {"makespan_ns": 1e6}, "config": {"sim_costs_ns": {}}}
for pol, tl, st, want in (("tokio-1.28", True, False, ["cost.task_list=1"]),
                          ("go", False, True, ["cost.sema_table=1"]),
                          ("tokio", False, False, [])):
    o = types.SimpleNamespace(policy=pol, model_set=[], harness="h", trials=1, fib_n=12,
                              spawn_n=2000, chain_n=500, third="none", fib_work=False,
                              check=False, task_list=tl, sema_table=st, base="default")
    f = rc.Fit(o)
    f.version = "x 1"
    seen.clear()
    f.sim("fib", ["--param", "n=5"], 2)
    got = [a for a in seen[0] if a.startswith("cost.")]
    assert got == want, (pol, got)
    f.fit, f.ones, f.note, f.twos, f.stage2 = {"spawn": 1}, [], "", [1, 1], [0, 0]
    path = os.path.join(tempfile.mkdtemp(), "x.costs")
    f.write(path)
    lines = open(path).read().splitlines()
    assert [l for l in lines if l.startswith(("task_list", "sema_table"))] == \
        [w[5:].replace("=", " = ") for w in want], (pol, lines)
# A surface flat around the base's point (0, 0), right at (1000, 3000): Newton's
# method from (0, 0) finds no slope; the grid's best point lands it.
def surface(x):
    ct, lt = x
    if lt < 2000:
        return [-0.5, -0.5]
    return [(ct - 1000) / 1000 + (lt - 3000) / 3000, (lt - 3000) / 3000]
f = rc.Fit.__new__(rc.Fit)
err, x, y = f.stage2_search(surface, [0.0, 0.0])
assert err < 0.01, (err, x, y)
PY
pass "the switches reach the sim and the file, and stage 2 restarts from the grid where it stalls"
# Stage 2's two costs need not be the true ones (two may give the same two
# makespans), but the written file must give the sim the 2-worker makespans
# again, within the fit's 1%, and the check's sizes within 5%.
/usr/bin/python3 - table <<PY || fail "the fitted file does not give the sim the runtime's makespans"
import subprocess, json, sys
for line in open(sys.argv[1]):
    wl, n, nw, want = line.split()
    param = ["--param", "tasks=20", "--param", "yields=100"] if n == "-" else ["--param", "n=" + n]
    got = subprocess.run(["$harness", "--engine=sim", "--policy=tokio-1.28", "--workload=" + wl]
                         + param + ["--workers", nw, "--trials", "1", "--warmup", "0",
                          "--quiet", "--costs", "fitted.costs", "--json", "-"],
                         capture_output=True, text=True, check=True).stdout
    got = json.loads(got)["median"]["makespan_ns"]
    tol = 0.01 if n in ("12", "2000", "500", "-") else 0.05
    assert abs(got / int(want) - 1) <= tol, (wl, n, nw, got, want)
PY
grep -q '^| fib n=14 | 2 |' out && grep -q '^| spawn-many n=200 | 2 |' out ||
	fail "--check printed no rows for the sizes it was not fitted on: $(cat out)"
pass "the written file gives the sim the runtime's makespans at 1 and 2 workers, and --check runs other sizes"

# The model of the version measured: Go before 1.21 returns from wakep when no
# P is idle (proc.go), the go model's idle_precheck=1; from 1.21 on, the default.
# Every sim run of the fit gets the knobs (the harness's arguments captured).
/usr/bin/python3 - "$here/scripts" "$harness" <<'PY' || fail "the go fit's model"
import sys, types
sys.path.insert(0, sys.argv[1])
import runtime_costs as rc
seen = []
rc.run_harness = lambda args, what: seen.append(args) or {
    "median": {"makespan_ns": 1e6}, "config": {"sim_costs_ns": {}}}
for version, sets, want in (("go1.19.8", [], "go[idle_precheck=1]"), ("go1.21.0", [], "go"),
                            ("go1.19.8", [("idle_precheck", "0")], "go[idle_precheck=0]")):
    o = types.SimpleNamespace(policy="go", model_set=sets, harness=sys.argv[2])
    f = rc.Fit.__new__(rc.Fit)
    f.o, f.version, f.switches = o, "go " + version, ()
    assert f.model() == want, (version, f.model())
    seen.clear()
    f.sim("fib", ["--param", "n=5"], 2)
    knob = [a for a in seen[0] if "idle_precheck" in a]
    assert knob == ([] if want == "go" else [want[3:-1]]), (version, seen[0])
o = types.SimpleNamespace(policy="tokio-1.28", model_set=[], harness=sys.argv[2])
f = rc.Fit.__new__(rc.Fit)
f.o, f.version = o, "tokio 1.24"
assert f.model() == "tokio-1.28"
PY
pass "go is fitted as the model of the Go measured (idle_precheck=1 before Go 1.21, --model-set over it)"

# The fit's runtime runs at 1 and 2 workers and the check's are taken interleaved,
# one trial of each in turn, and each figure is its own runs' median.
/usr/bin/python3 - "$here/scripts" <<'PY' || fail "the runtime runs are not interleaved"
import sys, types
sys.path.insert(0, sys.argv[1])
import runtime_costs as rc
seen = []
def fake(args, what):
    wl = [a for a in args if a.startswith("--workload=")][0][11:]
    n = args[args.index("--param") + 1]
    seen.append((wl, n, args[args.index("--trials") + 1], args[args.index("--workers") + 1]))
    return {"median": {"makespan_ns": 1e6 * len(seen)},
            "config": {"peer": {"runtime": "tokio", "version": "9.9"}}}
rc.run_harness = fake
o = types.SimpleNamespace(policy="tokio-1.28", model_set=[], harness="h", trials=3, fib_n=12,
                          spawn_n=2000, chain_n=500, third="none", fib_work=False, check=True,
                          task_list=True, sema_table=False)
f = rc.Fit(o)
f.sim = lambda wl, params, workers, costs=None, sets=(): (1e6, {"spawn": 10, "poll": 20})
f.stage1_fit = lambda x: (0, x, [0.0] * len(x))
f.o.base = "default"
f.run()  # the sim stubbed: what the fit makes of the fake figures is not asked here
order = [(wl, n, w) for wl, n, _, w in seen]
assert order == [("fib", "n=12", "1"), ("spawn-many", "n=2000", "1"),
                 ("fib", "n=12", "2"), ("spawn-many", "n=2000", "2"),
                 ("fib", "n=14", "2"), ("spawn-many", "n=200", "2")] * 3, order
assert all(t == "1" for _, _, t, _ in seen), seen
# Each figure its own runs' median: the middle round's.
assert f.targets == [7e6, 8e6] and f.twos == [9e6, 10e6] and f.check_real == [11e6, 12e6], \
    (f.targets, f.twos, f.check_real)
PY
pass "the fit's runtime runs at 1 and 2 workers and the check's are interleaved, one trial of each in turn"

expect_refused() {	# MESSAGE-PART ARGS...
	local want=$1
	shift
	/usr/bin/python3 "$script" "$@" >out 2>err && fail "accepted: $*"
	[ $? -eq 2 ] || fail "not exit status 2: $*"
	grep -q -- "$want" err || fail "$*: said $(cat err)"
	[ "$(wc -l <err)" -eq 1 ] || fail "$*: more than one line: $(cat err)"
}
expect_refused "--policy rayon: no runtime fit for it" --policy rayon --out x.costs --harness "$harness"
expect_refused "--harness nosuch: not an executable" --policy go --out x.costs --harness nosuch
expect_refused "--base nosuch: no such file" --policy go --out x.costs --harness "$harness" --base nosuch
expect_refused "--out nodir/x.costs: cannot write" --policy go --out nodir/x.costs --harness "$harness"
expect_refused "--model-set: unknown knob 'nosuch' for policy go" --policy go --out x.costs \
	--harness "$harness" --model-set nosuch=1
expect_refused "--model-set cost.poll=1: not KNOB=VALUE" --policy go --out x.costs \
	--harness "$harness" --model-set cost.poll=1
[ ! -e x.costs ] || fail "a refused fit wrote its file"
pass "bad input is refused with one line before any run"
testlib_done
