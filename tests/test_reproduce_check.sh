#!/usr/bin/env bash
#
# test_reproduce_check.sh - scripts/reproduce.sh --check (scripts/reproduce_check.py).
#
#   test_reproduce_check.sh HARNESS
#
# Two "reproductions" made of a sim result and a threads result each: the
# same sim run twice is identical but for provenance (exit 0); a sim result
# changed in one field is reported with the field (exit 1); a threads median
# moved outside both intervals is reported without a recorded cause (exit 1)
# and accepted with one, each named: flagged trials, different round-trip
# regimes, a round trip that moved within a run, a busy machine (load
# average), while a round trip that stayed within the ratio and a quiet
# machine are no cause; a result with no noise record cannot be a cause. A
# threads result missing from the new run fails, unless reproduced.json
# says the new run reran only the sim engine. The validation table (part 5)
# gives sim / threads per cell, names a miss, and takes the
# median of the threads trials made in the round-trip regime of the
# calibration's runs (all of them, said, when fewer than 2 are).
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
grep -q "sim result differs: raw/fib-sim.json (in counters_total;" "$tmp/out" ||
	fail "sim difference not named with its key"
cp "$tmp/sim.json" "$tmp/new/raw/fib-sim.json"
echo "ok: a changed sim result is named"

move='m = d["median"]; m["makespan_ns"] *= 100; c = m["ci95"]["makespan_ns"]; c["lo"] *= 100; c["hi"] *= 100'
quiet="d['noise']['flagged'] = 0; d['noise']['c2c_regime_ns'] = {'min': 60.0, 'max': 70.0}; d['provenance']['load_average'] = [0.1, 0.1, 0.1]"
edit "$tmp/new/raw/fib-threads.json" "$move; $quiet"
edit "$tmp/ref/raw/fib-threads.json" "$quiet; d['noise']['c2c_regime_ns'] = {'min': 55.0, 'max': 75.0}"
check && fail "a threads median outside both intervals with no cause passed"
grep -q "no recorded cause" "$tmp/out" || fail "the missing cause is not said"
grep -q "(+9900.0%)" "$tmp/out" || fail "the relative difference is not given"
echo "ok: a threads difference without a recorded cause fails (60..70 ns against 55..75 ns, load 0.1)"

cp "$tmp/ref/raw/fib-threads.json" "$tmp/ref.json"
edit "$tmp/ref/raw/fib-threads.json" "d['noise']['c2c_regime_ns'] = {'min': 300.0, 'max': 320.0}"
check || fail "a threads difference in another round-trip regime: exit $?"
grep -q "cause: different round-trip regimes (60..70 ns here, 300..320 ns there)" "$tmp/out" ||
	fail "the regimes are not named"
echo "ok: different round-trip regimes are a cause"
edit "$tmp/ref/raw/fib-threads.json" "d['noise']['c2c_regime_ns'] = {'min': 50.0, 'max': 320.0}"
check || fail "a round trip that moved within a run: exit $?"
grep -q "the round trip moved there (50..320 ns)" "$tmp/out" || fail "the move is not named"
echo "ok: a round trip that moved within a run is a cause"
cp "$tmp/ref.json" "$tmp/ref/raw/fib-threads.json"
edit "$tmp/ref/raw/fib-threads.json" "d['provenance']['load_average'] = [7.3, 6, 4]; d['provenance']['cores_online'] = 2"
check || fail "a threads difference on a busy machine: exit $?"
grep -q "cause: busy machine there (load average 7.3 on 2 CPUs)" "$tmp/out" ||
	fail "the load is not named"
echo "ok: a busy machine is a cause"
edit "$tmp/ref/raw/fib-threads.json" "d['provenance']['load_average'] = [0.6, 0.6, 0.6]"
check && fail "a load average under the threshold counted as a cause"
cp "$tmp/ref.json" "$tmp/ref/raw/fib-threads.json"
edit "$tmp/ref/raw/fib-threads.json" "del d['noise']; d['provenance']['c2c_round_trip_ns'] = 65.0"
check && fail "a result without a noise record gave a cause"
grep -q "no recorded cause (no noise record there" "$tmp/out" ||
	fail "the missing noise record is not said"
echo "ok: a result without a noise record names no cause, and says why"
cp "$tmp/ref.json" "$tmp/ref/raw/fib-threads.json"

edit "$tmp/new/raw/fib-threads.json" "d['noise']['flagged'] = 2"
check || fail "a threads difference with flagged trials: exit $?"
grep -q "here 2 of 3 trials flagged" "$tmp/out" || fail "the flagged trials are not named"
grep -q "1 outside with a recorded cause, 0 without" "$tmp/out" || fail "counts"
echo "ok: a threads difference is put down to its flagged trials"

