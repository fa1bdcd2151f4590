#!/usr/bin/env bash
#
# test_scripts.sh - the result scripts, end to end.
#
#   test_scripts.sh HARNESS [PART [SHARED]]
#
# PART is one of plots-a (harnesslib, percentile and p99 plots, gnuplot),
# plots-b (speedup, throughput, utilization, ablation), plots-c (Gantt, bad
# input, reproduce.sh --help), tables
# (tables, CSV summary), report (the HTML report rendered in Chromium, and a
# broken copy) or report-shot (a screenshot of the report); without it, all.
# ctest runs each part as its own test, to keep every test short.
#
# PART results makes the result files below into the directory SHARED
# (emptied first) and stops; ctest runs it once, as the fixture of the
# other parts, which read their results from SHARED when it holds a complete
# set (SHARED/complete) and make their own otherwise.
#
# Makes a small set of real results with HARNESS in a temporary directory
# (fib under volt, tokio and central-queue at 1 and 2 workers, a second volt
# run of one configuration to pool, open-loop sim runs of central-queue and
# static-partition at two loads) and a synthetic Chrome trace, then runs
# every script in scripts/ and checks what it wrote against the result files
# themselves: harnesslib's figures and theory, valid non-blank PNGs, gnuplot
# data and figures, one CSV row per result with the documented columns,
# Markdown and LaTeX tables with a row per policy, and an HTML report that
# headless Chromium renders with every image loaded (and one that reports a
# missing image as failed). Nothing is written into the source tree; no
# network.
#
# Every result it makes is also checked against docs/result.schema.json with
# the standard validator (python3-jsonschema).
#
# Needs /usr/bin/python3 with matplotlib and jsonschema, gnuplot and
# /usr/bin/chromium: without one of them it exits 77 (ctest: skipped), except
# under CI (CI=true), where a missing tool fails the test.

set -u
testlib_name=test_scripts
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_scripts.sh HARNESS [PART [SHARED]]}
part=${2:-all}
shared=${3:-}
case $part in
all | results | plots-a | plots-b | plots-c | tables | report | report-shot) ;;
*) echo "test_scripts: unknown part '$part' (results, plots-a, plots-b, plots-c, tables," \
	"report, report-shot)" >&2
   exit 2 ;;
esac
[ "$part" != results ] || [ -n "$shared" ] ||
	{ echo "test_scripts: part results needs the SHARED directory" >&2; exit 2; }
want() { [ "$part" = all ] || [ "$part" = "$1" ]; }
[ -x "$harness" ] || { echo "test_scripts: $harness is not an executable file" >&2; exit 1; }
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")
scripts=$(cd "$(dirname "$0")/../scripts" && pwd)
plot=$scripts/plot.py
py=/usr/bin/python3
chromium=/usr/bin/chromium

skip() {
	if [ "${CI:-}" = true ]; then
		echo "test_scripts: FAIL: $* (CI=true: every tool must be installed)" >&2
		exit 1
	fi
	echo "test_scripts: skipped: $*"
	exit 77
}
[ -x "$py" ] || skip "no $py"
"$py" -c 'import matplotlib, numpy' 2>/dev/null || skip "$py has no matplotlib (python3-matplotlib)"
"$py" -c 'import jsonschema' 2>/dev/null || skip "$py has no jsonschema (python3-jsonschema)"
command -v gnuplot >/dev/null || skip "no gnuplot (gnuplot-nox)"
[ -x "$chromium" ] || skip "no $chromium (chromium)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_scripts.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset PYTHONOPTIMIZE PYTHONPATH PYTHONHOME      # asserts must run; only our modules
export PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg MPLCONFIGDIR="$tmp/mpl" HOME="$tmp/home"
mkdir -p "$HOME" "$MPLCONFIGDIR"


# run NAME CMD...: CMD must exit 0 (stdout to out, stderr to err).
run() {
	local name=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null || fail "$name: exit status $? from $*"
}

# pycheck NAME ARGS...: run the Python program on stdin with ARGS; it must
# exit 0 (a failed assert fails the test). Not through run: its stdin is
# /dev/null.
pycheck() {
	local name=$1
	shift
	cat >"$tmp/check.py"
	"$py" "$tmp/check.py" "$@" >"$tmp/out" 2>"$tmp/err" || fail "$name"
}

# A checker for figures: PNG signature and IHDR, at least 10 kB, and decoded
# pixels with many distinct colours (a blank or near-blank image fails);
# each further argument RRGGBB:FRACTION asks that at least that fraction of
# the pixels have that colour (a policy's bars or line were drawn). One
# process checks all the figures of a part (numpy and matplotlib take most
# of a second of CPU to import): png_ok writes it a line, PATH and the
# colours separated by tabs, and reads back "ok PATH" or what is wrong.
cat >"$tmp/check_png.py" <<'EOF'
import struct, sys
import numpy as np
from matplotlib import image

def check(path, specs):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "%s: not a PNG (signature %r)" % (path, data[:8])
    if data[12:16] != b"IHDR":
        return "%s: no IHDR chunk first" % path
    w, h = struct.unpack(">II", data[16:24])
    if w < 300 or h < 200:
        return "%s: %dx%d pixels, too small" % (path, w, h)
    if len(data) < 10000:
        return "%s: %d bytes, too small for a figure" % (path, len(data))
    px = image.imread(path)
    if px.shape[0] != h or px.shape[1] != w:
        return "%s: decoded %s, header says %dx%d" % (path, px.shape, w, h)
    flat = (px[..., :3].reshape(-1, 3) * 255).astype(np.uint8)
    colours = len(np.unique(flat, axis=0))
    ink = float((flat.min(axis=1) < 200).mean())
    if colours < 16 or ink < 0.01:
        return "%s: %d colours, %.3f of the pixels inked: blank" % (path, colours, ink)
    for spec in specs:
        rgb, frac = spec.split(":")
        want = np.array([int(rgb[i:i + 2], 16) for i in (0, 2, 4)], dtype=int)
        share = float((np.abs(flat.astype(int) - want).max(axis=1) <= 10).mean())
        if share < float(frac):
            return ("%s: colour #%s covers %.5f of the pixels, expected at least %s"
                    % (path, rgb, share, frac))
    return None

