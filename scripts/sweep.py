#!/usr/bin/python3
"""sweep.py - run a grid of harness configurations, resumably, on one machine,
on several hosts (GNU parallel) or on a Slurm cluster.

  sweep.py run GRID.json --out DIR [-j N] [--hosts FILE] [--max-runs K]
  sweep.py run GRID.json --out DIR --slurm SCRIPT     (write a job array, do not submit)
  sweep.py list GRID.json --out DIR                   (every run, its id and whether it exists)
  sweep.py merge --out DIR SRC_DIR...                 (gather results, one per configuration)
  sweep.py one --out DIR --id ID --expect FILE... -- HARNESS ARGS...   (one run; used
                                                       by the parallel and Slurm backends)

A grid (docs/sweeps.md) crosses policies x workloads x engines x workers x knob values x
parameter values x trial counts x repeats, plus fixed harness options. Every run gets an id:
the first 12 hex digits of the SHA-1 of its canonical configuration (the harness options that
define it, sorted), so the same configuration has the same id in every grid, on every host and
in every rerun. Its result is DIR/<workload>-<policy>-<W>w-<engine>-<id>.json; a run whose
file(s) exist is skipped, which is how an interrupted sweep resumes. The harness writes its
result to a temporary name and renames it (docs/results.md), so a file under the final name is
always complete. Runs execute in an order shuffled with a fixed seed (--shuffle-seed).

Before the first run, every run's command line goes through `harness --check`: a grid with a
run that cannot run stops with one error naming every bad run. Ctrl-C lets the running runs
of the parallel backends finish (a second one kills them); -j > 1 with threads-engine runs
warns that they disturb each other's timings.

Progress goes to stderr (redrawn every second on a terminal); DIR/sweep.log records every
start and end of a run with its host;
DIR/logs/<id>.out and .err hold the harness's own output; DIR/commands.sh lists the harness
command line of every run of the grid in execution order.

Standard library only.
"""

import argparse
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SELF = os.path.abspath(__file__)
PYTHON = "/usr/bin/python3"
ID_LEN = 12
# Result files written by this script: <workload>-<policy>-<W>w-<engine>-<id>.json
RESULT_RE = re.compile(r"^(?P<stem>.+)-(?P<id>[0-9a-f]{%d})\.json(\.gz)?$" % ID_LEN)

# Harness options a grid may fix, and whether each takes a value.
OPTIONS = {
    "trials": True,
    "warmup": True,
    "seed": True,
    "sample": True,
    "hist-digits": True,
    "watchdog": True,
    "costs": True,
    "no-baseline": False,
}
# Keys of a grid block that are not harness options.
# What a grid may interleave in one harness process ("interleave").
INTERLEAVE = {"policies", "set", "params"}
BLOCK_KEYS = {"name", "harness", "policies", "interleave", "workloads", "engines", "workers",
              "set", "params", "trials", "repeats", "options", "grids", "comment"}
# Seeds of repeat r start at seed + r * REPEAT_STRIDE: more than the 1000 trials and 100
# warm-up trials one run may use, so repeats never share a trial seed.
REPEAT_STRIDE = 10000


def die(msg, status=2):
    print("sweep: " + msg, file=sys.stderr)
    sys.exit(status)


