#!/usr/bin/env bash
#
# test_cli.sh - the harness command line, end to end.
#
#   test_cli.sh HARNESS JSON_CHECK [PART]
#
# Bad input must exit 2 with exactly one line on stderr naming the problem,
# nothing on stdout and no file created. Good input must run, verify and
# leave a result that json_check accepts. Runs in a temporary directory and
# passes --json or --no-json everywhere, so nothing is written into the tree.
# PART runs one part: "input-a", "input-b" (bad input, --list, --help),
# "runs-a", "runs-b" (real runs and their files, SIGTERM), "c2c-band",
# "speed-band" or "costs" (the sim's cost files); "input" and "runs" both
# halves. ctest runs each part as its own test, so that each
# stays well inside the time limit under the sanitizers on a loaded machine.
# Without PART every part runs.

set -u
testlib_name=test_cli
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_cli.sh HARNESS JSON_CHECK [PART]}
json_check=${2:?usage: test_cli.sh HARNESS JSON_CHECK [PART]}
part=${3:-all}
case "$part" in
all | input | input-a | input-b | runs | runs-a | runs-b | c2c-band | speed-band | costs) ;;
*) echo "test_cli: unknown part '$part' (input[-a|-b], runs[-a|-b], c2c-band, speed-band," \
	"costs or all)" >&2
	exit 1 ;;
esac
wanted() { [ "$part" = all ] || [ "$part" = "$1" ] || [ "$part" = "${1%-[ab]}" ]; }
for prog in "$harness" "$json_check"; do
	[ -x "$prog" ] || { echo "test_cli: $prog is not an executable file" >&2; exit 1; }
done
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")
json_check=$(cd "$(dirname "$json_check")" && pwd)/$(basename "$json_check")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# A small real run: two workers, fib(20), a couple of trials.
small=(--policy=volt --workload=fib --param n=20 --workers 2 --trials 2 --warmup 0)

# expect_bad NAME WORD ARGS...: exit 2, one stderr line containing WORD,
# empty stdout, no file created.
expect_bad() {
	local name=$1 word=$2
	shift 2
	rm -rf "$tmp/o" && mkdir "$tmp/o"
	"$harness" "$@" --json "$tmp/o/r.json" >"$tmp/out" 2>"$tmp/err" </dev/null
	local status=$?
	[ "$status" -eq 2 ] || fail "$name: exit status $status, expected 2"
	local lines
	lines=$(grep -c '' "$tmp/err")
	[ "$lines" -eq 1 ] || fail "$name: $lines lines on stderr, expected 1"
	grep -qF -- "$word" "$tmp/err" || fail "$name: stderr does not mention '$word'"
	[ -s "$tmp/out" ] && fail "$name: wrote to stdout"
	[ -z "$(ls -A "$tmp/o")" ] || fail "$name: created $(ls -A "$tmp/o")"
	pass "$name: $(cat "$tmp/err")"
	rm -rf "$tmp/o" "$tmp/out" "$tmp/err"
}

# ---- bad input, --list, --help
if wanted input-a; then
expect_bad "unknown policy" "nosuchpolicy" --policy=nosuchpolicy --workload=fib
expect_bad "unknown workload" "nosuchworkload" --policy=volt --workload=nosuchworkload
expect_bad "unknown knob" "nosuchknob" --policy=volt --workload=fib --set nosuchknob=1
expect_bad "knob out of range" "range" --policy=volt --workload=fib --set budget=0
expect_bad "non-numeric knob" "not a number" --policy=volt --workload=fib --set budget=lots
expect_bad "tree parameter beside a preset" "preset=custom" --policy=volt --workload=uts \
	--param preset=T1 --param b0=8
# --c2c-band: LO..HI with 0 < LO < HI; "45." must not swallow the first dot.
for band in 45 ..115 45.. 115..45 0..5 a..5 45..115x 1..2000000 " 4..5"; do
	expect_bad "--c2c-band '$band'" "c2c-band" --policy=volt --workload=fib --c2c-band "$band"
done
expect_bad "--c2c-band on the sim" "threads only" --policy=volt --workload=fib --engine=sim \
	--c2c-band 45..115
