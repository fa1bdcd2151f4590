#!/usr/bin/python3
"""reproduce_tables.py - the tables of results/reference that the generic scripts
(tables.py, plot.py) do not make, from harnesslib: `scripts/reproduce.sh --table KIND
DIR...` runs this file.

    reproduce_tables.py KIND DIR...             one table (Markdown) on stdout
    reproduce_tables.py ablation-figure OUT.png DIR...
"""
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl

kind, dirs = sys.argv[1], sys.argv[2:]
out = None
if kind == "ablation-figure":       # ablation-figure OUT.png DIR...
    out, dirs = dirs[0], dirs[1:]
results = hl.load_all(dirs)
if not results:
    sys.exit("reproduce: no results in %s" % " ".join(dirs))
groups = hl.group_by_config(results)
# Rows: the policies in the order --policy=all lists them, then the rest.
ORDER = ["volt", "fixed-interval-61", "steal-one", "tokio", "tokio-1.28", "go", "central-queue", "static-partition",
         "locality", "blumofe-leiserson", "rayon"]
rank = lambda p: (ORDER.index(p) if p in ORDER else len(ORDER), p)
# The variant as the harness named it, its parameters left out: volt, volt[wake=1].
variant = lambda g: (g.config.get("variant") or g.policy).split(" ")[0]


def sig(v, n=3):
    if v is None:
        return ""
    if v == 0:
        return "0"
    import math
    d = max(0, n - 1 - int(math.floor(math.log10(abs(v)))))
    return "%.*f" % (d, v)


def ci_text(lo_hi, scale=1.0, n=3):
    if not lo_hi:
        return ""
    return " [%s, %s]" % (sig(lo_hi[0] * scale, n), sig(lo_hi[1] * scale, n))


if kind == "imbalanced":
    # Per policy and engine: makespan against the ideal, utilization in total and per worker.
    print("| policy | engine | workers | work per worker (ms) | makespan ms [95% CI] | ideal ms "
          "| makespan / ideal | utilization | per-worker utilization | steals per trial |")
    print("|---|---|---:|---|---:|---:|---:|---:|---|---:|")
    for g in sorted(groups, key=lambda g: (g.engine != "threads", g.workers, rank(g.policy))):
        p = g.params
        parts = [float(p["t%d_ms" % i]) for i in range(4)]
        load = [0.0] * g.workers
        for i, t in enumerate(parts):
            load[i % g.workers] += t      # partition i is placed on worker i mod workers
        ideal = sum(parts) / g.workers
        ms = g.median("makespan_ns") / 1e6
        ci = g.ci95("makespan_ns")
        util = g.median("utilization_total")
        per = " ".join("%.0f%%" % (100 * u) for u in g.utilization_per_worker())
        steals = g.counter("steals") / max(1, len(g.trials))
        print("| %s | %s | %d | %s | %s%s | %s | %.2f | %.1f%% | %s | %s |" % (
            g.policy, g.engine, g.workers, " / ".join("%g" % x for x in load), sig(ms, 4),
            ci_text(ci and ci[:2], 1e-6, 4), sig(ideal, 4), ms / ideal, 100 * util, per,
            sig(steals)))
elif kind == "p99-load":
    # p99 / S at every load run (docs/sources.md, "Queueing theory"), next to the M/M/k and
    # k x M/M/1 theory.
    loads = sorted(set(float(g.params["load"]) for g in groups))
    show = loads        # every load run (scripts/tables.py --metric p99-load adds intervals)
    ks = sorted(set(g.workers for g in groups))
    dists = sorted(set(int(g.params.get("dist", 1)) for g in groups))
    cells = {}
    # A variant a grid's "set" made is its own row, named as the harness names a variant:
    # volt[prefetch=32], tokio[batch_max=1], tokio[interval=61] (against the defaults).
    ROWS = {"volt": (("prefetch", 0),), "tokio": (("batch_max", 128), ("interval", 0))}
    def name(g):
        diff = ["%s=%g" % (k, float(g.knobs[k])) for k, d in ROWS.get(g.policy, ())
                if float(g.knobs.get(k, d) or 0) != d]
        return "%s[%s]" % (g.policy, ",".join(diff)) if diff else g.policy
    for g in groups:
        cells[(name(g), float(g.params["load"]))] = g.percentile(0.99) / g.mean_service_ns()
    print("| p99 / S | " + " | ".join("load %g" % x for x in show) + " |")
    print("|---|" + "---:|" * len(show))
    for pol in sorted(set(name(g) for g in groups), key=rank):
        print("| %s | %s |" % (pol, " | ".join(sig(cells.get((pol, x))) for x in show)))
    note = "" if dists == [1] else " (exponential service; these results are not)"
    for k in ks:
        print("| *M/M/%d theory%s* | %s |" % (k, note, " | ".join(
            sig(hl.mmk_p99(x, k)) for x in show)))
        print("| *%d x M/M/1 theory%s* | %s |" % (k, note, " | ".join(
            sig(hl.mm1_p99(x)) for x in show)))