def utc_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def fmt_value(v):
    """A grid value as the harness reads it; integral reals as integers, so that 1 and 1.0
    give the same run id."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    if isinstance(v, str):
        return v
    die("value %r is neither a number nor a string" % (v,))


def as_list(v):
    return v if isinstance(v, list) else [v]


# --------------------------------------------------------------------------------------------
# What the harness offers: policies with their knobs, workloads with their parameters.

class Catalog:
    def __init__(self, harness):
        try:
            out = subprocess.run([harness, "--list"], check=True, capture_output=True,
                                 text=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            die("cannot run %s --list: %s" % (harness, e), 1)
        self.knobs = {}        # policy -> set of knob names
        self.params = {}       # workload -> set of parameter names
        self.in_all = []       # policies that --policy=all selects, in --list order
        section = None
        current = None
        for line in out.splitlines():
            if line.startswith("policies"):
                section = "p"
            elif line.startswith("real-only"):
                section = "r"      # no model, no knobs, --engine=real only: not in all
            elif line.startswith("workloads"):
                section = "w"
            elif re.match(r"^  \S", line) and " - " in line:
                current = line.split(" - ", 1)[0].strip()
                if section in ("p", "r"):
                    self.knobs[current] = set()
                    if section == "p" and "not in all]" not in line:
                        self.in_all.append(current)
                elif section == "w":
                    self.params[current] = set()
            elif re.match(r"^    \S", line) and current is not None:
                name = line.split()[0]
                (self.knobs if section == "p" else self.params)[current].add(name)
        if not self.knobs or not self.params:
            die("%s --list printed no policies or workloads" % harness, 1)


# --------------------------------------------------------------------------------------------
# Grid expansion.

def variant_file(name):
    """A variant's name as a file-name component, as the harness makes it (harness/main.c,
    file_name): volt[lifo_cap=0,interval=61] is volt-lifo_cap=0-interval=61, `volt n=12`
    volt-n=12."""
    return name.replace("]", "").replace("[", "-").replace(",", "-").replace(" ", "-")


class Run:
    """One harness invocation: one policy, or several variants interleaved in one process
    (several policies, knob and parameter value lists that the harness crosses)."""

    def __init__(self, policies, workload, engine, workers, knobs, params, options):
        self.policies = policies
        # The variants the run makes, named as the harness names them: the policies, unless
        # a knob or parameter takes a list, when `harness --check` names them (names_from).
        lists = any("," in v for v in list(knobs.values()) + list(params.values()))
        self.variants = None if lists else list(policies)
        self.workload = workload
        self.engine = engine
        self.workers = workers
        self.knobs = knobs        # name -> string, sorted on output
        self.params = params
        self.options = options    # option -> string or None (flag)
        self.canonical = {
            "policy": ",".join(policies),
            "workload": workload,
            "engine": engine,
            "workers": workers,
            "set": dict(sorted(knobs.items())),
            "param": dict(sorted(params.items())),
            "options": dict(sorted(options.items())),
        }
        text = json.dumps(self.canonical, sort_keys=True, separators=(",", ":"))
        self.id = hashlib.sha1(text.encode()).hexdigest()[:ID_LEN]

    def file_of(self, variant):
        return "%s-%s-%dw-%s-%s.json" % (self.workload, variant_file(variant), self.workers,
                                         self.engine, self.id)

    def files(self):
        """variant -> result file name inside the output directory."""
        if self.variants is None:
            raise RuntimeError("run %s: variants not resolved" % self.id)
        return {v: self.file_of(v) for v in self.variants}

    def names_from(self, check_output):
        """The variants from `harness --check`'s lines: ok NAME WORKLOAD W workers ENGINE."""
        names = []
        for line in check_output.splitlines():
            m = re.match(r"^ok (.+) (\S+) (\d+) workers (\S+)$", line)
            if m:
                names.append(m.group(1))
        if names:
            self.variants = names

    def harness_args(self):
        a = ["--policy=" + ",".join(self.policies), "--workload=" + self.workload,
             "--engine", self.engine, "--workers", str(self.workers)]
        for k, v in sorted(self.knobs.items()):
            a += ["--set", "%s=%s" % (k, v)]
        for k, v in sorted(self.params.items()):
            a += ["--param", "%s=%s" % (k, v)]
        for k, v in sorted(self.options.items()):
            a += ["--" + k] + ([] if v is None else [v])
        return a

    def done(self, out):
        return all(result_exists(os.path.join(out, f)) for f in self.files().values())


def value_list(values):
    """A knob's or parameter's values as one --set/--param list, in a canonical order (numbers
    by value, then names), so that the order a grid gives them in does not change the id."""
    def key(v):
        try:
            return (0, float(v), v)
        except ValueError:
            return (1, 0.0, v)
    return ",".join(sorted(set(values), key=key))


def product(axes):
    """Cartesian product of a list of (key, values) pairs, as dicts."""
    combos = [{}]
    for key, values in axes:
        combos = [dict(c, **{key: v}) for c in combos for v in values]
    return combos


