#!/usr/bin/python3
"""hist.py - merge the latency histograms of result files and recompute any
percentile from them, exactly.

    hist.py [--name NAME] [-p 50,99,99.9] [--json OUT] RESULT|DIR...

Every result file stores its histograms losslessly (the `buckets` of
docs/results.md): the counts of every slot of the harness's log-linear
layout. Files of the same layout (the same --hist-digits) merge into the
histogram of recording every value in one, so runs of a sweep, or runs of
one configuration with other seeds, give one distribution whose percentiles
are what the harness would have printed for a single run holding them all.

--name picks the histogram: end_to_end_ns (request latency; the default
when every file has it) or sched_delay_ns. -p lists percentiles in percent
(default 50,90,99,99.9,99.99). --json writes the merged histogram as a
result file holds it (the same keys, the buckets included), so merges
chain. Prints the files merged, the count, min, mean, max and the
percentiles in ns. Exit 2 on bad input (no file, a file without buckets,
layouts or sampling periods that differ), 0 otherwise.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402

PROG = "hist.py"


def die(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(2)


def parse_levels(text):
    try:
        out = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        die("-p: '%s' is not a comma list of percentiles" % text)
    if not out or any(not 0 <= p <= 100 for p in out):
        die("-p: percentiles are in 0..100, got '%s'" % text)
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[1])
    ap.add_argument("paths", nargs="+", metavar="RESULT|DIR")
    ap.add_argument("--name", choices=hl.LATENCY_HISTOGRAMS)
    ap.add_argument("-p", "--percentiles", default="50,90,99,99.9,99.99")
    ap.add_argument("--json", metavar="OUT")
    a = ap.parse_args(argv)
    levels = parse_levels(a.percentiles)
    try:
        results = hl.load_all(a.paths)
    except hl.ResultError as e:
        die(str(e))
    if not results:
        die("no result files in %s" % " ".join(a.paths))
    name = a.name
    if name is None:
        name = ("end_to_end_ns" if all(r.histogram("end_to_end_ns") for r in results)
                else "sched_delay_ns")
    periods = set(int(r.histogram(name).get("sampled_1_in", 1)) for r in results
                  if r.histogram(name))
    if len(periods) > 1:
        die("%s sampled at different rates (1 in %s): merged, they would weigh the "
            "files unequally" % (name, ", ".join(map(str, sorted(periods)))))
    hists = []
    for r in results:
        h = r.histogram(name)
        if not h:
            die("%s has no %s histogram" % (r.path, name))
        try:
            hists.append(hl.Histogram.from_json(h))
        except hl.HistogramError as e:
            die("%s: %s" % (r.path, e))
    try:
        m = hl.merge_histograms(hists)
    except hl.HistogramError as e:
        die(str(e))
    print("%s: %d file%s, %d values" % (name, len(results), "" if len(results) == 1 else "s",
                                        m.count))
    print("min %d ns, mean %.1f ns, max %d ns" % (m.min, m.mean, m.max))
    for p in levels:
        v = m.percentile(p / 100)
        print("p%s %s ns" % (hl.fmt_value(p), "-" if v is None else v))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(m.to_json(periods.pop()), f, indent=1)
            f.write("\n")
        print("histogram: %s" % a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
