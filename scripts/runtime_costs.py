#!/usr/bin/python3
"""runtime_costs.py - a cost file for the sim fitted from a real runtime's runs.

    scripts/runtime_costs.py --policy tokio-1.28 --out tokio-real.costs --base costs.txt
    scripts/runtime_costs.py --policy go --out go-real.costs --base costs.txt --check
    build/harness --engine=sim --policy=tokio-1.28 --workload=fib --workers 64 \\
        --costs tokio-real.costs

`--calibrate` measures the harness's own mechanisms; a real runtime's tasks cost several
times more (results/reference/6-models-vs-real). This is its sibling for a runtime: the
runtime, through its peer (`--engine=real`), runs fib (every node a task) and spawn-many
(one task spawns them all), and the sim of the policy's model is fitted to its median
makespans in two stages, as `--calibrate` fits its own (docs/sim.md):

1. `spawn` and `poll`, the two per-task costs, to the 1-worker runs. One worker overlaps
   nothing, so the sim's makespan is linear in them: three sim runs of each workload give
   the slopes, and the two equations "sim makespan = the runtime's" both costs (one held at
   0, the other fitted alone, if the solution has it negative).
2. `contended` and `lock_transfer`, the costs of a 2-worker run's shared lines (a migrated
   task's or a join's lines while the other worker uses them; the global queue's lock and
   lines last taken on the other worker), to the 2-worker runs, by Newton's method on the
   sim (fib moves with the first, spawn-many, whose second worker takes the spawner's
   overflow from the global queue, with the second).

The sim runs the model of the version measured: go against a Go before 1.21 as
go[idle_precheck=1] (proc.go's wakep returned at once when no P was idle until 1.21; the go
model's default follows 1.21 and later, which take sched.lock to look for one whenever nobody
spins), other knobs with --model-set; the file's header names the variant, which is the one
to run the file with.

The other costs (queues, steals, parks, wakes) are the base table's: the built-in one, or a
`--calibrate` file (`--base FILE`) measured on this machine, whose lines the written file
keeps with the four fitted ones replaced. Stage 2 matches the 2-worker runs it is fitted on
by construction; `--check` runs what it was not fitted on, fib two sizes up and spawn-many a
tenth the size at 2 workers, on the runtime and in the sim, and prints the sim's makespan
over the runtime's. Bad input: one line on stderr, exit status 2, before any run.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402

# The policies whose model has a runtime with the async shapes (docs/policies.md).
POLICIES = ("tokio-1.28", "tokio", "go")
# The costs this fit writes (core/costs.h), by stage.
STAGE1 = ("spawn", "poll")
STAGE2 = ("contended", "lock_transfer")
FITTED = STAGE1 + STAGE2


def die(msg, code=2):
    sys.stderr.write("runtime_costs: %s\n" % msg)
    sys.exit(code)


def go_before(version, release):
    """Whether a Go version string (go1.19.8) is before release (1, 21)."""
    m = re.search(r"go(\d+)\.(\d+)", version or "")
    return bool(m) and (int(m.group(1)), int(m.group(2))) < release


def run_harness(args, what):
    """The harness's result for args (its JSON on stdout), or exit 1 naming what failed."""
    p = subprocess.run(args + ["--quiet", "--json", "-"], capture_output=True, text=True)
    if p.returncode != 0:
        die("%s failed (exit %d): %s" % (what, p.returncode, p.stderr.strip()), 1)
    return json.loads(p.stdout)