def expand_block(block, cat, where):
    for k in block:
        if k not in BLOCK_KEYS:
            die("%s: unknown key '%s' (known: %s)" % (where, k, ", ".join(sorted(BLOCK_KEYS))))
    # An empty list crosses into no runs at all: a mistake, not a filter.
    for k in ("policies", "workloads", "engines", "workers", "trials"):
        if block.get(k) == []:
            die("%s: '%s' is an empty list (it would make no runs)" % (where, k))
    for k in ("set", "params"):
        for name, vs in (block.get(k) or {}).items():
            if vs == []:
                die("%s: %s '%s' is an empty list (it would make no runs)" % (where, k, name))
    policies = []
    for p in as_list(block.get("policies", [])):
        if p == "all":
            policies += [q for q in cat.in_all if q not in policies]
        elif p not in cat.knobs:
            die("%s: unknown policy '%s' (valid: %s)" % (where, p, ", ".join(cat.knobs)))
        elif p not in policies:
            policies.append(p)
    if not policies:
        die("%s: no policies" % where)
    workloads = as_list(block.get("workloads", []))
    for w in workloads:
        if w not in cat.params:
            die("%s: unknown workload '%s' (valid: %s)" % (where, w, ", ".join(cat.params)))
    if not workloads:
        die("%s: no workloads" % where)
    engines = as_list(block.get("engines", ["threads"]))
    for e in engines:
        if e not in ("threads", "sim"):
            die("%s: engine '%s' is neither threads nor sim" % (where, e))
    workers = as_list(block.get("workers", [2]))
    for w in workers:
        if not isinstance(w, int) or not 1 <= w <= 1024:
            die("%s: workers %r is not an integer in 1..1024" % (where, w))
    knob_axes = sorted((k, [fmt_value(v) for v in as_list(vs)])
                       for k, vs in block.get("set", {}).items())
    param_axes = sorted((k, [fmt_value(v) for v in as_list(vs)])
                        for k, vs in block.get("params", {}).items())
    # A knob or parameter that no selected policy or workload has is a typo, not a filter.
    for k, _ in knob_axes:
        pol, dot, name = k.partition(".")
        if pol == "cost":
            continue
        if dot:
            if pol not in policies or name not in cat.knobs[pol]:
                die("%s: knob '%s': no selected policy '%s' with knob '%s'" % (where, k, pol, name))
        elif not any(k in cat.knobs[p] for p in policies):
            die("%s: no selected policy has knob '%s'" % (where, k))
    for k, _ in param_axes:
        if not any(k in cat.params[w] for w in workloads):
            die("%s: no selected workload has parameter '%s'" % (where, k))
    options = {}
    for k, v in block.get("options", {}).items():
        if k not in OPTIONS:
            die("%s: unknown option '%s' (known: %s)" % (where, k, ", ".join(sorted(OPTIONS))))
        if OPTIONS[k]:
            options[k] = fmt_value(v)
        elif v is True:
            options[k] = None
        elif v is not False:
            die("%s: option '%s' is a flag: true or false" % (where, k))
    trials = [fmt_value(t) for t in as_list(block.get("trials", [options.pop("trials", "5")]))]
    options.pop("trials", None)
    repeats = block.get("repeats", 1)
    if not isinstance(repeats, int) or repeats < 1:
        die("%s: repeats must be a positive integer" % where)
    base_seed = int(options.get("seed", "1"))
    il = block.get("interleave", False)
    if il is True:
        il = ["policies"]
    elif il is False:
        il = []
    elif il == "all":
        il = sorted(INTERLEAVE)
    elif isinstance(il, str):
        il = [il]
    if not isinstance(il, list) or any(x not in INTERLEAVE for x in il):
        die("%s: interleave wants true, false, \"all\" or a list of %s" % (
            where, ", ".join(sorted(INTERLEAVE))))
    groups = [policies] if "policies" in il else [[p] for p in policies]
    # Knob and parameter lists the harness crosses in one process (it takes one value per
    # sim cost): values of one axis run interleaved in a single invocation.
    listed_knobs = [(k, vs) for k, vs in knob_axes if "set" in il and not k.startswith("cost.")]
    knob_axes = [kv for kv in knob_axes if kv not in listed_knobs]
    listed_params = [(k, vs) for k, vs in param_axes if "params" in il]
    param_axes = [kv for kv in param_axes if kv not in listed_params]

    runs = []
    for group in groups:
        for wl in workloads:
            for eng in engines:
                for nw in workers:
                    for kn in product(knob_axes):
                        kn.update((k, value_list(vs)) for k, vs in listed_knobs)
                        # Only the knobs some policy of the run has: a knob list of another
                        # policy does not multiply this one's runs (duplicates merge by id).
                        kn = {k: v for k, v in kn.items() if knob_applies(k, group, eng, cat)}
                        # With a single policy the harness takes only the bare knob name.
                        if len(group) == 1:
                            kn = {(k.split(".", 1)[1] if k.startswith(group[0] + ".") else k): v
                                  for k, v in kn.items()}
                        for pa in product(param_axes):
                            pa.update((k, value_list(vs)) for k, vs in listed_params)
                            pa = {k: v for k, v in pa.items() if k in cat.params[wl]}
                            for tr in trials:
                                for r in range(repeats):
                                    opts = dict(options, trials=tr)
                                    if repeats > 1:
                                        opts["seed"] = str(base_seed + r * REPEAT_STRIDE)
                                    runs.append(Run(group, wl, eng, nw, kn, pa, opts))
    return runs


def knob_applies(k, group, engine, cat):
    pol, dot, name = k.partition(".")
    if pol == "cost":
        return engine == "sim"
    if dot:
        return pol in group
    return any(k in cat.knobs[p] for p in group)


def no_duplicate_keys(pairs):
    """json.load's object_pairs_hook: a key given twice is refused (json.load would keep the
    last silently, so a grid's first value list of a knob would vanish)."""
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("key '%s' given twice in one object" % k)
        d[k] = v
    return d


def load_grid(path, harness_override=None):
    try:
        with open(path) as f:
            grid = json.load(f, object_pairs_hook=no_duplicate_keys)
    except (OSError, ValueError) as e:
        die("cannot read grid %s: %s" % (path, e))
    if not isinstance(grid, dict):
        die("grid %s: the top level must be an object" % path)
    blocks = grid.get("grids")
    common = {k: v for k, v in grid.items() if k != "grids"}
    if blocks is None:
        blocks = [{}]
    if not isinstance(blocks, list) or not blocks:
        die("grid %s: \"grids\" must be a non-empty list of objects" % path)
    if harness_override:
        harness = os.path.abspath(harness_override)
    else:
        harness = grid.get("harness", "build/harness")
        harness = harness if os.path.isabs(harness) else os.path.join(REPO, harness)
    if not os.access(harness, os.X_OK):
        die("harness %s is not an executable (build it: scripts/setup.sh)" % harness, 1)
    cat = Catalog(harness)
    runs, seen = [], set()
    for i, b in enumerate(blocks):
        merged = dict(common)
        merged.update(b)
        merged.pop("name", None)
        merged.pop("harness", None)
        for r in expand_block(merged, cat, "%s grids[%d]" % (path, i) if "grids" in grid else path):
            if r.id not in seen:
                seen.add(r.id)
                runs.append(r)
    if not runs:
        die("grid %s makes no runs" % path)
    return grid.get("name", os.path.splitext(os.path.basename(path))[0]), harness, runs


