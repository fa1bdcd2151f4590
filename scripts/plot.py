#!/usr/bin/python3
"""plot.py - figures from harness result files.

    plot.py SUBCOMMAND [options] RESULT... -o OUT.{png,pdf,svg}

RESULT is a result file or a directory of them (searched recursively for
*.json and *.json.gz; a compressed result reads as it is). Subcommands:

    percentiles   latency by percentile (HdrHistogram style), one line per
                  configuration: end_to_end_ns when the results have it, else
                  sched_delay_ns (--histogram picks one); --data FILE also
                  writes the series for scripts/percentiles.gp
    p99-vs-load   p99 latency / mean service time against offered load, one
                  line per configuration (open-loop results); --theory adds
                  the M/M/1 (partitioned) and M/M/k (shared queue) curves for
                  the worker counts plotted; --data FILE for
                  scripts/p99_vs_load.gp
    speedup       speedup against workers, relative to each configuration's
                  1-worker median makespan (or --baseline: the sequential run)
    normalized-speedup
                  the Cilk papers' figure from simulated fork-join results:
                  (T_1/T_P)/(T_1/T_inf) against P/(T_1/T_inf), log-log, with
                  the linear-speedup line, the span bound and the greedy bound
                  T_P = T_1/P + T_inf; one series per policy, every workload
                  and worker count of it (scripts/workspan.py)
    throughput    median tasks/s per configuration with the 95% CI of the
                  median as error bars, one panel per workload
    utilization   per-worker utilization (median over trials) per
                  configuration, one panel per workload
    gantt         worker timeline from a Chrome trace (--trace PATH, as
                  `harness --trace` writes it)

Every figure is drawn with matplotlib's Agg backend (no display needed); the
output format follows the extension of -o. docs/plots.md has examples.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402
import workspan  # noqa: E402

PROG = "plot.py"
FORMATS = ("png", "pdf", "svg")

# One colour and one marker per policy, the same in every figure and in the
# gnuplot scripts (harnesslib.policy_style: a colour-blind-safe palette).
POLICY_ORDER = hl.POLICY_ORDER

# A page: report and default figure sizes in inches (a 6.5 in text width).
PAGE_WIDTH = 6.5


class PlotError(Exception):
    """Nothing to draw, or a bad input; the message is one line."""


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def policy_color(policy):
    return hl.policy_style(policy).colour


def styles(items):
    """A harnesslib.Style per item: colour and marker by policy, items of
    the same policy (variants, worker counts) told apart by the dash."""
    return hl.item_styles(items)


def line_kw(st, markersize=4):
    """matplotlib keywords drawing a line in Style st."""
    return {"color": st.colour, "linestyle": st.dash, "marker": st.marker,
            "markersize": markersize, "markerfacecolor": st.colour if st.filled else "white",
            "markeredgecolor": st.colour}


def write_styles(data_path, items):
    """The gnuplot line types of the blocks in data_path, beside it
    (DATA-style.gp, which the .gp scripts load): the same colours and
    markers as the matplotlib figures."""
    stem, _ = os.path.splitext(data_path)
    path = stem + "-style.gp"
    with open(path, "w", encoding="utf-8") as f:
        f.write("# plot.py: line type i+1 draws block i of %s\n" % os.path.basename(data_path))
        f.write(hl.gnuplot_styles(styles(items)))
    return path


def sorted_groups(groups):
    """Groups in value order of what varies among them (policies as
    --policy=all runs them, numbers ascending), labels set."""
    keys = ["policy"] + hl.varying_keys(groups, ignore=hl.CONFIG_IGNORE)
    groups = hl.sort_items(groups, keys)
    for g, lab in zip(groups, hl.labels(groups)):
        g.label = lab
    return groups


def wrap(text, width=90):
    """A title broken into lines that fit a page-wide figure."""
    import textwrap
    return "\n".join(textwrap.wrap(text, width))


def context_title(items):
    """What every item shares, for a default title: workload, engine,
    workers, service distribution, requests, trials."""
    groups = [g for it in items for g in (it.groups if hasattr(it, "groups") else [it])]
    out = []
    for key, fmt in (("workload", "%s"), ("engine", "%s engine"), ("workers", "%s workers"),
                     ("param.dist", "dist=%s"), ("param.service_us", "S=%s us")):
        # Enumerations by name (dist=exponential), as the tables print them.
        vals = sorted(set(hl.fmt_named(key, g.flat.get(key)) for g in groups if key in g.flat))
        if len(vals) == 1:
            out.append(fmt % vals[0])
        elif vals and key in ("workload", "engine", "workers"):
            out.append(fmt % "/".join(vals))
    # The requests each trial ran, resolved when the parameter was 0 (automatic).
    req = hl.fmt_requests(groups)
    if req:
        out.append(req)
    ntr = sorted(set(len(g.trials) for g in groups))
    if ntr:
        out.append("%s trial%s" % ("/".join(map(str, ntr)), "" if ntr == [1] else "s"))
    return ", ".join(out)


def _check_output(path):
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise PlotError("%s: output format must be one of %s (by extension)"
                        % (path, ", ".join(FORMATS)))


def _save(fig, path, dpi):
    _check_output(path)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".%d.tmp" % os.getpid()
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    fig.savefig(tmp, dpi=dpi, bbox_inches="tight", format=ext)
    os.replace(tmp, path)
    _pyplot().close(fig)
    return path


def _workloads(items):
    out = []
    for it in items:
        if it.workload not in out:
            out.append(it.workload)
    return out


def _desc_hist(name):
    return {"end_to_end_ns": "end-to-end latency (intended arrival to completion)",
            "sched_delay_ns": "scheduling delay (runnable to poll)"}.get(name, name)


def _provenance_note(items):
    """One line under a figure: engine, c2c round trip, commit."""
    engines = sorted(set(it.engine for it in items))
    c2c = sorted(set(r.provenance.get("c2c_round_trip_ns") for it in items for r in it.results)
                 - {None})
    revs = sorted(set(r.provenance.get("git_revision", "?")[:12] for it in items
                      for r in it.results))
    parts = ["engine " + "/".join(engines)]
    if c2c:
        lo, hi = hl.fmt_value(round(c2c[0], 1)), hl.fmt_value(round(c2c[-1], 1))
        parts.append("core-to-core round trip %s ns" % (lo if lo == hi else lo + ".." + hi))
    parts.append("rev " + ",".join(revs))
    return "; ".join(parts)


def _note(fig, text):
    fig.text(0.01, -0.01, text, fontsize=7, color="#555555", ha="left", va="top")


# --------------------------------------------------------------- percentiles

def percentile_series(groups, histogram="auto"):
    """[(group, histogram name, [(fraction, ns)])] without the 100% level
    (1/(1-p) is infinite there), for groups that have the histogram."""
    out = []
    for g in groups:
        name = g.latency_histogram_name() if histogram == "auto" else histogram
        if name is None:
            continue
        n = g.sample_count(name)
        s = []
        for f, v in g.percentiles(name):
            if f >= 1.0:
                break
            s.append((f, v))
            if (1.0 - f) * n < 1.0:
                break       # beyond the last sample every level is the maximum
        if s:
            out.append((g, name, s))
    return out


def write_percentile_data(path, series):
    """gnuplot data: one block per configuration (blocks separated by two
    blank lines, so `index i` selects one), first line of each block the
    quoted title (for `title columnheader(1)`)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("# plot.py percentiles: one block per configuration\n")
        f.write("# columns: 1/(1-p)  percentile  value_ns  value_us\n")
        mixed = len(set(name for _, name, _ in series)) > 1
        if not mixed:
            f.write("# histogram: %s\n" % series[0][1])
        for i, (g, name, s) in enumerate(series):
            if i:
                f.write("\n\n")
            title = "%s (%s)" % (g.label, name) if mixed else g.label
            f.write('"%s" "percentile" "value_ns" "value_us"\n' % title.replace('"', "'"))
            for frac, v in s:
                f.write("%.10g %.10g %.10g %.10g\n" % (1.0 / (1.0 - frac), frac, v, v / 1e3))


