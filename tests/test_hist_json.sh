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
# and refuses to merge histograms of different precision. --hdr files (3
# and 2 digits, end-to-end and scheduling delay) equal, byte for byte, what
# HdrHistogram_c's hdr_percentiles_print prints for the file's buckets (the
# printer written out in Python here). Nothing is written into the tree.

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

# --hdr byte for byte as HdrHistogram_c's hdr_percentiles_print (CLASSIC format, 5 ticks per
# half distance, microseconds) would print the same histogram. The printer is written out
# below from HdrHistogram_c's src/hdr_histogram.c (hdr_calculate_bucket_config, the bucket
# index arithmetic, percentile_iter_next, hdr_mean, hdr_stddev, hdr_max, the format strings)
# and fed the result file's buckets; the harness's own writer (core/hist.c) plays no part.
"$harness" "${ol[@]}" --seed 1 --trials 1 --no-json --hdr s1.hgrm >out 2>err </dev/null ||
	fail "--hdr open-loop: exit $?"
"$harness" "${ol[@]}" --seed 1 --trials 1 --hist-digits 2 --no-json --hdr d2.hgrm >out 2>err \
	</dev/null || fail "--hdr 2 digits: exit $?"
"$harness" --policy=tokio --workload=fib --param n=16 --engine=sim --workers 3 --warmup 0 \
	--trials 2 --json fib.json --hdr fib.hgrm >out 2>err </dev/null || fail "--hdr fib: exit $?"
"$py" - <<'EOF' >out 2>err || fail "--hdr differs from HdrHistogram_c's printer"
import json, math

def hdr_print(h, scale=1000.0, ticks=5):
    """HdrHistogram_c's hdr_percentiles_print(h, stream, ticks, scale, CLASSIC) for a
    histogram with lowest discernible value 1, from a result's histogram object."""
    sig, highest, total = h["sig_digits"], h["buckets"]["highest"], h["count"]
    # hdr_calculate_bucket_config
    mag = math.ceil(math.log(2 * 10 ** sig) / math.log(2))
    half_mag = max(mag, 1) - 1
    unit = 0
    sub_count = 2 ** (half_mag + 1)
    half = sub_count // 2
    mask = (sub_count - 1) << unit
    untrackable, buckets = sub_count << unit, 1
    while untrackable <= highest:
        untrackable <<= 1
        buckets += 1
    counts_len = (buckets + 1) * half

    def bucket_index(v):
        return (v | mask).bit_length() - unit - (half_mag + 1)

    def value_at_index(i):
        b, sb = (i >> half_mag) - 1, (i & (half - 1)) + half
        if b < 0:
            sb, b = sb - half, 0
        return sb << (b + unit)

    def lowest_eq(v):
        b = bucket_index(v)
        return (v >> (b + unit)) << (b + unit)

    def range_size(v):
        b = bucket_index(v)
        return 1 << (unit + (b + 1 if (v >> (b + unit)) >= sub_count else b))

    def highest_eq(v):
        return lowest_eq(v) + range_size(v) - 1

    def median_eq(v):
        return lowest_eq(v) + (range_size(v) >> 1)

    counts = [0] * counts_len
    flat, v = h["buckets"]["counts"], 0
    for k in range(0, len(flat), 2):
        v += flat[k]
        b = bucket_index(v)
        i = ((b + 1) << half_mag) + ((v >> (b + unit)) - half)
        assert value_at_index(i) == v, ("not a slot's lowest value", v)
        counts[i] += flat[k + 1]
    assert sum(counts) == total > 0

    out = ["%12s %12s %12s %12s\n\n" % ("Value", "Percentile", "TotalCount", "1/(1-Percentile)")]
    line = "%%12.%df %%12f %%12d %%12.2f\n" % sig
    it = {"i": -1, "count": 0, "cum": 0, "value": 0}

    def basic_next():
        if not it["cum"] < total or it["i"] >= counts_len:
            return False
        it["i"] += 1
        it["count"] = counts[it["i"]]
        it["cum"] += it["count"]
        it["value"] = value_at_index(it["i"])
        return True

    def emit(pct):
        p = pct / 100.0
        inv = 1.0 / (1.0 - p) if p != 1.0 else math.inf
        out.append(line % (highest_eq(it["value"]) / scale, p, it["cum"], inv))

    seen_last, to = False, 0.0
    while True:                                 # percentile_iter_next
        if not it["cum"] < total:
            if seen_last:
                break
            seen_last = True
            emit(100.0)
            continue
        if it["i"] == -1 and not basic_next():
            break
        pct = None
        while True:
            current = (100.0 * it["cum"]) / total
            if it["count"] != 0 and to <= current:
                pct = to
                temp = int(math.log(100 / (100.0 - to)) / math.log(2)) + 1
                to += 100.0 / (ticks * int(math.pow(2, temp)))
                break
            if not basic_next():
                break
        emit(pct)
    mean_total, n = 0.0, 0                      # hdr_mean
    for i in range(counts_len):
        if n >= total:
            break
        if counts[i]:
            n += counts[i]
            mean_total += float(counts[i]) * float(median_eq(value_at_index(i)))
    mean = mean_total / total
    dev_total = 0.0                             # hdr_stddev
    for i in range(counts_len):
        if counts[i]:
            dev = median_eq(value_at_index(i)) * 1.0 - mean
            dev_total += (dev * dev) * counts[i]
    stddev = math.sqrt(dev_total / total)
    vmax = highest_eq(h["max"]) if h["max"] else 0
    out.append("#[Mean    = %12.3f, StdDeviation   = %12.3f]\n"
               "#[Max     = %12.3f, Total count    = %12d]\n"
               "#[Buckets = %12d, SubBuckets     = %12d]\n"
               % (mean / scale, stddev / scale, vmax / scale, total, buckets, sub_count))
    return "".join(out)

