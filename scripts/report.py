#!/usr/bin/python3
"""report.py - a static HTML report from result files.

    report.py RESULT... -o DIR [--title TEXT] [--trace TRACE.json]...
              [--theory | --no-theory]

Writes DIR/index.html and the figures it shows (PNG) into DIR, which is
created if missing: one self-contained directory, no network, no external
style sheets or scripts, to open in a browser or copy anywhere. The page
holds, for each workload, the throughput and utilization bars, the latency
percentile plot, the speedup against workers (when a configuration ran at
several worker counts), the p99 against CPU per request (open-loop results
with CPU figures) and the p99-against-load plot (open-loop results,
with the M/M/1 and M/M/k curves when every open-loop result is a sim run
with exponential service, or as --theory / --no-theory say); a worker
timeline per --trace file; the tables of tables.py; and the provenance of
every run (revision, compiler and flags, allocator, CPU, core-to-core round
trip, kernel, host, time, command line).

The page's own script marks each image loaded or failed (data-state on the
<img>) and writes "images: N loaded, M failed" into #img-status once every
image has settled, so a headless browser can check the page.
"""

import argparse
import html
import io
import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402
import plot  # noqa: E402
import tables  # noqa: E402

PROG = "report.py"

STYLE = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1200px; color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; border-bottom: 2px solid #1f77b4; padding-bottom: .2em; }
h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: .85em; color: #555; }
table { border-collapse: collapse; margin: .8em 0; font-size: .85em; }
caption { text-align: left; font-weight: bold; padding: .3em 0; }
th, td { border-top: 1px solid #ddd; border-bottom: 1px solid #ddd; padding: .25em .6em; }
thead th { border-bottom: 2px solid #888; }
td { text-align: right; font-variant-numeric: tabular-nums; }
tbody th { text-align: left; font-weight: normal; white-space: nowrap; }
.ci { color: #777; font-size: .85em; }
.notes { font-size: .8em; color: #555; margin-top: -.3em; }
.prov td { text-align: left; }
code { font-size: .85em; word-break: break-all; }
#img-status { font-size: .8em; color: #777; margin-top: 3em; }
"""

SCRIPT = """
var imgCount = { loaded: 0, failed: 0 };
function imgStatus() {
  var el = document.getElementById("img-status");
  if (!el) return;
  var n = document.images.length, done = imgCount.loaded + imgCount.failed;
  if (done >= n) {
    el.textContent = "images: " + imgCount.loaded + " loaded, " + imgCount.failed + " failed";
    el.setAttribute("data-done", "1");
  } else {
    el.textContent = "images: " + done + " of " + n + " settled";
  }
}
function imgDone(img, ok) {
  if (img.getAttribute("data-state")) return;
  ok = ok && img.naturalWidth > 0;
  img.setAttribute("data-state", ok ? "loaded" : "failed");
  if (ok) imgCount.loaded++; else imgCount.failed++;
  imgStatus();
}
document.addEventListener("DOMContentLoaded", function () {
  for (var i = 0; i < document.images.length; i++) {
    var img = document.images[i];
    if (img.complete) imgDone(img, img.naturalWidth > 0);
  }
  imgStatus();
});
"""


def _e(s):
    return html.escape("" if s is None else str(s), quote=True)


def _slug(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", s).strip("-") or "x"


class Page:
    def __init__(self, outdir):
        self.outdir = outdir
        self.parts = []
        self.images = []
        self.skipped = []

    def add(self, text):
        self.parts.append(text)

    def figure(self, name, caption, draw):
        """draw(path) makes the PNG; a PlotError leaves the figure out with a
        note in the log."""
        path = os.path.join(self.outdir, name)
        try:
            draw(path)
        except plot.PlotError as e:
            self.skipped.append("%s: %s" % (name, e))
            return False
        self.images.append(name)
        self.add('<figure><img src="%s" alt="%s" onload="imgDone(this, true)" '
                 'onerror="imgDone(this, false)"><figcaption>%s</figcaption></figure>'
                 % (_e(name), _e(caption), caption))
        return True


def _has_speedup(results):
    return any(len(s.points) > 1 for s in hl.split_series(results, "workers"))


def _theory_auto(results):
    ol = [r for r in results if "param.load" in r.flat]
    return bool(ol) and all(r.engine == "sim" and r.params.get("dist") == 1 for r in ol)


def _provenance(results):
    out = []
    common = []
    for key, what in (("git_revision", "revision"), ("compiler", "compiler"),
                      ("cflags", "flags"), ("build_type", "build type"),
                      ("sanitize", "sanitizers"), ("allocator", "allocator"),
                      ("cpu_model", "CPU"), ("cores_online", "cores online"),
                      ("kernel", "kernel"), ("hostname", "host")):
        vals = sorted(set(hl.fmt_value(r.provenance.get(key)) for r in results))
        common.append("<tr><th>%s</th><td>%s</td></tr>"
                      % (_e(what), "<br>".join(_e(v) or "<i>none</i>" for v in vals)))
    c2c = [r.provenance.get("c2c_round_trip_ns") for r in results]
    c2c = [c for c in c2c if c is not None]
    if c2c:
        common.append("<tr><th>core-to-core round trip</th><td>%s .. %s ns (median %s ns "
                      "over %d runs)</td></tr>" % (_e(hl.fmt_value(min(c2c))),
                                                   _e(hl.fmt_value(max(c2c))),
                                                   _e(hl.fmt_value(round(hl.median(c2c), 1))),
                                                   len(c2c)))
    stamps = sorted(r.provenance.get("timestamp_utc", "") for r in results)
    common.append("<tr><th>runs</th><td>%d files, %s .. %s</td></tr>"
                  % (len(results), _e(stamps[0]), _e(stamps[-1])))
    out.append('<table class="prov"><caption>Machine and build</caption><tbody>%s'
               "</tbody></table>" % "".join(common))
    rows = []
    for r in sorted(results, key=lambda r: (r.workload, r.policy, r.workers,
                                            r.provenance.get("timestamp_utc", ""))):
        p = r.provenance
        rows.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td>"
                    "<td>%s</td><td>%s</td><td>%s</td><td><code>%s</code></td></tr>"
                    % (_e(os.path.basename(r.path)), _e(r.policy), _e(r.workload),
                       _e(r.engine), r.workers, len(r.trials),
                       _e(p.get("timestamp_utc")), _e(p.get("git_revision", "")[:12]),
                       _e(hl.fmt_value(p.get("c2c_round_trip_ns"))),
                       _e(p.get("command_line"))))
    out.append('<table class="prov"><caption>Runs</caption><thead><tr><th>file</th>'
               "<th>policy</th><th>workload</th><th>engine</th><th>workers</th><th>trials</th>"
               "<th>time (UTC)</th><th>revision</th><th>c2c ns</th><th>command line</th>"
               "</tr></thead><tbody>%s</tbody></table>" % "\n".join(rows))
    return "\n".join(out)


def build_report(results, outdir, title=None, traces=(), theory=None, dpi=100):
    """Write outdir/index.html and its PNGs; returns (index path, [image
    names], [skipped figures with the reason])."""
    os.makedirs(outdir, exist_ok=True)
    page = Page(outdir)
    workloads = []
    for r in results:
        if r.workload not in workloads:
            workloads.append(r.workload)
    policies = sorted(set(r.policy for r in results))
    if theory is None:
        theory = _theory_auto(results)
    title = title or "Scheduling policies: %s" % ", ".join(workloads)
    page.add("<h1>%s</h1>" % _e(title))
    page.add("<p>%d result files; policies %s; workloads %s. Medians over trials; intervals "
             "are the distribution-free interval of the median (<code>docs/results.md</code>)."
             "</p>" % (len(results), _e(", ".join(policies)), _e(", ".join(workloads))))
    page.add("<ul>%s<li><a href=\"#tables\">tables</a></li>%s"
             "<li><a href=\"#provenance\">provenance</a></li></ul>"
             % ("".join('<li><a href="#wl-%s">%s</a></li>' % (_slug(w), _e(w))
                        for w in workloads),
                '<li><a href="#timelines">timelines</a></li>' if traces else ""))
    for wl in workloads:
        rs = [r for r in results if r.workload == wl]
        s = _slug(wl)
        page.add('<h2 id="wl-%s">%s</h2>' % (s, _e(wl)))
        page.figure("%s-throughput.png" % s,
                    "Median tasks per second per configuration; error bars: interval of the "
                    "median over trials.",
                    lambda p, rs=rs: plot.plot_throughput(rs, p, dpi=dpi))
        page.figure("%s-utilization.png" % s,
                    "Utilization per worker (busy time / makespan, median over trials); red "
                    "line: total utilization.",
                    lambda p, rs=rs: plot.plot_utilization(rs, p, dpi=dpi))
        hist = plot.percentile_series(hl.group_by_config(rs))
        if hist:
            page.figure("%s-percentiles.png" % s,
                        "Latency by percentile (%s)." % _e(plot._desc_hist(hist[0][1])),
                        lambda p, rs=rs: plot.plot_percentiles(rs, p, dpi=dpi))
        if _has_speedup(rs):
            page.figure("%s-speedup.png" % s,
                        "Speedup against workers, relative to each configuration's 1-worker "
                        "median makespan (or the sequential baseline).",
                        lambda p, rs=rs: plot.plot_speedup(rs, p, dpi=dpi,
                                                           warn=io.StringIO()))
        if any("param.load" in r.flat for r in rs):
            page.figure("%s-p99-vs-load.png" % s,
                        "p99 end-to-end latency in units of the mean service time against "
                        "offered load%s." % (
                            "; dotted and dashed: M/M/1 (partitioned queues) and M/M/k (one "
                            "shared queue) for exponential service" if theory else ""),
                        lambda p, rs=rs: plot.plot_p99_vs_load(rs, p, theory=theory, dpi=dpi,
                                                               warn=io.StringIO()))
        if plot.cpu_series(rs):
            page.figure("%s-p99-vs-cpu.png" % s,
                        "p99 end-to-end latency against the CPU the workers spent per request, "
                        "both in units of the mean service time, one point per offered load: "
                        "what each policy burns for its tail.",
                        lambda p, rs=rs: plot.plot_p99_vs_cpu(rs, p, dpi=dpi))
    if traces:
        page.add('<h2 id="timelines">Worker timelines</h2>')
        for i, tr in enumerate(traces):
            page.figure("timeline-%d-%s.png" % (i + 1, _slug(os.path.splitext(
                os.path.basename(tr))[0])),
                "Worker timeline from <code>%s</code> (Chrome trace events)." % _e(tr),
                lambda p, tr=tr: plot.plot_gantt(tr, p, dpi=dpi))
    page.add('<h2 id="tables">Tables</h2>')
    page.add(tables.render(tables.build_tables(results), "html"))
    page.add('<h2 id="provenance">Provenance</h2>')
    page.add(_provenance(results))
    page.add('<p id="img-status">images: not checked (scripts off)</p>')
    doc = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<title>%s</title>\n<style>%s</style>\n<script>%s</script>\n</head>\n<body>\n%s\n"
           "<footer class=\"notes\">Written %s by scripts/report.py.</footer>\n"
           "</body>\n</html>\n"
           % (_e(title), STYLE, SCRIPT, "\n".join(page.parts),
              time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
    index = os.path.join(outdir, "index.html")
    tmp = index + ".%d.tmp" % os.getpid()
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(doc)
    os.replace(tmp, index)
    return index, page.images, page.skipped


def main(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+", metavar="RESULT",
                   help="result files or directories of them")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="report directory (index.html and PNGs)")
    p.add_argument("--title", help="page title")
    p.add_argument("--trace", action="append", default=[],
                   help="a Chrome trace file to draw as a worker timeline (repeatable)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--theory", dest="theory", action="store_true", default=None,
                   help="draw the queueing curves on p99-vs-load")
    g.add_argument("--no-theory", dest="theory", action="store_false")
    p.add_argument("--dpi", type=int, default=100, help="PNG resolution (default 100)")
    args = p.parse_args(argv)
    try:
        rs = hl.load_all(args.results)
    except hl.ResultError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    if not rs:
        print("%s: no result files in %s" % (PROG, " ".join(args.results)), file=sys.stderr)
        return 2
    for tr in args.trace:
        if not os.path.isfile(tr):
            print("%s: no trace file %s" % (PROG, tr), file=sys.stderr)
            return 2
    index, images, skipped = build_report(rs, args.output, args.title, args.trace,
                                          args.theory, args.dpi)
    for s in skipped:
        print("%s: left out %s" % (PROG, s), file=sys.stderr)
    print("%s (%d figures)" % (index, len(images)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