def plot_percentiles(results, output=None, histogram="auto", logy=True, title=None,
                     data=None, size=None, dpi=120):
    """One line per configuration, in value order; one panel per offered
    load when the results were run at several (open-loop), so that a panel
    holds the configurations that compare. Latency on a log axis by default
    (tails span decades)."""
    groups = sorted_groups(hl.group_by_config(results))
    series = percentile_series(groups, histogram)
    if not series:
        raise PlotError("no result has a %s histogram with samples"
                        % ("latency" if histogram == "auto" else histogram))
    if data:
        write_percentile_data(data, series)
        write_styles(data, [g for g, _, _ in series])
    if not output:
        return None
    loads = sorted(set(g.flat["param.load"] for g, _, _ in series if "param.load" in g.flat))
    if any("param.load" not in g.flat for g, _, _ in series):
        loads = []      # other workloads in the same figure: one panel for all
    panels = [(None, series)] if len(loads) < 2 else [
        (x, [t for t in series if t[0].flat.get("param.load") == x]) for x in loads]
    plt = _pyplot()
    n = len(panels)
    cols = 1 if n == 1 else 2
    nrows = (n + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, squeeze=False, sharey=True,
                             figsize=size or (PAGE_WIDTH, 3.6 if n == 1 else 2.6 * nrows))
    vmax = max(v for _, _, s in series for _, v in s)
    unit, div = hl.time_unit(vmax)
    names = sorted(set(n for _, n, _ in series))
    what = _desc_hist(names[0]) if len(names) == 1 else "latency"
    st = {}
    for _, part in panels:      # the same dashes in every panel
        st.update(zip([id(g) for g, _, _ in part], styles([g for g, _, _ in part])))
    for ax, (load, part) in zip(axes.flat, panels):
        xmax = 1.0
        for g, name, s in part:
            xs = [1.0 / (1.0 - f) for f, _ in s]
            ys = [v / div for _, v in s]
            xmax = max(xmax, xs[-1])
            lab = g.label if len(names) == 1 else "%s (%s)" % (g.label, name)
            if load is not None:
                lab = lab.replace("load=%s" % hl.fmt_value(load), "").strip()
            ax.plot(xs, ys, linewidth=1.4, label=lab, **line_kw(st[id(g)], 2.5))
        ax.set_xscale("log")
        ticks = [(x, t) for x, t in hl.LEVEL_TICKS if x <= xmax * 1.0001]
        ax.set_xticks([x for x, _ in ticks])
        ax.set_xticklabels([t for _, t in ticks], fontsize=7)
        ax.minorticks_off()
        ax.set_xlim(1.0, max(xmax, 10.0))
        if logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_xlabel("percentile", fontsize=8)
        ax.set_ylabel("%s (%s)" % (what.split(" (")[0], unit), fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=6, loc="upper left")
        if load is not None:
            ax.set_title("load %s" % hl.fmt_value(load), fontsize=9)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle(title or wrap("%s by percentile (%s)" % (
        what[0].upper() + what[1:], context_title([g for g, _, _ in series]))), fontsize=9)
    fig.tight_layout()
    _note(fig, "%s; %s" % ("latency axis logarithmic" if logy else "latency axis linear",
                           _provenance_note([g for g, _, _ in series])))
    return _save(fig, output, dpi)


# --------------------------------------------------------------- p99 vs load