for band in 4000 3800.. 4400..3800 0..5 3800..4400x; do
	expect_bad "--speed-band '$band'" "speed-band" --policy=volt --workload=fib --speed-band "$band"
done
expect_bad "--speed-band on the sim" "threads only" --policy=volt --workload=fib --engine=sim \
	--speed-band 3800..4400
fi
if wanted input-b; then
expect_bad "unknown param" "nosuchparam" --policy=volt --workload=fib --param nosuchparam=3
expect_bad "param out of range" "range" --policy=volt --workload=fib --param n=100000
expect_bad "--workers 0" "workers" --policy=volt --workload=fib --workers 0
expect_bad "--workers 1025" "workers" --policy=volt --workload=fib --workers 1025
expect_bad "--trials 0" "trials" --policy=volt --workload=fib --trials 0
expect_bad "--trials neither a count nor auto" "trials" --policy=volt --workload=fib --trials autox
expect_bad "--ci-target 0" "ci-target" --policy=volt --workload=fib --ci-target 0
expect_bad "--ci-target 100%" "ci-target" --policy=volt --workload=fib --ci-target 100%
expect_bad "--ci-target not a number" "ci-target" --policy=volt --workload=fib --ci-target two
expect_bad "--ci-target 2%%" "ci-target" --policy=volt --workload=fib --ci-target 2%%
expect_bad "--ci-target beside --trials N" "--trials auto" --policy=volt --workload=fib \
	--trials 5 --ci-target 2%
expect_bad "--trials-max below the minimum" "trials-max" --policy=volt --workload=fib \
	--trials auto --trials-max 5
expect_bad "--trials-max without auto" "trials-max" --policy=volt --workload=fib --trials-max 20
expect_bad "--trials-time without auto" "trials-time" --policy=volt --workload=fib --trials-time 60
expect_bad "--trials-time of 0" "trials-time" --policy=volt --workload=fib --trials auto \
	--trials-time 0
expect_bad "--trials-time not a number" "trials-time" --policy=volt --workload=fib --trials auto \
	--trials-time 1m
expect_bad "--trials-max beside --trials N" "trials-max" --policy=volt --workload=fib \
	--trials 5 --trials-max 20
expect_bad "--ci-target with --explore" "ci-target" --policy=volt --workload=fib --engine=sim \
	--explore 2 --ci-target 2
expect_bad "missing --policy" "policy" --workload=fib
expect_bad "unknown option" "--nosuchoption" --policy=volt --workload=fib --nosuchoption=1
expect_bad "duplicate option" "twice" --policy=volt --workload=fib --trials 2 --trials=3
expect_bad "duplicate knob" "twice" --policy=volt --workload=fib --set budget=2 --set budget=3
expect_bad "policy check hook" "64" --policy=volt --workload=fib --workers 65
# Every policy bound to a 64-bit parked bitmap refuses a 65th worker on the
# simulation engine too (which runs the others on 1024: test_sim_scaling).
for p in volt steal-one blumofe-leiserson locality; do
	expect_bad "$p on 65 simulated workers" "at most 64 workers" --policy=$p --workload=fib \
		--engine=sim --workers 65
done

# --list: every policy and workload with its knobs and parameters.
"$harness" --list >"$tmp/out" 2>"$tmp/err" || fail "--list: exit status $?"
for word in volt fib budget lifo_cap; do
	grep -qw -- "$word" "$tmp/out" || fail "--list does not mention $word"
done
grep -qE '^ +n +' "$tmp/out" || fail "--list does not list the fib parameter n"
pass "--list"

"$harness" --help >"$tmp/out" 2>"$tmp/err" || fail "--help: exit status $?"
grep -q -- "--policy" "$tmp/out" || fail "--help does not describe --policy"
pass "--help"
fi

# ---- real runs and their result files
if wanted runs-a; then
# A preset is recorded as the tree it stands for, not beside unused defaults.
"$harness" --policy=volt --workload=uts --param preset=T3-small --workers 2 --trials 1 \
	--warmup 0 --no-baseline --json "$tmp/uts.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "uts T3-small: exit status $?"
