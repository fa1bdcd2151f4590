#!/usr/bin/env bash
#
# test_summary.sh - the multi-policy summary table of a workload with
# latencies.
#
#   test_summary.sh HARNESS
#
# A small open-loop comparison on the deterministic sim engine (two policies
# at two loads, one trial each) prints, besides the table of medians, one
# row per variant with its p50 and p99 end-to-end latency and their 95%
# intervals, the figures of that variant's own result file
# (histograms.end_to_end_ns and its ci95), and says how the intervals were
# taken. A fib comparison (no latencies) prints no such table. The median's
# interval column is the result file's median.ci95.ns_per_task. Runs in a
# temporary directory; nothing is written into the tree; no timing is
# asserted (sim figures are virtual time).

set -u
testlib_name=test_summary
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_summary.sh HARNESS}
[ -x "$harness" ] || { echo "test_summary: $harness is not an executable file" >&2; exit 1; }
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")
py=/usr/bin/python3
if ! [ -x "$py" ]; then
	# A missing tool fails under CI, where it must be installed.
	[ "${CI:-}" = true ] && { echo "test_summary: no $py" >&2; exit 1; }
	echo "test_summary: skipped: no $py"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_summary.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset PYTHONOPTIMIZE	# the checks are asserts

# check NAME PROGRAM-ON-STDIN ARGS...: the Python checks must pass.
check() {
	local name=$1
	shift
	cat >"$tmp/check.py"
	"$py" "$tmp/check.py" "$@" >"$tmp/check.out" 2>&1 || {
		cat "$tmp/check.out" >>"$tmp/err"
		fail "$name"
	}
}

mkdir -p r
"$harness" --policy=volt,central-queue --workload=open-loop --engine=sim --workers 4 \
	--param load=0.5,0.8 --param requests=3000 --trials 1 --warmup 0 --json r/ol.json \
	>"$tmp/out" 2>"$tmp/err" </dev/null || fail "open-loop comparison: exit status $?"
check "open-loop comparison: no p99 per policy, or not the result files' figures" \
	"$tmp/out" r <<'EOF'
import json, re, sys
out = open(sys.argv[1]).read().splitlines()
names = ["volt load=0.5", "central-queue load=0.5", "volt load=0.8", "central-queue load=0.8"]
head = [i for i, l in enumerate(out) if l.startswith("end-to-end latency ")]
assert len(head) == 1, "no latency table"
assert re.search(r"p50 \[95% interval\] +p99 \[95% interval\] +samples$", out[head[0]]), \
    out[head[0]]
rows = {}
for l in out[head[0] + 1:head[0] + 1 + len(names)]:
    m = re.match(r"^(.+?) +([0-9.]+) (ns|us|ms|s) \[([0-9.]+), ([0-9.]+)\] +"
                 r"([0-9.]+) (ns|us|ms|s) \[([0-9.]+), ([0-9.]+)\] +([0-9]+)$", l)
    assert m, l
    rows[m.group(1)] = m.groups()[1:]
assert sorted(rows) == sorted(names), rows
assert out[head[0] + 1 + len(names)].strip() == \
    "95% intervals: batch means over 10 consecutive slices of the trial", \
    out[head[0] + 1 + len(names)]
unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
for name in names:
    f = "%s/ol.%s.json" % (sys.argv[2], name.replace(" ", "-"))
    d = json.load(open(f))
    h = d["histograms"]["end_to_end_ns"]
    r = rows[name]
    for i, key in ((0, "p50"), (4, "p99")):
        u = unit[r[i + 1]]
        # Printed with two decimals in its unit (ns: none).
        tol = 0.5 * (1 if u == 1 else 0.01) * u
        for got, want in ((r[i], h[key]), (r[i + 2], h["ci95"][key]["lo"]),
                          (r[i + 3], h["ci95"][key]["hi"])):
            assert abs(float(got) * u - want) <= tol, (name, key, got, r[i + 1], want)
    assert int(r[8]) == h["count"], (name, r[8], h["count"])
    # The medians' table: one trial, no interval of the median.
    row = [l for l in out[:head[0]] if l.startswith(name + "  ")]
    assert len(row) == 1 and row[0].split()[len(name.split()) + 1] == "-", row
assert any(l.startswith("[95% interval] of the median: - for one trial") for l in out), out
print("ok")
EOF
pass "open-loop, 2 policies x 2 loads: p50 and p99 with their 95% intervals per variant, as in the result files"

# Several trials: the interval column is the result file's median.ci95, and
# the intervals of the percentiles are batch means over the trials.
"$harness" --policy=volt,tokio --workload=open-loop --engine=sim --workers 2 \
	--param load=0.7 --param requests=2000 --trials 3 --warmup 0 --json r/t3.json \
	>"$tmp/out" 2>"$tmp/err" </dev/null || fail "3-trial comparison: exit status $?"
check "3 trials: the intervals are not the result files'" "$tmp/out" r <<'EOF'
import json, sys
out = open(sys.argv[1]).read().splitlines()
for name in ("volt", "tokio"):
    d = json.load(open("%s/t3.%s.json" % (sys.argv[2], name)))
    ci = d["median"]["ci95"]["ns_per_task"]
    row = [l for l in out if l.startswith(name + " ")]
    assert len(row) == 2, row          # the medians' table and the latency table
    lo, hi = row[0].split("[")[1].split("]")[0].split(", ")
    assert abs(float(lo) - ci["lo"]) <= 0.05 and abs(float(hi) - ci["hi"]) <= 0.05, (row, ci)
    assert d["histograms"]["end_to_end_ns"]["ci95"]["method"] == "batch-means-trials"
assert "  95% intervals: batch means over 3 trials" in out, out
assert any(l.startswith("[lo, hi]: the median's interval over the trials; with fewer than 6 "
                        "trials it is [min, max], coverage 75.0%") for l in out), out
print("ok")
EOF
pass "3 trials: the median's interval as median.ci95, latency intervals by batch means over trials"

# No latencies, no latency table.
"$harness" --policy=volt,tokio --workload=fib --param n=15 --engine=sim --workers 2 \
	--trials 2 --warmup 0 --no-json >"$tmp/out" 2>"$tmp/err" </dev/null ||
	fail "fib comparison: exit status $?"
grep -q '^policy  *ns/task  *\[95% interval\]' "$tmp/out" || fail "fib: no comparison table"
grep -q '^end-to-end latency' "$tmp/out" && fail "fib: a latency table without latencies"
pass "fib: the comparison table, no latency table"

testlib_done