def load_series(results, quantile=0.99, histogram="end_to_end_ns"):
    """[(Series, [(load, q-latency / S, q-latency ns, lo, hi, kind)])] for
    results with a `load` parameter; lo/hi (ratios) are the 95% interval of
    the percentile (histograms.*.ci95, docs/results.md) for the reported
    levels, kind its method ("batch-means-slices", ...); for files written
    before the intervals existed, the range of the per-trial latency_p99_ns
    metric when q is 0.99 and there are several trials (kind "range");
    lo, hi and kind None when there is neither."""
    rs = [r for r in results if "param.load" in r.flat and r.mean_service_ns()]
    out = []
    ser = hl.split_series(rs, "param.load")
    reps = [s.points[0][1] for s in ser]
    keys = ["policy"] + [k for k in hl.varying_keys(reps, ignore=hl.CONFIG_IGNORE)]
    order = hl.sort_items(reps, keys)
    ser.sort(key=lambda s: next(i for i, g in enumerate(order) if g is s.points[0][1]))
    for s in ser:
        pts = []
        for x, g in s.points:
            name = histogram if g._has_histogram(histogram) else g.latency_histogram_name()
            v = g.percentile(quantile, name)
            if v is None:
                continue
            svc = g.mean_service_ns()
            lo = hi = kind = None
            ci = g.percentile_ci95(quantile, name)
            if ci:
                lo, hi, kind = ci[0] / svc, ci[1] / svc, ci[2] or "ci95"
            elif abs(quantile - 0.99) < 1e-12:
                per = [(t.get("metrics") or {}).get("latency_p99_ns") for t in g.trials]
                per = [p for p in per if p is not None]
                if len(per) > 1:
                    lo, hi, kind = min(per) / svc, max(per) / svc, "range"
            pts.append((x, v / svc, v, lo, hi, kind))
        if pts:
            out.append((s, pts))
    return out


def theory_curves(workers, lo=0.02, hi=0.97, quantile=0.99, n=120):
    """[(title, kind, [(rho, q-latency / S)])] for each worker count: k x
    M/M/1 (partitioned queues) and M/M/k (one shared queue)."""
    hi = min(hi, 0.995)
    lo = max(min(lo, hi / 2), 0.001)
    rhos = [lo + (hi - lo) * i / (n - 1) for i in range(n)]
    out = []
    for k in sorted(set(workers)):
        out.append(("%d x M/M/1 (partitioned, random routing)" % k if k > 1 else "M/M/1", "mm1",
                    [(r, hl.mm1_p99(r, quantile)) for r in rhos]))
        if k > 1:
            out.append(("M/M/%d (shared queue)" % k, "mmk",
                        [(r, hl.mmk_p99(r, k, quantile)) for r in rhos]))
    return out


def _qname(q):
    s = ("%.6f" % (q * 100)).rstrip("0").rstrip(".")
    return "p" + s


def write_load_data(path, series, theory, quantile):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# plot.py p99-vs-load: one block per configuration\n")
        f.write("# columns: load  %s/S  %s_ns  lo/S  hi/S\n" % (_qname(quantile),
                                                                 _qname(quantile)))
        f.write("# lo, hi: %s\n" % bar_meaning(series, quantile, "the point itself"))
        for i, (s, pts) in enumerate(series):
            if i:
                f.write("\n\n")
            f.write('"%s" "ratio" "ns" "lo" "hi"\n' % s.label.replace('"', "'"))
            for x, r, v, lo, hi, _ in pts:
                f.write("%.10g %.10g %.10g %.10g %.10g\n"
                        % (x, r, v, r if lo is None else lo, r if hi is None else hi))
    if theory:
        tpath = theory_data_path(path)
        with open(tpath, "w", encoding="utf-8") as f:
            f.write("# plot.py p99-vs-load --theory: one block per model\n")
            f.write("# columns: load  %s/S\n" % _qname(quantile))
            for i, (title, _, pts) in enumerate(theory):
                if i:
                    f.write("\n\n")
                f.write('"%s" "ratio"\n' % title)
                for r, y in pts:
                    f.write("%.10g %.10g\n" % (r, y))


def bar_meaning(series, quantile, none="no error bars"):
    """What the error bars of load_series' points are, from what each point
    carries: the percentile's 95% interval by its method, the per-trial range
    (older files), or `none` for points with neither, each with the points
    it applies to when they differ."""
    qn = _qname(quantile)
    kinds = {}
    for _, pts in series:
        for p in pts:
            kinds[p[5]] = kinds.get(p[5], 0) + 1
    total = sum(kinds.values())
    parts = []
    for kind in sorted(kinds, key=lambda k: (k is None, k == "range", str(k))):
        if kind is None:
            text = none
        elif kind == "range":
            text = "range (min..max) of the per-trial %s" % qn
        else:
            text = "95%% interval of the %s (%s)" % (qn, hl.CI_METHODS.get(kind, kind))
        if len(kinds) > 1:
            text += " at %d of %d points" % (kinds[kind], total)
        parts.append(text)
    return "; ".join(parts)


def theory_data_path(path):
    stem, ext = os.path.splitext(path)
    return stem + "-theory" + (ext or ".dat")