grep -q '^workload   uts (preset=T3-small, type=binomial, .*b0=2000, .*q=0.124875, m=8, seed=0' \
	"$tmp/out" || fail "uts T3-small: the header does not show the binomial tree"
/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["config"]["params"]
assert (p["type"], p["b0"], p["q"], p["m"], p["seed"]) in (
    ("binomial", 2000, 0.124875, 8, 0), (0, 2000, 0.124875, 8, 0)), p
' "$tmp/uts.json" || fail "uts T3-small: the result file does not record the binomial tree"
pass "a uts preset is recorded as its tree"

# A real run writes a result that passes the schema check.
"$harness" "${small[@]}" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "small run: exit status $?"
[ -f "$tmp/r.json" ] || fail "small run: $tmp/r.json not written"
grep -q "^median" "$tmp/out" || fail "small run: no median line on stdout"
grep -q "result: $tmp/r.json" "$tmp/out" || fail "small run: stdout does not name the result"
grep -q "^trial 2/2" "$tmp/err" || fail "small run: no progress on stderr"
ls "$tmp"/r.json.*.tmp >/dev/null 2>&1 && fail "small run: left a temporary file"
pass "small run"

"$json_check" "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" || fail "json_check rejects the result"
pass "json_check accepts the result"

# The checker must be able to fail: a wrong schema version is caught.
sed 's/"schema_version": *1/"schema_version": 2/' "$tmp/r.json" >"$tmp/bad.json"
"$json_check" "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err" && fail "json_check accepts schema_version 2"
pass "json_check rejects a wrong schema version"

"$harness" "${small[@]}" --set lifo_cap=0 --no-baseline --json "$tmp/nolifo.json" \
	>"$tmp/out" 2>"$tmp/err" || fail "--set lifo_cap=0: exit status $?"
grep -Eq '"lifo_cap": *0([^0-9.]|$)' "$tmp/nolifo.json" || fail "--set lifo_cap=0 not in the result"
"$json_check" "$tmp/nolifo.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "json_check rejects the --no-baseline result"
pass "--set lifo_cap=0 --no-baseline"

rm -f "$tmp/out" "$tmp/err"
before=$(ls -A "$tmp")
"$harness" "${small[@]}" --no-json >"$tmp/out" 2>"$tmp/err" || fail "--no-json: exit status $?"
rm -f "$tmp/out" "$tmp/err"
[ "$(ls -A "$tmp")" = "$before" ] || fail "--no-json created a file: $(ls -A "$tmp")"
pass "--no-json"
fi
if wanted runs-b; then
# --hdr: HdrHistogram's percentile distribution, readable by its plotters,
# counting as many samples as the result file's histogram.
"$harness" "${small[@]}" --json "$tmp/h.json" --hdr "$tmp/h.hgrm" >"$tmp/out" 2>"$tmp/err" ||
	fail "--hdr: exit status $?"
[ "$(head -n 1 "$tmp/h.hgrm")" = "       Value   Percentile   TotalCount 1/(1-Percentile)" ] ||
	fail "--hdr: header line is '$(head -n 1 "$tmp/h.hgrm")'"
grep -q '^#\[Buckets = ' "$tmp/h.hgrm" || fail "--hdr: no buckets footer"
hdr_total=$(sed -n 's/^#\[Max .*Total count *= *\([0-9]*\)\]$/\1/p' "$tmp/h.hgrm")
json_total=$(tr -d ' \n' <"$tmp/h.json" | sed -n 's/.*"sched_delay_ns":{[^}]*"count":\([0-9]*\).*/\1/p')
[ -n "$hdr_total" ] && [ "$hdr_total" = "$json_total" ] ||
	fail "--hdr: total count '$hdr_total' differs from the result's '$json_total'"
tail -n 4 "$tmp/h.hgrm" | head -n 1 | grep -q ' inf$' || fail "--hdr: last row does not end in inf"
pass "--hdr writes the percentile distribution"

