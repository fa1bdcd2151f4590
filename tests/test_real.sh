#!/usr/bin/env bash
#
# test_real.sh - the real engine (--engine=real, harness/real.c) against
# peer programs that speak the peer protocol (peers/README.md).
#
#   test_real.sh HARNESS JSON_CHECK
#
# Fake peers, written here as shell scripts (HARNESS_PEERS points at them),
# print fixed figures, so that what the harness does with a peer's lines is
# checked exactly: the measured trial's time, tasks and counters become the
# result's (the warm-up line's do not), the runtime and its version are
# recorded, the arguments the peer got are the workload's; a peer's wrong
# answer or failure fails the run with one line and no result; bad input
# (a policy without a runtime, a model's knob, a workload no peer has, a
# missing peer) is refused before any work. When scripts/peers.sh has built
# the real peers beside HARNESS (build/peers), fib and spawn-many run on
# them too and their results pass json_check and the schema check.
set -u
testlib_name=test_real
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_real.sh HARNESS JSON_CHECK}
json_check=${2:?usage: test_real.sh HARNESS JSON_CHECK}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_real.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir -p peers

# A fake peer: records its arguments, prints a header, a warm-up line and a
# measured line (fib n=10: 177 tasks; the warm-up line's figures are decoys).
# FAKE_WRONG=1: the measured trial's answer is wrong; FAKE_EXIT=N: exits N.
cat >peers/peer-tokio <<'EOF'
#!/bin/sh
echo "$@" >>"$FAKE_ARGS"
[ -n "${FAKE_EXIT:-}" ] && { echo "peer-tokio: told to fail" >&2; exit "$FAKE_EXIT"; }
echo '{"peer":"tokio","runtime":"tokio","version":"9.9-test","workload":"fib","workers":2,"params":{"n":10},"counters_available":true}'
echo '{"trial":0,"warmup":true,"ns":999,"tasks":1,"verified":true,"cpu_user_ns":1,"cpu_sys_ns":1,"counters":{},"per_worker":{"polls":[7,7]}}'
if [ "${FAKE_WRONG:-0}" = 1 ]; then
	echo '{"trial":1,"warmup":false,"ns":2000000,"tasks":177,"verified":false,"why":"fib(10) = 56, want 55","cpu_user_ns":1,"cpu_sys_ns":0,"counters":{}}'
	exit 1
fi
echo '{"trial":1,"warmup":false,"ns":2000000,"tasks":177,"verified":true,"cpu_user_ns":1000000,"cpu_sys_ns":1000000,"counters":{"remote_schedules":1},"per_worker":{"polls":[100,140],"steals":[3,4],"parks":[5,6],"overflows":[0,2]}}'
EOF
chmod +x peers/peer-tokio
export HARNESS_PEERS=$tmp/peers FAKE_ARGS=$tmp/args

run() { "$harness" "$@" >out 2>err; }
real=(--engine=real --policy=tokio-1.28 --workload=fib --param n=10 --workers 2 --quiet)

run "${real[@]}" --trials 2 --warmup 1 --json r.json || fail "a run on the fake peer: exit $?"
"$json_check" r.json >/dev/null || fail "json_check on a real-engine result"
/usr/bin/python3 "$here/tests/validate_results.py" "$here/docs/result.schema.json" r.json >out 2>&1 ||
	fail "the schema check on a real-engine result"
/usr/bin/python3 - r.json <<'EOF' || fail "the result does not hold the peer's figures"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["config"]
assert c["engine"] == "real" and c["peer"] == {"runtime": "tokio", "version": "9.9-test"}, c
assert len(d["trials"]) == 2
for t in d["trials"]:
    assert t["makespan_ns"] == 2000000 and t["tasks"] == 177, t
    # CPU 2 ms over 2 workers x 2 ms of wall time.
    assert abs(t["utilization_total"] - 0.5) < 1e-9, t["utilization_total"]