class Fit:
    def __init__(self, opts):
        self.o = opts
        self.shapes = [("fib", ["--param", "n=%d" % opts.fib_n]),
                       ("spawn-many", ["--param", "n=%d" % opts.spawn_n])]

    def real(self, wl, params, workers):
        d = run_harness([self.o.harness, "--engine=real", "--policy=" + self.o.policy,
                         "--workload=" + wl, "--workers", str(workers), "--trials",
                         str(self.o.trials), "--warmup", "1", "--no-baseline"] + params,
                        "the real %s on %s" % (self.o.policy, wl))
        self.version = "%s %s" % (d["config"]["peer"]["runtime"], d["config"]["peer"]["version"])
        return float(d["median"]["makespan_ns"])

    def knobs(self):
        """The model's knobs for the runtime measured: --model-set's, and for go
        against a Go before 1.21, idle_precheck=1 (proc.go wakep before 1.21
        returns at once when no P is idle, sched.npidle == 0; from 1.21 it takes
        sched.lock for pidlegetSpinning whenever nobody spins, the go model's
        default). Unset until the first runtime run names the version."""
        k = dict(self.o.model_set)
        v = getattr(self, "version", "")
        if self.o.policy == "go" and "idle_precheck" not in k and go_before(v, (1, 21)):
            k["idle_precheck"] = "1"
        return sorted(k.items())

    def model(self):
        """The model as a variant name: go[idle_precheck=1]."""
        k = self.knobs()
        return self.o.policy + ("[%s]" % ",".join("%s=%s" % kv for kv in k) if k else "")

    def sim(self, wl, params, workers, costs=None, sets=()):
        args = [self.o.harness, "--engine=sim", "--policy=" + self.o.policy,
                "--workload=" + wl, "--workers", str(workers), "--trials", "1",
                "--warmup", "0"] + params
        for k, v in self.knobs():
            args += ["--set", "%s=%s" % (k, v)]
        if costs:
            args += ["--costs", costs]
        for k, v in sets:
            args += ["--set", "cost.%s=%s" % (k, v)]
        d = run_harness(args, "the sim of %s on %s" % (self.o.policy, wl))
        return float(d["median"]["makespan_ns"]), d["config"].get("sim_costs_ns") or {}

    def run(self):
        base = None if self.o.base == "default" else self.o.base
        self.base = base
        # Stage 1: spawn and poll at 1 worker, linear.
        rows = []
        for wl, params in self.shapes:
            target = self.real(wl, params, 1)
            m0, table = self.sim(wl, params, 1, base)
            s0, p0 = int(table["spawn"]), int(table["poll"])
            step = 100
            ms, _ = self.sim(wl, params, 1, base, [("spawn", s0 + step), ("poll", p0)])
            mp, _ = self.sim(wl, params, 1, base, [("spawn", s0), ("poll", p0 + step)])
            rows.append((wl, target, m0, (ms - m0) / step, (mp - m0) / step))
        (w1, t1, m1, a1, b1), (w2, t2, m2, a2, b2) = rows
        # a_i ds + b_i dp = t_i - m_i, i = fib, spawn-many.
        det = a1 * b2 - a2 * b1
        if abs(det) < 1e-9 * max(abs(a1 * b2), 1):
            die("the two workloads' slopes do not tell spawn from poll apart", 1)
        ds = ((t1 - m1) * b2 - (t2 - m2) * b1) / det
        dp = (a1 * (t2 - m2) - a2 * (t1 - m1)) / det
        s, p = s0 + ds, p0 + dp
        note = ""
        if s < 0 or p < 0:
            # One cost would be negative: hold it at 0 and fit the other by least squares.
            if s < 0:
                s = 0.0
                r = [(t - m - a * (s - s0), b) for _, t, m, a, b in rows]
                p = p0 + sum(y * b for y, b in r) / sum(b * b for _, b in r)
                note = "spawn held at 0 (it came out negative), poll fitted alone"
            else:
                p = 0.0
                r = [(t - m - b * (p - p0), a) for _, t, m, a, b in rows]
                s = s0 + sum(y * a for y, a in r) / sum(a * a for _, a in r)
                note = "poll held at 0 (it came out negative), spawn fitted alone"
        self.rows, self.note = rows, note
        self.fit = {"spawn": round(max(s, 0)), "poll": round(max(p, 0))}
        self.ones = [(wl, t, self.sim(wl, params, 1, base, self.fit.items())[0])
                     for (wl, params), (_, t, _, _, _) in zip(self.shapes, rows)]
        # Stage 2: contended and lock_transfer at 2 workers, Newton's method on the sim.
        self.twos = [self.real(wl, params, 2) for wl, params in self.shapes]
        x = [float(table.get(k, 0)) for k in STAGE2]

        def f(x):
            sets = list(self.fit.items()) + [(k, round(max(v, 0))) for k, v in zip(STAGE2, x)]
            return [self.sim(wl, params, 2, base, sets)[0] / t - 1
                    for (wl, params), t in zip(self.shapes, self.twos)]
        y = f(x)
        # The sim is not smooth in these costs (a cost moves which worker takes what), so
        # Newton's step can land worse: the best point met is the fit, never the last.
        best = (max(abs(v) for v in y), x, y)
        for _ in range(12):
            if max(abs(v) for v in y) < 0.01:
                break
            h = [max(50.0, 0.2 * v) for v in x]
            cols = []
            for j in range(2):
                xj = list(x)
                xj[j] += h[j]
                yj = f(xj)
                cols.append([(yj[i] - y[i]) / h[j] for i in range(2)])
            # J = [[d y0/d x0, d y0/d x1], [d y1/d x0, d y1/d x1]]; solve J dx = -y.
            j00, j10 = cols[0]
            j01, j11 = cols[1]
            d = j00 * j11 - j01 * j10
            if abs(d) < 1e-18:
                # Singular: move each cost on its own workload.
                dx = [-y[0] / j00 if j00 else 0.0, -y[1] / j11 if j11 else 0.0]
            else:
                dx = [(-y[0] * j11 + y[1] * j01) / d, (-y[1] * j00 + y[0] * j10) / d]
            xn = [max(0.0, min(1e6, x[i] + dx[i])) for i in range(2)]
            yn = f(xn)
            # Halve the step until it does not make the worse workload worse.
            for _ in range(6):
                if max(abs(v) for v in yn) <= max(abs(v) for v in y):
                    break
                xn = [max(0.0, (x[i] + xn[i]) / 2) for i in range(2)]
                yn = f(xn)
            x, y = xn, yn
            if max(abs(v) for v in y) < best[0]:
                best = (max(abs(v) for v in y), x, y)
        _, x, y = best
        for k, v in zip(STAGE2, x):
            self.fit[k] = round(max(v, 0))
        self.stage2 = y

    def write(self, path):
        lines = ["# Sim costs fitted from a real runtime's runs by scripts/runtime_costs.py",
                 "# (docs/sim.md, \"Costs of a real runtime\").",
                 "# policy %s, runtime %s, made %s on %s" % (
                     self.model(), self.version, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     os.uname().nodename),
                 "# fitted: spawn and poll, to the runtime's median 1-worker makespans "
                 "(%d trials):" % self.o.trials]
        for wl, target, sim in self.ones:
            lines.append("#   %s: runtime %.0f ns (%.1f ns a task at 1 worker), sim %.0f" % (
                wl, target, target / self._tasks(wl), sim))
        if self.note:
            lines.append("#   " + self.note)
        lines.append("# fitted: contended and lock_transfer, to the 2-worker makespans:")
        for (wl, _), t, e in zip(self.shapes, self.twos, self.stage2):
            lines.append("#   %s: runtime %.0f ns, sim / runtime %.3f" % (wl, t, 1 + e))
        if self.o.base == "default":
            lines.append("# the other costs: the built-in table")
        else:
            lines.append("# the other costs: the base table %s, as it was:" % self.o.base)
            with open(self.o.base) as f:
                for line in f:
                    name = line.split("#")[0].split("=")[0].strip()
                    if name not in FITTED:
                        lines.append(line.rstrip("\n"))
        lines += ["%s = %d" % kv for kv in self.fit.items()]
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, path)

    def _tasks(self, wl):
        if wl == "fib":
            a, b = 0, 1
            for _ in range(self.o.fib_n + 1):
                a, b = b, a + b
            return 2 * a - 1
        return self.o.spawn_n

    def check(self, path):
        """What the fit was not made on: fib two sizes up, spawn-many a tenth, 2 workers."""
        shapes = [("fib", ["--param", "n=%d" % (self.o.fib_n + 2)]),
                  ("spawn-many", ["--param", "n=%d" % max(1, self.o.spawn_n // 10)])]
        return [(wl + " " + params[1], self.real(wl, params, 2), self.sim(wl, params, 2, path)[0])
                for wl, params in shapes]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", required=True, help="the model: %s" % ", ".join(POLICIES))
    ap.add_argument("--out", required=True, help="the cost file to write")
    ap.add_argument("--harness", default="build/harness")
    ap.add_argument("--base", default="default",
                    help="the other costs: default (built-in) or a --calibrate file")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--fib-n", type=int, default=25)
    ap.add_argument("--spawn-n", type=int, default=100000)
    ap.add_argument("--model-set", action="append", default=[], metavar="KNOB=VALUE",
                    help="a knob of the model for every sim run (repeatable); go against a "
                         "Go before 1.21 gets idle_precheck=1 unless given")
    ap.add_argument("--check", action="store_true",
                    help="then compare sim and runtime on sizes the fit was not made on")
    o = ap.parse_args()
    sets = []
    for kv in o.model_set:
        k, eq, v = kv.partition("=")
        if not eq or not k or not v or "cost." in k:
            die("--model-set %s: not KNOB=VALUE (a knob of the policy, not a cost)" % kv)
        sets.append((k, v))
    o.model_set = sets
    if o.policy not in POLICIES:
        die("--policy %s: no runtime fit for it (valid: %s)" % (o.policy, ", ".join(POLICIES)))
    if not (os.path.isfile(o.harness) and os.access(o.harness, os.X_OK)):
        die("--harness %s: not an executable" % o.harness)
    if o.base != "default" and not os.path.isfile(o.base):
        die("--base %s: no such file" % o.base)
    if not 1 <= o.trials <= 100 or not 2 <= o.fib_n <= 40 or not 1 <= o.spawn_n <= 10 ** 7:
        die("--trials 1..100, --fib-n 2..40, --spawn-n 1..10000000")
    if sets:
        chk = [o.harness, "--check", "--engine=sim", "--policy=" + o.policy, "--workload=fib"]
        for k, v in sets:
            chk += ["--set", "%s=%s" % (k, v)]
        p = subprocess.run(chk, capture_output=True, text=True)
        if p.returncode != 0:
            die("--model-set: %s" % (p.stderr.strip().replace("harness: ", "") or "refused"))
    d = os.path.dirname(os.path.abspath(o.out))
    if not os.path.isdir(d) or not os.access(d, os.W_OK):
        die("--out %s: cannot write in %s" % (o.out, d))
    f = Fit(o)
    f.run()
    f.write(o.out)
    print("%s: %s (%s, %s)" % (o.out, ", ".join("%s = %d ns" % kv for kv in f.fit.items()),
                               f.model(), f.version))
    if o.check:
        print("| workload | workers | runtime makespan ms | sim makespan ms | sim / runtime |")
        print("|---|---:|---:|---:|---:|")
        for wl, real, sim in f.check(o.out):
            print("| %s | 2 | %.2f | %.2f | %.2f |" % (wl, real / 1e6, sim / 1e6, sim / real))


if __name__ == "__main__":
    main()