elif kind == "ops":
    # Tokio-style: wall time per operation, median over trials with the 95% interval.
    OPS = {"spawn-many": ("leaves", "ns per spawned task"),
           "chained-spawn": ("links", "ns per link"),
           "yield-many": ("yields", "ns per yield"),
           "ping-pong": ("messages", "ns per message")}
    cols = []
    for g in groups:
        c = (g.workload, int(g.params.get("from", 0)) if g.workload == "spawn-many" else None)
        if c not in cols:
            cols.append(c)
    order = ["spawn-many", "chained-spawn", "yield-many", "ping-pong"]
    cols.sort(key=lambda c: (order.index(c[0]) if c[0] in order else 9, c[1] or 0))

    def head(c):
        if c[0] == "spawn-many":
            return "spawn-many %s" % ("local (from=0)" if c[1] == 0 else "remote (from=1)")
        return c[0]
    print("| policy | " + " | ".join(head(c) for c in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    print("| *operation* | " + " | ".join(OPS.get(c[0], ("", "ns per task"))[1]
                                        for c in cols) + " |")
    for pol in sorted(set(g.policy for g in groups), key=rank):
        row = []
        for c in cols:
            gs = [g for g in groups if g.policy == pol and g.workload == c[0] and
                  (c[1] is None or int(g.params.get("from", 0)) == c[1])]
            if not gs:
                row.append("")
                continue
            g = gs[0]
            metric = OPS.get(g.workload, (None,))[0]
            per = []
            for t in g.trials:
                ops = (t.get("metrics") or {}).get(metric) or t.get("tasks")
                per.append(t["makespan_ns"] / ops)
            m = hl.median(per)
            row.append("%s%s" % (sig(m), ci_text(hl.median_ci95(per))))
        print("| %s | %s |" % (pol, " | ".join(row)))
elif kind in ("ablation", "ablation-figure"):
    # The reference policy (volt, else the first variant without knobs in its name) against
    # each other variant: per engine and worker count, the median makespan (open-loop: the
    # pooled p99 latency) over the reference's, with the ratio of the 95% intervals (the
    # median's; open-loop: the p99's, histograms.end_to_end_ns.ci95), lower over the
    # reference's upper and upper over its lower (conservative). A variant is named as the
    # harness names it (config.variant) without the parameters after its space, so a user's
    # ablation run at several loads (`volt load=0.5`) lines up by load.
    name = lambda r: (r.config.get("variant") or r.policy).split(" ")[0]
    def col(r):
        p = r.params
        if r.workload == "open-loop":
            return "open-loop %g" % float(p["load"])
        return r.workload
    cells = {}
    for r in results:
        key = (r.engine, r.workers, col(r), name(r))
        if r.workload == "open-loop":
            ci = r.percentile_ci95(0.99)
            cells[key] = (r.percentile(0.99), ci[0] if ci else None, ci[1] if ci else None)
        else:
            ms = [t["makespan_ns"] for t in r.trials]
            ci = hl.median_ci95(ms)
            cells[key] = (hl.median(ms), ci[0], ci[1])
    setups = sorted(set(k[:2] for k in cells), key=lambda e: (e[0] != "threads", e[1]))
    cols = sorted(set(k[2] for k in cells), key=lambda c: (c.startswith("open-loop"), c))
    variants = []
    for k in cells:
        if k[3] not in variants:
            variants.append(k[3])
    base = lambda v: v.split("[")[0]
    bare = [v for v in variants if "[" not in v]
    ref = "volt" if "volt" in variants else (bare or variants)[0]
    variants.sort(key=lambda v: (v != ref, not v.startswith(ref + "["), rank(base(v)), v))
    def ratio(e, c, v):
        a, b = cells.get(e + (c, v)), cells.get(e + (c, ref))
        if not a or not b or not a[0] or not b[0]:
            return None
        r = a[0] / b[0]
        lo = a[1] / b[2] if a[1] and b[2] else None
        hi = a[2] / b[1] if a[2] and b[1] else None
        return r, lo, hi
    if out is None:
        for e in setups:
            print("%s engine, %d workers: makespan (open-loop: p99) relative to %s, median "
                  "[95%% interval]\n" % (e + (ref,)))
            print("| variant | " + " | ".join(cols) + " |")
            print("|---|" + "---:|" * len(cols))
            for v in variants:
                row = []
                for c in cols:
                    x = ratio(e, c, v)
                    row.append("" if x is None else "%.2f%s" % (
                        x[0], " [%.2f, %.2f]" % (x[1], x[2]) if x[1] and x[2] else ""))
                print("| %s | %s |" % (v, " | ".join(row)))
            print()
    else:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        others = [v for v in variants if v != ref]
        fig, axes = plt.subplots(1, len(setups), figsize=(5 * len(setups), 4.5), sharey=True,
                                 squeeze=False)
        for ax, e in zip(axes[0], setups):
            wdt = 0.8 / len(cols)
            for j, c in enumerate(cols):
                ys = [ratio(e, c, v) for v in others]
                xs = [i + (j - len(cols) / 2) * wdt + wdt / 2 for i in range(len(others))]
                hs = [y[0] if y else 0 for y in ys]
                # The conservative interval of the ratio as the error bar, where both
                # intervals exist (a bar without one is drawn without).
                err = [[h - y[1] if y and y[1] and y[2] else 0 for h, y in zip(hs, ys)],
                       [y[2] - h if y and y[1] and y[2] else 0 for h, y in zip(hs, ys)]]
                ax.bar(xs, hs, wdt, label=c, yerr=err, capsize=1.5,
                       error_kw={"elinewidth": 0.7, "ecolor": "black"})
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_xticks(range(len(others)))
            ax.set_xticklabels(others, rotation=60, ha="right", fontsize=7)
            ax.set_title("%s engine, %d workers" % e, fontsize=9)
            ax.set_yscale("log")
            from matplotlib.ticker import FuncFormatter, LogLocator
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % round(v, 3)))
            ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
        # Every bar and interval in view (bars on a log axis start below the lowest).
        vals = [x for e in setups for c in cols for v in others
                for x in (ratio(e, c, v) or ()) if x]
        if vals:
            axes[0][0].set_ylim(min(vals) / 1.3, max(vals) * 1.3)
        axes[0][0].set_ylabel("makespan (open-loop: p99) / %s's" % ref)
        axes[0][-1].legend(fontsize=7)
        fig.text(0.01, -0.01, "error bars: the ratio's 95%% interval (each interval's lower end "
                 "over %s's upper, upper over its lower); a bar whose interval spans 1 ranks "
                 "nothing" % ref, fontsize=7, color="#555555", ha="left", va="top")
        fig.tight_layout()
        fig.savefig(out, dpi=110, bbox_inches="tight")
