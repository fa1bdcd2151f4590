#!/usr/bin/python3
"""workspan.py - the classic work/span figures from result files, for
tables.py (--metric work-span) and plot.py (normalized-speedup).

For each fork-join workload (a workload and its parameters) and policy:

    T_S        the sequential baseline (threads engine: the driver's baseline, median)
    T_1        the makespan on one worker (threads and sim, medians; and the sim with
               the costs of a calibration on the machine, `--costs`, whose result names
               the file in config.sim_costs_file)
    T_1/T_S    the work overhead c_1 (threads, and the calibrated sim's T_1 over the
               threads T_S)
    T_inf      the span of the task graph the sim ran (trials[].span_ns, docs/sim.md
               "The span"; the same for every policy and worker count of one graph)
    T_1/T_inf  the parallelism (sim)
    T_P        the makespan on P workers; speedup T_1/T_P, efficiency T_1/(P T_P)

and per policy, over its simulated cells at P >= 2, the least-squares fit of
T_P = c_w T_1/P + c_inf T_inf with relative residuals (Cilk's T_P ~ T_1/P +
c_inf T_inf, Blumofe and Leiserson's greedy bound T_P <= T_1/P + T_inf).

Each simulated cell is checked against [max(T_1/P, T_inf), T_1/P + T_inf]:
below the lower side cannot be written (harness/driver.c refuses it), above
the greedy upper side is reported (`above`), not an error.

Standard library only; `import workspan` after harnesslib's directory is on
sys.path.
"""

import math

import harnesslib as hl

# The parameters that name a workload in a label.
LABEL_PARAMS = {"fib": ["n"], "nqueens": ["n"], "uts": ["preset"], "sort": ["n"],
                "imbalanced": ["t0_ms", "t1_ms", "t2_ms", "t3_ms", "task_us"]}
FORK_JOIN = ("fib", "nqueens", "uts", "sort", "imbalanced")
SIM_WORKERS = (2, 4, 8, 16, 32, 64, 128, 256)


def workload_key(r):
    """A workload and its parameters (sim costs apart: both engines match)."""
    return (r.workload, tuple(sorted((k, hl.fmt_value(v)) for k, v in (r.params or {}).items())))


def workload_label(r):
    names = LABEL_PARAMS.get(r.workload, [])
    parts = ["%s=%s" % (k, hl.fmt_named("param." + k, r.params[k]))
             for k in names if k in (r.params or {})]
    return r.workload + (" " + " ".join(parts) if parts else "")


class Cell:
    """One workload under one policy: the figures above (None where absent)."""

    def __init__(self, label, policy):
        self.label, self.policy = label, policy
        self.ts = self.t1_threads = None
        self.threads = {}       # P -> median makespan (ns)
        self.sim = {}           # P -> median makespan (ns)
        self.t1_cal = None      # the calibrated sim's T_1 (ns)
        self.spans = set()      # every trial's span_ns

    @property
    def t1_sim(self):
        return self.sim.get(1)

    @property
    def tinf(self):
        return max(self.spans) if self.spans else None

    def greedy(self, p):
        """(lower, upper) of the sim's T_P, or None."""
        t1, ti = self.t1_sim, self.tinf
        if t1 is None or ti is None:
            return None
        return max(t1 / p, ti), t1 / p + ti

    def above(self, p):
        """T_P / (T_1/P + T_inf) when above the greedy bound, else None."""
        g, tp = self.greedy(p), self.sim.get(p)
        if g is None or tp is None or tp <= g[1]:
            return None
        return tp / g[1]


def collect(results):
    """{workload label: {policy: Cell}} for the fork-join workloads, in first-seen order."""
    out = {}
    groups = hl.group_by_config(results)
    for g in groups:
        r = g.results[0]
        if r.workload not in FORK_JOIN:
            continue
        label = workload_label(r)
        cells = out.setdefault((workload_key(r), label), {})
        c = cells.setdefault(r.policy, Cell(label, r.policy))
        tp = g.median("makespan_ns")
        if r.engine == "sim" and r.config.get("sim_costs_file"):
            # The calibrated sim: T_1 beside the threads engine's, outside the
            # scaling cells (its costs are not the default table's).
            if r.workers == 1:
                c.t1_cal = tp
        elif r.engine == "sim":
            c.sim[r.workers] = tp
            for res in g.results:
                for t in res.trials:
                    if "span_ns" in t:
                        c.spans.add(t["span_ns"])
        elif r.engine == "threads":
            c.threads[r.workers] = tp
            b = g.baseline_ns()
            if b is not None and r.workers == 1:
                c.ts = b
    return {k[1]: v for k, v in out.items()}