def plot_p99_vs_load(results, output=None, theory=False, quantile=0.99, linear=False,
                     title=None, data=None, size=None, dpi=120, warn=sys.stderr):
    series = load_series(results, quantile)
    if not series:
        raise PlotError("no open-loop result (a result with a load parameter and latencies)")
    curves = []
    if theory:
        groups = [g for s, _ in series for g in s.groups]
        dists = set(g.params.get("dist") for g in groups)
        if dists - {1}:
            print("%s: the theory curves assume exponential service (dist=exponential); the "
                  "results have dist=%s"
                  % (PROG, ",".join(hl.fmt_named("param.dist", d)
                                    for d in sorted(dists, key=str))), file=warn)
        if any(g.engine != "sim" for g in groups):
            print("%s: the theory curves model no scheduling cost; threads results include it"
                  % PROG, file=warn)
        xs = [x for _, pts in series for x, *_ in pts]
        curves = theory_curves([g.workers for g in groups], lo=0.05,
                               hi=max(max(xs) * 1.02, 0.95), quantile=quantile)
    if data:
        write_load_data(data, series, curves, quantile)
        write_styles(data, [s.points[0][1] for s, _ in series])
    if not output:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=size or (PAGE_WIDTH, 4.0))
    # Series that share loads are drawn side by side, each offset sideways
    # by a fraction of the closest gap between loads: equal points (an
    # ablation whose variants all sit on one curve) stay visible, each with
    # its own marker and bar. The data file keeps the loads as run.
    loads = sorted(set(p[0] for _, pts in series for p in pts))
    shared = len(series) > 1 and any(
        sum(1 for _, pts in series if x in [p[0] for p in pts]) > 1 for x in loads)
    gap = min([b - a for a, b in zip(loads, loads[1:])] or [0.1])
    step = gap * 0.5 / len(series) if shared else 0.0
    for i, ((s, pts), st) in enumerate(zip(series, styles([s.points[0][1]
                                                             for s, _ in series]))):
        dx = (i - (len(series) - 1) / 2.0) * step
        xs = [p[0] + dx for p in pts]
        ys = [p[1] for p in pts]
        col = st.colour
        ax.plot(xs, ys, linewidth=1.6, label=s.label, **line_kw(st, 5))
        err = [(p[0] + dx, p[1], p[3], p[4]) for p in pts if p[3] is not None]
        if err:
            ax.errorbar([e[0] for e in err], [e[1] for e in err],
                        # The pooled p99 can round just outside every trial's
                        # exact p99: a bar never has negative length.
                        yerr=[[max(e[1] - e[2], 0) for e in err],
                              [max(e[3] - e[1], 0) for e in err]],
                        fmt="none", ecolor=col, capsize=3, linewidth=1)
    for title_, kind, pts in curves:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color="black",
                linestyle=":" if kind == "mm1" else "--", linewidth=1.2, label=title_)
    if not linear:
        from matplotlib.ticker import FuncFormatter, LogLocator
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: hl.fmt_value(round(v, 3))))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
        ax.set_ylim(bottom=1.0)
    else:
        ax.set_ylim(bottom=0)
    if curves:
        # The theory curves climb without bound near load 1: the axis ends a
        # little above the highest point or bar measured, not at the curves'.
        top = max(max(p[1], p[4] or 0) for _, pts in series for p in pts)
        ax.set_ylim(top=top * (2.0 if not linear else 1.3))
    ax.set_xlim(0, max(1.0, 1.05 * max(p[0] for _, pts in series for p in pts)))
    ax.set_xlabel("offered load (arrival rate x mean service / workers)")
    ax.set_ylabel("%s latency / mean service time" % _qname(quantile))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(title or wrap("%s end-to-end latency / S against load (%s)"
                               % (_qname(quantile), context_title([s for s, _ in series]))),
                 fontsize=9)
    # The bars named as what they are, point by point (the interval where
    # the file has one, the per-trial range for older files, else none).
    bars = any(p[3] is not None for _, pts in series for p in pts)
    qn = _qname(quantile)
    side = ("series side by side: offset up to +-%s in load so that equal points stay "
            "visible; " % hl.fmt_value(round(step * (len(series) - 1) / 2.0, 4))
            if step else "")
    # What the theory curves assume, beside them (a reader compares the
    # points with them).
    assume = ("theory: Poisson arrivals, exponential service, no scheduling cost and no "
              "wake-up latency; k x M/M/1 is static partition with random routing "
              "(round-robin routing makes each queue E_k/M/1, with a lower tail); "
              if curves else "")
    _note(fig, wrap("%s%s; points: the %s of every trial's recorded requests pooled; %s%s"
                    % (assume, "error bars: " + bar_meaning(series, quantile) if bars
                       else "no error bars (no interval recorded, one trial per point)", qn,
                       side, _provenance_note([g for s, _ in series for g in s.groups])), 115))
    return _save(fig, output, dpi)


# ---------------------------------------------------------- latency vs CPU

def cpu_series(results, quantile=0.99):
    """[(Series, [(load, CPU per request / S, q-latency / S)])]: the points
    of load_series that carry the CPU per request (median.cpu_per_task_ns,
    docs/results.md), one series per configuration but the load."""
    out = []
    for s, pts in load_series(results, quantile):
        row = []
        for (x, g), p in zip([(x, g) for x, g in s.points
                              if any(q[0] == x for q in pts)], pts):
            cpu = g.median("cpu_per_task_ns")
            if cpu is not None:
                row.append((p[0], cpu / g.mean_service_ns(), p[1]))
        if row:
            out.append((s, row))
    return out


def plot_p99_vs_cpu(results, output, quantile=0.99, title=None, size=None, dpi=120):
    """The latency-CPU trade-off: for open-loop across loads, the latency
    quantile over S against the CPU the workers spent per request over S
    (1: the service alone; above it, what scheduling, searching and parking
    cost), one curve per configuration (policy and knob values), each point
    labelled with its load."""
    series = cpu_series(results, quantile)
    if not series:
        raise PlotError("no open-loop result with CPU figures (trials[].cpu: results made "
                        "before it have none)")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=size or (PAGE_WIDTH, 4.4))
    for (s, pts), st in zip(series, styles([s.points[0][1] for s, _ in series])):
        ax.plot([p[1] for p in pts], [p[2] for p in pts], linewidth=1.4, label=s.label,
                **line_kw(st, 5))
        for load, x, y in pts:
            ax.annotate(hl.fmt_value(round(load, 3)), (x, y), fontsize=5,
                        xytext=(2, 2), textcoords="offset points", color=st.colour)
    from matplotlib.ticker import FuncFormatter, LogLocator
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: hl.fmt_value(round(v, 3))))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.set_xlabel("CPU per request / mean service time")
    ax.set_ylabel("%s latency / mean service time" % _qname(quantile))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, loc="best")
    ax.set_title(title or wrap("%s end-to-end latency against CPU per request (%s)"
                               % (_qname(quantile), context_title([s for s, _ in series]))),
                 fontsize=9)
    _note(fig, wrap("each point one offered load (labelled); x: the workers' CPU (sim: their "
                    "modelled time) over the requests, median over the trials; y: the %s of every trial's recorded requests pooled; %s"
                    % (_qname(quantile),
                       _provenance_note([g for s, _ in series for g in s.groups])), 115))
    return _save(fig, output, dpi)


# ------------------------------------------------------------------- speedup