def check_runs(harness, runs):
    """Every run's command line through `harness --check`, which resolves and validates it
    exactly as a real run would (names, ranges, the policy's and workload's own checks)
    without running anything, and names the variants a run with value lists makes. Dies with
    one error naming every run that cannot run, before the first run starts."""
    from concurrent.futures import ThreadPoolExecutor

    def check(r):
        p = subprocess.run([harness, "--check"] + r.harness_args(), capture_output=True,
                           text=True, stdin=subprocess.DEVNULL)
        if p.returncode == 0:
            r.names_from(p.stdout)
            if r.variants is None:
                return r, 1, "harness --check named no variant"
        return r, p.returncode, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0]

    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as ex:
        bad = [(r, why) for r, rc, why in ex.map(check, runs) if rc != 0]
    if bad:
        lines = ["%d of %d runs cannot run (nothing was started):" % (len(bad), len(runs))]
        for r, why in bad:
            lines.append("  %s %s: %s" % (r.id, " ".join(r.harness_args()),
                                          why.replace("harness: ", "", 1)))
        die("\n".join(lines))


def shuffled(runs, seed):
    """A fixed order for a grid: sorted by id, then shuffled with the seed. Resuming keeps the
    order of the runs that remain."""
    order = sorted(runs, key=lambda r: r.id)
    random.Random(seed).shuffle(order)
    return order


# --------------------------------------------------------------------------------------------
# One run.

def append_log(out, line):
    """One line to DIR/sweep.log. A single write to a file opened with O_APPEND lands whole
    even with several writers on one host."""
    fd = os.open(os.path.join(out, "sweep.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (utc_now() + " " + line + "\n").encode())
    finally:
        os.close(fd)


def move_into(src, dst):
    """Move src to dst atomically as far as dst is concerned: copy next to dst under a
    temporary name, rename, then remove src (src may be on another filesystem)."""
    tmp = "%s.%d.tmp" % (dst, os.getpid())
    shutil.copyfile(src, tmp)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, dst)
    os.unlink(src)


_child = None
_stop = False


def _on_signal(signum, frame):
    global _stop
    _stop = True
    if _child is not None and _child.poll() is None:
        # The harness removes its temporary file and exits 128 + signum.
        _child.send_signal(signum)


def install_signals():
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)


