#!/usr/bin/python3
"""tables.py - Markdown, LaTeX (booktabs) or HTML tables from result files.

    tables.py [--format md|latex|html] [--metric M]... [--rows policy|workload]
              [--where KEY=V[,V...]]... [--sort KEY[,KEY...]] [--quantile P]
              [--no-ci] [-o OUT] RESULT...

One table per metric: utilization (total, median over trials), throughput
(tasks/s), ns-per-task (wall time / tasks), p99 (end-to-end latency for
request workloads, scheduling delay otherwise) and cpu-per-task (the
workers' CPU over the tasks, the sim's modelled time: per request for
open-loop; docs/results.md, trials[].cpu; left out when no result has it);
--metric picks some (default all). Rows are policies (with the knobs that differ, named as the
harness names variants: volt[lifo_cap=0]), columns workloads (with the
parameters, worker counts and engines that differ); --rows workload swaps
them. Each cell is the median over the configuration's trials followed by
the 95% interval of the median in brackets (docs/results.md, median.ci95)
when there are at least two trials; a p99 cell is the pooled percentile with
its 95% interval (histograms.*.ci95; batch means over every trial when
several files are pooled); results of the same configuration in several
files are pooled. Tables of threads-engine results end with a caption line:
how many trials were flagged noisy and the core-to-core round-trip range
over every probe (trials[].noise, docs/measuring.md).

--metric work-span (fork-join results of both engines) is the work/span
table of scripts/workspan.py: per workload and policy T_S, T_1, T_1/T_S,
T_inf, T_1/T_inf and the speedup and efficiency at every simulated worker
count, with the cells above the greedy bound T_1/P + T_inf marked, then
each policy's fitted c_1 and c_inf.

--metric p99-load (open-loop results) is the ZygOS-style table: the
latency percentile (--quantile, default 99) over the mean service time S,
one column per offered load present, one row per configuration, and the
queueing-theory rows for every worker count at every load: M/M/k (one
shared FCFS queue) and k x M/M/1 (partitioned, random routing), exact for
exponential service and no scheduling cost (the rows say so when the results
have another distribution).

Rows and columns are in value order: policies as --policy=all runs them,
numbers ascending; --sort KEY,... puts those keys first (-KEY descending).
--where KEY=V,... keeps the results whose KEY (policy, workers, load,
lifo_cap, ...: a config key, parameter, knob or cost) has one of the values;
repeatable, all must hold.
"""

import argparse
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402
import workspan  # noqa: E402

PROG = "tables.py"
METRICS = ("utilization", "throughput", "ns-per-task", "p99", "cpu-per-task")
EXTRA_METRICS = ("p99-load", "work-span")
SD_MARK = "\u2020"      # dagger: the p99 is a scheduling delay