# A new run that reran the sim engine only.
rm "$tmp/new/raw/fib-threads.json"
check && fail "a threads result missing from the new run passed"
grep -q "only under $tmp/ref: raw/fib-threads.json" "$tmp/out" || fail "the missing file is not named"
echo '{"parts": [1, 2, 3, 4], "engines": ["sim"]}' >"$tmp/new/reproduced.json"
check || fail "a sim-only reproduction: exit $?"
grep -q "sim 1 identical.*0 on one side only; 1 not rerun" "$tmp/out" || fail "not-rerun count"
echo "ok: a sim-only reproduction is compared on what it reran"

# A whole part the reference does not have: one line naming it, and a failure.
mkdir -p "$tmp/new/9-extra/raw"
cp "$tmp/new/raw/fib-sim.json" "$tmp/new/9-extra/raw/a.json"
cp "$tmp/new/raw/fib-sim.json" "$tmp/new/9-extra/raw/b.json"
check && fail "a part missing from the reference passed"
grep -q "only under $tmp/new: all of part 9-extra (2 results); $tmp/ref has none of it" \
	"$tmp/out" || fail "the missing part is not named"
[ "$(grep -c "only under" "$tmp/out")" -eq 1 ] || fail "the missing part takes more than one line"
rm -r "$tmp/new/9-extra"
echo "ok: a part the reference lacks is named in one line"

# A sim result made on other costs (part 5 calibrates the machine it runs on) is named, not
# compared; the cost file's path alone does not make a difference.
/usr/bin/python3 - "$tmp/new/raw/fib-sim.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["config"]["sim_costs_file"] = {"path": "elsewhere/costs.txt", "age_s": 5.0}
json.dump(d, open(sys.argv[1], "w"))
EOF
check || fail "a sim result with another cost file path: exit $?"
grep -q "sim 1 identical" "$tmp/out" || fail "the cost file's path made a sim difference"
/usr/bin/python3 - "$tmp/new/raw/fib-sim.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["config"]["sim_costs_ns"]["poll"] += 1
d["trials"][0]["makespan_ns"] += 1
json.dump(d, open(sys.argv[1], "w"))
EOF
check || fail "a sim result on another calibration: exit $?"
grep -q "sim 0 identical, 0 different, 1 on another calibration" "$tmp/out" ||
	fail "a sim result on other costs: $(tail -1 "$tmp/out")"
echo "ok: a sim result on other costs is named, not compared"

# The validation table (part 5): sim / threads per cell from the files, and a cell whose sim
# is far off (a work cost 1,000 times too large) named as a miss.
mkdir -p "$tmp/val/raw"
"$harness" --policy=volt --workload=fib --param n=14 --workers 1 --trials 3 --warmup 0 \
	--no-baseline --quiet --json "$tmp/val/raw/fib-threads-1w.json" || fail "harness threads run"
"$harness" --policy=volt --workload=fib --param n=14 --workers 1 --engine=sim --trials 1 \
	--warmup 0 --quiet --set cost.work.fib=100000 --json "$tmp/val/raw/fib-sim-1w.json" ||
	fail "harness sim run"
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/val/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
/usr/bin/python3 - "$tmp/val/raw" "$tmp/out" <<'EOF' || fail "--table sim-vs-threads: $(cat "$tmp/out")"
import json, os, re, sys
med = lambda v: sorted(v)[len(v) // 2]
ms = {}
for e in ("threads", "sim"):
    d = json.load(open(os.path.join(sys.argv[1], "fib-%s-1w.json" % e)))
    ms[e] = med([t["makespan_ns"] for t in d["trials"]])
out = open(sys.argv[2]).read()
row = [l for l in out.splitlines() if l.startswith("| fib | 1 | volt |")]
assert len(row) == 1, out
ratio = float(row[0].split("|")[6].split()[0])
assert abs(ratio - ms["sim"] / ms["threads"]) < 0.01 * ratio, (ratio, ms)
assert "**miss**" in row[0] and ratio > 10, row
assert "0 of 1 cells within tolerance" in out, out
assert re.search(r"^- fib, 1 worker, volt: makespan sim / threads", out, re.M), out
EOF
echo "ok: the validation table gives sim / threads per cell and names a miss"

# A cell is the median of the threads trials made in the round-trip regime of the
# calibration's runs (costs.txt): three trials in it at 100..120 ms, four in a slow
# regime at 400 ms and more; the sim at 110 ms is within, against the median of all of them
# it would miss. With one trial in the regime the cell falls back to all of them and says so.
mkdir -p "$tmp/reg/raw"
"$harness" --policy=volt --workload=fib --param n=14 --workers 2 --trials 7 --warmup 0 \
	--no-baseline --quiet --json "$tmp/reg/raw/fib-threads-2w.json" || fail "harness threads run"
"$harness" --policy=volt --workload=fib --param n=14 --workers 2 --engine=sim --trials 1 \
	--warmup 0 --quiet --json "$tmp/reg/raw/fib-sim-2w.json" || fail "harness sim run"
printf '%s\n' "# core-to-core round trip (CPU 0 <-> 1, median): 66.0 ns before, 64.0 ns after" \
	"# the fastest of 3 runs in the round-trip regime 62.0..68.0 ns (of 5 made): run 1 ms" \
	"# the fastest of 3 runs in the round-trip regime 64.0..70.0 ns (of 9 made): run 1 ms" \
	>"$tmp/reg/costs.txt"
trials() {
	edit "$tmp/reg/raw/fib-threads-2w.json" "
for t, (ms, a, b) in zip(d['trials'], $1):
    t['makespan_ns'] = ms * 1e6
    t['noise']['c2c_before_ns'], t['noise']['c2c_after_ns'] = a, b"
}
edit "$tmp/reg/raw/fib-sim-2w.json" "d['trials'][0]['makespan_ns'] = 110e6"
trials '[(100, 65, 66), (400, 400, 410), (110, 70, 63), (450, 66, 405), (120, 90, 100),
	(500, 410, 390), (420, 405, 70)]'
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
row=$(grep '^| fib | 2 | volt |' "$tmp/out")
[[ $row = *"| 110 "*"| 1.00 "*"within 20% | 3 of 7 | 0.28 |"* ]] ||
	fail "the cell is not the median of the trials in the regime: $row"