for line in sys.stdin:
    path, *specs = line.rstrip("\n").split("\t")
    try:
        bad = check(path, specs)
    except Exception as e:              # an unreadable file fails its check
        bad = "%s: %s" % (path, e)
    print("bad " + bad if bad else "ok " + path, flush=True)
EOF
png_ok() {	# NAME PATH [RRGGBB:FRACTION]...
	local name=$1 path=$2 reply=
	shift 2
	[ -f "$path" ] || fail "$name: $path was not written"
	if [ -z "${PNGCHECK_PID:-}" ]; then
		coproc PNGCHECK { "$py" "$tmp/check_png.py" 2>"$tmp/check_png.err"; }
	fi
	local IFS=$'\t'
	{ printf '%s\n' "$path${*:+$'\t'$*}" >&"${PNGCHECK[1]}" &&
		IFS= read -r reply <&"${PNGCHECK[0]}"; } 2>/dev/null ||
		fail "$name: the figure checker died: $(cat "$tmp/check_png.err")"
	[ "$reply" = "ok $path" ] || fail "$name: $path is not the expected figure: ${reply#bad }"
}
# Policy colours, shared by plot.py and the gnuplot scripts (harnesslib.policy_style).
read -r volt central static < <("$py" -c 'import sys; sys.path.insert(0, sys.argv[1])
import harnesslib as hl
print(*(hl.policy_style(p).colour.lstrip("#").lower() for p in sys.argv[2:]))' \
	"$scripts" volt central-queue static-partition)
[ -n "$volt" ] && [ -n "$static" ] && [ "$central" != "$static" ] || fail "policy colours: '$volt' '$central' '$static'"

# --------------------------------------------------------------- the results
r=$tmp/results
mkdir -p "$r"
nresults=11
if [ "$part" != results ] && [ -n "$shared" ] && [ -f "$shared/complete" ]; then
	cp "$shared"/*.json "$r"/ || fail "copying the results from $shared"
	pass "the $nresults result files of the results part, from $shared"
else
for p in volt tokio central-queue; do
	for w in 1 2; do
		run "harness fib $p ${w}w" "$harness" --policy=$p --workload=fib --param n=15 \
			--workers $w --trials 3 --warmup 0 --json "$r/fib-$p-${w}w.json"
	done
done
# The same configuration as fib-volt-2w with other seeds: pooled into one group.
run "harness fib volt 2w seed 11" "$harness" --policy=volt --workload=fib --param n=15 \
	--workers 2 --trials 3 --warmup 0 --seed 11 --json "$r/fib-volt-2w-seed11.json"
for p in central-queue static-partition; do
	for load in 0.5 0.9; do
		run "harness open-loop $p $load" "$harness" --policy=$p --workload=open-loop \
			--engine=sim --workers 16 --param load=$load --param service_us=1000 \
			--param dist=1 --param requests=2000 --trials 1 --warmup 0 \
			--json "$r/ol-$p-$load.json"
	done
done
# A JSON file that is not a result: skipped with a warning inside a directory.
echo '{"note": "not a result"}' >"$r/notes.json"
pass "made $nresults result files"
fi
run "schema" "$py" "$scripts/../tests/validate_results.py" "$scripts/../docs/result.schema.json" "$r"
grep -q "^validate_results: $nresults valid (sim 4, threads 7), 0 invalid" "$tmp/out" ||
	fail "schema: $(cat "$tmp/out")"
pass "every result valid against docs/result.schema.json"
if [ "$part" = results ]; then
	rm -rf "$shared" && mkdir -p "$shared" && cp "$r"/*.json "$shared"/ &&
		touch "$shared/complete" || fail "copying the results to $shared"
	pass "the results are in $shared for the other parts"
	testlib_done
	exit
fi

# A synthetic Chrome trace: two workers, ticks holding polls, parks, one
# begin/end pair, thread names from metadata events.
pycheck "writing the synthetic trace" "$tmp/trace.json" <<'EOF'
import json, sys
ev = []
for w in range(2):
    ev.append({"name": "thread_name", "ph": "M", "pid": 1, "tid": w,
               "args": {"name": "worker %d" % w}})
    t = 5.0 * w
    for k in range(60):
        ev.append({"name": "tick", "ph": "X", "ts": t, "dur": 40.0, "pid": 1, "tid": w})
        for j in range(4):
            ev.append({"name": "poll", "ph": "X", "ts": t + 1 + 9.5 * j, "dur": 8.0,
                       "pid": 1, "tid": w})
        ev.append({"name": "park", "ph": "X", "ts": t + 41, "dur": 9.0 + w, "pid": 1, "tid": w})
        t += 52.0
ev.append({"name": "io", "ph": "B", "ts": 3200.0, "pid": 1, "tid": 1})
ev.append({"name": "io", "ph": "E", "ts": 3300.0, "pid": 1, "tid": 1})
json.dump({"displayTimeUnit": "ns", "otherData": {"policy": "synthetic", "workload": "test",
           "engine": "threads", "events_dropped": 0}, "traceEvents": ev}, open(sys.argv[1], "w"))
EOF
pass "synthetic Chrome trace"

if want plots-a; then
# ------------------------------------------------------------------ harnesslib
pycheck "harnesslib checks" "$scripts" "$r" <<'EOF'
import json, math, os, sys
sys.path.insert(0, sys.argv[1])
import harnesslib as hl
r = sys.argv[2]
import io
warn = io.StringIO()
rs = hl.load_all([r], warn=warn)
assert len(rs) == 11, len(rs)
assert "notes.json" in warn.getvalue(), warn.getvalue()
try:
    hl.load_all([os.path.join(r, "notes.json")])
    raise AssertionError("an explicitly named non-result was accepted")
except hl.ResultError as e:
    assert "not a harness result" in str(e), e

# median and its interval recomputed from the trials equal the file's.
for res in rs:
    for key in hl.MEDIAN_KEYS:
        vals = res.values(key)
        if res.median(key) is None:
            assert res.ci95(key) is None
            continue
        assert math.isclose(hl.median(vals), res.median(key), rel_tol=1e-12), (res.path, key)
        lo, hi, cov = hl.median_ci95(vals)
        flo, fhi, fcov = res.ci95(key)
        assert math.isclose(lo, flo, rel_tol=1e-12) and math.isclose(hi, fhi, rel_tol=1e-12), \
            (res.path, key, (lo, hi), (flo, fhi))
        assert math.isclose(cov, fcov, abs_tol=1e-9), (res.path, key, cov, fcov)
    # p99 of the latency histogram is the file's field.
    name = res.latency_histogram_name()
    want = "end_to_end_ns" if res.workload == "open-loop" else "sched_delay_ns"
    assert name == want, (res.path, name)
    assert res.percentile(0.99) == res.doc["histograms"][name]["p99"]
# Interval of the median from order statistics: n = 9 gives j = 2 (P(Bin(9,.5) <= 1) = 10/512).
# n = 5: no j > 1 exists, [min, max] with coverage 93.75% (docs/results.md).
# n = 8: P(Bin(8,.5) <= 1) = 9/256 > 2.5%, still j = 1.
# n = 9: P(Bin(9,.5) <= 1) = 10/512 <= 2.5% < P(<= 2) = 46/512, so j = 2.
# n = 17: P(<= 4) = 3214/131072 <= 2.5% < P(<= 5) = 9402/131072, so j = 5.
for n, j, tail in ((1, 1, 1), (5, 1, 1), (6, 1, 1), (8, 1, 1), (9, 2, 10),
                   (17, 5, 3214), (30, 10, None)):
    lo, hi, cov = hl.median_ci95(range(1, n + 1))
    assert (lo, hi) == (j, n + 1 - j), (n, lo, hi)
    if tail is not None:
        assert math.isclose(cov, 1 - 2 * tail / 2 ** n), (n, cov)
assert math.isclose(hl.median_ci95(range(5))[2], 0.9375)

# Queueing theory: the table of docs/sources.md (k = 16).
for rho, mmk, mm1 in ((0.5, 4.61, 9.21), (0.7, 4.64, 15.35), (0.8, 4.74, 23.03),
                      (0.9, 5.27, 46.05), (0.95, 7.22, 92.10)):
    assert abs(hl.mmk_p99(rho, 16) - mmk) < 0.011, (rho, hl.mmk_p99(rho, 16), mmk)
    assert abs(hl.mm1_p99(rho) - mm1) < 0.006, (rho, hl.mm1_p99(rho), mm1)
    assert abs(hl.mmk_p99(rho, 1) - hl.mm1_p99(rho)) < 1e-6     # M/M/1 is M/M/k at k = 1
assert abs(hl.erlang_c(1, 0.5) - 0.5) < 1e-12                   # M/M/1: P(wait) = rho

# Grouping: 10 configurations, the two volt 2-worker files pooled.
groups = hl.group_by_config(rs)
assert len(groups) == 10, [g.label for g in groups]
assert len(set(g.label for g in groups)) == 10, [g.label for g in groups]
pooled = [g for g in groups if len(g.results) == 2]
assert len(pooled) == 1 and pooled[0].policy == "volt" and pooled[0].workers == 2
g = pooled[0]
assert len(g.trials) == 6
vals = [t["makespan_ns"] for t in g.trials]
assert g.median("makespan_ns") == hl.median(vals)
assert math.isclose(g.ci95("makespan_ns")[2], 1 - 2 / 64)       # 6 values: j = 1
one = g.results[0]
assert hl.Group([one, one]).percentiles() == one.percentiles()  # merging a file with itself
# Labels tell the configurations apart by what differs.
fib = hl.group_by_config([x for x in rs if x.workload == "fib"])
assert sorted(g.label for g in fib) == sorted(
    "%s workers=%d" % (p, w) for p in ("volt", "tokio", "central-queue") for w in (1, 2)), \
    [g.label for g in fib]
# Series along the load: one per policy, two points each, in load order.
ser = hl.split_series(rs, "param.load")
assert sorted(s.label for s in ser) == ["central-queue", "static-partition"], ser
for s in ser:
    assert [x for x, _ in s.points] == [0.5, 0.9], s.points
ser = hl.split_series([x for x in rs if x.workload == "fib"], "workers")
assert len(ser) == 3 and all(len(s.points) == 2 for s in ser), ser
print("harnesslib ok")
EOF
pass "harnesslib: medians, intervals, p99, theory, grouping, labels, series"

# ----------------------------------------------------------------------- plots
run "plot percentiles" "$py" "$plot" percentiles "$r" -o "$tmp/fig/pct.png" --data "$tmp/pct.dat"
# The open-loop lines (sim: virtual time, the same every run) are surely visible.
png_ok "plot percentiles" "$tmp/fig/pct.png" $central:0.001 $static:0.001
blocks=$(grep -c '^"' "$tmp/pct.dat")
[ "$blocks" -eq 10 ] || fail "percentiles --data: $blocks blocks, expected 10 (one per config)"
pass "plot.py percentiles: PNG and gnuplot data with 10 series"

run "plot percentiles svg" "$py" "$plot" percentiles "$r"/fib-*.json --logy -o "$tmp/fig/pct.svg"
grep -q '<svg' "$tmp/fig/pct.svg" || fail "percentiles .svg is not SVG"
run "plot throughput pdf" "$py" "$plot" throughput "$r" -o "$tmp/fig/thr.pdf"
[ "$(head -c 5 "$tmp/fig/thr.pdf")" = "%PDF-" ] || fail "throughput .pdf is not PDF"
pass "plot.py: SVG and PDF by extension"

run "plot p99-vs-load" "$py" "$plot" p99-vs-load "$r" --theory -o "$tmp/fig/p99.png" \
	--data "$tmp/p99.dat"
png_ok "plot p99-vs-load" "$tmp/fig/p99.png" $central:0.0004 $static:0.0004
[ -f "$tmp/p99-theory.dat" ] || fail "p99-vs-load --theory --data wrote no p99-theory.dat"
pycheck "p99-vs-load data do not match the result files" "$tmp/p99.dat" \
	"$tmp/p99-theory.dat" "$r" "$scripts" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[4])
import harnesslib as hl
blocks = open(sys.argv[1]).read().strip().split("\n\n\n")
assert len(blocks) == 2, len(blocks)
for b in blocks:
    lines = [l for l in b.splitlines() if not l.startswith("#")]
    name = lines[0].split('"')[1]
    rows = [list(map(float, l.split())) for l in lines[1:]]
    assert [x[0] for x in rows] == [0.5, 0.9], (name, rows)
    for load, ratio, ns, lo, hi in rows:
        d = json.load(open("%s/ol-%s-%s.json" % (sys.argv[3], name, load)))
        p99 = d["histograms"]["end_to_end_ns"]["p99"]
        assert ns == p99, (name, load, ns, p99)
        assert abs(ratio - p99 / (d["config"]["params"]["service_us"] * 1e3)) < 1e-9
theory = open(sys.argv[2]).read().strip().split("\n\n\n")
titles = [b.splitlines()[[i for i, l in enumerate(b.splitlines()) if l.startswith('"')][0]]
          for b in theory]
assert titles == ['"16 x M/M/1 (partitioned, random routing)" "ratio"', '"M/M/16 (shared queue)" "ratio"'], titles
for b, f in zip(theory, (hl.mm1_p99, lambda r: hl.mmk_p99(r, 16))):
    for l in b.splitlines():
        if l[0] in '#"':
            continue
        rho, y = map(float, l.split())
        assert abs(y - f(rho)) < 1e-6 * y, (rho, y)
print("p99 data ok")
EOF
pass "plot.py p99-vs-load --theory: PNG, data = p99 / S from the files, M/M/1 and M/M/16 curves"

# Captions computed from what was measured: the one-trial points' bars are
# the p99's 95% interval (batch means over slices), not a per-trial range;
# an automatic request count (requests=0) prints as each trial ran it;
# enumerations by name. The figure is written as SVG with its text kept as
# text, so the title and footer are read from the figure itself. Copies of
# the open-loop results: with requests=0 (as an automatic count records it)
# and, for two of them, without ci95 (an older file) and three trials.
pycheck "p99-vs-load captions" "$scripts" "$r" "$tmp/cap" <<'EOF'
import glob, html, json, os, re, sys
sys.path.insert(0, sys.argv[1])
import matplotlib
matplotlib.rcParams["svg.fonttype"] = "none"
import harnesslib as hl
import plot
src, out = sys.argv[2], sys.argv[3]

def svg_text(results):
    """The figure's text (title, footer, legend, ticks), one string."""
    path = plot.plot_p99_vs_load(results, os.path.join(out, "p.svg"))
    return " ".join(html.unescape(x) for x in re.findall(r"<text[^>]*>([^<]*)</text>",
                                                         open(path).read()))

auto = os.path.join(out, "auto")
os.makedirs(auto)
for f in sorted(glob.glob(os.path.join(src, "ol-*.json"))):
    d = json.load(open(f))
    assert d["trials"][0]["metrics"]["requests"] == 2000, d["trials"][0]["metrics"]
    d["config"]["params"]["requests"] = 0
    json.dump(d, open(os.path.join(auto, os.path.basename(f)), "w"))
t = svg_text(hl.load_all([auto]))
assert "batch means over slices of one trial" in t and "95% interval of the p99" in t, t
assert "range" not in t and "min..max" not in t, t
assert "2000 requests (auto)" in t and "0 requests" not in t.replace("2000 requests", ""), t
assert "dist=exponential" in t and "dist=1" not in t, t
# The p99-load table's title and notes alike.
import tables
tab = tables.build_load_table(hl.load_all([auto]))[0]
assert "dist=exponential" in tab.title, tab.title
assert "requests per trial: 2000 (auto)" in " ".join(tab.notes), tab.notes
# An older file: no ci95; three trials give the range, one trial nothing.
old = os.path.join(out, "old")
os.makedirs(old)
for f in sorted(glob.glob(os.path.join(src, "ol-central-queue-*.json"))):
    d = json.load(open(f))
    del d["histograms"]["end_to_end_ns"]["ci95"]
    if os.path.basename(f) == "ol-central-queue-0.9.json":
        d["trials"] = d["trials"] * 3
    json.dump(d, open(os.path.join(old, os.path.basename(f)), "w"))
t = svg_text(hl.load_all([old]))
assert "range (min..max) of the per-trial p99 at 1 of 2 points" in t, t
assert "no error bars at 1 of 2 points" in t and "95% interval" not in t, t
t = svg_text(hl.load_all([os.path.join(old, "ol-central-queue-0.5.json")]))
assert "no error bars" in t and "range" not in t, t
print("captions ok")
EOF
pass "plot.py p99-vs-load: bars named as drawn (interval, range, none), resolved requests, dist by name"

fi

if want plots-b; then
run "plot speedup" "$py" "$plot" speedup "$r" -o "$tmp/fig/speedup.png"
png_ok "plot speedup" "$tmp/fig/speedup.png" $volt:0.0008     # drawn last: on top
run "plot speedup baseline" "$py" "$plot" speedup "$r"/fib-*.json --baseline \
	-o "$tmp/fig/speedup-seq.png"
png_ok "plot speedup --baseline" "$tmp/fig/speedup-seq.png"
pass "plot.py speedup (1 worker and sequential references)"

run "plot throughput" "$py" "$plot" throughput "$r" -o "$tmp/fig/throughput.png"
# Bar heights of threads runs are measurements; the open-loop panel's come
# from the sim engine (virtual time), so those bars are surely visible.
png_ok "plot throughput" "$tmp/fig/throughput.png" $central:0.005 $static:0.005
run "plot utilization" "$py" "$plot" utilization "$r" -o "$tmp/fig/utilization.png"
png_ok "plot utilization" "$tmp/fig/utilization.png" ff0000:0.0004     # red: total
pass "plot.py throughput and utilization"
pycheck "throughput and utilization panels" "$scripts" "$r" "$tmp/fig" <<'EOF'
import html, re, sys
sys.path.insert(0, sys.argv[1])
import matplotlib
matplotlib.rcParams["svg.fonttype"] = "none"
import harnesslib as hl
import plot
rs = hl.load_all([sys.argv[2]])
want = ["fib, threads engine, 1 worker:", "fib, threads engine, 2 workers:",
        "open-loop, sim engine, 16 workers:"]
for f in (plot.plot_throughput, plot.plot_utilization):
    path = f(rs, sys.argv[3] + "/panels.svg")
    text = " ".join(html.unescape(x) for x in
                    re.findall(r"<text[^>]*>([^<]*)</text>", open(path).read()))
    heads = [w for w in want if w in text]
    assert heads == want, (f.__name__, text)
# Past the limit: refused with one line saying how to split.
plot.MAX_PANELS = 2
try:
    plot.plot_throughput(rs, sys.argv[3] + "/refused.svg")
    raise AssertionError("3 panels drawn past a limit of 2")
except plot.PlotError as e:
    assert "3 panels" in str(e) and "--where engine=" in str(e), e
print("panels ok")
EOF
pass "plot.py throughput and utilization: a panel per workload, engine and worker count, titled so; too many refused"

# An ablation as a user runs it: three variants of volt typed on the command
# line, at two loads. The figure labels each series by the name typed (not
# every knob that differs), gives each its own colour and marker, none in
# the theory curves' dashed or dotted style, and draws the intervals;
# reproduce.sh --table ablation fills every cell from these results.
mkdir -p "$tmp/abl"
run "harness ablation" "$harness" --policy='volt,volt:lifo_cap=0,volt:prefetch=32' \
	--workload=open-loop --engine=sim --workers 4 --param load=0.5,0.8 --param requests=500 \
	--trials 1 --warmup 0 --json "$tmp/abl/r.json"
pycheck "ablation figure" "$scripts" "$tmp/abl" "$tmp/fig/abl.svg" <<'EOF'
import html, re, sys
sys.path.insert(0, sys.argv[1])
import matplotlib
matplotlib.rcParams["svg.fonttype"] = "none"
import harnesslib as hl
import plot
rs = hl.load_all([sys.argv[2]])
series = plot.load_series(rs)
names = ["volt", "volt[lifo_cap=0]", "volt[prefetch=32]"]
assert sorted(s.label for s, _ in series) == sorted(names), [s.label for s, _ in series]
sts = plot.styles([s.points[0][1] for s, _ in series])
assert len(set(st.colour for st in sts)) == 3, [st.colour for st in sts]
assert len(set((st.marker, st.filled) for st in sts)) == 3, [st.marker for st in sts]
assert not set(st.dash for st in sts) & {"--", ":"}, [st.dash for st in sts]
bare = [st for (s, _), st in zip(series, sts) if s.label == "volt"][0]
assert bare.colour == hl.policy_style("volt").colour        # the policy keeps its colour
assert all(p[3] is not None and p[4] is not None for _, pts in series for p in pts), series
plot.plot_p99_vs_load(rs, sys.argv[3], theory=True)
text = [html.unescape(x) for x in re.findall(r"<text[^>]*>([^<]*)</text>", open(sys.argv[3]).read())]
for n in names:
    assert n in text, (n, text)
assert not [t for t in text if "interval=" in t or "steal_max=" in t], text
print("ablation figure ok")
EOF
run "reproduce.sh --table ablation" "$scripts/reproduce.sh" --table ablation "$tmp/abl"
cp "$tmp/out" "$tmp/abl.md"
pycheck "reproduce.sh --table ablation: empty cells" "$tmp/abl.md" <<'EOF'
import sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| volt")]
assert [r.split(" | ")[0] for r in rows] == ["| volt", "| volt[lifo_cap=0]",
                                              "| volt[prefetch=32]"], rows
for r in rows:
    cells = [c.strip() for c in r.strip().strip("|").split("|")[1:]]
    assert len(cells) == 2 and all(c and "[" in c for c in cells), r
print("ablation table ok")
EOF
pass "an ablation: labels as typed, a colour and marker per variant, intervals; reproduce.sh --table ablation filled"

fi

if want plots-c; then
run "plot gantt" "$py" "$plot" gantt --trace "$tmp/trace.json" -o "$tmp/fig/gantt.png"
# Event names are coloured by total time: tick, poll, park, io.
png_ok "plot gantt" "$tmp/fig/gantt.png" c6dbef:0.05 2171b5:0.05 fd8d3c:0.02 74c476:0.002
pycheck "gantt parsing" "$scripts" "$tmp/trace.json" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import plot
rows, meta = plot.read_trace(sys.argv[2])
assert sorted(rows) == [(1, 0), (1, 1)], sorted(rows)
assert [rows[k]["name"] for k in sorted(rows)] == ["worker 0", "worker 1"]
assert len(rows[(1, 0)]["spans"]) == 60 * 6
spans1 = rows[(1, 1)]["spans"]
assert len(spans1) == 60 * 6 + 1 and ("io" in [s[2] for s in spans1])
assert (3200.0, 100.0, "io") in spans1
nested = plot._nest(rows[(1, 0)]["spans"])
depth = {}
for ts, dur, name, d in nested:
    depth.setdefault(name, set()).add(d)
assert depth == {"tick": {0}, "poll": {1}, "park": {0}}, depth
assert meta["policy"] == "synthetic"
print("trace ok")
EOF
pass "plot.py gantt: timeline PNG; X and B/E events, thread names, ticks hold polls"

# The harness's own trace, when this build has --trace: one row per worker.
if "$harness" --help 2>/dev/null | grep -q -- '--trace PATH'; then
	run "harness --trace" "$harness" --policy=volt --workload=fib --param n=15 --workers 2 \
		--trials 1 --warmup 0 --no-json --trace "$tmp/real-trace.json"
	run "plot gantt (harness trace)" "$py" "$plot" gantt --trace "$tmp/real-trace.json" \
		-o "$tmp/fig/gantt-real.png"
	png_ok "plot gantt (harness trace)" "$tmp/fig/gantt-real.png"
	pycheck "harness trace rows" "$scripts" "$tmp/real-trace.json" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import plot
rows, meta = plot.read_trace(sys.argv[2])
names = sorted(r["name"] for r in rows.values())
assert names == ["worker 0", "worker 1"], names      # an idle worker keeps its row
assert meta.get("policy") == "volt", meta
assert any(s[2] == "poll" for r in rows.values() for s in r["spans"])
EOF
	pass "plot.py gantt: the harness's --trace output"
fi

# Bad input: one line on stderr, exit 2, nothing written.
"$py" "$plot" throughput "$tmp/empty-dir-missing" -o "$tmp/fig/x.png" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] || fail "plot.py on a missing file: exit $st, expected 2"
[ "$(grep -c '' "$tmp/err")" -eq 1 ] || fail "plot.py on a missing file: not one line on stderr"
mkdir -p "$tmp/empty"
"$py" "$plot" percentiles "$tmp/empty" -o "$tmp/fig/x.png" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -q 'no result files' "$tmp/err" || fail "plot.py on an empty directory: exit $st"
"$py" "$plot" throughput "$r" -o "$tmp/fig/x.jpeg" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -q 'png, pdf, svg' "$tmp/err" || fail "plot.py -o x.jpeg: exit $st"
"$py" "$plot" p99-vs-load "$r"/fib-*.json -o "$tmp/fig/x.png" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -q 'no open-loop result' "$tmp/err" || fail "p99-vs-load on fib: exit $st"
[ -e "$tmp/fig/x.png" ] || [ -e "$tmp/fig/x.jpeg" ] && fail "a failed plot left a file"
pass "plot.py: bad input exits 2 with one line, writes nothing"

# reproduce.sh --help: its usage on stdout, exit 0, from any directory.
(cd "$tmp" && "$scripts/reproduce.sh" --help) >"$tmp/out" 2>"$tmp/err" ||
	fail "reproduce.sh --help: exit status $?"
grep -q '^  scripts/reproduce.sh --check DIR' "$tmp/out" && grep -q -- '--table ablation' "$tmp/out" &&
	! grep -q '^#' "$tmp/out" && [ ! -s "$tmp/err" ] || fail "reproduce.sh --help: not its usage"
pass "reproduce.sh --help prints its usage, exit 0"

fi

if want plots-a; then
# --------------------------------------------------------------------- gnuplot
run "gnuplot percentiles" gnuplot -e "data='$tmp/pct.dat'; out='$tmp/fig/gp-pct.png'" \
	"$scripts/percentiles.gp"
png_ok "gnuplot percentiles" "$tmp/fig/gp-pct.png"
run "gnuplot p99" gnuplot \
	-e "data='$tmp/p99.dat'; theory='$tmp/p99-theory.dat'; out='$tmp/fig/gp-p99.png'" \
	"$scripts/p99_vs_load.gp"
# The same colours as matplotlib's, from the style file plot.py --data wrote.
png_ok "gnuplot p99_vs_load" "$tmp/fig/gp-p99.png" $central:0.0004 $static:0.0004
grep -q "lc rgb \"#$central\"" "$tmp/p99-style.gp" ||
	grep -qi "lc rgb \"#$central\"" "$tmp/p99-style.gp" || fail "p99-style.gp lacks #$central"
gnuplot "$scripts/percentiles.gp" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] || fail "percentiles.gp without data/out: exit $st, expected 2"
pass "gnuplot: percentiles.gp and p99_vs_load.gp draw PNGs from plot.py's data"

fi

if want tables; then
# ---------------------------------------------------------------------- tables
run "tables md" "$py" "$scripts/tables.py" "$r" -o "$tmp/tables.md"
run "tables latex" "$py" "$scripts/tables.py" "$r" --format latex -o "$tmp/tables.tex"
run "tables html" "$py" "$scripts/tables.py" "$r" --format html --rows workload \
	-o "$tmp/tables.html"
pycheck "tables do not match the result files" "$tmp/tables.md" "$tmp/tables.tex" \
	"$tmp/tables.html" "$r" "$scripts" <<'EOF'
import json, re, sys
sys.path.insert(0, sys.argv[5])
import harnesslib as hl
import tables
md, tex, htm = (open(p).read() for p in sys.argv[1:4])
policies = ["volt", "tokio", "central-queue", "static-partition"]
# Markdown: five tables (the fifth the CPU per task, which every result here has), each with
# one row per policy and the same columns.
heads = [l for l in md.splitlines() if l.startswith("| policy |")]
assert len(heads) == 5, heads
ncols = heads[0].count("|")
for p in policies:
    rows = [l for l in md.splitlines() if l.startswith("| %s |" % p)]
    assert len(rows) == 5, (p, rows)
    assert all(l.count("|") == ncols for l in rows), rows
# A cell: volt fib at 1 worker, median tasks/s with its interval.
d = json.load(open(sys.argv[4] + "/fib-volt-1w.json"))
m, ci = d["median"]["tasks_per_s"], d["median"]["ci95"]["tasks_per_s"]
cell = "%s [%s, %s]" % (tables.fmt_eng(m), tables.fmt_eng(ci["lo"]), tables.fmt_eng(ci["hi"]))
col = [c.strip() for c in heads[1].split("|")].index("fib threads workers=1")
row = [l for l in md.split("**Throughput")[1].splitlines() if l.startswith("| volt |")][0]
assert [c.strip() for c in row.split("|")][col] == cell, (row, cell)
# ... and its median CPU per task with its interval (median.cpu_per_task_ns).
m, ci = d["median"]["cpu_per_task_ns"], d["median"]["ci95"]["cpu_per_task_ns"]
cell = "%s [%s, %s]" % (tables.fmt_sig(m, 3), tables.fmt_sig(ci["lo"], 3),
                        tables.fmt_sig(ci["hi"], 3))
row = [l for l in md.split("**CPU per task")[1].splitlines() if l.startswith("| volt |")][0]
assert [c.strip() for c in row.split("|")][col] == cell, (row, cell)
# LaTeX: booktabs rules once per table, a row per policy in each, balanced columns.
for rule in ("\\toprule", "\\midrule", "\\bottomrule"):
    assert tex.count(rule) == 5, (rule, tex.count(rule))
assert tex.count("\\begin{tabular}") == 5 and tex.count("\\end{tabular}") == 5
for p in policies:
    rows = [l for l in tex.splitlines() if l.startswith(p + " & ")]
    assert len(rows) == 5, (p, rows)
    assert all(l.count(" & ") == ncols - 2 for l in rows), rows
# HTML, transposed: the policies are the columns.
assert htm.count('<table class="results"') == 5
for p in policies:
    assert htm.count("<th>%s</th>" % p) == 5, p
print("tables ok")
EOF
pass "tables.py: Markdown and LaTeX (booktabs) with a row per policy, HTML; cells match the files"

# p99/S against load with its intervals and theory rows, files given in reverse order;
# --where and --sort.
run "tables p99-load" "$py" "$scripts/tables.py" "$r"/ol-static-partition-0.9.json \
	"$r"/ol-static-partition-0.5.json "$r"/ol-central-queue-0.9.json \
	"$r"/ol-central-queue-0.5.json --metric p99-load -o "$tmp/p99load.md"
run "tables --where/--sort" "$py" "$scripts/tables.py" "$r" --where load=0.9 \
	--where policy=central-queue,static-partition,volt --sort=-policy --metric p99 \
	-o "$tmp/where.md"
pycheck "p99-load, --where or --sort tables are wrong" "$tmp/p99load.md" "$tmp/where.md" "$r" \
	"$scripts" <<'EOF'
import sys
sys.path.insert(0, sys.argv[4])
import harnesslib as hl
import tables
md = open(sys.argv[1]).read().splitlines()
rows = {l.split("|")[1].strip(): [c.strip() for c in l.split("|")[2:-1]]
        for l in md if l.startswith("| ") and not l.startswith("| configuration")}
head = [l for l in md if l.startswith("| configuration")][0]
assert [c.strip() for c in head.split("|")[2:-1]] == ["load 0.5", "load 0.9"], head
# Rows in policy order, not file order; then the theory rows for k = 16.
names = [l.split("|")[1].strip() for l in md if l.startswith("| ") and "configuration" not in l]
assert names == ["central-queue", "static-partition", "M/M/16 theory",
                 "16 x M/M/1 theory"], names
for i, x in enumerate((0.5, 0.9)):
    assert rows["M/M/16 theory"][i] == tables.fmt_sig(hl.mmk_p99(x, 16)), rows
    assert rows["16 x M/M/1 theory"][i] == tables.fmt_sig(hl.mm1_p99(x)), rows
    g = hl.load("%s/ol-static-partition-%s.json" % (sys.argv[3], x))
    lo, hi, _ = tables.percentile_interval(g, 0.99, "end_to_end_ns")
    s = g.mean_service_ns()
    assert lo <= g.percentile(0.99) <= hi, (lo, hi)
    assert rows["static-partition"][i] == "%s [%s, %s]" % (
        tables.fmt_sig(g.percentile(0.99) / s), tables.fmt_sig(lo / s), tables.fmt_sig(hi / s)), \
        rows["static-partition"]
assert any("[lo, hi]: 95% interval of the p99 (" in l for l in md), "interval not named"
# --where load=0.9 and three policies (volt has no load: dropped); --sort=-policy reverses.
w = open(sys.argv[2]).read().splitlines()
body = [l.split("|")[1].strip() for l in w if l.startswith("| ") and not l.startswith("| policy")]
assert body == ["static-partition", "central-queue"], body
assert [l for l in w if l.startswith("| policy")][0].count("|") == 3, w
print("p99-load ok")
EOF
pass "tables.py --metric p99-load: loads as columns, rows in policy order, theory rows, intervals; --where, --sort"

# ------------------------------------------------------------------------- CSV
run "csv_summary" "$py" "$scripts/csv_summary.py" "$r" -o "$tmp/summary.csv"
pycheck "the CSV does not match the result files" "$tmp/summary.csv" "$scripts" \
	"$nresults" <<'EOF'
import csv, json, sys
sys.path.insert(0, sys.argv[2])
import csv_summary
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == int(sys.argv[3]), len(rows)
header = next(csv.reader(open(sys.argv[1], newline="")))
assert tuple(header[:len(csv_summary.FIXED_COLUMNS)]) == csv_summary.FIXED_COLUMNS, header
assert "param.load" in header and "knob.lifo_cap" in header
numeric = ["workers", "trials", "makespan_ns", "makespan_ns_ci_lo", "makespan_ns_ci_hi",
           "tasks_per_s", "ns_per_task", "utilization_total", "polls", "parks",
           "p50_ns", "p99_ns", "p99_9_ns", "sched_p99_ns"]
for r in rows:
    d = json.load(open(r["file"]))
    for c in numeric:
        float(r[c])
    assert float(r["makespan_ns_ci_lo"]) <= float(r["makespan_ns"]) <= float(r["makespan_ns_ci_hi"])
    assert r["policy"] == d["config"]["policy"] and int(r["workers"]) == d["config"]["workers"]
    h = d["histograms"].get("end_to_end_ns") or d["histograms"]["sched_delay_ns"]
    assert int(r["p99_ns"]) == h["p99"] and int(r["p99_9_ns"]) == h["p99_9"]
    assert float(r["tasks_per_s"]) == d["median"]["tasks_per_s"]
    assert int(r["polls"]) == d["counters_total"]["polls"]
    if d["baseline"] is None:
        assert r["overhead_ns_per_task"] == "" and r["baseline_ns_per_task"] == ""
    else:
        float(r["overhead_ns_per_task"])
print("csv ok")
EOF
pass "csv_summary.py: $nresults rows, documented header, numbers equal to the files'"

fi

if want report || want report-shot; then
# ---------------------------------------------------------------------- report
run "report" "$py" "$scripts/report.py" "$r" --trace "$tmp/trace.json" -o "$tmp/report"
idx=$tmp/report/index.html
[ -f "$idx" ] || fail "report.py wrote no index.html"
nimg=$(grep -o '<img ' "$idx" | wc -l)
[ "$nimg" -ge 9 ] || fail "report has $nimg images, expected at least 9"
for src in $(grep -o '<img src="[^"]*"' "$idx" | sed 's/.*src="//; s/"$//'); do
	case $src in */* | *:*) fail "report image $src is not a file in the report directory" ;; esac
	png_ok "report $src" "$tmp/report/$src"