def speedup_series(results, baseline=False, warn=sys.stderr):
    """[(Series, reference ns, what, [(workers, speedup, lo, hi)])]."""
    out = []
    for s in hl.split_series(results, "workers"):
        ref = what = None
        one = [g for x, g in s.points if x == 1]
        if not baseline and one:
            ref, what = one[0].median("makespan_ns"), "1 worker"
        else:
            ref = hl.median(g.baseline_ns() for _, g in s.points)
            what = "sequential"
            if ref is None:
                if len(s.points) > 1:
                    print("%s: %s has no %s; left out"
                          % (PROG, s.label, "baseline" if baseline else
                             "1-worker result and no baseline"), file=warn)
                continue
        pts = []
        for x, g in s.points:
            m = g.median("makespan_ns")
            ci = g.ci95("makespan_ns")
            lo, hi = (ref / ci[1], ref / ci[0]) if ci and ci[0] > 0 else (None, None)
            pts.append((x, ref / m, lo, hi))
        out.append((s, ref, what, pts))
    return out


def plot_speedup(results, output, baseline=False, title=None, size=(PAGE_WIDTH, 4.2), dpi=120,
                 warn=sys.stderr):
    series = speedup_series(results, baseline, warn)
    series = [t for t in series if len(t[3]) > 1 or t[2] == "sequential"]
    if not series:
        if baseline:
            raise PlotError("no result has a sequential baseline (sim runs and --no-baseline "
                            "runs have none)")
        raise PlotError("no configuration was run at several worker counts")
    reps = [t[0].points[0][1] for t in series]
    for t, lab in zip(series, hl.labels(reps, exclude=hl.CONFIG_IGNORE + ("workers",))):
        t[0].label = lab
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=size)
    wmax = 1
    for (s, ref, what, pts), st in zip(series, styles([t[0].points[0][1] for t in series])):
        xs = [p[0] for p in pts]
        wmax = max(wmax, max(xs))
        col = st.colour
        ax.plot(xs, [p[1] for p in pts], linewidth=1.6, label=s.label, **line_kw(st, 5))
        err = [p for p in pts if p[2] is not None]
        if err:
            ax.errorbar([p[0] for p in err], [p[1] for p in err],
                        yerr=[[max(p[1] - p[2], 0) for p in err], [max(p[3] - p[1], 0)
                                                                  for p in err]],
                        fmt="none", ecolor=col, capsize=3, linewidth=1)
    ax.plot([1, wmax], [1, wmax], color="black", linestyle=":", linewidth=1,
            label="ideal (speedup = workers)")
    ws = sorted(set(p[0] for t in series for p in t[3]))
    ymin = min(p[1] for t in series for p in t[3])
    if wmax >= 16:
        ax.set_xscale("log", base=2)
    if wmax >= 16 or ymin < 0.25:
        from matplotlib.ticker import FuncFormatter
        ax.set_yscale("log", base=2 if ymin >= 0.25 else 10)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
    ax.set_xticks(ws)
    ax.set_xticklabels([hl.fmt_value(w) for w in ws])
    ax.set_xlabel("workers")
    refs = sorted(set(t[2] for t in series))
    ax.set_ylabel("speedup (x, median makespan vs %s)" % " or ".join(refs))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    wl = ", ".join(_workloads([t[0].points[0][1] for t in series]))
    ax.set_title(title or "Speedup: %s (%s)" % (
        wl, _coverage_note([g for t in series for g in t[0].groups], "makespan_ns")
        .replace("median", "median makespan")), fontsize=10)
    _note(fig, _provenance_note([g for t in series for g in t[0].groups]))
    return _save(fig, output, dpi)


def plot_normalized_speedup(results, output, title=None, size=(PAGE_WIDTH + 1.5, 4.6), dpi=120):
    """Normalized speedup (Blumofe et al., Cilk, PPoPP 1995; Frigo et al., Cilk-5,
    PLDI 1998): x = P / (T_1/T_inf), y = (T_1/T_P) / (T_1/T_inf) = T_inf / T_P.
    Linear speedup is y = x, the span bound y = 1, the greedy bound
    T_P = T_1/P + T_inf is y = x / (1 + x)."""
    results = [r for r in results if r.engine == "sim"]
    data = workspan.collect(results)
    by_policy = {}
    for cells in data.values():
        for pol, c in cells.items():
            by_policy.setdefault(pol, []).extend(workspan.normalized_points(c))
    by_policy = {p: v for p, v in by_policy.items() if v}
    if not by_policy:
        raise PlotError("no simulated fork-join result with a span (trials[].span_ns) at "
                        "1 and more workers")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=size)
    xs = [x for v in by_policy.values() for x, _ in v]
    lo, hi = min(xs) / 2, max(max(xs) * 2, 2)
    for pol in workspan._order(by_policy):
        st = hl.policy_style(pol)
        pts = sorted(by_policy[pol])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="none", marker=st.marker,
                markersize=4, markerfacecolor=st.colour if st.filled else "none",
                markeredgecolor=st.colour, color=st.colour, label=pol)
    n = 200
    grid = [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]
    ax.plot(grid, grid, color="black", linestyle=":", linewidth=1,
            label="linear speedup, T_P = T_1/P")
    ax.plot(grid, [1.0] * n, color="black", linestyle="--", linewidth=1,
            label="span bound, T_P = T_inf")
    ax.plot(grid, [x / (1 + x) for x in grid], color="grey", linestyle="-", linewidth=1,
            label="greedy bound, T_P = T_1/P + T_inf")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ys = [y for v in by_policy.values() for _, y in v]
    ax.set_ylim(min(ys) / 2, 2)
    ax.set_xlabel("normalized machine size P / (T_1/T_inf)")
    ax.set_ylabel("normalized speedup (T_1/T_P) / (T_1/T_inf)")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    wls = sorted(set(label.split()[0] for label in data))
    ax.set_title(title or "Normalized speedup on the sim: %d graphs of %s" % (
        len(data), ", ".join(wls)), fontsize=9)
    _note(fig, _provenance_note(hl.group_by_config(results)))
    return _save(fig, output, dpi)


# ---------------------------------------------------------- bars per workload

# More panels than this in one throughput or utilization figure is refused:
# a page cannot hold them readably.
MAX_PANELS = 12