def run_one(out, rid, expect, cmd, tick=None):
    """Run one harness invocation into out. expect lists its result file names (one per
    variant). Returns the exit status (0 if the results already existed). tick(), if given,
    is called about once a second while the run lasts."""
    global _child
    paths = {f: os.path.join(out, f) for f in expect}
    if all(result_exists(p) for p in paths.values()):
        return 0
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    cmd = list(cmd)
    if len(paths) == 1:
        # As typed at the working directory: the harness says "result: PATH" in the log.
        cmd += ["--json", typed_path(next(iter(paths.values())))]
    host = socket.gethostname()
    append_log(out, "start %s host=%s pid=%d" % (rid, host, os.getpid()))
    t0 = time.monotonic()
    with open(os.path.join(out, "logs", rid + ".out"), "w") as fo, \
            open(os.path.join(out, "logs", rid + ".err"), "w") as fe:
        # The command as a user at the working directory types it (no path of this machine).
        fo.write("# " + " ".join(shlex.quote(typed_path(c) if os.path.isabs(c) else c)
                                 for c in cmd) + "\n")
        fo.flush()
        try:
            _child = subprocess.Popen(cmd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL)
        except OSError as e:
            fe.write("sweep: cannot start %s: %s\n" % (cmd[0], e))
            append_log(out, "fail %s rc=127 host=%s" % (rid, host))
            return 127
        while True:
            try:
                rc = _child.wait(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                if tick:
                    tick()
        _child = None
    secs = time.monotonic() - t0
    if rc == 0 and len(paths) > 1:
        # Several variants in one process: the harness put each result in its own results
        # directory and named it on stdout ("result: PATH"); move each where it belongs.
        rc = collect_group(out, rid, paths)
    append_log(out, "%s %s rc=%d secs=%.2f host=%s" % ("done" if rc == 0 else "fail", rid, rc,
                                                         secs, host))
    return rc


def collect_group(out, rid, paths):
    produced = []
    with open(os.path.join(out, "logs", rid + ".out")) as f:
        for line in f:
            if line.startswith("result: "):
                produced.append(line[len("result: "):].strip())
    placed = set()
    for src in produced:
        try:
            with open(src) as f:
                c = json.load(f)["config"]
            name = "%s-%s-%dw-%s-%s.json" % (c["workload"], variant_file(c["variant"]),
                                             c["workers"], c["engine"], rid)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print("sweep: %s: cannot read %s: %s" % (rid, src, e), file=sys.stderr)
            return 1
        if name not in paths:
            print("sweep: %s: unexpected result %s" % (rid, name), file=sys.stderr)
            return 1
        move_into(src, paths[name])
        placed.add(name)
    missing = sorted(set(paths) - placed)
    if missing:
        print("sweep: %s: no result for %s" % (rid, ", ".join(missing)), file=sys.stderr)
        return 1
    return 0


def one_command(out, run, harness):
    """The shell command that runs one run through `sweep.py one` (parallel, Slurm)."""
    argv = [PYTHON, SELF, "one", "--out", os.path.abspath(out), "--id", run.id]
    for f in run.files().values():
        argv += ["--expect", f]
    argv += ["--", harness] + run.harness_args()
    return " ".join(shlex.quote(a) for a in argv)


def result_exists(path):
    """A run's result is there, as written (NAME.json) or compressed since
    (NAME.json.gz, as results/reference keeps them)."""
    return os.path.exists(path) or os.path.exists(path + ".gz")


def typed_path(path):
    """A path as a user at the working directory types it: relative to it when it lies
    under it (build/harness, results/... at the repository root), else as given. The
    harness records its own command line the same way (harness/provenance.c)."""
    a, cwd = os.path.abspath(path), os.getcwd()
    return os.path.relpath(a, cwd) if a.startswith(cwd.rstrip(os.sep) + os.sep) else path


def harness_command(out, run, harness):
    """The harness command line of a run as the user would type it at the working directory
    (for commands.sh): paths under it relative to it."""
    argv = [typed_path(harness)] + run.harness_args()
    files = list(run.files().values())
    if len(files) == 1:
        d = typed_path(out) if out else "DIR"
        argv += ["--json", os.path.join(d, files[0])]
    line = " ".join(shlex.quote(a) for a in argv)
    if len(files) > 1:
        line += "   # results moved to " + ", ".join(run.files().values())
    return line


# --------------------------------------------------------------------------------------------
# Progress.

class Progress:
    def __init__(self, total, existing, parallelism):
        self.total = total
        self.existing = existing
        self.parallelism = max(1, parallelism)
        self.t0 = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.failed = 0
        self.last_done, self.last_t, self.last_failed = -1, 0.0, 0

    def show(self, done_now, final=False, running=None):
        """The progress line: runs done (and how many existed), failed, running, left, the
        time elapsed and an estimate of the rest. On a terminal it is redrawn in place every
        call (the backends call it at least once a second); otherwise a line every 10 s at
        most."""
        done = self.existing + done_now
        now = time.monotonic()
        # Without a terminal, a line every 10 s at most (and the last one), not one per run.
        if not self.tty and not final and (done == self.last_done or now - self.last_t < 10) \
                and done < self.total:
            return
        if final and not self.tty and done == self.last_done and self.failed == self.last_failed:
            return
        self.last_done, self.last_t, self.last_failed = done, now, self.failed
        el = now - self.t0
        left = self.total - done - self.failed
        eta = "ETA %s" % fmt_secs(el / done_now * left) if done_now > 0 else "ETA ?"
        msg = "sweep: %d/%d done (%d existed), %d failed, %s%d left, %s elapsed, %s" % (
            done, self.total, self.existing, self.failed,
            "%d running, " % running if running else "", left, fmt_secs(el), eta)
        if self.tty:
            sys.stderr.write("\r" + msg + "\033[K" + ("\n" if final else ""))
        else:
            sys.stderr.write(msg + "\n")
        sys.stderr.flush()


def fmt_secs(s):
    s = int(round(s))
    if s < 60:
        return "%ds" % s
    if s < 3600:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%dh%02dm" % (s // 3600, s % 3600 // 60)


# --------------------------------------------------------------------------------------------
# Backends.

def _running_ids(out):
    """The runs sweep.log records a start of and no end (done or fail) since."""
    ids = set()
    try:
        with open(os.path.join(out, "sweep.log")) as f:
            for line in f:
                w = line.split()
                if len(w) > 2 and w[1] == "start":
                    ids.add(w[2])
                elif len(w) > 2 and w[1] in ("done", "fail"):
                    ids.discard(w[2])
    except OSError:
        pass
    return ids


def write_commands(out, order, harness):
    """DIR/commands.sh: the harness command of every run of the grid, in execution order."""
    path = os.path.join(out, "commands.sh")
    tmp = path + ".%d.tmp" % os.getpid()
    with open(tmp, "w") as f:
        f.write("#!/bin/sh\n# Harness command of every run of this sweep, in execution order "
                "(written by scripts/sweep.py)\n")
        for r in order:
            f.write(harness_command(out, r, harness) + "\n")
    os.replace(tmp, path)


def run_local(out, pending, harness, progress):
    install_signals()
    done_now = 0
    failures = 0
    current = [None]
    for r in pending:
        if _stop:
            break
        current[0] = r.id
        rc = run_one(out, r.id, list(r.files().values()), [harness] + r.harness_args(),
                     tick=lambda: progress.show(done_now, running=1))
        if _stop:
            break
        if rc == 0:
            done_now += 1
        else:
            failures += 1
            progress.failed = failures
            print("\nsweep: run %s failed (exit %d): see %s" % (
                r.id, rc, os.path.join(out, "logs", r.id + ".err")), file=sys.stderr)
        progress.show(done_now)
    progress.show(done_now, final=True)
    if _stop:
        if current[0] and not any(r.id == current[0] and r.done(out) for r in pending):
            print("sweep: interrupted: run %s was stopped and left no result; rerun the same "
                  "command to resume (it runs again)" % current[0], file=sys.stderr)
        else:
            print("sweep: interrupted; rerun the same command to resume", file=sys.stderr)
        return 143
    return 1 if failures else 0


def run_parallel(out, pending, harness, progress, jobs, hosts):
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    cmds = os.path.join(out, "pending.cmds")
    with open(cmds + ".tmp", "w") as f:
        for r in pending:
            f.write(one_command(out, r, harness) + "\n")
    os.replace(cmds + ".tmp", cmds)
    argv = ["parallel", "--joblog", os.path.join(out, "parallel.joblog")]
    if jobs:
        argv += ["-j", str(jobs)]
    if hosts:
        argv += ["--sshloginfile", hosts]
    argv += ["::::", cmds]
    try:
        # A session of its own: Ctrl-C at the terminal reaches this script only, not
        # parallel and the harness runs, so the running runs are not killed by it.
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        die("cannot start GNU parallel: %s" % e, 1)
    signals = [0]

    def forward(signum, frame):
        # GNU parallel stops starting jobs on SIGHUP and waits for the running ones, which
        # finish and keep their results (SIGTERM would kill them: its manual, "If you
        # regret starting a lot of jobs"). A second signal sends SIGTERM: the runs are
        # killed, their harness removes its temporary file, and a rerun runs them again.
        global _stop
        _stop = True
        signals[0] += 1
        running = len(_running_ids(out) & set(r.id for r in pending))
        if signals[0] == 1:
            sys.stderr.write("\nsweep: interrupted: no new run starts; waiting for the %d "
                             "running run(s) to finish and keep their results (interrupt "
                             "again to kill them: they would run again on the next "
                             "sweep)\n" % running)
        else:
            sys.stderr.write("\nsweep: killing the running run(s); they leave no result and "
                             "run again on the next sweep\n")
        if proc.poll() is None:
            proc.send_signal(signal.SIGHUP if signals[0] == 1 else signal.SIGTERM)
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    while True:
        try:
            rc = proc.wait(timeout=1.0)
            break
        except subprocess.TimeoutExpired:
            running = len(_running_ids(out) & set(r.id for r in pending))
            progress.show(sum(1 for r in pending if r.done(out)), running=running)
    progress.failed = 0
    done_now = sum(1 for r in pending if r.done(out))
    progress.failed = len(pending) - done_now if not _stop else 0
    progress.show(done_now, final=True)
    if _stop:
        print("sweep: interrupted; rerun the same command to resume", file=sys.stderr)
        return 143
    if rc != 0 or done_now < len(pending):
        failed = [r for r in pending if not r.done(out)]
        nolog = [r.id for r in failed
                 if not os.path.exists(os.path.join(out, "logs", r.id + ".err"))]
        print("sweep: %d run(s) failed: see %s and %s" % (
            len(failed), os.path.join(out, "parallel.joblog"), os.path.join(out, "logs", "")),
            file=sys.stderr)
        if nolog:
            print("sweep: %d of them never started here, so have no log (%s%s): a host that "
                  "cannot be reached or lacks this repository at %s? parallel.joblog names "
                  "the host of each" % (len(nolog), ", ".join(nolog[:5]),
                                        ", ..." if len(nolog) > 5 else "", REPO),
                  file=sys.stderr)
        return 1
    return 0


SLURM_TEMPLATE = """#!/bin/bash
# Slurm job array for the sweep '{name}': {n} runs, one per array task; task i runs line i
# of {cmds}. Written by scripts/sweep.py, not submitted. Submit with:
#   sbatch {script}
# A task whose result already exists exits at once, so resubmitting resumes.
#SBATCH --job-name={jobname}
#SBATCH --array=1-{n}{throttle}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task={cpus}
#SBATCH --output={logdir}/%A_%a.out
{extra}set -euo pipefail
cmd=$(sed -n "${{SLURM_ARRAY_TASK_ID}}p" {cmds_q})
if [ -z "$cmd" ]; then
	echo "no command for array task $SLURM_ARRAY_TASK_ID in {cmds}" >&2
	exit 1
fi
eval "$cmd"
"""


def write_slurm(out, name, pending, harness, script, opts):
    script = os.path.abspath(script)
    cmds = os.path.splitext(script)[0] + ".cmds"
    with open(cmds + ".tmp", "w") as f:
        for r in pending:
            f.write(one_command(out, r, harness) + "\n")
    os.replace(cmds + ".tmp", cmds)
    logdir = os.path.join(os.path.abspath(out), "slurm")
    os.makedirs(logdir, exist_ok=True)
    cpus = opts.slurm_cpus
    if cpus is None:
        # A threads-engine run wants one CPU per worker; a simulated run needs one.
        cpus = max([r.workers if r.engine == "threads" else 1 for r in pending] or [1])
    extra = "".join("#SBATCH %s\n" % o for o in opts.slurm_opt)
    if opts.slurm_time:
        extra = "#SBATCH --time=%s\n" % opts.slurm_time + extra
    if opts.slurm_partition:
        extra = "#SBATCH --partition=%s\n" % opts.slurm_partition + extra
    text = SLURM_TEMPLATE.format(
        name=name, n=len(pending), cmds=cmds, cmds_q=shlex.quote(cmds), script=script,
        jobname=re.sub(r"[^A-Za-z0-9_.-]", "_", "sweep-" + name),
        throttle="%%%d" % opts.slurm_throttle if opts.slurm_throttle else "",
        cpus=cpus, logdir=logdir, extra=extra)
    with open(script + ".tmp", "w") as f:
        f.write(text)
    os.chmod(script + ".tmp", 0o755)
    os.replace(script + ".tmp", script)
    print("sweep: wrote %s (array 1-%d) and %s; submit with: sbatch %s" % (
        script, len(pending), cmds, script), file=sys.stderr)
    if len(pending) > 1000:
        print("sweep: note: %d array tasks; many clusters cap MaxArraySize at 1001" % len(pending),
              file=sys.stderr)


# --------------------------------------------------------------------------------------------
# Subcommands.

def cmd_run(a):
    name, harness, runs = load_grid(a.grid, a.harness)
    check_runs(harness, runs)
    out = a.out
    os.makedirs(out, exist_ok=True)
    order = shuffled(runs, a.shuffle_seed)
    write_commands(out, order, harness)
    total = len(order)
    pending = [r for r in order if not r.done(out)]
    existing = total - len(pending)
    if a.max_runs is not None:
        pending = pending[:a.max_runs]
        total_this = existing + len(pending)
    else:
        total_this = total
    if a.slurm:
        if not pending:
            print("sweep: all %d runs exist in %s; no job array written" % (total, out),
                  file=sys.stderr)
            return 0
        write_slurm(out, name, pending, harness, a.slurm, a)
        return 0
    backend = ("hosts " + a.hosts) if a.hosts else ("parallel -j %s" % a.jobs if a.jobs
                                                     else "local")
    append_log(out, "sweep %s: %d runs, %d exist, %d to run (%s)" % (
        name, total, existing, len(pending), backend))
    print("sweep %s: %d runs, %d exist, %d to run (%s) into %s" % (
        name, total, existing, len(pending), backend, out), file=sys.stderr)
    if not pending:
        return 0
    nthreads = sum(1 for r in pending if r.engine == "threads")
    if a.jobs and a.jobs > 1 and not a.hosts and nthreads:
        print("sweep: warning: -j %d runs %d threads-engine run(s) side by side on this machine: "
              "they compete for its cores and disturb each other's timings (use -j 1 for "
              "measurements; the sim engine is unaffected)" % (a.jobs, nthreads),
              file=sys.stderr)
        append_log(out, "warning: -j %d with %d threads-engine runs" % (a.jobs, nthreads))
    progress = Progress(total_this, existing, a.jobs or 1)
    if a.hosts or (a.jobs and a.jobs > 1):
        return run_parallel(out, pending, harness, progress, a.jobs, a.hosts)
    return run_local(out, pending, harness, progress)


def cmd_list(a):
    _, harness, runs = load_grid(a.grid, a.harness)
    check_runs(harness, [r for r in runs if r.variants is None])
    order = shuffled(runs, a.shuffle_seed)
    ndone = 0
    for r in order:
        d = a.out is not None and r.done(a.out)
        ndone += d
        print("%s %s %s" % (r.id, "done" if d else "todo",
                            harness_command(a.out, r, harness)))
    print("sweep: %d runs, %d done" % (len(order), ndone), file=sys.stderr)
    return 0


def cmd_one(a):
    expect = []
    for f in a.expect:
        if not RESULT_RE.match(f) or "/" in f:
            die("--expect wants a result file name (no directory), got '%s'" % f)
        expect.append(f)
    if not expect or not a.cmd:
        die("one: need --expect and a harness command after --")
    cmd = a.cmd[1:] if a.cmd[0] == "--" else a.cmd
    os.makedirs(a.out, exist_ok=True)
    install_signals()
    rc = run_one(a.out, a.id, expect, cmd)
    if _stop and rc == 0:
        rc = 143
    return rc


def result_key(path, doc):
    """The configuration key of a result file: (run id, variant) for files this script wrote,
    else a hash of the file's resolved configuration."""
    m = RESULT_RE.match(os.path.basename(path))
    cfg = doc.get("config", {})
    if m:
        return "%s/%s" % (m.group("id"), cfg.get("variant") or cfg.get("policy", "?"))
    text = json.dumps(cfg, sort_keys=True, separators=(",", ":"))
    return "cfg-" + hashlib.sha1(text.encode()).hexdigest()[:ID_LEN]


def scan_results(d, recursive):
    if recursive:
        for root, dirs, files in os.walk(d):
            dirs.sort()
            for f in sorted(files):
                if hl.is_result_name(f):
                    yield os.path.join(root, f)
    else:
        for f in sorted(os.listdir(d)):
            if hl.is_result_name(f):
                yield os.path.join(d, f)


def load_result(path):
    try:
        doc = hl.read_json(path)
    except (OSError, ValueError) as e:
        return None, str(e)
    if not isinstance(doc, dict) or doc.get("schema") != "harness-result":
        return None, "not a harness result"
    return doc, None


def cmd_merge(a):
    out = a.out
    os.makedirs(out, exist_ok=True)
    have = {}     # key -> (path, config)
    for p in scan_results(out, False):
        doc, err = load_result(p)
        if doc is not None:
            have[result_key(p, doc)] = (p, doc.get("config"))
    before = len(have)
    copied = dups = bad = conflicts = 0
    srcs = [os.path.abspath(s) for s in a.sources]
    for src in srcs:
        if not os.path.isdir(src):
            die("merge: %s is not a directory" % src)
        if os.path.abspath(src) == os.path.abspath(out):
            continue
        for p in scan_results(src, a.recursive):
            doc, err = load_result(p)
            if doc is None:
                bad += 1
                print("sweep: merge: skipping %s: %s" % (p, err), file=sys.stderr)
                continue
            key = result_key(p, doc)
            if key in have:
                dups += 1
                if have[key][1] != doc.get("config"):
                    conflicts += 1
                    print("sweep: merge: %s and %s share key %s but their configurations "
                          "differ (kept the first)" % (have[key][0], p, key), file=sys.stderr)
                continue
            dst = os.path.join(out, os.path.basename(p))
            if os.path.exists(dst):
                # Same name, different configuration key (files not written by this script).
                stem, ext = os.path.splitext(hl.result_key(dst))
                ext += dst[len(hl.result_key(dst)):]      # .json, or .json.gz kept whole
                dst = "%s-%s%s" % (stem, key.replace("/", "-"), ext)
            tmp = "%s.%d.tmp" % (dst, os.getpid())
            shutil.copyfile(p, tmp)
            os.replace(tmp, dst)
            m = RESULT_RE.match(os.path.basename(p))
            if m:
                # The run's harness output travels with its result.
                for ext in (".out", ".err"):
                    lp = os.path.join(os.path.dirname(p), "logs", m.group("id") + ext)
                    lq = os.path.join(out, "logs", m.group("id") + ext)
                    if os.path.exists(lp) and not os.path.exists(lq):
                        os.makedirs(os.path.join(out, "logs"), exist_ok=True)
                        shutil.copyfile(lp, lq)
            have[key] = (dst, doc.get("config"))
            copied += 1
    print("sweep: merge: %d results in %s (%d were there, %d copied, %d duplicates skipped%s%s)"
          % (len(have), out, before, copied, dups,
             ", %d with differing configurations" % conflicts if conflicts else "",
             ", %d unreadable" % bad if bad else ""), file=sys.stderr)
    return 1 if conflicts else 0


def main(argv):
    ap = argparse.ArgumentParser(prog="sweep.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="run (or resume) a grid")
    r.add_argument("grid")
    r.add_argument("--out", required=True, help="result directory")
    r.add_argument("-j", "--jobs", type=int, default=None,
                   help="run N at once with GNU parallel (per host with --hosts)")
    r.add_argument("--hosts", metavar="FILE",
                   help="GNU parallel --sshloginfile: run on these hosts (docs/sweeps.md)")
    r.add_argument("--slurm", metavar="SCRIPT",
                   help="write a Slurm job-array script and its command list; do not run")
    r.add_argument("--slurm-cpus", type=int, default=None,
                   help="--cpus-per-task (default: most workers of a threads run, else 1)")
    r.add_argument("--slurm-time", default=None, help="--time of each array task")
    r.add_argument("--slurm-partition", default=None)
    r.add_argument("--slurm-throttle", type=int, default=0,
                   help="at most N array tasks at once (--array=1-M%%N)")
    r.add_argument("--slurm-opt", action="append", default=[],
                   help="an extra '#SBATCH' line, e.g. --slurm-opt=--mem=1G (repeatable)")
    r.add_argument("--max-runs", type=int, default=None,
                   help="stop after starting this many runs (the rest on the next call)")
    r.add_argument("--shuffle-seed", type=int, default=1)
    r.add_argument("--harness", default=None, help="harness binary (default: the grid's, "
                   "else build/harness)")

    li = sub.add_parser("list", help="print every run of a grid: id, done/todo, command")
    li.add_argument("grid")
    li.add_argument("--out", default=None)
    li.add_argument("--shuffle-seed", type=int, default=1)
    li.add_argument("--harness", default=None)

    m = sub.add_parser("merge", help="gather result files, one per configuration")
    m.add_argument("--out", required=True)
    m.add_argument("-r", "--recursive", action="store_true",
                   help="also look in subdirectories of the sources")
    m.add_argument("sources", nargs="+")

    o = sub.add_parser("one", help="run one configuration (used by parallel and Slurm)")
    o.add_argument("--out", required=True)
    o.add_argument("--id", required=True)
    o.add_argument("--expect", action="append", default=[])
    o.add_argument("cmd", nargs=argparse.REMAINDER)

    a = ap.parse_args(argv)
    if a.cmd == "run":
        if a.jobs is not None and a.jobs < 1:
            die("-j wants a positive number")
        if a.max_runs is not None and a.max_runs < 0:
            die("--max-runs wants a number >= 0")
        if a.slurm and (a.hosts or a.jobs):
            die("--slurm writes a job array; it does not take -j or --hosts")
        return cmd_run(a)
    if a.cmd == "list":
        return cmd_list(a)
    if a.cmd == "merge":
        return cmd_merge(a)
    return cmd_one(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