elif kind == "sim-vs-threads":
    # Each policy x workload x workers: the threads engine's median makespan with its 95%
    # interval against the calibrated sim's; open-loop: the p50 and p99 latencies. A cell
    # misses when sim/threads is off by more than the tolerance; each miss is listed with
    # what the results themselves say about it.
    import re
    TOL = {"central-queue": 0.35, "static-partition": 0.35}
    tol = lambda p: TOL.get(p, 0.20)
    cal_c2c, cal_params, fit_regime, fit_speed = None, {}, None, {}
    for d in dirs:
        f = os.path.join(os.path.dirname(os.path.abspath(d)), "costs.txt")
        if os.path.exists(f):
            text = open(f).read()
            m = re.search(r"round trip .*?: ([0-9.]+) ns before, ([0-9.]+) ns after", text)
            if m:
                cal_c2c = (float(m.group(1)), float(m.group(2)))
            # The round-trip regime the calibration's threads runs were taken in.
            rg = [(float(a), float(b)) for a, b in
                  re.findall(r"round-trip regime ([0-9.]+)\.\.([0-9.]+) ns", text)]
            if rg:
                fit_regime = (min(a for a, _ in rg), max(b for _, b in rg))
            # ... and the compute speed (the compute probes' range) they were taken at, on 1
            # worker (its CPU) and on 2 (the slower CPU); 0..0: none found.
            sp = re.search(r"taken at the compute speed ([0-9.]+)\.\.([0-9.]+) ns on 1 worker"
                           r".*?, ([0-9.]+)\.\.([0-9.]+) ns on 2", text)
            if sp:
                v = [float(x) for x in sp.groups()]
                fit_speed = {k + 1: (v[2 * k], v[2 * k + 1]) for k in (0, 1) if v[2 * k + 1] > 0}
            # work.NAME = ns  # PARAM=VALUE; ...: the size the work was measured at.
            for m in re.finditer(r"^work\.(\S+)\s*=\s*\d+\s*#\s*(?:per spawn;\s*)?(\w+)=([^;]+);", text, re.M):
                cal_params[m.group(1)] = (m.group(2), m.group(3).strip())
    col = lambda r: ("open-loop load %g" % float(r.params["load"]) if r.workload == "open-loop"
                     else r.workload)
    # NAME-anchor-Nw.json: volt's 1-worker threads run of a workload, made right after its
    # N-worker cells (reproduce.sh part 5), against which those cells are also anchored.
    cells, anchors = {}, {}
    for r in results:
        m = re.search(r"-anchor-(\d+)w(\.[^/]*)?\.json(\.gz)?$", r.path)
        if m and (r.policy != "volt" or r.workers != 1 or r.engine != "threads"):
            sys.exit("reproduce: %s: an anchor is volt's 1-worker threads run, not %s's "
                     "%d-worker %s run" % (r.path, r.policy, r.workers, r.engine))
        if m:
            anchors[(col(r), int(m.group(1)))] = r
        else:
            cells.setdefault((col(r), r.workers, r.policy), {})[r.engine] = r
    keys = sorted(cells, key=lambda k: (k[0].startswith("open-loop"), k[0], k[1], rank(k[2])))
    per = lambda r, c: r.counter(c) / max(1, len(r.trials))
    fmt = lambda v: "%g" % v if isinstance(v, (int, float)) else str(v)
    RATIO = 1.5     # harness/calibrate.h CALIBRATE_REGIME_RATIO
    SPEED_RATIO = 1.1   # harness/calibrate.h CALIBRATE_SPEED_RATIO

    def in_regime(trial, workers):
        # Both round trips within the ratio of the calibration's regime, and the compute
        # probes the trial has within theirs of its speed at this worker count (where the
        # file names one).
        n = trial.get("noise") or {}
        c = [n.get("c2c_before_ns"), n.get("c2c_after_ns")]
        s = [x for x in (n.get("speed_before_ns"), n.get("speed_after_ns"))
             if isinstance(x, (int, float)) and x > 0]
        fs = fit_speed.get(min(workers, 2))
        speed = not fs or not s or \
            (min(s) * SPEED_RATIO >= fs[0] and max(s) <= SPEED_RATIO * fs[1])
        return speed and all(isinstance(x, (int, float)) and x > 0 for x in c) and \
            min(c) * RATIO >= fit_regime[0] and max(c) <= RATIO * fit_regime[1]

    def chosen(r):
        # The trials a cell's figure is the median of: those whose round trips before and
        # after lie in the regime the calibration's runs were taken in (within the ratio of
        # its range), and their compute probes at its speed: a trial in another regime or at
        # another speed ran on what is, here, another machine (a slow regime slows a
        # 1-worker run too). Fewer than 2 such: all of them.
        if not fit_regime or r.engine != "threads":
            return r.trials
        sel = [x for x in r.trials if in_regime(x, r.workers)]
        return sel if len(sel) >= 2 else r.trials

    ms = lambda r: hl.median([t["makespan_ns"] for t in chosen(r)])
    ms_all = lambda r: hl.median([t["makespan_ns"] for t in r.trials])

    def anchor(key):
        # The machine's speed beside a cell against the calibration's: volt's 1-worker sim
        # of the workload over its threads run made with the cell's (for 1 worker, in the
        # same interleaved run; for 2, right after it). None without one.
        one = cells.get((key[0], 1, "volt"), {})
        t = one.get("threads") if key[1] == 1 else anchors.get((key[0], key[1]))
        if "sim" not in one or t is None or not ms(t) or not ms(one["sim"]):
            return None
        return ms(one["sim"]) / ms(t)

    def causes(key, t, s):
        out = []
        if ms(t) < 1e6:
            out.append("a run of %s ms: the threads engine's start (the first wake of a parked "
                       "worker, tens of us here) weighs on it, the sim starts every worker at "
                       "once" % sig(ms(t) / 1e6))
        cp = cal_params.get(t.workload)
        named = (t.config.get("value_names") or {}).get("params", {}).get(cp[0]) if cp else None
        have = named or fmt(t.params.get(cp[0])) if cp else None
        if cp and have != cp[1]:
            out.append("work.%s was measured at %s=%s, this run has %s=%s" % (
                t.workload, cp[0], cp[1], cp[0], have))
        n = t.doc.get("noise") or {}
        if n.get("flagged"):
            out.append("%d of %d threads trials flagged noisy" % (n["flagged"], len(t.trials)))
        reg = n.get("c2c_regime_ns")
        if fit_regime:
            k = len([x for x in t.trials if in_regime(x, t.workers)])
            fs = fit_speed.get(min(t.workers, 2))
            if k < 2:
                sr = n.get("speed_range_ns")
                out.append("%d of %d threads trials in the calibration's round-trip regime "
                           "(%.0f..%.0f ns; the round trip %.0f..%.0f ns in the threads runs)%s: "
                           "the median is of all of them" % (
                               k, len(t.trials), fit_regime[0], fit_regime[1],
                               reg["min"] if reg else 0, reg["max"] if reg else 0,
                               " and at its compute speed (%.0f..%.0f ns; %.0f..%.0f ns in the "
                               "threads runs)" % (fs + ((sr["min"], sr["max"]) if sr
                                                        else (0, 0)))
                               if fs else ""))
        elif reg and cal_c2c and (max(reg["max"], max(cal_c2c)) > 1.5 * min(reg["min"], min(cal_c2c))):
            out.append("round trip %.0f..%.0f ns in the threads runs, %.0f/%.0f ns at the "
                       "calibration" % (reg["min"], reg["max"], cal_c2c[0], cal_c2c[1]))
        st, ss = per(t, "steals"), per(s, "steals")
        if max(st, ss) >= 10 and max(st, ss) > 2 * max(1, min(st, ss)):
            out.append("steals per trial %s threads, %s sim" % (sig(st), sig(ss)))
        # The workers' system time over workers x makespan, the median over the cell's trials:
        # the kernel's work on their behalf (the lock's futex calls, parking), none of which
        # the sim charges.
        kt = [sum(x["noise"]["kernel_ns"]) / (len(x["noise"]["kernel_ns"]) * x["makespan_ns"])
              for x in chosen(t) if (x.get("noise") or {}).get("kernel_ns") and x["makespan_ns"]]
        if kt and hl.median(kt) >= 0.05:
            out.append("the threads workers spent %.0f%% of their time in the kernel (the "
                       "lock's futex calls, parking), which the sim does not charge" %
                       (100 * hl.median(kt)))
        pt, ps = per(t, "parks"), per(s, "parks")
        if max(pt, ps) >= 5 and max(pt, ps) > 2 * max(1, min(pt, ps)):
            out.append("parks per trial %s threads, %s sim (each a futex round trip: park "
                       "and wake latency)" % (sig(pt), sig(ps)))
        one = cells.get((key[0], 1, key[2]), {})
        if key[1] == 2 and "threads" in one and "sim" in one and not key[0].startswith("open"):
            r1 = ms(one["sim"]) / ms(one["threads"])
            if abs(r1 - 1) <= tol(key[2]):
                out.append("1 worker agrees (%.2f): the gap is in what two workers share" % r1)
            else:
                out.append("1 worker misses too (%.2f): this policy's own costs per poll "
                           "on this workload differ from what the calibration fitted (volt's "
                           "work, the policy's poll.NAME from fib)" % r1)
        if not out:
            out.append("no cause in the results: a limit of the model (docs/sim.md)")
        return "; ".join(out)

    misses, total, within = [], 0, 0
    by_policy = {}
    anchored = [0, 0]

    def count(policy, ok, ok_anchored=None):
        global total, within
        total += 1
        within += bool(ok)
        b = by_policy.setdefault(policy, [0, 0, 0, 0])
        b[0] += bool(ok)
        b[1] += 1
        if ok_anchored is not None:
            b[2] += bool(ok_anchored)
            b[3] += 1
            anchored[0] += bool(ok_anchored)
            anchored[1] += 1

    print("### Makespan")
    print()
    print("| workload | workers | policy | threads ms [95% CI] | sim ms | sim / threads [interval] "
          "| tolerance | threads trials in the regime | sim / threads, all trials "
          "| steals / trial threads, sim | global tasks / trial threads, sim "
          "| parks / trial threads, sim | sim / threads, anchored |")
    print("|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for key in keys:
        e = cells[key]
        if key[0].startswith("open-loop") or "threads" not in e or "sim" not in e:
            continue
        t, s = e["threads"], e["sim"]
        mt, msim = ms(t), ms(s)
        used = chosen(t)
        ci = hl.median_ci95([x["makespan_ns"] for x in used])
        regime = ("%d of %d" % (len(used), len(t.trials)) if used is not t.trials
                  else "all %d" % len(t.trials) if not fit_regime
                  else "all %d (too few in it)" % len(t.trials))
        ratio = msim / mt
        iv = " [%.2f, %.2f]" % (msim / ci[1], msim / ci[0]) if ci and ci[0] and ci[1] else ""
        ok = abs(ratio - 1) <= tol(key[2])
        a = anchor(key)
        is_anchor = key[2] == "volt" and key[1] == 1
        ok_a = None if a is None or is_anchor else abs(ratio / a - 1) <= tol(key[2])
        count(key[2], ok, ok_a)
        if not ok:
            why = causes(key, t, s)
            if ok_a is not None:
                why += "; anchored %.2f (%s)" % (ratio / a, "within" if ok_a else "a miss too")
            misses.append((key, "makespan", ratio, why))
        print("| %s | %d | %s | %s%s | %s | %.2f%s | %s %d%% | %s | %.2f | %s, %s | %s, %s "
              "| %s, %s | %s |" % (
            key[0], key[1], key[2], sig(mt / 1e6), ci_text(ci and ci[:2], 1e-6), sig(msim / 1e6),
            ratio, iv, "within" if ok else "**miss**", round(100 * tol(key[2])), regime,
            msim / ms_all(t),
            sig(per(t, "steals")), sig(per(s, "steals")), sig(per(t, "global_tasks")),
            sig(per(s, "global_tasks")), sig(per(t, "parks")), sig(per(s, "parks")),
            "the anchor" if is_anchor and a is not None else "-" if a is None else
            "%.2f %s" % (ratio / a, "within" if ok_a else "**miss**")))
    print()
    print("### Open-loop latency (intended arrival to completion)")
    print()
    print("| load | workers | policy | p50 threads [95% CI] | p50 sim | p50 sim / threads "
          "| p99 threads [95% CI] | p99 sim | p99 sim / threads | tolerance | parks / trial "
          "threads, sim |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for key in keys:
        e = cells[key]
        if not key[0].startswith("open-loop") or "threads" not in e or "sim" not in e:
            continue
        t, s = e["threads"], e["sim"]
        row, ok = [], True
        for q in (0.5, 0.99):
            a, b = t.percentile(q), s.percentile(q)
            ci = t.percentile_ci95(q)
            r = b / a if a else float("nan")
            ok = ok and bool(a) and abs(r - 1) <= tol(key[2])
            row.append("%s%s | %s | %.2f" % (hl.fmt_ns(a), " [%s, %s]" % (
                hl.fmt_ns(ci[0]), hl.fmt_ns(ci[1])) if ci else "", hl.fmt_ns(b), r))
        count(key[2], ok)
        if not ok:
            misses.append((key, "p99", s.percentile(0.99) / max(1, t.percentile(0.99)),
                           causes(key, t, s)))
        print("| %s | %d | %s | %s | %s %d%% | %s, %s |" % (
            key[0].split()[-1], key[1], key[2], " | ".join(row),
            "within" if ok else "**miss**", round(100 * tol(key[2])),
            sig(per(t, "parks")), sig(per(s, "parks"))))
    print()
    print("### Summary")
    print()
    print("%d of %d cells within tolerance (20%%; 35%% for central-queue and static-partition; "
          "open-loop: p50 and p99 both)%s%s." % (within, total,
          "; the calibration's round trip %.0f ns before, %.0f ns after" % cal_c2c
          if cal_c2c else "",
          "; its threads runs were taken in the round-trip regime %.0f..%.0f ns%s, and a "
          "threads cell is the median of its trials in that regime (round trips before and "
          "after within %g times its range%s)" % (
              fit_regime[0], fit_regime[1],
              " at the compute speed " + ", ".join(
                  "%.0f..%.0f ns on %d worker%s" % (fit_speed[k] + (k, "s" if k > 1 else ""))
                  for k in sorted(fit_speed)) if fit_speed else "",
              RATIO,
              ", compute probes within %g times of its speed" % SPEED_RATIO if fit_speed else "")
          if fit_regime else ""))
    if anchored[1]:
        print()
        print("Anchored (each makespan cell's sim / threads over that of volt's 1-worker run of "
              "the workload made beside it, the machine's speed then against the "
              "calibration's; volt's 1-worker cells are the anchors): %d of %d within." %
              tuple(anchored))
    print()
    print("| policy | cells within | makespan cells within, anchored |")
    print("|---|---:|---:|")
    for p in sorted(by_policy, key=rank):
        b = by_policy[p]
        print("| %s | %d of %d | %s |" % (p, b[0], b[1], "%d of %d" % (b[2], b[3]) if b[3]
                                          else "-"))
    print()
    print("### Cells outside the tolerance")
    print()
    if not misses:
        print("None.")
    for key, what, ratio, why in misses:
        print("- %s, %d worker%s, %s: %s sim / threads %.2f. %s." % (
            key[0], key[1], "s" if key[1] > 1 else "", key[2], what, ratio, why))
elif kind == "models-vs-real":
    # Per workload, workers and policy: the model's ns per task (threads engine) beside its
    # runtime's (real engine), medians with their 95% intervals, and the ratio; Tokio's own
    # counters per 1000 tasks beside the model's.
    def key(g):
        sm = " from=%d" % int(g.params.get("from", 0)) if g.workload == "spawn-many" else ""
        if g.workload in ("nqueens", "fib"):
            sm = " n=%d" % int(g.params.get("n", 0))
        if g.workload == "open-loop":
            sm = " load=%g" % float(g.params.get("load", 0))
        return (g.workload + sm, g.workers, g.policy)
    cells = {}
    for g in groups:
        cells.setdefault(key(g), {})[g.engine] = g
    print("| workload | workers | policy | runtime | model ns/task [95% CI] | runtime ns/task [95% CI] "
          "| runtime / model |")
    print("|---|---:|---|---|---:|---:|---:|")
    for k in sorted(cells, key=lambda k: (k[0], k[1], rank(k[2]))):
        if k[0].startswith("open-loop"):
            continue        # its own table below
        m, r = cells[k].get("threads"), cells[k].get("real")
        def cell(g):
            if g is None:
                return "-"
            return sig(g.median("ns_per_task")) + ci_text(g.ci95("ns_per_task") and
                                                          g.ci95("ns_per_task")[:2])
        ratio = (r.median("ns_per_task") / m.median("ns_per_task")) if m and r else None
        rt = r.config.get("peer", {}) if r else {}
        print("| %s | %d | %s | %s | %s | %s | %s |" % (
            k[0], k[1], k[2], "%s %s" % (rt.get("runtime", "-"), rt.get("version", "")) if r else "-",
            cell(m) if m or r.config.get("policy") != "tbb" else "(no model)", cell(r),
            "%.2f" % ratio if ratio else "-"))
    print()
    print("Tokio's own counters (RuntimeMetrics; peers/README.md) beside the tokio-1.28 model's, "
          "per 1000 tasks (each counter summed over the measured trials over their tasks):")
    print()
    print("| workload | workers | counter | model | Tokio | Tokio / model |")
    print("|---|---:|---|---:|---:|---:|")
    for k in sorted(cells, key=lambda k: (k[0], k[1])):
        if k[2] != "tokio-1.28" or set(cells[k]) != {"threads", "real"}:
            continue
        m, r = cells[k]["threads"], cells[k]["real"]
        for name in ("polls", "tasks_stolen", "parks", "overflows"):
            per = [1000.0 * g.counter(name) / max(1, sum(t["tasks"] for t in g.trials))
                   for g in (m, r)]
            print("| %s | %d | %s | %s | %s | %s |" % (
                k[0], k[1], name, sig(per[0]), sig(per[1]),
                "%.2f" % (per[1] / per[0]) if per[0] else "-"))
    # open-loop: each model's end-to-end latency (its histogram over the measured trials)
    # beside its runtime's (the median over trials of each trial's percentile), and the go
    # model's scheduling delay beside Go's own (/sched/latencies:seconds).
    ol = sorted((k for k in cells if k[0].startswith("open-loop")
                 and set(cells[k]) == {"threads", "real"}), key=lambda k: (k[0], rank(k[2])))
    if ol:
        def us(v):
            return sig(v / 1000.0) if v is not None else "-"
        def real_pct(g, name):
            return hl.median([t.get("metrics", {}).get(name) for t in g.trials
                              if t.get("metrics", {}).get(name) is not None])
        print()
        print("open-loop (S = 100 us, exponential, 2 workers, the same schedules): end-to-end "
              "latency in us, from the intended arrival, and how late the requests were handed "
              "to the scheduler (the model's workers poll the arrivals themselves; the "
              "runtime's generator sleeps to each and spawns it; medians over trials):")
        print()
        print("| load | policy | model p50 | runtime p50 | model p99 | runtime p99 | runtime / model p99 "
              "| delivery late p99, model | runtime |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for k in ol:
            m, r = cells[k]["threads"], cells[k]["real"]
            mp = [m.percentile(q, "end_to_end_ns") for q in (0.5, 0.99)]
            rp = [real_pct(r, n) for n in ("latency_p50_ns", "latency_p99_ns")]
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k[0].split("=")[1], k[2], us(mp[0]), us(rp[0]), us(mp[1]), us(rp[1]),
                "%.2f" % (rp[1] / mp[1]) if mp[1] and rp[1] else "-",
                us(real_pct(m, "late_p99_ns")), us(real_pct(r, "late_p99_ns"))))
        print()
        print("Scheduling delay in us: the go model's (its histogram, every schedule sampled) "
              "beside Go's own (`/sched/latencies:seconds`, the upper bound of the bucket "
              "holding each percentile, median over trials):")
        print()
        print("| load | model p50 | Go p50 | model p99 | Go p99 |")
        print("|---|---:|---:|---:|---:|")
        for k in ol:
            if k[2] != "go":
                continue
            m, r = cells[k]["threads"], cells[k]["real"]
            mp = [m.percentile(q, "sched_delay_ns") for q in (0.5, 0.99)]
            rp = [real_pct(r, n) for n in ("sched_latency_p50_ns", "sched_latency_p99_ns")]
            print("| %s | %s | %s | %s | %s |" % (k[0].split("=")[1], us(mp[0]), us(rp[0]),
                                                  us(mp[1]), us(rp[1])))
elif kind == "cpu-summary":
    # Part 7's README sentence: each policy's CPU per request at load 0.1, at its defaults
    # (a configuration whose label names no knob), per engine and worker count.
    parts = []
    for (eng, nw) in sorted(set((g.engine, g.workers) for g in groups), key=lambda k: (-k[1], k[0])):
        gs = [g for g in groups if g.engine == eng and g.workers == nw and g.offered_load() == 0.1
              and "[" not in variant(g)
              and g.median("cpu_per_task_ns") is not None]
        if not gs:
            continue
        calibrated = eng == "sim" and any(g.config.get("sim_costs_file") for g in gs)
        what = "%d %s" % (nw, "threads" if eng == "threads" else
                          "calibrated sim workers" if calibrated else "sim workers")
        parts.append("on %s, %s" % (what, ", ".join(
            "%s %s us (%s S)" % (g.policy, sig(g.median("cpu_per_task_ns") / 1e3),
                                 sig(g.median("cpu_per_task_ns") / g.mean_service_ns()))
            for g in sorted(gs, key=lambda g: rank(g.policy)))))
    svc = sorted(set(g.mean_service_ns() / 1e3 for g in groups if g.mean_service_ns()))
    print("CPU per request at load 0.1 (median over the trials; S = %s us): %s." % (
        "/".join(hl.fmt_value(x) for x in svc), "; ".join(parts)))
elif kind in ("cpu", "idle", "idle-sim-vs-threads"):
    # Part 7 (docs/results.md, trials[].cpu). cpu: per configuration and load, the CPU per
    # request, idle CPU, cores in use, p99 / S and the wakes. idle: the CPU per second of wall
    # time per policy at the trickle loads, threads beside the sim. idle-sim-vs-threads: the
    # calibrated sim's idle CPU over the threads engine's, per policy and load.
    lab = variant
    key = lambda g: (g.engine, g.workers, rank(g.policy), lab(g), g.offered_load() or 0)
    med = lambda g, k: g.median(k)
    pct = lambda v: "" if v is None else "%.1f%%" % (100 * v)
    if kind == "cpu":
        print("| engine | workers | policy | load | CPU / request (us) [95% CI] | CPU / request / S "
              "| idle CPU | cores | p99 / S | wakes / request | wake latency p50, p99 (us) |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for g in sorted(groups, key=key):
            c, S = med(g, "cpu_per_task_ns"), g.mean_service_ns()
            if c is None or not S:
                continue
            ci = g.ci95("cpu_per_task_ns") if len(g.trials) > 1 else None
            p99 = g.percentile(0.99, "end_to_end_ns")
            wakes = sum(((t.get("cpu") or {}).get("wakes_polled") or 0) +
                        ((t.get("cpu") or {}).get("wakes_empty") or 0) for t in g.trials)
            reqs = sum(t["tasks"] for t in g.trials)
            h = g.results[0].histogram("wake_latency_ns") or {}
            wl = "%s, %s" % (sig(h["p50"] / 1e3), sig(h["p99"] / 1e3)) if h.get("count") else "-"
            print("| %s | %d | %s | %s | %s%s | %s | %s | %s | %s | %s | %s |" % (
                g.engine, g.workers, lab(g), hl.fmt_value(g.offered_load()), sig(c / 1e3),
                ci_text(ci, 1e-3), sig(c / S), pct(med(g, "idle_cpu")), sig(med(g, "cpu_cores")),
                sig(p99 / S) if p99 else "", sig(wakes / reqs) if reqs else "", wl))
    elif kind == "idle":
        loads = sorted(set(g.offered_load() for g in groups if g.offered_load()))
        print("| engine | workers | policy | " + " | ".join("load %s" % hl.fmt_value(x)
                                                          for x in loads) + " |")
        print("|---|---:|---|" + "---:|" * len(loads))
        rows = {}
        for g in sorted(groups, key=key):
            rows.setdefault((g.engine, g.workers, lab(g)), {})[g.offered_load()] = g
        for (e, w, name), by in rows.items():
            cells = []
            for x in loads:
                g = by.get(x)
                v = med(g, "cpu_cores") if g else None
                cells.append("" if v is None else "%s (%s idle)" % (sig(v), pct(med(g, "idle_cpu"))))
            print("| %s | %d | %s | %s |" % (e, w, name, " | ".join(cells)))
        print()
        print("Each cell: the workers' CPU seconds per second of makespan (cores in use; the sim: "
              "modelled time), and the idle CPU, CPU not running tasks over workers x makespan; "
              "medians over the trials.")
    else:
        # A sim configuration beside the threads one that has the same variant, workers and
        # parameters.
        same = lambda g: (lab(g), g.workers, sorted(g.params.items()))
        th = [g for g in groups if g.engine == "threads"]
        # The kernel's part per request: threads, the system time; sim, the park and notify
        # costs (trials[].cpu.total.kernel_ns over the requests, all trials).
        kern = lambda g: sum(((t.get("cpu") or {}).get("total") or {}).get("kernel_ns", 0)
                             for t in g.trials) / max(1, sum(t["tasks"] for t in g.trials)) / 1e3
        # Sleeps per request: the sleeps an unpark ended (wakes_polled + wakes_empty) and those
        # a timeout ended (the workers' unparks_timeout), all trials: what the sim's wake_return
        # and timeout_return are charged per (docs/sim.md).
        def sleeps(g):
            n = sum(((t.get("cpu") or {}).get("wakes_polled") or 0) +
                    ((t.get("cpu") or {}).get("wakes_empty") or 0) +
                    sum(w.get("unparks_timeout", 0) for w in (t.get("workers") or []))
                    for t in g.trials)
            return n / max(1, sum(t["tasks"] for t in g.trials))
        # The CPU not running tasks per sleep (all trials): idle CPU is nearly proportional to
        # the sleeps on both engines (docs/sim.md), so this is what each sleep costs all told,
        # its search before, its park, its way back and the tick after.
        def idle_per_sleep(g):
            idle = sum(((t.get("cpu") or {}).get("total") or {}).get("cpu_ns", 0) -
                       ((t.get("cpu") or {}).get("total") or {}).get("task_ns", 0)
                       for t in g.trials)
            n = sleeps(g) * sum(t["tasks"] for t in g.trials)
            return sig(idle / n / 1e3) if n else "-"
        print("| policy | workers | load | requests | warm-up share | idle CPU, threads [95% CI] "
              "| idle CPU, sim | sim / threads | kernel us / request, threads | ..., sim "
              "| sleeps / request, threads | ..., sim | idle CPU us / sleep, threads | ..., sim |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for g in sorted(groups, key=lambda g: key(g) + (g.params.get("requests", 0),)):
            t = next((x for x in th if same(x) == same(g)), None)
            if g.engine != "sim" or t is None:
                continue
            a, b = med(t, "idle_cpu"), med(g, "idle_cpu")
            if a is None or b is None:
                continue
            ci = t.ci95("idle_cpu") if len(t.trials) > 1 else None
            w = g.params.get("warmup")
            print("| %s | %d | %s | %s | %s | %s%s | %s | %s | %s | %s | %.2f | %.2f | %s | %s |" % (
                lab(g), g.workers, hl.fmt_value(g.offered_load()),
                hl.fmt_value(g.params.get("requests")),
                "auto" if w is None or w < 0 else hl.fmt_value(w), pct(a),
                " [%s, %s]" % (pct(ci[0]), pct(ci[1])) if ci else "", pct(b),
                "%.2f" % (b / a) if a else "-", sig(kern(t)), sig(kern(g)), sleeps(t),
                sleeps(g), idle_per_sleep(t), idle_per_sleep(g)))
elif kind == "work-span":
    import workspan
    sys.stdout.write(workspan.table_md(workspan.collect(results)))
elif kind == "work-span-ablation":
    # Per configuration (its knobs and costs): T_P against the greedy bound T_1/P + T_inf at
    # every worker count above 1, T_1 its own 1-worker run, with the counters that say why.
    # Labelled within each policy and workload by what varies there (a knob, a cost, a
    # parameter), so that an ablation's row names its one change and not every cost that
    # differs anywhere in the grid; a configuration run twice at 1 worker is one.
    ign = hl.CONFIG_IGNORE + ("workers",)
    uniq = {}
    for r in results:
        if r.workers == 1:
            uniq.setdefault(hl.config_key(r, ign), r)
    grouped = {}
    for k, r in uniq.items():
        grouped.setdefault((r.policy, r.workload), []).append((k, r))
    name = {}
    for grp in grouped.values():
        labs = hl.labels([r for _, r in grp], exclude=ign, always=("policy", "workload"))
        name.update((k, lab) for (k, _), lab in zip(grp, labs))
    by = {}
    for r in results:
        by.setdefault(name.get(hl.config_key(r, ign), r.policy), {})[r.workers] = r
    print("| configuration | workers | T_1 ms | T_P ms | T_inf us | T_1/P + T_inf ms "
          "| T_P / (T_1/P + T_inf) | parks | notifies | steals |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for lab, ws in by.items():
        if 1 not in ws:
            continue
        t1 = ws[1].median("makespan_ns")
        for p in sorted(w for w in ws if w > 1):
            r = ws[p]
            tp = r.median("makespan_ns")
            ti = max(t.get("span_ns", 0) for t in r.trials)
            g = t1 / p + ti
            print("| %s | %d | %s | %s | %s | %s | %.3f | %d | %d | %d |" % (
                lab, p, sig(t1 / 1e6), sig(tp / 1e6), sig(ti / 1e3), sig(g / 1e6), tp / g,
                r.counter("parks"), r.counter("notifies"), r.counter("steals")))
else:
    sys.exit("reproduce: unknown table '%s' (imbalanced, p99-load, ops, ablation, "
             "sim-vs-threads, models-vs-real, cpu, cpu-summary, idle, idle-sim-vs-threads, "
             "work-span, work-span-ablation)" % kind)