rows = 0
for res, hgrm, name in (("s1.json", "s1.hgrm", "end_to_end_ns"), ("d2.json", "d2.hgrm", "end_to_end_ns"),
                        ("fib.json", "fib.hgrm", "sched_delay_ns")):
    want = hdr_print(json.load(open(res))["histograms"][name])
    got = open(hgrm).read()
    if got != want:
        for k, (a, b) in enumerate(zip(got.splitlines(), want.splitlines())):
            assert a == b, "%s line %d: harness %r, HdrHistogram_c %r" % (hgrm, k + 1, a, b)
        raise AssertionError("%s: %d lines, HdrHistogram_c %d" % (
            hgrm, len(got.splitlines()), len(want.splitlines())))
    rows += len(want.splitlines()) - 5
print(rows)
EOF
pass "--hdr of open-loop (3 and 2 digits) and fib: byte for byte HdrHistogram_c's printer ($(cat out) rows)"

# One request: its one latency bounds no side of p50 and only the lower side
# of p99.99 (core/pctci.h). The summary prints an open side as "-", never an
# exact [x, x], and the file marks it (lo_open, hi_open).
"$harness" --policy=volt --workload=open-loop --engine=sim --workers 4 --param requests=1 \
	--warmup 0 --trials 1 --no-baseline --json one.json >out 2>err </dev/null ||
	fail "one request: exit status $?"
line=$(grep '^end-to-end latency' out)
grep -Eq 'p50 [0-9.]+ us \[-, -\],' <<<"$line" || fail "one request: p50 not [-, -]: $line"
grep -Eq 'p99\.99 ([0-9.]+) us \[\1, -\],' <<<"$line" || fail "one request: p99.99 not [x, -]: $line"
! grep -Eq '\[([0-9.]+), \1\]' <<<"$line" || fail "one request: an exact [x, x]: $line"
"$py" - one.json >out 2>&1 <<'EOF' || fail "one request: the file's open sides: $(cat out)"
import json, sys
ci = json.load(open(sys.argv[1]))["histograms"]["end_to_end_ns"]["ci95"]
assert ci["method"] == "order-statistics", ci
assert ci["p50"].get("lo_open") is True and ci["p50"].get("hi_open") is True, ci["p50"]
assert ci["p50"]["lo"] == 0, ci["p50"]
assert "lo_open" not in ci["p99_99"] and ci["p99_99"].get("hi_open") is True, ci["p99_99"]
EOF
pass "one request: open sides printed as - and marked in the file"

echo "test_hist_json: $passed passed, $failed failed"