grep -q "threads runs were taken in the round-trip regime 62..70 ns" "$tmp/out" ||
	fail "the summary does not give the fits' regime"
# ... and at the calibration's compute speed for 2 workers, where the file names one: of the
# three trials in the regime (100, 110, 120 ms), the one whose compute probes lie within 1.1
# times of 4,000..4,100 ns and the one without probes; not the third, which ended at 6,090
# ns. (The 1-worker speed, 9,000 ns, would leave out all of them.)
cp "$tmp/reg/costs.txt" "$tmp/reg/costs.plain"
echo "# threads runs taken at the compute speed 9000..9100 ns on 1 worker (its CPU), 4000..4100 ns on 2 (the slower CPU; a recursive fib(17), timed before and after each)" >>"$tmp/reg/costs.txt"
edit "$tmp/reg/raw/fib-threads-2w.json" "
for t, s in zip(d['trials'], [(None, None), (6000, 6100), (4020, 4030), (4000, 4000), (4000, 6090),
                              (4000, 4000), (4000, 4000)]):
    t['noise']['speed_before_ns'], t['noise']['speed_after_ns'] = s"
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
row=$(grep '^| fib | 2 | volt |' "$tmp/out")
[[ $row = *"| 105 "*"| 110 "*"| 1.05 "*"within 20% | 2 of 7 |"* ]] ||
	fail "the cell is not the median of the trials at the calibration's speed: $row"
grep -q "round-trip regime 62..70 ns at the compute speed 9000..9100 ns on 1 worker, 4000..4100 ns on 2 workers" "$tmp/out" ||
	fail "the summary does not give the fits' compute speed"
mv "$tmp/reg/costs.plain" "$tmp/reg/costs.txt"

# Anchored: the cell's sim / threads (1.00) over volt's 1-worker sim (50 ms) / its threads
# anchor run made beside the cell (100 ms, in the regime): 2.00, a miss; without the anchor
# file, none.
"$harness" --policy=volt --workload=fib --param n=14 --workers 1 --engine=sim --trials 1 \
	--warmup 0 --quiet --json "$tmp/reg/raw/fib-sim-1w.json" || fail "harness sim run"
"$harness" --policy=volt --workload=fib --param n=14 --workers 1 --trials 3 --warmup 0 \
	--no-baseline --quiet --json "$tmp/reg/raw/fib-anchor-2w.json" || fail "harness anchor run"
edit "$tmp/reg/raw/fib-sim-1w.json" "d['trials'][0]['makespan_ns'] = 50e6"
edit "$tmp/reg/raw/fib-anchor-2w.json" "
for t in d['trials']:
    t['makespan_ns'] = 100e6
    t['noise']['c2c_before_ns'], t['noise']['c2c_after_ns'] = 65, 66"
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
row=$(grep '^| fib | 2 | volt |' "$tmp/out")
[[ $row = *"| 1.00 "*"| 2.00 **miss** |" ]] || fail "the anchored ratio is not 1.00 / 0.50: $row"
grep -q "the calibration's; volt's 1-worker cells are the anchors): 0 of 1 within" "$tmp/out" ||
	fail "the summary does not count the anchored cells: $(grep -i anchored "$tmp/out")"