# --trace: Chrome trace events, one named row per worker, bounded.
"$harness" "${small[@]}" --no-json --trace "$tmp/t.json" --trace-events 500 \
	>"$tmp/out" 2>"$tmp/err" || fail "--trace: exit status $?"
grep -q '"traceEvents": \[' "$tmp/t.json" || fail "--trace: no traceEvents array"
[ "$(grep -c '"name":"thread_name"' "$tmp/t.json")" -eq 2 ] || fail "--trace: not one row per worker"
events=$(grep -c '"ph":"X"' "$tmp/t.json")
[ "$events" -ge 10 ] && [ "$events" -le 1000 ] || fail "--trace: $events events for a 500-per-worker bound"
grep -q '"events_dropped":[1-9]' "$tmp/t.json" || fail "--trace: the bound dropped nothing on fib(20)"
"$json_check" --parse-only "$tmp/t.json" >"$tmp/out" 2>"$tmp/err" || fail "--trace: not valid JSON"
pass "--trace writes bounded Chrome trace events"

# Comparison mode: several policies, one table, one result file each.
"$harness" --policy=all --workload=fib --param n=18 --workers 2 --trials 2 --warmup 0 \
	--no-json >"$tmp/out" 2>"$tmp/err" || fail "--policy=all: exit status $?"
grep -q '^policy  *ns/task  *\[95% interval\]' "$tmp/out" || fail "--policy=all printed no comparison table"
for p in volt tokio fixed-interval-61 go rayon steal-one central-queue static-partition locality; do
	[ "$(grep -cE "^$p +[0-9]" "$tmp/out")" -eq 1 ] ||
		fail "--policy=all: the comparison table has no single row for $p"
done
grep -q 'volt-broken' "$tmp/out" && fail "--policy=all ran the test-only volt-broken"
pass "--policy=all"

# SIGTERM mid-run removes the temporary result file and leaves no result.
mkdir "$tmp/sig"
"$harness" --policy=volt --workload=fib --param n=30 --workers 2 --trials 1000 --warmup 0 \
	--json "$tmp/sig/r.json" >"$tmp/out" 2>"$tmp/err" &
pid=$!
# However slow the start, the temporary file comes before the first trial
# (ctest's limit bounds the wait); a run that ends first has failed.
until ls "$tmp"/sig/r.json.*.tmp >/dev/null 2>&1; do
	kill -0 "$pid" 2>/dev/null || fail "the run ended with no temporary file: $(cat "$tmp/err")"
	sleep 0.05
done
kill -TERM "$pid"
wait "$pid"
status=$?
[ "$status" -eq 143 ] || fail "SIGTERM: exit status $status, expected 143"
[ -z "$(ls -A "$tmp/sig")" ] || fail "SIGTERM left $(ls -A "$tmp/sig")"
pass "SIGTERM cleans up"
fi

# ---- --c2c-band
if wanted c2c-band; then
# A band no round trip falls in: the trial waits for it, is run again, and
# is kept flagged (unless this machine cannot probe at all). How many times
# it runs again depends on the clock (the band's time per process is
# capped), so only what the code decides is asserted: never more than 4
# re-runs, each announced on stderr, the trial's and the run's counts
# agreeing. test_noise pins the rule itself (noise_band_rerun).
"$harness" --policy=volt --workload=fib --param n=12 --workers 2 --trials 1 --warmup 0 \
	--no-baseline --c2c-band 1..2 --json "$tmp/band.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "--c2c-band run: exit status $?"
"$json_check" "$tmp/band.json" >/dev/null || fail "--c2c-band run: the result fails the schema"
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n, t = d["noise"], d["trials"][0]["noise"]
assert n["c2c_band_ns"] == {"lo": 1, "hi": 2}, n["c2c_band_ns"]
again = open(sys.argv[2]).read().count("), run again")
if t["c2c_before_ns"] is not None:
    assert 0 <= t["retries"] <= 4 and "c2c_band" in t["reasons"], t
    assert n["retried"] == t["retries"] and n["reasons"]["c2c_band"] == 1, n
else:
    assert t["retries"] == 0 and n["retried"] == 0, (t, n)