tot = d["counters_total"]
assert tot["polls"] == 2 * 240 and tot["tasks_stolen"] == 2 * 7, tot
assert tot["parks"] == 2 * 11 and tot["overflows"] == 2 * 2, tot
w = d["per_worker_counters"]
assert [x["polls"] for x in w] == [200, 280], w
EOF
# Every trial (one warm-up, two measured) is its own peer process with a
# warm-up of its own, and gets the workload's parameters.
[ "$(wc -l <args)" -eq 3 ] || fail "the peer ran $(wc -l <args) times, not 3"
grep -qx -- "--workload fib --workers 2 --trials 1 --warmup 1 --param n=10" args ||
	fail "the peer's arguments: $(head -1 args)"
pass "a real-engine result holds the peer's measured figures, runtime and version"

FAKE_WRONG=1 run "${real[@]}" --trials 1 --json w.json && fail "a peer's wrong answer passed"
grep -q "fib on real tokio computed a wrong answer: fib(10) = 56, want 55" err ||
	fail "a wrong answer is not named: $(cat err)"
[ ! -e w.json ] || fail "a wrong answer left a result file"
FAKE_EXIT=3 run "${real[@]}" --trials 1 --json x.json && fail "a failing peer passed"
grep -q "peer-tokio fib failed (exit status 3" err || fail "a peer's failure is not named: $(cat err)"
[ ! -e x.json ] || fail "a failing peer left a result file"
pass "a peer's wrong answer or failure fails the run with one line and no result"

: >args
expect_refused() {	# MESSAGE-PART ARGS...
	local want=$1
	shift
	run "$@" --no-json && fail "accepted: $*"
	[ $? -eq 2 ] || fail "not exit status 2: $*"
	grep -q -- "$want" err || fail "$*: said $(cat err)"
	[ "$(wc -l <err)" -eq 1 ] || fail "$*: more than one line: $(cat err)"
}
expect_refused "policy volt has no real runtime to run (--engine=real runs: tokio-1.28 (tokio), go (go), rayon (rayon), tbb (no model))" \
	--engine=real --policy=volt --workload=fib
# tbb has no model: the engines that run models refuse it.
expect_refused "policy tbb has no model: it runs only with --engine=real" --policy=tbb --workload=fib
expect_refused "policy tbb has no model: it runs only with --engine=real" --engine=sim --policy=tbb,volt \
	--workload=fib
expect_refused "policy tbb has no model: it runs only with --engine=real" --engine=threads \
	--policy=volt,tbb --workload=fib
expect_refused "the model's knobs do not reach it" --engine=real --policy=tokio-1.28 --workload=fib --set lifo_cap=0
expect_refused "the model's knobs do not reach it" --engine=real --policy=tokio-1.28:lifo_cap=0 --workload=fib
expect_refused "workload uts has no peer program yet" --engine=real --policy=tokio-1.28 --workload=uts
expect_refused "runs fib with cutoff=0 only" --engine=real --policy=tokio-1.28 --workload=fib --param cutoff=3
expect_refused "runs nqueens with cutoff=0 only" --engine=real --policy=go --workload=nqueens --param cutoff=4
expect_refused "workload chained-spawn under rayon: Rayon has no async tasks" --engine=real \
	--policy=tokio-1.28,rayon --workload=chained-spawn
expect_refused "workload ping-pong under tbb: oneTBB has no async tasks" --engine=real --policy=tbb \
	--workload=ping-pong
expect_refused "runs open-loop with io_us=0 only" --engine=real --policy=go --workload=open-loop \
	--param io_us=50
expect_refused "Go has no spawn from outside its workers" --engine=real --policy=go --workload=spawn-many --param from=1
expect_refused "--pin does not apply to --engine=real" --engine=real --policy=tokio-1.28 --workload=fib --pin compact
expect_refused "peer-rayon: No such file or directory (build the peers: scripts/peers.sh" \
	--engine=real --policy=rayon --workload=fib
[ ! -s args ] || fail "a refused run started the peer"
pass "bad input is refused with one line before any peer runs"