def _panels(results):
    """[(title, [Group])]: one panel per workload, engine and worker count
    (tasks of different workloads do not compare, and a 2-worker threads
    bar beside a 64-worker sim one on a shared axis is invisible), labels
    computed within each panel, panels in value order. PlotError, with how
    to split, past MAX_PANELS."""
    keys = {}
    for r in results:
        keys.setdefault((r.workload, r.engine, r.workers), []).append(r)
    order = sorted(keys, key=lambda k: (_workloads(results).index(k[0]), k[1] != "threads",
                                        k[1], k[2]))
    if len(order) > MAX_PANELS:
        raise PlotError("%d panels (one per workload, engine and worker count), more than %d: "
                        "draw some at a time, e.g. --where engine=%s --where workers=%s"
                        % (len(order), MAX_PANELS, order[0][1], order[0][2]))
    out = []
    for wl, eng, w in order:
        groups = sorted_groups(hl.group_by_config(keys[(wl, eng, w)]))
        out.append(("%s, %s engine, %d worker%s" % (wl, eng, w, "" if w == 1 else "s"),
                    groups))
    return out


def _log_if_decades(ax, values):
    """A log value axis when the values span more than a decade and a half
    (30x): on a linear one the small bars vanish. True if set."""
    vals = [v for v in values if v and v > 0]
    if len(vals) > 1 and max(vals) / min(vals) > 30:
        ax.set_yscale("log")
        return True
    return False


def _coverage_note(groups, key):
    if all(len(g.trials) < 2 for g in groups):
        return "one trial each: no interval"
    covs = sorted(set(round(g.ci95(key)[2], 4) for g in groups if g.ci95(key)))
    if covs and covs[0] < 0.95:
        return "error bars: [min, max] over trials (coverage %s%%: fewer than 6 trials)" \
            % "/".join(hl.fmt_value(round(c * 100, 2)) for c in covs)
    return "error bars: 95% CI of the median"


def plot_throughput(results, output, title=None, size=None, dpi=120):
    panels = _panels(results)
    if not panels:
        raise PlotError("no results")
    plt = _pyplot()
    from matplotlib.ticker import EngFormatter
    n = len(panels)
    width = min(PAGE_WIDTH, max(4.5, 1.0 + 0.6 * max(len(g) for _, g in panels)))
    fig, axes = plt.subplots(n, 1, figsize=size or (width, 2.8 * n), squeeze=False)
    for ax, (wl, groups) in zip(axes[:, 0], panels):
        ys = [g.median("tasks_per_s") or 0.0 for g in groups]
        lo, hi = [], []
        for g, y in zip(groups, ys):
            ci = g.ci95("tasks_per_s")
            lo.append(max(y - ci[0], 0) if ci else 0)
            hi.append(max(ci[1] - y, 0) if ci else 0)
        sts = styles(groups)
        xs = range(len(groups))
        logy = _log_if_decades(ax, ys)
        bars = ax.bar(xs, ys, color=[st.colour for st in sts], yerr=[lo, hi], capsize=4,
                      edgecolor="black", linewidth=0.5, error_kw={"elinewidth": 1.2})
        for b, st in zip(bars, sts):
            b.set_hatch(st.hatch)   # a colour two policies share: the second is hatched
        ax.set_xticks(list(xs))
        ax.set_xticklabels([g.label for g in groups], rotation=20 if len(groups) > 4 else 0,
                           ha="right" if len(groups) > 4 else "center", fontsize=8)
        ax.yaxis.set_major_formatter(EngFormatter())
        ax.set_ylabel("tasks/s (median%s)" % (", log" if logy else ""))
        ax.grid(True, axis="y", alpha=0.3)
        ntr = sorted(set(len(g.trials) for g in groups))
        ax.set_title(wrap("%s: throughput, %s trials; %s" % (
            wl, "/".join(map(str, ntr)), _coverage_note(groups, "tasks_per_s")), 80),
            fontsize=9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    _note(fig, _provenance_note([g for _, gs in panels for g in gs]))
    return _save(fig, output, dpi)


def plot_utilization(results, output, title=None, size=None, dpi=120):
    panels = _panels(results)
    if not panels:
        raise PlotError("no results")
    plt = _pyplot()
    n = len(panels)
    width = min(PAGE_WIDTH, max(4.5, 1.0 + 0.7 * max(len(g) for _, g in panels)))
    fig, axes = plt.subplots(n, 1, figsize=size or (width, 2.8 * n), squeeze=False)
    cmap = plt.get_cmap("viridis")
    for ax, (wl, groups) in zip(axes[:, 0], panels):
        wmax = max(g.workers for g in groups)
        few = wmax <= 8
        bw = 0.8 / max(wmax, 1)
        for i, g in enumerate(groups):
            u = g.utilization_per_worker()
            left = i - bw * len(u) / 2.0
            for w, v in enumerate(u):
                c = cmap(w / max(wmax - 1, 1) * 0.85) if few else policy_color(g.policy)
                ax.bar(left + bw * (w + 0.5), v, width=bw * 0.95, color=c,
                       edgecolor="black" if few else None, linewidth=0.3,
                       label="worker %d" % w if few and g.workers == wmax and
                       not any(x.workers == wmax for x in groups[:i]) else None)
            tot = g.median("utilization_total")
            if tot is not None:
                half = max(bw * len(u) / 2.0, 0.15) + 0.03
                ax.plot([i - half, i + half], [tot, tot], color="red", linewidth=1.5,
                        label="total (median)" if i == 0 else None)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([g.label for g in groups], rotation=20 if len(groups) > 4 else 0,
                           ha="right" if len(groups) > 4 else "center", fontsize=8)
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.set_ylim(0, 1.1)
        ax.set_ylabel("utilization (busy / makespan)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_title(wrap("%s: per-worker utilization, median over trials%s"
                          % (wl, "" if few else " (bars: workers 0..%d, left to right)"
                             % (wmax - 1)), 80), fontsize=9)
        handles, labs = ax.get_legend_handles_labels()
        if handles:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    _note(fig, _provenance_note([g for _, gs in panels for g in gs]))
    return _save(fig, output, dpi)