assert again == t["retries"], (again, t)
' "$tmp/band.json" "$tmp/err" || fail "--c2c-band run: the trial was not kept flagged with its re-runs"
pass "--c2c-band runs a trial outside the band again (at most 4 times) and flags it"

fi

# ---- --speed-band
if wanted speed-band; then
# The same with a band no compute probe falls in; every trial carries its
# probes and the run their range.
"$harness" --policy=volt --workload=fib --param n=12 --workers 1 --trials 1 --warmup 0 \
	--no-baseline --speed-band 1..2 --json "$tmp/sband.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "--speed-band run: exit status $?"
"$json_check" "$tmp/sband.json" >/dev/null || fail "--speed-band run: the result fails the schema"
/usr/bin/python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
n, t = d["noise"], d["trials"][0]["noise"]
assert n["speed_band_ns"] == {"lo": 1, "hi": 2}, n["speed_band_ns"]
k = t["kernel_ns"]
assert len(k) == 1 and isinstance(k[0], int) and k[0] >= 0, t
if t["speed_before_ns"] is not None:
    assert t["speed_before_ns"] > 2 and t["speed_after_ns"] > 2, t
    r = n["speed_range_ns"]
    assert r["min"] == min(t["speed_before_ns"], t["speed_after_ns"]), (r, t)
    assert r["max"] == max(t["speed_before_ns"], t["speed_after_ns"]), (r, t)
    assert 0 <= t["retries"] <= 4 and "speed_band" in t["reasons"], t
    assert "c2c_band" not in t["reasons"], t
    assert n["retried"] == t["retries"] and n["reasons"]["speed_band"] == 1, n
    assert re.search(r"compute probe [0-9]+\.\.[0-9]+ ns", open(sys.argv[2]).read()), \
        "the summary does not give the compute probes range"
else:
    assert t["retries"] == 0 and n["retried"] == 0, (t, n)
again = open(sys.argv[3]).read().count("), run again")
assert again == t["retries"], (again, t)
' "$tmp/sband.json" "$tmp/out" "$tmp/err" ||
	fail "--speed-band run: the trial was not kept flagged with its re-runs"
pass "--speed-band runs a trial outside the band again (at most 4 times) and flags it"
fi

# ---- sim costs: --costs auto, cost files, --set cost.NAME
if wanted costs; then
# --costs auto: this machine's calibration in the cache, or a clear error naming where it looked.
export XDG_CACHE_HOME="$tmp/cache"
expect_bad "--costs auto without a calibration" "no calibration of this machine" \
	--policy=volt --workload=fib --engine=sim --costs auto
"$harness" --policy=volt --workload=fib --engine=sim --costs auto --json "$tmp/x.json" \
	>"$tmp/out" 2>"$tmp/err.auto"
entry=$(sed -n 's/.* at \(.*\); make one with.*/\1/p' "$tmp/err.auto")
case "$entry" in
"$XDG_CACHE_HOME"/harness/costs-*.txt) pass "--costs auto looks for $entry" ;;
*) fail "--costs auto: no cache entry under XDG_CACHE_HOME named in: $(cat "$tmp/err.auto")" ;;
esac
mkdir -p "$(dirname "$entry")"
printf 'poll = 5\ncold_start = 40\nline_transfer = 30\nlock_transfer = 70\nlock_wait = 45\ncontended = 25\nwork.fib = 11\nwork.sort = 900\npoll.volt = 6\npoll.go = 9\n' >"$entry"
"$harness" --policy=volt --workload=fib --param n=12 --engine=sim --workers 2 --trials 1 \
	--warmup 0 --costs auto --json "$tmp/auto.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "--costs auto with a calibration: exit status $?"
grep -q '^sim model: work .* (.* polls x 11 ns), cold starts .* x 40 ns), line transfers .* x 30 ns), lock transfers .* x 70 ns), lock handoffs .* waits x 45 ns), contention .* x 25 ns)' \
	"$tmp/out" || fail "no 'sim model:' line in the summary: $(grep -c '' "$tmp/out") lines"