def fit(cells):
    """Least squares of T_P = a T_1/P + c T_inf with residuals relative to T_P,
    over the sim cells at P >= 2: (a, c, n), or None with fewer than 2 cells."""
    sxx = sxy = syy = sxz = syz = 0.0
    n = 0
    for c in cells:
        t1, ti = c.t1_sim, c.tinf
        if t1 is None or ti is None:
            continue
        for p, tp in c.sim.items():
            if p < 2 or not tp:
                continue
            x, y = t1 / p / tp, ti / tp
            sxx += x * x
            sxy += x * y
            syy += y * y
            sxz += x
            syz += y
            n += 1
    det = sxx * syy - sxy * sxy
    if n < 2 or det <= 0:
        return None
    return (sxz * syy - syz * sxy) / det, (syz * sxx - sxz * sxy) / det, n


def normalized_points(cell):
    """[(P / (T_1/T_inf), (T_1/T_P) / (T_1/T_inf))] of the sim cells at P >= 2."""
    t1, ti = cell.t1_sim, cell.tinf
    if not t1 or not ti:
        return []
    par = t1 / ti
    return [(p / par, (t1 / tp) / par) for p, tp in sorted(cell.sim.items()) if p >= 2 and tp]


def _ms(ns):
    return "" if ns is None else hl.fmt_value(float("%.3g" % (ns / 1e6)))


def _us(ns):
    return "" if ns is None else hl.fmt_value(float("%.3g" % (ns / 1e3)))


def _r(v, digits=3):
    return "" if v is None else hl.fmt_value(float("%.*g" % (digits, v)))


def _order(policies):
    rank = {p: i for i, p in enumerate(hl.POLICY_ORDER)}
    return sorted(policies, key=lambda p: (rank.get(p, len(rank)), p))


def table_md(data):
    """The Markdown tables: one per workload, then the fit per policy."""
    lines = []
    ps = [p for p in SIM_WORKERS if any(p in c.sim for cells in data.values() for c in cells.values())]
    for label, cells in data.items():
        lines.append("### %s" % label)
        lines.append("")
        head = ["policy", "T_S ms (threads)", "T_1 ms (threads)", "T_1/T_S (threads)",
                "T_1 ms (calibrated sim)", "T_1/T_S (calibrated sim)", "T_2 ms (threads)", "speedup at 2 (threads)", "T_1 ms (sim)", "T_inf us (sim)",
                "T_1/T_inf"] + ["P=%d" % p for p in ps]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|---|" + "---:|" * (len(head) - 1))
        for pol in _order(cells):
            c = cells[pol]
            t1t, t2t = c.threads.get(1), c.threads.get(2)
            row = [pol, _ms(c.ts), _ms(t1t), _r(t1t / c.ts if t1t and c.ts else None),
                   _ms(c.t1_cal), _r(c.t1_cal / c.ts if c.t1_cal and c.ts else None),
                   _ms(t2t), _r(t1t / t2t if t1t and t2t else None), _ms(c.t1_sim),
                   _us(c.tinf), _r(c.t1_sim / c.tinf if c.t1_sim and c.tinf else None, 4)]
            for p in ps:
                tp = c.sim.get(p)
                if not tp or not c.t1_sim:
                    row.append("")
                    continue
                s = c.t1_sim / tp
                a = c.above(p)
                row.append("%s (%d%%)%s" % (_r(s), round(100 * s / p),
                                            " **x%.3f**" % a if a else ""))
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    lines.append("Sim cells: speedup T_1/T_P (efficiency T_1/(P T_P)); **xR** marks a T_P R times "
                 "the greedy bound T_1/P + T_inf. Every cell meets the lower side "
                 "max(T_1/P, T_inf): the harness refuses a run below it. An empty cell was not "
                 "run (volt, the policies built on it and blumofe-leiserson take at most 64 "
                 "workers) or was refused. The calibrated sim's T_1 is the 1-worker sim with "
                 "`--costs` from a calibration on the machine of the threads runs (its "
                 "mechanisms' costs and each workload's work per poll), where the other sim "
                 "columns take the default cost table and 1 us of work per poll (imbalanced: "
                 "its declared compute).")
    lines.append("")
    lines.append("### Fit per policy: T_P = c_w T_1/P + c_inf T_inf (sim, P >= 2)")
    lines.append("")
    lines.append("| policy | c_1 = T_1/T_S (threads, median over workloads) | c_w | c_inf | cells "
                 "| above the greedy bound | largest T_P / (T_1/P + T_inf) |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    pols = _order({p for cells in data.values() for p in cells})
    for pol in pols:
        cs = [cells[pol] for cells in data.values() if pol in cells]
        c1 = hl.median([c.threads[1] / c.ts for c in cs if c.ts and c.threads.get(1)])
        f = fit(cs)
        n_above, worst = 0, None
        for c in cs:
            for p in c.sim:
                if p < 2 or c.greedy(p) is None:
                    continue
                r = c.sim[p] / c.greedy(p)[1]
                worst = r if worst is None or r > worst else worst
                n_above += c.above(p) is not None
        lines.append("| %s | %s | %s | %s | %s | %d | %s |" % (
            pol, _r(c1), _r(f[0]) if f else "", _r(f[1]) if f else "", f[2] if f else 0,
            n_above, _r(worst)))
    return "\n".join(lines) + "\n"