done
for want in 'id="provenance"' 'command line' '<table class="results"' 'timeline-1-trace.png'; do
	grep -q "$want" "$idx" || fail "report has no '$want'"
done
grep -qE '(src|href)="(https?:)?//' "$idx" && fail "report refers to the network"
pass "report.py: index.html with $nimg figures, tables and provenance"

# chrome DUMP|SHOT FILE OUT: headless Chromium, the page's scripts run.
chrome() {
	local mode=$1 file=$2 out=$3 ud
	ud=$(mktemp -d "$tmp/chrome.XXXXXX")
	local args=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
		--disable-background-networking --disable-component-update --disable-sync
		--user-data-dir="$ud" --virtual-time-budget=5000)
	if [ "$mode" = dump ]; then
		timeout 90 "$chromium" "${args[@]}" --dump-dom "file://$file" >"$out" 2>"$tmp/err"
	else
		timeout 90 "$chromium" "${args[@]}" --window-size=1280,2000 --screenshot="$out" \
			"file://$file" >"$tmp/out" 2>"$tmp/err"
	fi
}

if want report; then
chrome dump "$idx" "$tmp/dom.html" || fail "chromium --dump-dom failed"
grep -q "images: $nimg loaded, 0 failed" "$tmp/dom.html" ||
	fail "rendered report: $(grep -o 'id="img-status"[^<]*' "$tmp/dom.html"), expected $nimg loaded"