/usr/bin/python3 - "$tmp/auto.json" "$entry" <<'PY' >"$tmp/out" 2>&1 ||
import json, sys
d = json.load(open(sys.argv[1]))
c = d["config"]
assert c["sim_costs_file"]["path"] == sys.argv[2], c["sim_costs_file"]
assert 0 <= c["sim_costs_file"]["age_s"] < 3600, c["sim_costs_file"]
assert c["sim_costs_ns"]["poll"] == 5
# fib's work, not sort's: the entry of the workload run.
assert c["sim_model_ns"] == {"cold_start": 40, "cold_after": 1000000, "line_transfer": 30,
                             "lock_transfer": 70, "lock_wait": 45, "contended": 25,
                             "spawn_fresh": 0, "notify_deep": 0, "halt_poll": 200000,
                             "halt_poll_shrink": 0, "work": 11, "policy_poll": 6}, \
    c["sim_model_ns"]
m = d["sim_model"]
assert m["charged_ns"]["work"] == 11 * d["counters_total"]["polls"], m
assert m["charged_ns"]["cold_start"] == 40 * (m["counters_total"]["cold_migrated"] +
                                              m["counters_total"]["cold_aged"]), m
assert m["charged_ns"]["line_transfer"] == 30 * m["counters_total"]["remote_joins"], m
assert m["charged_ns"]["lock_transfer"] == 70 * m["counters_total"]["remote_locks"], m
assert m["charged_ns"]["lock_wait"] == 45 * m["counters_total"]["lock_waits"], m
assert m["charged_ns"]["contended"] == 25 * (m["counters_total"]["cold_migrated"] +
                                             m["counters_total"]["remote_joins"] +
                                             m["counters_total"]["remote_rmws"]), m
assert m["charged_ns"]["spawn_fresh"] == 0 and m["counters_total"]["fresh_spawns"] > 0, m
assert m["charged_ns"]["notify_deep"] == 0 and m["counters_total"]["deep_notifies"] == 0, m
# volt's own per-poll figure, not go's: the entry of the policy run.
assert m["charged_ns"]["policy_poll"] == 6 * d["counters_total"]["polls"], m
PY
	fail "--costs auto result: $(cat "$tmp/out")"
"$json_check" "$tmp/auto.json" >"$tmp/out" 2>&1 || fail "json_check rejects $tmp/auto.json"
# volt's holds of the global queue's lock hardly ever wait; central-queue's,
# whose every task passes through it, do: each wait charged lock_wait.
"$harness" --policy=central-queue --workload=fib --param n=12 --engine=sim --workers 2 \
	--trials 1 --warmup 0 --costs auto --json "$tmp/auto-cq.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "--costs auto under central-queue: exit status $?"
/usr/bin/python3 - "$tmp/auto-cq.json" <<'PY' >"$tmp/out" 2>&1 ||
import json, sys
m = json.load(open(sys.argv[1]))["sim_model"]
assert m["counters_total"]["lock_waits"] > 0, m
assert m["charged_ns"]["lock_wait"] == 45 * m["counters_total"]["lock_waits"], m
PY
	fail "--costs auto under central-queue: $(cat "$tmp/out")"
# Tokio's notify checks write its idle state: some of them follow the other
# worker's, each charged line_transfer with the remote joins.
"$harness" --policy=tokio --workload=fib --param n=12 --engine=sim --workers 2 \
	--trials 1 --warmup 0 --costs auto --json "$tmp/auto-tk.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "--costs auto under tokio: exit status $?"
/usr/bin/python3 - "$tmp/auto-tk.json" <<'PY' >"$tmp/out" 2>&1 ||
import json, sys
m = json.load(open(sys.argv[1]))["sim_model"]
assert m["counters_total"]["remote_rmws"] > 0, m
assert m["charged_ns"]["line_transfer"] == 30 * (m["counters_total"]["remote_joins"] +
                                                 m["counters_total"]["remote_rmws"]), m
assert m["charged_ns"]["contended"] == 25 * (m["counters_total"]["cold_migrated"] +
                                             m["counters_total"]["remote_joins"] +
                                             m["counters_total"]["remote_rmws"]), m
PY
	fail "--costs auto under tokio: $(cat "$tmp/out")"