# --------------------------------------------------------------------- gantt

def read_trace(path):
    """(rows, meta) from a Chrome trace file (an object with traceEvents, or
    a bare array of events). rows: {(pid, tid): {"name": str, "spans":
    [(start_us, dur_us, name)]}} from complete ("X") events and matched
    begin/end ("B"/"E") pairs; thread names from "M" thread_name events (a
    named thread keeps its row without events)."""
    try:
        doc = hl.read_json(path)
    except OSError as e:
        raise PlotError("%s: %s" % (path, getattr(e, "strerror", None) or e))
    except ValueError as e:
        raise PlotError("%s: not JSON (%s)" % (path, e))
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
        meta = doc.get("otherData") or {}
    else:
        events, meta = doc, {}
    if not isinstance(events, list):
        raise PlotError("%s: not a Chrome trace (no traceEvents array)" % path)
    rows = {}
    open_ = {}
    for e in events:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        key = (e.get("pid", 0), e.get("tid", 0))
        if ph == "M":
            if e.get("name") == "thread_name":
                rows.setdefault(key, {"name": None, "spans": []})["name"] = \
                    (e.get("args") or {}).get("name")
            continue
        if ph == "X":
            ts, dur = e.get("ts"), e.get("dur", 0)
            if ts is None:
                continue
            rows.setdefault(key, {"name": None, "spans": []})["spans"].append(
                (float(ts), float(dur or 0), str(e.get("name", "?"))))
        elif ph == "B":
            open_.setdefault(key, []).append((float(e.get("ts", 0)), str(e.get("name", "?"))))
        elif ph == "E" and open_.get(key):
            ts0, name = open_[key].pop()
            rows.setdefault(key, {"name": None, "spans": []})["spans"].append(
                (ts0, float(e.get("ts", ts0)) - ts0, name))
    # A named thread without events stays (an idle worker is a finding);
    # an unnamed one without events is noise.
    rows = {k: v for k, v in rows.items() if v["spans"] or v["name"]}
    if not any(v["spans"] for v in rows.values()):
        raise PlotError("%s: no complete (X) or begin/end events" % path)
    return rows, meta


def _nest(spans):
    """[(start, dur, name, depth)]: depth = how many earlier spans on the
    same row still enclose this one (ticks hold polls)."""
    out = []
    stack = []
    for ts, dur, name in sorted(spans, key=lambda s: (s[0], -s[1])):
        end = ts + dur
        while stack and stack[-1] <= ts + 1e-9:
            stack.pop()
        out.append((ts, dur, name, len(stack)))
        stack.append(end)
    return out


def _merge(spans, gap):
    """Merge spans closer than `gap` (sorted by start): a span narrower than
    a pixel draws nothing useful, and a million rectangles draw slowly."""
    out = []
    for ts, dur in spans:
        if out and ts - (out[-1][0] + out[-1][1]) <= gap:
            s0, d0 = out[-1]
            out[-1] = (s0, max(d0, ts + dur - s0))
        else:
            out.append((ts, dur))
    return out