grep -q "^| volt | 1 of 1 | 0 of 1 |$" "$tmp/out" ||
	fail "the per-policy count is not 1 within, 0 of 1 anchored: $(grep '^| volt |' "$tmp/out")"
# A miss both ways says so: the sim at 300 ms, 2.73 plain, 5.45 anchored.
edit "$tmp/reg/raw/fib-sim-2w.json" "d['trials'][0]['makespan_ns'] = 300e6"
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
grep -q "^- fib, 2 workers, volt: makespan sim / threads 2.73\..*; anchored 5.45 (a miss too)\.$" \
	"$tmp/out" || fail "a miss both ways is not named so: $(grep '^- ' "$tmp/out")"
# A miss that the anchor explains: the sim at 55 ms, 0.50 plain, 1.00 anchored.
edit "$tmp/reg/raw/fib-sim-2w.json" "d['trials'][0]['makespan_ns'] = 55e6"
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
grep -q "^- fib, 2 workers, volt: makespan sim / threads 0.50\..*; anchored 1.00 (within)\.$" \
	"$tmp/out" || fail "a miss within anchored is not named so: $(grep '^- ' "$tmp/out")"
grep -q "^| volt | 0 of 1 | 1 of 1 |$" "$tmp/out" ||
	fail "the per-policy count is not 0 within, 1 of 1 anchored: $(grep '^| volt |' "$tmp/out")"
# The workers' kernel time names a miss when it is 5% of their time or more (the median over
# the cell's trials), not below: 30% of 2 workers x each trial's makespan, then 1%.
kernel() {
	edit "$tmp/reg/raw/fib-threads-2w.json" "
for t in d['trials']:
    t['noise']['kernel_ns'] = [int($1 * t['makespan_ns'])] * 2"
}
kernel 0.30
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
grep -q "^- fib, 2 workers, volt: .*the threads workers spent 30% of their time in the kernel" \
	"$tmp/out" || fail "the kernel time is not named: $(grep '^- ' "$tmp/out")"
kernel 0.01
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
grep -q "of their time in the kernel" "$tmp/out" && fail "1% of kernel time named as a cause"
edit "$tmp/reg/raw/fib-sim-2w.json" "d['trials'][0]['makespan_ns'] = 110e6"
# An anchor file that is not volt's 1-worker threads run is refused, in one line.
cp "$tmp/reg/raw/fib-threads-2w.json" "$tmp/reg/raw/fib-anchor-3w.json"
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 &&
	fail "a 2-worker run taken as an anchor"
[ "$(grep -c '' "$tmp/out")" -eq 1 ] && grep -q "an anchor is volt's 1-worker threads run" "$tmp/out" ||
	fail "a wrong anchor file: $(cat "$tmp/out")"
rm "$tmp/reg/raw/fib-anchor-3w.json"
rm "$tmp/reg/raw/fib-anchor-2w.json"
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
row=$(grep '^| fib | 2 | volt |' "$tmp/out")
[[ $row = *"| - |" ]] || fail "a cell without an anchor run is anchored: $row"
rm "$tmp/reg/raw/fib-sim-1w.json"
echo "ok: a cell is anchored to volt's 1-worker run made beside it"
trials '[(100, 65, 66), (400, 400, 410), (110, 70, 400), (450, 66, 405), (120, 300, 100),
	(500, 410, 390), (420, 405, 70)]'
(cd "$here" && scripts/reproduce.sh --table sim-vs-threads "$tmp/reg/raw") >"$tmp/out" 2>&1 ||
	fail "--table sim-vs-threads: exit $?"
row=$(grep '^| fib | 2 | volt |' "$tmp/out")
[[ $row = *"**miss** 20% | all 7 (too few in it) | 0.28 |"* ]] ||
	fail "one trial in the regime: not all of them, or not said: $row"
grep -q "fib, 2 workers, volt: makespan sim / threads 0.28\..* 1 of 7 threads trials in the calibration's round-trip regime" \
	"$tmp/out" || fail "the miss does not say how few trials were in the regime: $(grep '^- ' "$tmp/out")"
echo "ok: a cell is the median of its trials in the calibration's round-trip regime"

# --parts and --engines refuse what they do not know before running anything.
for bad in "--parts 99" "--parts 1,x" "--engines gpu"; do
	# shellcheck disable=SC2086
	(cd "$here" && scripts/reproduce.sh --out "$tmp/never" $bad) >"$tmp/out" 2>&1
	status=$?
	[ "$status" -eq 2 ] || fail "reproduce.sh $bad: exit $status, expected 2"
	[ "$(grep -c '' "$tmp/out")" -eq 1 ] || fail "reproduce.sh $bad: not one line"
	[ -e "$tmp/never" ] && fail "reproduce.sh $bad created its output directory"
done
echo "ok: bad --parts and --engines exit 2 with one line"
