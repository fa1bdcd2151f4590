#!/usr/bin/python3
"""runtime_costs.py - a cost file for the sim fitted from a real runtime's runs.

    scripts/runtime_costs.py --policy tokio-1.28 --out tokio-real.costs --base costs.txt
    scripts/runtime_costs.py --policy go --out go-real.costs --base costs.txt --check
    build/harness --engine=sim --policy=tokio-1.28 --workload=fib --workers 64 \\
        --costs tokio-real.costs

`--calibrate` measures the harness's own mechanisms; a real runtime's tasks cost several
times more (results/reference/6-models-vs-real). This is its sibling for a runtime: the
runtime, through its peer (`--engine=real`), runs fib (every node a task), spawn-many
(one task spawns them all), chained-spawn (each task spawns the next and ends) and
yield-many (tasks that yield), and the sim of the policy's model is fitted to its median
makespans in two stages, as `--calibrate` fits its own (docs/sim.md):

1. `spawn`, `poll`, `spawn_fresh` and `work.fib` to the 1-worker runs of the four
   shapes. One worker overlaps nothing, so the sim's makespan is linear in them:
   Newton's method on the sim (the slopes by finite differences, then the least-squares
   step with every cost that would go negative held at 0) lands in one step. yield-many
   pins poll, chained-spawn spawn (one task live at a time: each reuses a finished one's
   descriptor), spawn-many spawn_fresh (all live at once: none can), fib work.fib (the
   runtime's own work in a fib node beyond its spawn and polls: the Go peer allocates
   its results and a WaitGroup). That is go's default; tokio's is `--third none`, spawn,
   poll and work.fib on spawn-many, yield-many and fib (Tokio's spawn-many costs what its
   fib does per task: on those two alone spawn and poll are told apart only by fib's
   half poll more per task, and two part-6 runs an hour apart split the same ~300 ns a
   task as spawn 30 and poll 231, then spawn 229 and poll 23, which put the 2-worker
   spawn-many's spawner at 0.3 and 2.3 ms; yield-many, polls alone, pins poll). `--third
   cold_start` fits cold_start in spawn_fresh's place, `--third none` neither (and no
   chained-spawn), `--no-fib-work` keeps the base table's work.fib (and no yield-many).
2. `contended` and `lock_transfer`, the costs of a 2-worker run's shared lines (a
   migrated task's or a join's lines while the other worker uses them; the global queue's
   lock and lines last taken on the other worker, and for tokio-1.28 the task list's), to
   the 2-worker runs of fib and spawn-many, by Newton's method on the sim from the base's
   point and, if that stalls short of 1%, again from the best point of a coarse grid.

tokio-1.28's sim runs with the task list (`cost.task_list = 1`, `--no-task-list` to leave
it out): Tokio 1.24 takes one list's lock at every spawn and completion (OwnedTasks,
tokio/src/runtime/task/list.rs). go's runs with the semaphore table (`cost.sema_table = 1`,
`--no-sema-table`): a sync.WaitGroup's Wait sleeps and its last Done wakes the waiter in one
of 251 roots, each a lock (runtime/sema.go). The written file says so.

The sim runs the model of the version measured: go against a Go before 1.21 as
go[idle_precheck=1] (proc.go's wakep returned at once when no P was idle until 1.21; the go
model's default follows 1.21 and later, which take sched.lock to look for one whenever nobody
spins), other knobs with --model-set; the file's header names the variant, which is the one
to run the file with.

The other costs (queues, steals, parks, wakes) are the base table's: the built-in one, or a
`--calibrate` file (`--base FILE`) measured on this machine, whose lines the written file
keeps with the fitted ones replaced. Stage 2 matches the 2-worker runs it is fitted on
by construction; `--check` runs what it was not fitted on, fib two sizes up and spawn-many a
tenth the size at 2 workers, on the runtime and in the sim, and prints the sim's makespan
over the runtime's. The runtime's runs, the fit's at 1 and 2 workers and the check's, are
taken interleaved, one trial of each in turn, so that the fit and its check see the same
minutes of the machine. Bad input: one line on stderr, exit status 2, before any run.
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
# Stage 2's coarse grid, each cost's values in ns, for a second start of its search.
STAGE2_GRID = (0.0, 100.0, 300.0, 1000.0, 3000.0)
# The runtimes' mechanisms outside their schedulers that the sim has as switches of a cost
# file (core/costs.h), each on by default for the policy whose runtime has it: (switch, that
# policy, --SWITCH's help, the written file's note). Tokio kept every live task on one
# mutex-guarded list (tokio/src/runtime/task/list.rs, OwnedTasks::bind and ::remove) until
# its pull request 6001 (2023) sharded it: Tokio 1.24, which tokio-1.28 is measured against,
# has it. Go's peer joins with sync.WaitGroup, whose Wait sleeps and whose last Done wakes in
# the runtime's semaphore table (runtime/sema.go: 251 roots, each a lock).
SWITCHES = (
    ("task_list", "tokio-1.28",
     "the runtime's spawns and completions take one task list's lock (cost.task_list=1; "
     "the default for tokio-1.28: Tokio 1.24's OwnedTasks)",
     "the runtime's task list: every spawn and completion takes its lock "
     "(docs/runtime-costs.md, \"Tokio's task list\")"),
    ("sema_table", "go",
     "a join's sleep and its wake take a root of the runtime's semaphore table "
     "(cost.sema_table=1; the default for go: Go's sync.WaitGroup)",
     "the runtime's semaphore table: a join's sleep and its wake take a root "
     "(docs/runtime-costs.md, \"Go's semaphore table\")"),
)
# Stage 1's optional third cost (--third): what a spawn-many task costs beyond a
# chained-spawn one.
THIRD = ("spawn_fresh", "cold_start", "none")


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


def lstsq(A, b):
    """The least-squares solution of A x = b (few columns: normal equations,
    Gaussian elimination with partial pivoting); None if singular."""
    n = len(A[0]) if A else 0
    M = [[sum(A[r][i] * A[r][j] for r in range(len(A))) for j in range(n)] +
         [sum(A[r][i] * b[r] for r in range(len(A)))] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        if abs(M[p][c]) < 1e-30:
            return None
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c:
                f = M[r][c] / M[c][c]
                M[r] = [a - f * e for a, e in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]


def nonneg_step(J, y, x):
    """The step dx that makes J dx = -y best in least squares with x + dx >= 0:
    every subset of the costs held at 0 (dx = -x there) is tried, the feasible
    one of least residual kept. None if none is."""
    n = len(x)
    best = None
    for held in range(1 << n):
        free = [j for j in range(n) if not held >> j & 1]
        dx = [-x[j] if held >> j & 1 else 0.0 for j in range(n)]
        rhs = [-y[i] - sum(J[i][j] * dx[j] for j in range(n)) for i in range(len(y))]
        if free:
            sol = lstsq([[J[i][j] for j in free] for i in range(len(y))], rhs)
            if sol is None:
                continue
            for j, v in zip(free, sol):
                dx[j] = v
        if any(x[j] + dx[j] < -1e-9 for j in free):
            continue
        res = sum((y[i] + sum(J[i][j] * dx[j] for j in range(n))) ** 2 for i in range(len(y)))
        if best is None or res < best[0] - 1e-15:
            best = (res, dx)
    return best[1] if best else None


def fd_jacobian(f, x, y, hmin):
    """The slopes of f at x (where f(x) = y) by forward differences, a step of
    max(hmin, 0.2 x_j) in each cost: J[i][j] = d y_i / d x_j."""
    cols = []
    for j in range(len(x)):
        h = max(hmin, 0.2 * x[j])
        xj = list(x)
        xj[j] += h
        yj = f(xj)
        cols.append([(yj[i] - y[i]) / h for i in range(len(y))])
    return [[cols[j][i] for j in range(len(x))] for i in range(len(y))]


class Fit:
    def __init__(self, opts):
        self.o = opts
        self.shapes = [("fib", ["--param", "n=%d" % opts.fib_n]),
                       ("spawn-many", ["--param", "n=%d" % opts.spawn_n])]
        # The switches on (SWITCHES), for every sim run and the written file.
        self.switches = tuple((k, 1) for k, *_ in SWITCHES if getattr(opts, k))
        # Stage 1's costs and shapes: spawn and poll on fib and spawn-many, and with a
        # third cost chained-spawn too, whose tasks spawn the next and end (one live at
        # a time), to tell a spawn that reuses a finished task's descriptor from one
        # that cannot (spawn-many's, all live at once).
        self.stage1 = STAGE1 + ((opts.third,) if opts.third != "none" else ())
        self.shapes1 = list(self.shapes)
        if opts.third != "none":
            self.shapes1.append(("chained-spawn", ["--param", "n=%d" % opts.chain_n]))
        if opts.fib_work:
            # The runtime's fib node does work of its own beyond its spawns and polls
            # (the Go peer's allocates its results and a WaitGroup): work.fib, with
            # yield-many, polls and no spawns, to pin poll.
            self.stage1 += ("work.fib",)
            self.shapes1.append(("yield-many", ["--param", "tasks=%d" % opts.yield_tasks,
                                                "--param", "yields=%d" % opts.yields]))

    def stage1_fit(self, x):
        """Newton's method on the 1-worker sim for the stage-1 costs x, each kept >= 0:
        at each point the slopes by finite differences, then the least-squares step
        (relative errors) with every subset of the costs that would go negative held
        at 0. The sim is linear in spawn and poll at 1 worker, so they land in one step;
        a cost that moves which tasks age (cold_start, by cold_after) may take more.
        Returns (worst relative error, x, errors) of the best point met."""
        base, n = self.base, len(self.stage1)

        def f(x):
            sets = [(k, round(max(v, 0))) for k, v in zip(self.stage1, x)]
            return [self.sim(wl, p, 1, base, sets)[0] / t - 1
                    for (wl, p), t in zip(self.shapes1, self.targets)]
        y = f(x)
        best = (max(abs(v) for v in y), x, y)
        for _ in range(6):
            if best[0] < 0.005:
                break
            dx = nonneg_step(fd_jacobian(f, x, y, 100.0), y, x)
            if dx is None:
                break
            xn = [max(0.0, x[j] + dx[j]) for j in range(n)]
            x, y = xn, f(xn)
            if max(abs(v) for v in y) < best[0]:
                best = (max(abs(v) for v in y), x, y)
        return best

    def real(self, wl, params, workers):
        """One trial of the runtime, after its warm-up (real_interleaved)."""
        d = run_harness([self.o.harness, "--engine=real", "--policy=" + self.o.policy,
                         "--workload=" + wl, "--workers", str(workers), "--trials", "1",
                         "--warmup", "1", "--no-baseline"] + params,
                        "the real %s on %s" % (self.o.policy, wl))
        self.version = "%s %s" % (d["config"]["peer"]["runtime"], d["config"]["peer"]["version"])
        return float(d["median"]["makespan_ns"])

    def real_interleaved(self, specs):
        """The runtime's median makespans of several (workload, params, workers), their
        trials interleaved: one trial (after its warm-up) of each in turn, self.o.trials
        rounds, so that every median spans the same minutes of the machine. On this
        2-vCPU machine a runtime's runs move twofold and more between minutes (the host's
        state: Tokio's fib(25) at 2 workers in 2.7 times its 1-worker time where fib(27)
        minutes later ran at its 1-worker speed per task; Go's fib(25) at 2 workers in
        0.78 of its 1-worker time in one part-6 run and 0.6 in a run an hour later), and
        stage 2 fits the 2-worker runs against the 1-worker ones stage 1 fitted: a fit
        made on one set of minutes and checked on another measures the machine."""
        got = [[] for _ in specs]
        for _ in range(self.o.trials):
            for i, (wl, params, workers) in enumerate(specs):
                got[i].append(self.real(wl, params, workers))
        return [sorted(g)[len(g) // 2] for g in got]

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
        for k, v in self.switches + tuple(sets):
            args += ["--set", "cost.%s=%s" % (k, v)]
        d = run_harness(args, "the sim of %s on %s" % (self.o.policy, wl))
        return float(d["median"]["makespan_ns"]), d["config"].get("sim_costs_ns") or {}

    def run(self):
        base = None if self.o.base == "default" else self.o.base
        self.base = base
        # The runtime's runs, all interleaved: stage 1's at 1 worker, stage 2's at 2
        # and the check's (--check) at 2.
        ones = [(wl, params, 1) for wl, params in self.shapes1]
        twos = [(wl, params, 2) for wl, params in
                self.shapes + (self.check_shapes() if self.o.check else [])]
        got = self.real_interleaved(ones + twos)
        self.targets, got = got[:len(ones)], got[len(ones):]
        self.twos, self.check_real = got[:len(self.shapes)], got[len(self.shapes):]
        # Stage 1: its costs at 1 worker, on its shapes (two, three or four).
        _, table = self.sim(self.shapes1[0][0], self.shapes1[0][1], 1, base)
        x = [float(table.get(k, 0)) for k in self.stage1]
        _, x, y = self.stage1_fit(x)
        held = [k for k, v in zip(self.stage1, x) if round(v) == 0]
        self.note = ("%s held at 0 (the fit would have it negative)" % " and ".join(held)
                     if held else "")
        self.fit = {k: round(max(v, 0)) for k, v in zip(self.stage1, x)}
        self.stage1_err = y
        self.ones = [(wl, t, self.sim(wl, params, 1, base, self.fit.items())[0])
                     for (wl, params), t in zip(self.shapes1, self.targets)]
        # Stage 2: contended and lock_transfer at 2 workers, Newton's method on the sim.
        def f(x):
            sets = list(self.fit.items()) + [(k, round(max(v, 0))) for k, v in zip(STAGE2, x)]
            return [self.sim(wl, params, 2, base, sets)[0] / t - 1
                    for (wl, params), t in zip(self.shapes, self.twos)]
        # The sim is not smooth in these costs (a cost moves which worker takes what, and
        # with the task list which worker's takings interleave), so Newton's method from
        # one point can stall on a ledge: from the base table's point first, and if that
        # does not land within 1%, again from the best point of a coarse grid. The best
        # point met is the fit, never the last.
        _, x, y = self.stage2_search(f, [float(table.get(k, 0)) for k in STAGE2])
        for k, v in zip(STAGE2, x):
            self.fit[k] = round(max(v, 0))
        self.stage2 = y

    def stage2_search(self, f, x):
        """Stage 2's search from x: Newton's method, and if that stalls short of 1%,
        again from the best point of STAGE2_GRID. Returns (worst relative error, x,
        errors) of the best point met."""
        y = f(x)
        best = self.newton2(f, x, y, (max(abs(v) for v in y), x, y))
        if best[0] >= 0.01:
            pts = [([a, b], f([a, b])) for a in STAGE2_GRID for b in STAGE2_GRID]
            x, y = min(pts, key=lambda p: max(abs(v) for v in p[1]))
            if max(abs(v) for v in y) < best[0]:
                best = (max(abs(v) for v in y), x, y)
            best = self.newton2(f, x, y, best)
        return best

    def newton2(self, f, x, y, best):
        """Stage 2's Newton's method from x (with y = f(x)) on the two 2-worker
        makespans: returns the best of `best` and the points it meets."""
        for _ in range(12):
            if max(abs(v) for v in y) < 0.01:
                break
            # Solve J dx = -y.
            (j00, j01), (j10, j11) = fd_jacobian(f, x, y, 50.0)
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
        return best

    def write(self, path):
        on = dict(self.switches)
        lines = ["# Sim costs fitted from a real runtime's runs by scripts/runtime_costs.py",
                 "# (docs/runtime-costs.md).",
                 "# policy %s, runtime %s, made %s on %s" % (
                     self.model(), self.version, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     os.uname().nodename),
                 "# fitted: %s, to the runtime's median 1-worker makespans "
                 "(%d trials):" % (" and ".join(self.stage1), self.o.trials)]
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
                    # The base's line for each cost not fitted stays, as the fit
                    # ran with it (a base's cold_start or spawn_fresh, say).
                    if name not in self.fit and name not in on:
                        lines.append(line.rstrip("\n"))
        lines += ["# " + note for k, _, _, note in SWITCHES if k in on]
        lines += ["%s = %d" % kv for kv in self.switches + tuple(self.fit.items())]
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
        if wl == "yield-many":
            return self.o.yield_tasks * (self.o.yields + 1)  # its polls
        return self.o.chain_n if wl == "chained-spawn" else self.o.spawn_n

    def check_shapes(self):
        """What the fit is not made on: fib two sizes up, spawn-many a tenth."""
        return [("fib", ["--param", "n=%d" % (self.o.fib_n + 2)]),
                ("spawn-many", ["--param", "n=%d" % max(1, self.o.spawn_n // 10)])]

    def check(self, path):
        """The check's shapes at 2 workers: the runtime's runs, taken with the fit's
        (run), beside the sim's with the written file."""
        return [(wl + " " + params[1], real, self.sim(wl, params, 2, path)[0])
                for (wl, params), real in zip(self.check_shapes(), self.check_real)]


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
    ap.add_argument("--chain-n", type=int, default=100000)
    ap.add_argument("--yield-tasks", type=int, default=200)
    ap.add_argument("--yields", type=int, default=1000)
    ap.add_argument("--fib-work", dest="fib_work", action="store_true", default=True,
                    help="fit work.fib too, with yield-many as another 1-worker shape "
                         "(the default)")
    ap.add_argument("--no-fib-work", dest="fib_work", action="store_false",
                    help="keep the base table's work.fib, and no yield-many")
    ap.add_argument("--third", default=None,
                    help="stage 1's third cost, fitted with chained-spawn: %s (default: "
                         "spawn_fresh for go, none for tokio)" % ", ".join(THIRD))
    ap.add_argument("--model-set", action="append", default=[], metavar="KNOB=VALUE",
                    help="a knob of the model for every sim run (repeatable); go against a "
                         "Go before 1.21 gets idle_precheck=1 unless given")
    for dest, pol, on, _ in SWITCHES:
        name = dest.replace("_", "-")
        ap.add_argument("--" + name, dest=dest, action="store_true", default=None, help=on)
        ap.add_argument("--no-" + name, dest=dest, action="store_false",
                        help="leave it out (the default but for %s)" % pol)
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
    if not 1 <= o.trials <= 100 or not 2 <= o.fib_n <= 40 or not 1 <= o.spawn_n <= 10 ** 7 \
            or not 2 <= o.chain_n <= 10 ** 7 or not 1 <= o.yield_tasks <= 10 ** 5 \
            or not 1 <= o.yields <= 10 ** 5:
        die("--trials 1..100, --fib-n 2..40, --spawn-n 1..10000000, --chain-n 2..10000000, "
            "--yield-tasks 1..100000, --yields 1..100000")
    # Go's spawn-many costs 1.5 times its fib per task at 1 worker, which spawn and poll
    # cannot give (docs/runtime-costs.md); Tokio's costs what its fib does. Both pin
    # poll with yield-many (--fib-work), without which fib and spawn-many hardly tell
    # spawn from poll.
    if o.third is None:
        o.third = "spawn_fresh" if o.policy == "go" else "none"
    for dest, pol, *_ in SWITCHES:
        if getattr(o, dest) is None:
            setattr(o, dest, o.policy == pol)
    if o.third not in THIRD:
        die("--third %s: not a cost stage 1 fits (valid: %s)" % (o.third, ", ".join(THIRD)))
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