pass "--costs auto reads this machine's entry and records its path, age and the model's charges"
printf 'work.nosuch = 3\n' >"$tmp/badwork"
expect_bad "a work cost of no workload" "no workload nosuch" --policy=volt --workload=fib \
	--engine=sim --costs "$tmp/badwork"
expect_bad "--set cost.work of no workload" "no workload nosuch" --policy=volt --workload=fib \
	--engine=sim --set cost.work.nosuch=3
expect_bad "--set cost.poll of no policy" "no policy nosuch" --policy=volt --workload=fib \
	--engine=sim --set cost.poll.nosuch=3
expect_bad "a negative work cost" "cost.work.fib: '-3' is not a whole number of ns in [0, 10000000]" \
	--policy=volt --workload=fib --engine=sim --set cost.work.fib=-3
printf 'work.fib = 11\npoll.go = -4\ncold_start = -1\n' >"$tmp/negcost"
expect_bad "a negative cost other than poll.NAME in a file" "cold_start: '-1' is not a whole number of ns in [0, 10000000]" \
	--policy=go --workload=fib --engine=sim --costs "$tmp/negcost"
# poll.NAME may be negative (a policy whose poll does less than volt's): in a file and with
# --set, charged per poll and recorded with its sign.
printf 'work.fib = 11\npoll.go = -4\n' >"$tmp/negcost"
"$harness" --policy=go --workload=fib --param n=12 --engine=sim --workers 1 --trials 1 \
	--warmup 0 --costs "$tmp/negcost" --set cost.poll.volt=-2 --json "$tmp/neg.json" \
	>"$tmp/out" 2>"$tmp/err" || fail "a negative poll.NAME: exit status $? ($(cat "$tmp/err"))"
/usr/bin/python3 - "$tmp/neg.json" <<'PY' >"$tmp/out" 2>&1 ||
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["sim_model_ns"]["policy_poll"] == -4, d["config"]["sim_model_ns"]
m = d["sim_model"]
assert m["charged_ns"]["policy_poll"] == -4 * d["counters_total"]["polls"], m
PY
	fail "a negative poll.NAME's result: $(cat "$tmp/out")"
"$json_check" "$tmp/neg.json" >"$tmp/out" 2>&1 || fail "json_check rejects $tmp/neg.json"
pass "poll.NAME may be negative, from a file or --set; no other cost may"
# The documented bound, 10000000 ns (and its negative for poll.NAME), is a
# cost, from a file and with --set, and lands in the model; one more is not.
printf 'cold_start = 10000000\npoll.volt = -10000000\n' >"$tmp/maxcost"
"$harness" --policy=volt --workload=fib --param n=12 --engine=sim --workers 1 --trials 1 \
	--warmup 0 --no-baseline --costs "$tmp/maxcost" --set cost.work.fib=10000000 \
	--json "$tmp/max.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "costs of 10000000 ns: exit status $? ($(cat "$tmp/err"))"
/usr/bin/python3 - "$tmp/max.json" <<'PY' >"$tmp/out" 2>&1 ||
import json, sys
m = json.load(open(sys.argv[1]))["config"]["sim_model_ns"]
assert (m["cold_start"], m["work"], m["policy_poll"]) == (10000000, 10000000, -10000000), m
PY
	fail "costs of 10000000 ns: $(cat "$tmp/out")"
expect_bad "a --set cost above 10000000 ns" "cost.work.fib: '10000001' is not a whole number of ns in [0, 10000000]" \
	--policy=volt --workload=fib --engine=sim --set cost.work.fib=10000001
printf 'poll.go = -10000001\n' >"$tmp/overcost"
expect_bad "a cost file's poll.NAME below -10000000 ns" "poll.go: '-10000001' is not a whole number of ns in [-10000000, 10000000]" \
	--policy=go --workload=fib --engine=sim --costs "$tmp/overcost"
pass "costs reach their documented bound of 10000000 ns and stop there"
unset XDG_CACHE_HOME
fi

echo "test_cli: $passed passed, $failed failed"
[ "$passed" -gt 0 ]
