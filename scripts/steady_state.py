#!/usr/bin/python3
"""steady_state.py - open-loop p99 / S on the sim engine against queueing theory.

    steady_state.py [--loads 0.5,0.7,0.9,0.95] [--seeds 1] [--trials 1]
                    [--workers 16] [--requests N] [--warmup SHARE] [--build build]

Runs the open-loop workload (exponential service, S = 1 ms) on the sim
engine under static-partition with random routing (k independent M/M/1
queues) and central-queue (one M/M/k queue), once per load and seed, and
prints p99 / S beside the theory. With --trials N each run has N trials
(seeds seed .. seed + N - 1, as the harness numbers them) and the p99 is
that of their pooled latencies, the figure the harness's summary shows (mm1_p99, mmk_p99 in harnesslib), with the
deviation of every seed, of their median and the spread. Without --requests
or --warmup the workload's defaults apply (docs/open-loop.md derives them
with this script). A benchmark, not a test: it exits non-zero only if a run
fails or an argument is bad.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402

PROG = "steady_state.py"
POLICIES = (("static-partition", ["--set", "routing=1"], "k x M/M/1"),
            ("central-queue", [], "M/M/k"))


def floats(text):
    try:
        return [float(v) for v in text.split(",") if v]
    except ValueError:
        raise argparse.ArgumentTypeError("not a list of numbers: %s" % text)


def seeds(text):
    """"1,2,3" or "1-8"."""
    try:
        if "-" in text:
            lo, hi = text.split("-", 1)
            return list(range(int(lo), int(hi) + 1))
        return [int(v) for v in text.split(",") if v]
    except ValueError:
        raise argparse.ArgumentTypeError("not a seed list: %s" % text)


def run(harness, policy, extra, load, seed, args, tmp):
    out = os.path.join(tmp, "r.json")
    cmd = [harness, "--policy=" + policy, *extra, "--workload=open-loop", "--engine=sim",
           "--workers", str(args.workers), "--trials", str(args.trials), "--warmup", "0", "--no-baseline",
           "--seed", str(seed), "--json", out, "--param", "load=%g" % load,
           "--param", "service_us=1000", "--param", "dist=1"]
    if args.requests is not None:
        cmd += ["--param", "requests=%d" % args.requests]
    if args.warmup is not None:
        cmd += ["--param", "warmup=%g" % args.warmup]
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("%s: %s failed (exit %d): %s" % (PROG, " ".join(cmd), p.returncode,
                                                   p.stderr.strip()))
    with open(out) as f:
        doc = json.load(f)
    metrics = doc["trials"][0]["metrics"]
    return (doc["histograms"]["end_to_end_ns"]["p99"] / 1e6, int(metrics["requests"]),
            int(metrics.get("warmup_requests", 0)), time.monotonic() - t0)


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("--loads", type=floats, default=[0.5, 0.7, 0.9, 0.95])
    ap.add_argument("--seeds", type=seeds, default=[1])
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--requests", type=int)
    ap.add_argument("--warmup", type=float)
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    harness = os.path.join(args.build, "harness")
    if not os.access(harness, os.X_OK):
        sys.exit("%s: %s not built" % (PROG, harness))
    print("p99 / S, %d sim workers, exponential service, seeds %s, %d trial(s) each" %
          (args.workers, ",".join(map(str, args.seeds)), args.trials))
    print("%-17s %5s %8s %9s %8s %9s %8s %7s  %s" % (
        "policy", "load", "theory", "requests", "warm-up", "median", "dev", "wall s",
        "per seed (deviation %)"))
    with tempfile.TemporaryDirectory() as tmp:
        for policy, extra, model in POLICIES:
            for load in args.loads:
                if model == "M/M/k":
                    theory = hl.mmk_p99(load, args.workers)
                else:
                    theory = hl.mm1_p99(load)
                got, wall = [], 0.0
                for s in args.seeds:
                    p99, n, warm, t = run(harness, policy, extra, load, s, args, tmp)
                    got.append(p99)
                    wall += t
                med = statistics.median(got)
                each = " ".join("%+.1f" % (100 * (v - theory) / theory) for v in got)
                print("%-17s %5.2f %8.2f %9d %8d %9.2f %+7.1f%% %7.1f  %s" % (
                    policy, load, theory, n, warm, med, 100 * (med - theory) / theory,
                    wall / len(args.seeds), each))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