def plot_gantt(trace, output, start=None, end=None, title=None, size=None, dpi=120):
    rows, meta = read_trace(trace)
    keys = sorted(rows, key=lambda k: (str(k[0]), k[1] if isinstance(k[1], (int, float))
                                       else 0, str(k[1])))
    t0 = min(s[0] for r in rows.values() for s in r["spans"])
    t1 = max(s[0] + s[1] for r in rows.values() for s in r["spans"])
    lo = t0 if start is None else float(start)
    hi = t1 if end is None else float(end)
    if hi <= lo:
        raise PlotError("empty time window [%g, %g] us" % (lo, hi))
    span = hi - lo
    unit, div = ("ms", 1e3) if span >= 2000 else ("us", 1.0)
    gap = span / 3000.0
    # Names ordered by total time, longest first (drawn first, underneath).
    tot = {}
    for r in rows.values():
        for ts, dur, name in r["spans"]:
            tot[name] = tot.get(name, 0.0) + dur
    names = sorted(tot, key=lambda n: -tot[n])
    pal = ("#c6dbef", "#2171b5", "#fd8d3c", "#74c476", "#9e9ac8", "#e7969c", "#bdbdbd")
    color = {n: pal[i % len(pal)] for i, n in enumerate(names)}
    plt = _pyplot()
    nrows = len(keys)
    fig, ax = plt.subplots(figsize=size or (10, 1.2 + 0.45 * nrows))
    drawn = set()
    for row, k in enumerate(keys):
        nested = _nest([s for s in rows[k]["spans"] if s[0] + s[1] >= lo and s[0] <= hi])
        by = {}
        for ts, dur, name, depth in nested:
            by.setdefault((depth, name), []).append((ts, dur))
        for (depth, name), spans in sorted(by.items(), key=lambda kv: (kv[0][0],
                                                                         names.index(kv[0][1]))):
            spans = _merge(spans, gap)
            h = 0.8 * (0.6 ** depth)
            ax.broken_barh([((s - lo) / div, max(d, gap) / div) for s, d in spans],
                           (row - h / 2, h), facecolors=color[name], edgecolor="none",
                           label=name if name not in drawn else None)
            drawn.add(name)
    ax.set_yticks(range(nrows))
    ax.set_yticklabels([rows[k]["name"] or "tid %s" % (k[1],) for k in keys], fontsize=8)
    ax.set_ylim(nrows - 0.5, -0.5)
    ax.set_xlim(0, span / div)
    ax.set_xlabel("time (%s) from %s at %s in the trace's clock"
                  % (unit, "the first event" if start is None else "--start",
                     hl.fmt_ns(lo * 1e3, 6)))
    ax.grid(True, axis="x", alpha=0.3)
    handles, labs = ax.get_legend_handles_labels()
    order = sorted(range(len(labs)), key=lambda i: names.index(labs[i]))
    ax.legend([handles[i] for i in order], [labs[i] for i in order], fontsize=8,
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    bits = [str(meta[k]) for k in ("policy", "workload", "engine") if k in meta]
    drop = meta.get("events_dropped")
    if drop:
        bits.append("%s events dropped" % drop)
    ax.set_title(title or "Worker timeline%s" % (": " + ", ".join(bits) if bits else ""),
                 fontsize=10)
    return _save(fig, output, dpi)


# ---------------------------------------------------------------------- main

def _load(paths, where=()):
    try:
        rs = hl.load_all(paths)
    except hl.ResultError as e:
        raise PlotError(str(e))
    if not rs:
        raise PlotError("no result files in %s" % " ".join(paths))
    try:
        rs = hl.select(rs, where)
    except (KeyError, ValueError) as e:
        raise PlotError(e.args[0])
    if not rs:
        raise PlotError("no result matches %s" % " and ".join(where))
    return rs


def _size(s):
    try:
        w, h = (float(x) for x in s.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("size is WIDTHxHEIGHT in inches, e.g. 8x5")
    return (w, h)


def _frac(s):
    v = float(s)
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError("a quantile is between 0 and 1 (0.99 = p99)")
    return v


def build_parser():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", metavar="SUBCOMMAND")
    sub.required = True

    def common(sp, results=True, output_required=True):
        if results:
            sp.add_argument("results", nargs="+", metavar="RESULT",
                            help="result files or directories of them")
            sp.add_argument("--where", action="append", default=[], metavar="KEY=V[,V...]",
                            help="keep results whose KEY (policy, workers, load, lifo_cap, "
                                 "...) has one of the values (repeatable)")
        sp.add_argument("-o", "--output", required=output_required,
                        help="figure path: .png, .pdf or .svg")
        sp.add_argument("--title", help="figure title (default: generated)")
        sp.add_argument("--size", type=_size, help="figure size in inches, WIDTHxHEIGHT")
        sp.add_argument("--dpi", type=int, default=120, help="PNG resolution (default 120)")

    sp = sub.add_parser("percentiles", help="latency by percentile, HdrHistogram style")
    common(sp, output_required=False)
    sp.add_argument("--histogram", default="auto",
                    choices=("auto", "end_to_end_ns", "sched_delay_ns"),
                    help="auto: end_to_end_ns when present, else sched_delay_ns")
    sp.add_argument("--logy", action="store_true",
                    help="logarithmic latency axis (the default; kept for old scripts)")
    sp.add_argument("--linear", action="store_true", help="linear latency axis")
    sp.add_argument("--data", help="also write the series as gnuplot data "
                    "(scripts/percentiles.gp)")

    sp = sub.add_parser("p99-vs-load", help="tail latency / mean service against load")
    common(sp, output_required=False)
    sp.add_argument("--theory", action="store_true",
                    help="draw M/M/1 (partitioned) and M/M/k (shared queue) curves")
    sp.add_argument("--quantile", type=_frac, default=0.99, help="latency quantile (0.99)")
    sp.add_argument("--linear", action="store_true", help="linear latency axis (default log)")
    sp.add_argument("--data", help="also write gnuplot data (scripts/p99_vs_load.gp); with "
                    "--theory the curves go to DATA-theory.dat")

    sp = sub.add_parser("p99-vs-cpu", help="tail latency / S against CPU per request / S "
                        "across loads")
    common(sp)
    sp.add_argument("--quantile", type=_frac, default=0.99, help="latency quantile (0.99)")

    sp = sub.add_parser("speedup", help="speedup against workers")
    common(sp)
    sp.add_argument("--baseline", action="store_true",
                    help="relative to the sequential baseline instead of 1 worker")

    sp = sub.add_parser("normalized-speedup",
                        help="(T_1/T_P)/(T_1/T_inf) against P/(T_1/T_inf), sim fork-join")
    common(sp)

    sp = sub.add_parser("throughput", help="median tasks/s with 95%% CI")
    common(sp)

    sp = sub.add_parser("utilization", help="per-worker utilization")
    common(sp)

    sp = sub.add_parser("gantt", help="worker timeline from a Chrome trace")
    common(sp, results=False)
    sp.add_argument("--trace", required=True, help="Chrome trace file (harness --trace)")
    sp.add_argument("--start", type=float, help="window start, us from the trace's zero")
    sp.add_argument("--end", type=float, help="window end, us from the trace's zero")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        if getattr(args, "output", None):
            _check_output(args.output)
        kw = {"title": args.title, "dpi": args.dpi}
        if args.size:
            kw["size"] = args.size
        if args.cmd in ("percentiles", "p99-vs-load") and not args.output and not args.data:
            raise PlotError("%s needs -o OUT or --data FILE" % args.cmd)
        if args.cmd == "percentiles":
            plot_percentiles(_load(args.results, args.where), args.output, args.histogram,
                             not args.linear,
                             data=args.data, **kw)
        elif args.cmd == "p99-vs-load":
            plot_p99_vs_load(_load(args.results, args.where), args.output, args.theory, args.quantile,
                             args.linear, data=args.data, **kw)
        elif args.cmd == "p99-vs-cpu":
            plot_p99_vs_cpu(_load(args.results, args.where), args.output, args.quantile, **kw)
        elif args.cmd == "speedup":
            plot_speedup(_load(args.results, args.where), args.output, args.baseline, **kw)
        elif args.cmd == "normalized-speedup":
            plot_normalized_speedup(_load(args.results, args.where), args.output, **kw)
        elif args.cmd == "throughput":
            plot_throughput(_load(args.results, args.where), args.output, **kw)
        elif args.cmd == "utilization":
            plot_utilization(_load(args.results, args.where), args.output, **kw)
        elif args.cmd == "gantt":
            plot_gantt(args.trace, args.output, args.start, args.end, **kw)
    except PlotError as e:
        print("%s %s: %s" % (PROG, args.cmd, e), file=sys.stderr)
        return 2
    for path in (getattr(args, "output", None), getattr(args, "data", None)):
        if path:
            print(path)
    if getattr(args, "theory", False) and args.data:
        print(theory_data_path(args.data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
