#!/usr/bin/python3
"""csv_summary.py - one CSV row per result file, for spreadsheets.

    csv_summary.py [-o OUT.csv] RESULT...

Columns, in this order (FIXED_COLUMNS, then one column per workload
parameter `param.NAME` and per policy knob `knob.NAME` met in any file,
sorted; empty where a file has no such parameter or knob):

    file, policy, workload, engine, workers, seed, trials, warmup,
    sample_period, hist_digits,
    for each of makespan_ns, tasks_per_s, ns_per_task, overhead_ns_per_task,
    utilization_total: the median, then <key>_ci_lo and <key>_ci_hi (the
    interval of the median from median.ci95),
    ci_coverage (the intervals' coverage, the same for every key),
    baseline_ns_per_task,
    counters summed over workers and trials: polls, lifo_polls, local_pops,
    global_tasks, steal_attempts, steals, tasks_stolen, overflows, parks,
    unparks_notify, unparks_timeout, notifies,
    latency_histogram (end_to_end_ns when the file has it, else
    sched_delay_ns), latency_count, p50_ns, p99_ns, p99_9_ns, max_ns (of that
    histogram), sched_p99_ns (scheduling delay, always),
    provenance: git_revision, compiler, build_type, allocator, cpu_model,
    cores_online, c2c_round_trip_ns, timestamp_utc, hostname, command_line.

A missing figure (null in the file, e.g. the overhead without a baseline) is
an empty cell. Numbers are plain decimal (reals with up to 15 significant
digits), so every spreadsheet parses them.
"""

import argparse
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402

PROG = "csv_summary.py"

CONFIG_COLUMNS = ("policy", "workload", "engine", "workers", "seed", "trials", "warmup",
                  "sample_period", "hist_digits")
COUNTER_COLUMNS = ("polls", "lifo_polls", "local_pops", "global_tasks", "steal_attempts",
                   "steals", "tasks_stolen", "overflows", "parks", "unparks_notify",
                   "unparks_timeout", "notifies")
PROVENANCE_COLUMNS = ("git_revision", "compiler", "build_type", "allocator", "cpu_model",
                      "cores_online", "c2c_round_trip_ns", "timestamp_utc", "hostname",
                      "command_line")


def _median_columns():
    out = []
    for k in hl.MEDIAN_KEYS:
        out += [k, k + "_ci_lo", k + "_ci_hi"]
    return tuple(out)


FIXED_COLUMNS = (("file",) + CONFIG_COLUMNS + _median_columns()
                 + ("ci_coverage", "baseline_ns_per_task") + COUNTER_COLUMNS
                 + ("latency_histogram", "latency_count", "p50_ns", "p99_ns", "p99_9_ns",
                    "max_ns", "sched_p99_ns") + PROVENANCE_COLUMNS)


def cell(v):
    """A JSON value as a CSV cell: "" for null, plain decimal numbers."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        s = "%.15g" % v
        if "e" in s:        # spell it out: every spreadsheet reads plain decimals
            s = ("%.20f" % v).rstrip("0").rstrip(".")
        return s
    return str(v)


def row_of(r):
    """{column: cell text} for one Result."""
    row = {"file": r.path}
    for k in CONFIG_COLUMNS:
        row[k] = cell(r.config.get(k))
    cov = None
    for k in hl.MEDIAN_KEYS:
        row[k] = cell(r.median(k))
        ci = r.ci95(k)
        row[k + "_ci_lo"] = cell(ci[0]) if ci else ""
        row[k + "_ci_hi"] = cell(ci[1]) if ci else ""
        if ci and cov is None:
            cov = ci[2]
    row["ci_coverage"] = cell(cov)
    b = r.doc.get("baseline")
    row["baseline_ns_per_task"] = cell(b.get("median_ns_per_task") if b else None)
    for k in COUNTER_COLUMNS:
        row[k] = cell((r.doc.get("counters_total") or {}).get(k))
    name = r.latency_histogram_name()
    h = r.histogram(name) if name else None
    row["latency_histogram"] = name or ""
    row["latency_count"] = cell(h.get("count") if h else None)
    for col, key in (("p50_ns", "p50"), ("p99_ns", "p99"), ("p99_9_ns", "p99_9"),
                     ("max_ns", "max")):
        row[col] = cell(h.get(key) if h else None)
    sd = r.histogram("sched_delay_ns")
    row["sched_p99_ns"] = cell(sd.get("p99") if sd and sd.get("count") else None)
    for k in PROVENANCE_COLUMNS:
        row[k] = cell(r.provenance.get(k))
    for k, v in r.params.items():
        row["param." + k] = cell(v)
    for k, v in r.knobs.items():
        row["knob." + k] = cell(v)
    return row


def columns_for(results):
    """FIXED_COLUMNS plus the param.* and knob.* columns of these results."""
    params = sorted(set("param." + k for r in results for k in r.params))
    knobs = sorted(set("knob." + k for r in results for k in r.knobs))
    return list(FIXED_COLUMNS) + params + knobs


def write_csv(results, f):
    cols = columns_for(results)
    w = csv.DictWriter(f, fieldnames=cols, restval="", lineterminator="\n")
    w.writeheader()
    for r in results:
        w.writerow(row_of(r))


def main(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+", metavar="RESULT",
                   help="result files or directories of them")
    p.add_argument("-o", "--output", help="write here instead of stdout")
    args = p.parse_args(argv)
    try:
        rs = hl.load_all(args.results)
    except hl.ResultError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    if not rs:
        print("%s: no result files in %s" % (PROG, " ".join(args.results)), file=sys.stderr)
        return 2
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="") as f:
            write_csv(rs, f)
    else:
        write_csv(rs, sys.stdout)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:     # a reader such as head(1) stopped early
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