def fmt_sig(v, sig=3):
    """v with `sig` significant digits, in plain notation (no exponent)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if v == 0:
        return "0"
    dec = max(0, sig - 1 - int(math.floor(math.log10(abs(v)))))
    return "%.*f" % (dec, v)


def fmt_eng(v, sig=3):
    """v with an SI prefix: 25.9 M, 7.88 k."""
    if v is None:
        return ""
    for div, pre in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return "%s %s" % (fmt_sig(v / div, sig), pre)
    return fmt_sig(v, sig)


class Cell:
    """One table cell: the value, its interval (or ""), and a marker."""

    def __init__(self, value="", ci="", mark=""):
        self.value, self.ci, self.mark = value, ci, mark

    def text(self, ci=True):
        s = self.value + self.mark
        if ci and self.ci:
            s += " " + self.ci
        return s


class Table:
    """title, corner (the row header's name), columns (labels), rows
    [(label, [Cell])], notes [str]."""

    def __init__(self, metric, title, corner, columns, rows, notes):
        self.metric, self.title, self.corner = metric, title, corner
        self.columns, self.rows, self.notes = columns, rows, notes


def _ci_text(g, key, scale, fmt):
    ci = g.ci95(key)
    if not ci or len(g.trials) < 2:
        return ""
    return "[%s, %s]" % (fmt(ci[0] * scale), fmt(ci[1] * scale))


def _cell(g, metric):
    if metric == "utilization":
        v = g.median("utilization_total")
        if v is None:
            return Cell()
        return Cell("%s%%" % fmt_sig(v * 100, 3),
                    _ci_text(g, "utilization_total", 100, lambda x: fmt_sig(x, 3)))
    if metric == "throughput":
        v = g.median("tasks_per_s")
        return Cell(fmt_eng(v), _ci_text(g, "tasks_per_s", 1, fmt_eng)) if v is not None \
            else Cell()
    if metric == "ns-per-task":
        v = g.median("ns_per_task")
        return Cell(fmt_sig(v, 3), _ci_text(g, "ns_per_task", 1, lambda x: fmt_sig(x, 3))) \
            if v is not None else Cell()
    if metric == "cpu-per-task":
        v = g.median("cpu_per_task_ns")
        return Cell(fmt_sig(v, 3), _ci_text(g, "cpu_per_task_ns", 1,
                                            lambda x: fmt_sig(x, 3))) \
            if v is not None else Cell()
    if metric == "p99":
        name = g.latency_histogram_name()
        v = g.percentile(0.99, name) if name else None
        if v is None:
            return Cell()
        ci = percentile_interval(g, 0.99, name)
        ci_text = "[%s, %s]" % (hl.fmt_ns(ci[0]), hl.fmt_ns(ci[1])) if ci else ""
        return Cell(hl.fmt_ns(v), ci_text, SD_MARK if name == "sched_delay_ns" else "")
    raise ValueError(metric)


_CI_METHODS = hl.CI_METHODS


def percentile_interval(g, q, name):
    """(lo, hi, method): the percentile's 95% interval as the result files
    give it (histograms.*.ci95), else from the order statistics of the
    stored histogram (any quantile); None without either."""
    given = getattr(g, "percentile_ci95", None)
    ci = given(q, name) if given else None
    if ci:
        return ci
    h = g.exact_histogram(name)
    lohi = h.percentile_ci(q) if h else None
    return (lohi[0], lohi[1], "order-statistics") if lohi else None


def _methods_note(what, intervals):
    methods = sorted(set(c[2] for c in intervals if c and c[2]))
    return "[lo, hi]: 95%% interval of the %s (%s; docs/results.md)" % (
        what, ", ".join(_CI_METHODS.get(x, x) for x in methods))


def _qname(q):
    return "p" + ("%.6f" % (q * 100)).rstrip("0").rstrip(".")


def build_load_table(results, quantile=0.99, ci=True, sort=()):
    """The p99/S table (any quantile): [Table] with one column per load
    present, a row per configuration (everything but the load), and the
    M/M/k and k x M/M/1 rows per worker count. [] without open-loop results."""
    rs = [r for r in results if "param.load" in r.flat and r.mean_service_ns()]
    groups = hl.group_by_config(rs)
    if not groups:
        return []
    loads = sorted(set(float(g.flat["param.load"]) for g in groups))
    vk = [k for k in hl.varying_keys(groups, ignore=hl.CONFIG_IGNORE) if k != "param.load"]
    row_keys = ["policy"] + [k for k in vk if k != "policy"]
    groups = hl.sort_items(groups, row_keys, first=sort)
    knobs = hl.knobs_varying_by_policy(groups, hl.CONFIG_IGNORE)
    qn = _qname(quantile)
    rows, index, intervals = [], {}, []
    for g in groups:
        lab = hl.label_of(g, row_keys, knobs)
        if lab not in index:
            index[lab] = len(rows)
            rows.append((lab, [Cell("n/a") for _ in loads]))
        svc = g.mean_service_ns()
        v = g.percentile(quantile, "end_to_end_ns")
        if v is None:
            continue
        lohi = percentile_interval(g, quantile, "end_to_end_ns") if ci else None
        intervals.append(lohi)
        rows[index[lab]][1][loads.index(float(g.flat["param.load"]))] = Cell(
            fmt_sig(v / svc, 3),
            "[%s, %s]" % (fmt_sig(lohi[0] / svc, 3), fmt_sig(lohi[1] / svc, 3)) if lohi else "")
    dists = sorted(set(hl.fmt_named("param.dist", g.params.get("dist", 1)) for g in groups))
    exp = dists in (["1"], ["exponential"])
    note = "" if exp else " (exponential service; these results are not)"
    for k in sorted(set(g.workers for g in groups)):
        if k > 1:
            rows.append(("M/M/%d theory%s" % (k, note),
                         [Cell(fmt_sig(hl.mmk_p99(x, k, quantile), 3)) if x < 1 else Cell("inf")
                          for x in loads]))
        rows.append(("%s theory%s" % ("%d x M/M/1" % k if k > 1 else "M/M/1", note),
                     [Cell(fmt_sig(hl.mm1_p99(x, quantile), 3)) if x < 1 else Cell("inf")
                      for x in loads]))
    ntrials = sorted(set(len(g.trials) for g in groups))
    notes = ["%s: the %s end-to-end latency (intended arrival to completion) over the mean "
             "service time S, every request of every trial" % (qn, qn)]
    if ci and any(intervals):
        notes.append(_methods_note(qn, intervals))
    notes.append("theory: Poisson arrivals and exponential service; M/M/k is one shared FCFS "
                 "queue on k workers, k x M/M/1 one queue per worker with requests routed at "
                 "random (static-partition's routing=random; its default round-robin makes "
                 "each queue E_k/M/1, with a lower tail); no scheduling cost and no wake-up "
                 "latency")
    # The count each trial ran: resolved by the harness when requests=0 (automatic).
    notes.append("requests per trial: %s; trials per configuration: %s"
                 % ((hl.fmt_requests(groups) or "").replace(" requests", ""),
                    "/".join(map(str, ntrials))))
    title = "%s latency / mean service time against offered load (%s)" % (
        qn, ", ".join(_context(groups)))
    return [Table("p99-load", title, "configuration",
                  ["load %s" % hl.fmt_value(x) for x in loads], rows, notes)]


def _context(groups):
    """What every group shares, for a title: workload, engine, workers,
    distribution, S."""
    out = []
    for key, fmt in (("workload", "%s"), ("engine", "%s engine"), ("workers", "%s workers"),
                     ("param.dist", "dist=%s"), ("param.service_us", "S=%s us")):
        vals = sorted(set(hl.fmt_named(key, g.flat.get(key)) for g in groups if key in g.flat))
        if len(vals) == 1:
            out.append(fmt % vals[0])
    return out


_TITLES = {
    "utilization": "Utilization (busy time / (workers x makespan), median over trials)",
    "throughput": "Throughput (tasks/s, median over trials)",
    "ns-per-task": "Wall time per task (ns/task = makespan / tasks, median over trials)",
    "p99": "p99 latency (end-to-end for request workloads)",
    "cpu-per-task": "CPU per task (ns: the workers' CPU, on the sim their modelled time, / "
                    "tasks; per request for open-loop; median over trials)",
}


def noise_caption(results):
    """The caption line of threads-engine figures: trials flagged noisy and
    the round-trip regime over every probe (docs/measuring.md), or None
    when no result carries noise accounting (sim runs, older files)."""
    flagged = total = 0
    lo = hi = None
    for r in results:
        for t in r.trials:
            n = t.get("noise")
            if not isinstance(n, dict):
                continue
            total += 1
            flagged += bool(n.get("flagged"))
            for k in ("c2c_before_ns", "c2c_after_ns"):
                v = n.get(k)
                if v is not None:
                    lo = v if lo is None else min(lo, v)
                    hi = v if hi is None else max(hi, v)
    if not total:
        return None
    s = "threads engine: %d of %d trials flagged noisy" % (flagged, total)
    if lo is not None:
        s += "; core-to-core round trip %.0f..%.0f ns" % (lo, hi)
    return s


def build_tables(results, metrics=METRICS, rows="policy", ci=True, sort=(), quantile=0.99):
    """[Table] for `metrics`, one per metric, from Results (pooled by
    configuration), rows and columns in value order (`sort` keys first)."""
    extra = [m for m in metrics if m in EXTRA_METRICS]
    metrics = [m for m in metrics if m not in EXTRA_METRICS]
    groups = hl.group_by_config(results)
    if not groups:
        return []
    vk = hl.varying_keys(groups, ignore=hl.CONFIG_IGNORE)
    policy_keys = ["policy"] + [k for k in vk if k.startswith("knob.")]
    other_keys = ["workload"] + [k for k in vk if k not in policy_keys and k != "workload"]
    row_keys, col_keys = (policy_keys, other_keys) if rows == "policy" \
        else (other_keys, policy_keys)
    groups = hl.sort_items(groups, row_keys + col_keys, first=sort)
    knobs = hl.knobs_varying_by_policy(groups, hl.CONFIG_IGNORE)
    rlab = [hl.label_of(g, row_keys, knobs) for g in groups]
    clab = [hl.label_of(g, col_keys, knobs) for g in groups]
    rorder, corder = [], []
    for r in rlab:
        if r not in rorder:
            rorder.append(r)
    # Columns in the value order of their own keys.
    for g in hl.sort_items(groups, col_keys, first=[k for k in sort
                                                    if k.lstrip("-") in col_keys]):
        c = hl.label_of(g, col_keys, knobs)
        if c not in corder:
            corder.append(c)
    cells = {}
    for g, r, c in zip(groups, rlab, clab):
        cells[(r, c)] = g
    ntrials = sorted(set(len(g.trials) for g in groups))
    covs = sorted(set(round(g.ci95("makespan_ns")[2] * 100, 2) for g in groups
                      if g.ci95("makespan_ns") and len(g.trials) > 1))
    tables = []
    # Results made before the CPU figures have none: no empty table.
    if not any(g.median("cpu_per_task_ns") is not None for g in groups):
        metrics = [m for m in metrics if m != "cpu-per-task"]
    for m in metrics:
        body = []
        any_sd = False
        for r in rorder:
            row = []
            for c in corder:
                g = cells.get((r, c))
                cell = _cell(g, m) if g else Cell("n/a")
                if not ci:
                    cell.ci = ""
                any_sd = any_sd or cell.mark == SD_MARK
                row.append(cell)
            body.append((r, row))
        notes = []
        if m == "p99" and any_sd:
            notes.append("%s scheduling delay (runnable to poll); unmarked: end-to-end "
                         "latency (intended arrival to completion)" % SD_MARK)
        if m == "p99" and ci and any(c.ci for _, row in body for c in row):
            notes.append(_methods_note("p99", [percentile_interval(
                g, 0.99, g.latency_histogram_name()) for g in groups
                if g.latency_histogram_name()]))
        if m != "p99" and ci and any(c.ci for _, row in body for c in row):
            if covs and covs[0] < 95:
                notes.append("[lo, hi]: interval of the median; with fewer than 6 trials it "
                             "is [min, max], coverage %s%%" % "/".join(hl.fmt_value(c)
                                                                      for c in covs))
            else:
                notes.append("[lo, hi]: distribution-free 95% interval of the median")
        notes.append("trials per configuration: %s" % "/".join(map(str, ntrials)))
        noise = noise_caption(results)
        if noise:
            notes.append(noise)
        title = _TITLES[m]
        if m == "p99" and not any_sd:
            title = "p99 end-to-end latency (intended arrival to completion)"
        tables.append(Table(m, title, "policy" if rows == "policy" else "workload",
                            corder, body, notes))
    for m in extra:
        tables += build_load_table(results, quantile, ci, sort)
    return tables


# ------------------------------------------------------------------ renderers

def render_md(t, ci=True):
    out = ["**%s**" % t.title, ""]
    out.append("| %s | %s |" % (t.corner, " | ".join(_md_escape(c) for c in t.columns)))
    out.append("|---|%s|" % "|".join("---:" for _ in t.columns))
    for lab, row in t.rows:
        out.append("| %s | %s |" % (_md_escape(lab), " | ".join(_md_escape(c.text(ci))
                                                                for c in row)))
    if t.notes:
        out.append("")
        out.extend("%s  " % n for n in t.notes[:-1])
        out.append(t.notes[-1])
    return "\n".join(out) + "\n"


def _md_escape(s):
    return s.replace("|", "\\|")


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
        "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}", SD_MARK: r"$^\dagger$"}


def tex_escape(s):
    return "".join(_TEX.get(ch, ch) for ch in s)


def render_latex(t, ci=True, float_env=True):
    """A booktabs table (needs \\usepackage{booktabs})."""
    out = []
    if float_env:
        out += [r"\begin{table}[ht]", r"\centering", r"\small",
                r"\caption{%s}" % tex_escape(t.title)]
    out.append(r"\begin{tabular}{l%s}" % ("r" * len(t.columns)))
    out.append(r"\toprule")
    out.append("%s & %s \\\\" % (tex_escape(t.corner),
                                 " & ".join(tex_escape(c) for c in t.columns)))
    out.append(r"\midrule")
    for lab, row in t.rows:
        cells = []
        for c in row:
            s = tex_escape(c.value) + tex_escape(c.mark)
            if ci and c.ci:
                s += r" {\scriptsize %s}" % tex_escape(c.ci)
            cells.append(s)
        out.append("%s & %s \\\\" % (tex_escape(lab), " & ".join(cells)))
    out.append(r"\bottomrule")
    out.append(r"\end{tabular}")
    if float_env:
        if t.notes:
            out.append(r"\par\smallskip{\footnotesize %s}" % r"\\ ".join(tex_escape(n)
                                                                        for n in t.notes))
        out.append(r"\end{table}")
    return "\n".join(out) + "\n"


def _h(s):
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def render_html(t, ci=True):
    out = ['<table class="results" data-metric="%s">' % _h(t.metric),
           "<caption>%s</caption>" % _h(t.title),
           "<thead><tr><th>%s</th>%s</tr></thead>" % (
               _h(t.corner), "".join("<th>%s</th>" % _h(c) for c in t.columns)),
           "<tbody>"]
    for lab, row in t.rows:
        tds = []
        for c in row:
            s = _h(c.value + c.mark)
            if ci and c.ci:
                s += ' <span class="ci">%s</span>' % _h(c.ci)
            tds.append("<td>%s</td>" % s)
        out.append("<tr><th>%s</th>%s</tr>" % (_h(lab), "".join(tds)))
    out.append("</tbody></table>")
    if t.notes:
        out.append('<p class="notes">%s</p>' % "<br>".join(_h(n) for n in t.notes))
    return "\n".join(out) + "\n"


def render(tables, fmt, ci=True):
    if fmt == "md":
        return "\n".join(render_md(t, ci) for t in tables)
    if fmt == "latex":
        return ("% tables.py: needs \\usepackage{booktabs}\n"
                + "\n".join(render_latex(t, ci) for t in tables))
    if fmt == "html":
        return "\n".join(render_html(t, ci) for t in tables)
    raise ValueError(fmt)



def emit(text, output):
    """A table to the --output file, or to stdout."""
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)

def main(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+", metavar="RESULT",
                   help="result files or directories of them")
    p.add_argument("--format", choices=("md", "latex", "html"), default="md",
                   help="md (default), latex (booktabs) or html")
    p.add_argument("--metric", action="append", choices=METRICS + EXTRA_METRICS + ("all",),
                   help="a metric (repeatable; default all five; p99-load: the latency "
                        "percentile / S against load with theory rows; work-span: the work/span "
                        "table of the fork-join workloads, alone, Markdown only)")
    p.add_argument("--where", action="append", default=[], metavar="KEY=V[,V...]",
                   help="keep results whose KEY has one of the values (repeatable)")
    p.add_argument("--sort", default="", metavar="KEY[,KEY...]",
                   help="order rows by these keys first (--sort=-KEY: descending)")
    p.add_argument("--quantile", type=float, default=99.0, metavar="P",
                   help="p99-load: the percentile, in percent (default 99)")
    p.add_argument("--rows", choices=("policy", "workload"), default="policy",
                   help="what the rows are (default policy; the columns are the other)")
    p.add_argument("--no-ci", action="store_true", help="medians only")
    p.add_argument("-o", "--output", help="write here instead of stdout")
    args = p.parse_args(argv)
    metrics = METRICS if not args.metric or "all" in args.metric else tuple(
        m for m in METRICS + EXTRA_METRICS if m in args.metric)
    if not 0 < args.quantile < 100:
        print("%s: --quantile %g is not in (0, 100)" % (PROG, args.quantile), file=sys.stderr)
        return 2
    try:
        rs = hl.load_all(args.results)
    except hl.ResultError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    if not rs:
        print("%s: no result files in %s" % (PROG, " ".join(args.results)), file=sys.stderr)
        return 2
    try:
        rs = hl.select(rs, args.where)
        sort = [("-" if k.startswith("-") else "") + hl.resolve_key(rs, k.lstrip("-"))
                for k in args.sort.split(",") if k]
    except (KeyError, ValueError) as e:
        print("%s: %s" % (PROG, e.args[0]), file=sys.stderr)
        return 2
    if not rs:
        print("%s: no result matches %s" % (PROG, " and ".join(args.where)), file=sys.stderr)
        return 2
    if "work-span" in metrics:
        if len(metrics) > 1 or args.format != "md":
            print("%s: --metric work-span goes alone, as Markdown" % PROG, file=sys.stderr)
            return 2
        data = workspan.collect(rs)
        if not data:
            print("%s: nothing to tabulate (work-span needs fork-join results: %s)"
                  % (PROG, ", ".join(workspan.FORK_JOIN)), file=sys.stderr)
            return 2
        emit(workspan.table_md(data), args.output)
        return 0
    tables = build_tables(rs, metrics, args.rows, not args.no_ci, sort, args.quantile / 100)
    if not tables:
        print("%s: nothing to tabulate (p99-load needs open-loop results)" % PROG,
              file=sys.stderr)
        return 2
    emit(render(tables, args.format, not args.no_ci), args.output)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:     # a reader such as head(1) stopped early
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
