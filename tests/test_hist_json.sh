#!/usr/bin/env bash
#
# test_hist_json.sh - histograms stored losslessly in result files.
#
#   test_hist_json.sh HARNESS
#
# On the deterministic sim engine, open-loop with seed 1 and with seed 2
# (one trial each) and both seeds in one run (two trials: seeds 1 and 2).
# From each file's buckets, harnesslib recomputes every stored percentile
# (the named ones and the series) exactly; the merge of the two one-trial
# files has exactly the two-trial run's buckets, count, min, max and mean;
# scripts/hist.py prints the two-trial run's percentiles from the two files
# and refuses to merge histograms of different precision. Nothing is
# written into the tree.

set -u
testlib_name=test_hist_json
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_hist_json.sh HARNESS}
[ -x "$harness" ] || { echo "test_hist_json: $harness is not an executable file" >&2; exit 1; }
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")
scripts=$(cd "$(dirname "$0")/../scripts" && pwd)
py=/usr/bin/python3
if ! [ -x "$py" ]; then
	[ "${CI:-}" = true ] && { echo "test_hist_json: no $py" >&2; exit 1; }
	echo "test_hist_json: skipped: no $py"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_hist_json.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset PYTHONOPTIMIZE PYTHONPATH PYTHONHOME	# the checks are asserts


ol=(--policy=volt --workload=open-loop --engine=sim --workers 4 --param requests=1500
    --param load=0.8 --warmup 0)
"$harness" "${ol[@]}" --seed 1 --trials 1 --json s1.json >out 2>err </dev/null || fail "seed 1: exit $?"
"$harness" "${ol[@]}" --seed 2 --trials 1 --json s2.json >out 2>err </dev/null || fail "seed 2: exit $?"
"$harness" "${ol[@]}" --seed 1 --trials 2 --json both.json >out 2>err </dev/null || fail "both: exit $?"
"$harness" "${ol[@]}" --seed 1 --trials 1 --hist-digits 2 --json d2.json >out 2>err </dev/null ||
	fail "2 digits: exit $?"

"$py" - "$scripts" <<'EOF' >out 2>err || fail "recomputed percentiles or merge differ"
import sys
sys.path.insert(0, sys.argv[1])
import harnesslib as hl
s1, s2, both, d2 = (hl.load(f + ".json") for f in ("s1", "s2", "both", "d2"))
checked = 0
for r in (s1, s2, both, d2):
    for name in hl.LATENCY_HISTOGRAMS:
        h = r.histogram(name)
        H = hl.Histogram.from_json(h)
        assert H.count == h["count"] > 0 and H.min == h["min"] and H.max == h["max"], name
        for q, v in h["percentiles"]:
            assert H.percentile(q) == v, (r.path, name, q, H.percentile(q), v)
            checked += 1
        for q, key in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99_9"),
                       (0.9999, "p99_99"), (1.0, "max")):
            assert H.percentile(q) == h[key], (r.path, name, key, H.percentile(q), h[key])
            checked += 1
for name in hl.LATENCY_HISTOGRAMS:
    m = hl.Histogram.from_json(s1.histogram(name)) + hl.Histogram.from_json(s2.histogram(name))
    b = hl.Histogram.from_json(both.histogram(name))
    assert m.counts == b.counts, name
    assert (m.count, m.min, m.max) == (b.count, b.min, b.max), name
    assert abs(m.mean - b.mean) <= 1e-9 * b.mean, (m.mean, b.mean)
    # A pooled group of the two files reports the two-trial run's figures.
    g = hl.Group([s1, s2])
    assert g.percentiles(name) == both.percentiles(name), name
    assert g.percentile(0.999, name) == both.percentile(0.999, name)
try:
    hl.Histogram.from_json(s1.histogram("end_to_end_ns")) + \
        hl.Histogram.from_json(d2.histogram("end_to_end_ns"))
    raise AssertionError("merged histograms of 3 and 2 digits")
except hl.HistogramError:
    pass
print(checked)
EOF
pass "every stored percentile recomputed from the buckets ($(cat out) values); seed 1 + seed 2 merged = the two-trial run"

"$py" "$scripts/hist.py" s1.json s2.json -p 50,99,99.9 --json merged.json >out 2>err ||
	fail "hist.py: exit $?"
"$py" - both.json merged.json out <<'EOF' || fail "hist.py does not print the two-trial run's figures"
import json, sys
both = json.load(open(sys.argv[1]))["histograms"]["end_to_end_ns"]
merged = json.load(open(sys.argv[2]))
lines = open(sys.argv[3]).read().splitlines()
assert lines[0] == "end_to_end_ns: 2 files, %d values" % both["count"], lines[0]
for key, label in (("p50", "p50"), ("p99", "p99"), ("p99_9", "p99.9")):
    assert "%s %d ns" % (label, both[key]) in lines, (label, both[key], lines)
for key in ("count", "min", "max", "p50", "p90", "p99", "p99_9", "p99_99", "buckets",
            "sig_digits"):
    assert merged[key] == both[key], key
# The series at the same levels (fractions as printed reals), the same values.
assert len(merged["percentiles"]) == len(both["percentiles"])
for (f1, v1), (f2, v2) in zip(merged["percentiles"], both["percentiles"]):
    assert abs(f1 - f2) < 1e-12 and v1 == v2, (f1, v1, f2, v2)
EOF
pass "hist.py s1 s2 prints and writes the two-trial run's histogram"

"$py" "$scripts/hist.py" s1.json d2.json >out 2>err && fail "hist.py merged 3 and 2 digits"
grep -q "cannot be merged" err || fail "hist.py: no reason given for refusing"
pass "hist.py refuses histograms of different precision: $(cat err)"

echo "test_hist_json: $passed passed, $failed failed"