# tbb, the policy with no model: --engine=real runs its peer beside a
# model's runtime, and --list names it apart from the models, out of all.
sed 's/tokio/tbb/g' peers/peer-tokio >peers/peer-tbb
chmod +x peers/peer-tbb
run --engine=real --policy=tbb,tokio-1.28 --workload=fib --param n=10 --workers 2 --trials 1 --quiet \
	--json t.json || fail "tbb on the fake peer: exit $?"
/usr/bin/python3 - t.tbb.json <<'EOF' || fail "tbb's result does not hold its peer's figures"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["config"]
assert c["policy"] == "tbb" and c["engine"] == "real", c
assert c["peer"] == {"runtime": "tbb", "version": "9.9-test"}, c
assert [t["makespan_ns"] for t in d["trials"]] == [2000000], d["trials"]
EOF
"$harness" --list >out 2>&1 || fail "--list: exit $?"
/usr/bin/python3 - out <<'EOF' || fail "--list does not name tbb apart from the models"
import sys
text = open(sys.argv[1]).read()
models, rest = text.split("\nreal-only policies", 1)
assert "\n  tbb - " not in models, "tbb among the models"
assert "\n  tbb - " in rest.split("\nworkloads")[0], rest
EOF
run --policy=all --workload=fib --check || fail "--policy=all --check: exit $?"
grep -qw tbb out && fail "--policy=all selects tbb: $(cat out)"
pass "tbb (no model) runs on --engine=real only, listed apart and not in all"

