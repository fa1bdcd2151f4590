#!/usr/bin/env bash
#
# test_workspan.sh - the work/span table and the normalized-speedup figure
# (scripts/workspan.py: tables.py --metric work-span, plot.py
# normalized-speedup) on real results made here: fib(12) on the sim under
# rayon and static-partition at 1, 4 and 16 workers, and on threads at 1
# and 2 workers.
#
#  - T_inf is fib(12)'s closed form at the default costs, (12 - 1)(2 x 20 +
#    2 x 10) + 20 = 680 ns (tests/test_sim_span.c derives it), 0.68 us in
#    the table;
#  - static-partition, which never moves a task, runs 4 workers' graph on
#    one: T_P = T_1, more than 3 times the greedy bound T_1/4 + T_inf, so
#    its cells are marked;
#  - T_1/T_S is the threads T_1 over the sequential baseline of the result;
#  - a 1-worker sim run with --costs (a cost file whose poll is 200 ns) is
#    the calibrated sim's T_1, beside the threads T_1, and touches neither
#    the sim's T_1 nor its T_inf;
#  - the figure is a PNG.
#
#   test_workspan.sh HARNESS
set -u
testlib_name=test_workspan
. "$(dirname "$0")/testlib.sh"
harness=${1:?usage: test_workspan.sh HARNESS}
py=/usr/bin/python3
here=$(cd "$(dirname "$0")/.." && pwd)
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
	[ "${CI:-}" = true ] && { echo "test_workspan: matplotlib is missing" >&2; exit 1; }
	echo "test_workspan: skipped (no matplotlib)" >&2
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_workspan.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/r"

for nw in 1 4 16; do
	"$harness" --engine=sim --policy=rayon,static-partition --workload=fib --param n=12 \
		--workers "$nw" --trials 1 --warmup 0 --quiet --json "$tmp/r/fib-sim-${nw}w.json" \
		>/dev/null 2>"$tmp/err" || fail "sim run at $nw workers: $(cat "$tmp/err")"
done
for nw in 1 2; do
	"$harness" --policy=rayon,static-partition --workload=fib --param n=12 --workers "$nw" \
		--trials 1 --warmup 0 --quiet --json "$tmp/r/fib-threads-${nw}w.json" \
		>/dev/null 2>"$tmp/err" || fail "threads run at $nw workers: $(cat "$tmp/err")"
done

printf 'poll = 200\n' >"$tmp/costs.txt"
"$harness" --engine=sim --policy=rayon,static-partition --workload=fib --param n=12 --workers 1 \
	--costs "$tmp/costs.txt" --trials 1 --warmup 0 --quiet --json "$tmp/r/fib-sim-cal-1w.json" \
	>/dev/null 2>"$tmp/err" || fail "calibrated sim run: $(cat "$tmp/err")"
"$py" "$here/scripts/tables.py" --metric work-span "$tmp/r" >"$tmp/t.md" 2>"$tmp/err" ||
	fail "tables.py --metric work-span: $(cat "$tmp/err")"
"$py" - "$tmp/t.md" "$tmp/r" "$here/scripts" >"$tmp/out" 2>&1 <<'PY' || fail "the table: $(cat "$tmp/out")"
import sys
sys.path.insert(0, sys.argv[3])
import harnesslib as hl
rows = {}
fit = {}
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if line.startswith("| policy | T_S"):
        head = cells
    elif line.startswith("| policy | c_1"):
        fhead = cells
    elif line.startswith("| ") and not line.startswith("| policy") and "head" in dir():
        if "fhead" in dir():
            fit[cells[0]] = dict(zip(fhead, cells))
        else:
            rows[cells[0]] = dict(zip(head, cells))
assert set(rows) == {"rayon", "static-partition"}, rows
for pol, r in rows.items():
    assert r["T_inf us (sim)"] == "0.68", (pol, r["T_inf us (sim)"])
    # T_1/T_S from the threads results themselves.
    rs = [x for x in hl.load_all([sys.argv[2]]) if x.engine == "threads" and x.workers == 1
          and x.policy == pol]
    t1, ts = rs[0].median("makespan_ns"), rs[0].baseline_ns()
    want = float("%.3g" % (t1 / ts))
    assert abs(float(r["T_1/T_S (threads)"]) - want) <= 1e-9 * want, (pol, r, t1, ts, want)
    # The calibrated sim's T_1 and T_1/T_S: its own 1-worker run, over the threads T_S.
    cal = [x for x in hl.load_all([sys.argv[2]]) if x.engine == "sim" and x.workers == 1
           and x.policy == pol and x.config.get("sim_costs_file")][0].median("makespan_ns")
    sim1 = [x for x in hl.load_all([sys.argv[2]]) if x.engine == "sim" and x.workers == 1
            and x.policy == pol and not x.config.get("sim_costs_file")][0].median("makespan_ns")
    assert cal > sim1, (pol, cal, sim1)
    assert float(r["T_1 ms (calibrated sim)"]) == float("%.3g" % (cal / 1e6)), (pol, r, cal)
    assert float(r["T_1 ms (sim)"]) == float("%.3g" % (sim1 / 1e6)), (pol, r, sim1)
    want = float("%.3g" % (cal / ts))
    assert abs(float(r["T_1/T_S (calibrated sim)"]) - want) <= 1e-9 * want, (pol, r, want)
# static-partition: T_P = T_1 against T_1/4 + T_inf, about 3.6 times the bound.
mark = rows["static-partition"]["P=4"]
assert "**x" in mark and float(mark.split("**x")[1].rstrip("*")) > 3, mark
assert fit["static-partition"]["above the greedy bound"] == "2", fit["static-partition"]
PY
pass "work-span table: T_inf, T_1/T_S, the calibrated sim's T_1 and the greedy marks"

"$py" "$here/scripts/plot.py" normalized-speedup -o "$tmp/ns.png" "$tmp/r" >/dev/null 2>"$tmp/err" ||
	fail "plot.py normalized-speedup: $(cat "$tmp/err")"
[ "$(head -c 8 "$tmp/ns.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "normalized-speedup: not a PNG"
pass "normalized-speedup figure"
testlib_done