nloaded=$(grep -o 'data-state="loaded"' "$tmp/dom.html" | wc -l)
[ "$nloaded" -eq "$nimg" ] || fail "rendered report: $nloaded images marked loaded of $nimg"
grep -q 'data-state="failed"' "$tmp/dom.html" && fail "rendered report: an image failed"
pass "chromium: the report renders, all $nimg images loaded, none failed"

fi

if want report-shot; then
chrome shot "$idx" "$tmp/shot.png" || fail "chromium --screenshot failed"
png_ok "report screenshot" "$tmp/shot.png"
pass "chromium: screenshot of the report is a real PNG"

fi

if want report; then
# The check can fail: a report with one figure missing reports it failed.
cp -r "$tmp/report" "$tmp/broken"
rm "$tmp/broken/$(grep -o '<img src="[^"]*"' "$idx" | head -n 1 | sed 's/.*src="//; s/"$//')"
chrome dump "$tmp/broken/index.html" "$tmp/dom2.html" || fail "chromium --dump-dom failed"
grep -q "images: $((nimg - 1)) loaded, 1 failed" "$tmp/dom2.html" ||
	fail "broken report: $(grep -o 'id="img-status"[^<]*' "$tmp/dom2.html"), expected 1 failed"
pass "chromium: a missing figure is reported as failed"

fi
fi

echo "test_scripts: $passed passed, $failed failed"