# open-loop: the harness writes the schedule its models run for the peer
# (--schedule FILE: "n warm", then "offset service" per request), removes
# it after the trial, and keeps the peer's latency and Go's scheduling-delay
# percentiles as the trial's metrics.
cat >peers/peer-go <<'EOF'
#!/bin/sh
echo "$@" >>"$FAKE_ARGS"
while [ $# -gt 0 ]; do [ "$1" = --schedule ] && cp "$2" "$FAKE_SCHED" && echo "$2" >"$FAKE_SCHED.path"; shift; done
echo '{"peer":"go","runtime":"go","version":"go9.9","workload":"open-loop","workers":2,"params":{},"counters_available":true}'
echo '{"trial":0,"warmup":false,"ns":3000000,"tasks":200,"verified":true,"cpu_user_ns":1,"cpu_sys_ns":1,"counters":{},"latency_ns":{"p50":1500,"p90":2000,"p99":4000,"p99_9":5000,"p99_99":6000},"latency_samples":150,"sched_latency_ns":{"p50":100,"p99":900},"late_ns":{"p50":20,"p99":70}}'
EOF
chmod +x peers/peer-go
: >args
FAKE_SCHED=$tmp/sched run --engine=real --policy=go --workload=open-loop --param requests=200 \
	--param load=0.5 --param service_us=20 --workers 2 --trials 1 --warmup 0 --quiet --json ol.json ||
	fail "open-loop on the fake peer: exit $?"
grep -q -- "--workload open-loop --workers 2 --trials 1 --warmup 0 --param load=0.5 --param service_us=20 --schedule " args ||
	fail "open-loop's peer arguments: $(cat args)"
[ ! -e "$(cat "$tmp/sched.path")" ] || fail "the schedule file was left behind"
/usr/bin/python3 - "$tmp/sched" ol.json <<'EOF' || fail "open-loop's schedule or percentiles"
import json, sys
nums = [int(x) for x in open(sys.argv[1]).read().split()]
n, warm = nums[0], nums[1]
off, svc = nums[2::2], nums[3::2]
assert n == 200 and len(off) == len(svc) == 200 and 0 < warm < 100, (n, warm, len(off))
assert off[0] == 0 and off == sorted(off), off[:5]
# Exponential service of mean 20 us over 200 requests; the offered load 0.5
# on 2 workers: the horizon (the last offset and its gap) is sum(svc) / 1.
assert 10000 < sum(svc) / 200 < 30000, sum(svc) / 200
assert off[-1] < sum(svc), (off[-1], sum(svc))
d = json.load(open(sys.argv[2]))
m = d["trials"][0]["metrics"]
assert m["latency_p50_ns"] == 1500 and m["latency_p99_ns"] == 4000 and m["latency_p99_99_ns"] == 6000, m
assert m["sched_latency_p50_ns"] == 100 and m["sched_latency_p99_ns"] == 900, m
assert m["late_p50_ns"] == 20 and m["late_p99_ns"] == 70, m
EOF
pass "open-loop: the peer gets the models' schedule in a file removed after it, its percentiles are kept"

# A counter the runtime does not report is not printed as a count: Tokio's
# fake reports polls, steals (tasks moved), parks and overflows, Go's none.
# The summary shows the rows reported, or says there are none; the
# comparison table a - in each column nobody counted.
cat >peers/peer-go <<'EOF'
#!/bin/sh
echo '{"peer":"go","runtime":"go","version":"go9.9","workload":"fib","workers":2,"params":{"n":10},"counters_available":false}'
echo '{"trial":1,"warmup":false,"ns":3000000,"tasks":177,"verified":true,"cpu_user_ns":1,"cpu_sys_ns":1,"counters":{}}'
EOF
fib=(--engine=real --workload=fib --param n=10 --workers 2 --trials 1 --warmup 0)
run "${fib[@]}" --policy=tokio-1.28 || fail "fib on the fake tokio peer: exit $?"
for row in polls tasks_stolen parks overflows; do
	grep -Eq "^$row +[0-9]+ " out || fail "the summary has no $row row: $(cat out)"
done
grep -Eq "^(steals|lifo_polls|global_tasks|notifies) " out &&
	fail "the summary prints counters the runtime does not report: $(cat out)"
grep -q "the runtime reports only these" out || fail "the summary does not say which it reports"
run "${fib[@]}" --policy=go || fail "fib on the fake go peer: exit $?"
grep -q '^counters: none, go go9.9 reports none' out || fail "go's summary: $(cat out)"
grep -Eq "^(polls|steals|parks) " out && fail "go's summary prints counters: $(cat out)"
run "${fib[@]}" --policy=tokio-1.28,go || fail "the comparison on the fake peers: exit $?"
grep -Eq '^tokio-1.28 .* - +- +11$' out || fail "tokio's comparison row: $(grep '^tokio' out)"
grep -Eq '^go .* - +- +-$' out || fail "go's comparison row: $(grep '^go ' out)"
pass "counters a runtime does not report are not printed as counts"

# The real peers, when scripts/peers.sh has built them beside the harness.
built=$(dirname "$harness")/peers
if [ -x "$built/peer-tokio" ] && [ -x "$built/peer-go" ] && [ -x "$built/peer-rayon" ] &&
	[ -x "$built/peer-tbb" ]; then
	export HARNESS_PEERS=$built
	for wl in "fib --param n=16" "spawn-many --param n=1000" "nqueens --param n=8"; do
		# shellcheck disable=SC2086 # the workload and its parameter
		run --engine=real --policy=tokio-1.28,go,rayon,tbb --workload=$wl --workers 2 --trials 1 \
			--warmup 0 --quiet --json "real-${wl%% *}.json" || fail "real peers, $wl: exit $?"
	done
	for wl in "chained-spawn --param n=300" "yield-many --param tasks=20 --param yields=50" \
		"ping-pong --param pairs=50" "open-loop --param requests=300 --param service_us=20"; do
		# shellcheck disable=SC2086 # the workload and its parameters
		run --engine=real --policy=tokio-1.28,go --workload=$wl --workers 2 --trials 1 \
			--warmup 0 --quiet --json "real-${wl%% *}.json" || fail "real peers, $wl: exit $?"
	done
	for f in real-*.json; do
		"$json_check" "$f" >/dev/null || fail "json_check on $f"
	done
	/usr/bin/python3 "$here/tests/validate_results.py" "$here/docs/result.schema.json" . >out 2>&1 ||
		fail "the schema check on the real peers' results"
	pass "every shape on real Tokio and Go, the fork-join ones on Rayon and oneTBB, give valid results"
else
	echo "ok: (the real peers are not built: scripts/peers.sh builds them; skipped their runs)"
fi
testlib_done
