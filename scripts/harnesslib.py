#!/usr/bin/python3
"""harnesslib - read harness result files (schema version 1) for the scripts.

Standard library only (no matplotlib here), so that any script can import it
cheaply. Every script in scripts/ imports it as `import harnesslib`; a script
elsewhere adds scripts/ to sys.path first. The schema is docs/results.md.

The API (stable: names and meanings do not change; new names may be added):

Loading
    find_result_files(paths) -> [path]        *.json and *.json.gz under directories,
                                             files as given; an archive DIR.tar.xz
                                             (scripts/resultpack.py) as the directory
                                             it holds: DIR.tar.xz/NAME.json
    is_result_name(name) -> bool              ends in .json or .json.gz
    result_key(path) -> str                   the path without a trailing .gz, and
                                             DIR.tar.xz/ as DIR/ (one result, however
                                             stored)
    read_json(path) -> object                 a JSON file, gzip-compressed or not (told by
                                             its first bytes), or an archive's member;
                                             OSError, ValueError
    load(path) -> Result                      one file; ResultError if it is not a result
    load_all(paths, warn=sys.stderr) -> [Result]
        files named explicitly must be results (ResultError otherwise); JSON
        files met inside a directory that are not results (a Chrome trace,
        say) are skipped with a one-line warning

One result file: Result
    .path .doc (the parsed JSON) .config .provenance
    .policy .workload .engine .workers       config fields
    .knobs .params                           dicts (every knob / parameter, resolved)
    .trials                                  list of trial objects (docs/results.md)
    .flat                                    flat_config(self)
    median(key) -> float | None              the file's median.<key> (makespan_ns,
                                             tasks_per_s, ns_per_task,
                                             overhead_ns_per_task, utilization_total)
    ci95(key) -> (lo, hi, coverage) | None   the file's median.ci95.<key>
    values(key) -> [float | None]            that figure per trial
    counter(name) -> int                     counters_total[name] (0 if absent)
    histogram(name=None) -> dict | None      name None: the latency histogram,
                                             end_to_end_ns if present else sched_delay_ns
    latency_histogram_name() -> str | None
    percentiles(name=None) -> [(fraction, ns)]   the histogram's percentile series
    percentile(q, name=None) -> float | None     q in 0..1 (0.99 = p99)
    percentile_ci95(q, name=None) -> (lo, hi, method) | None
                                             the 95% interval of a reported percentile
                                             (q in 0.5, 0.9, 0.99, 0.999, 0.9999), from the
                                             histogram's ci95 (docs/results.md)
    sample_count(name=None) -> int           samples in that histogram
    utilization_per_worker() -> [float]      per worker, median over trials
    baseline_ns() -> float | None            median sequential baseline wall time
    mean_service_ns() -> float | None        open-loop: params.service_us in ns
    offered_load() -> float | None           open-loop: params.load
    requests_per_trial() -> [int]            open-loop: each trial's schedule size as run
                                             (metrics.requests: the resolved count when the
                                             requests parameter is 0, automatic), distinct,
                                             ascending; [] for other workloads

Configurations
    flat_config(result) -> {key: value}      keys: policy workload engine workers seed
                                             trials warmup sample_period hist_digits,
                                             knob.NAME, param.NAME, cost.NAME
    CONFIG_IGNORE                            keys that do not make a configuration
                                             different (seed, trials, warmup)
    config_key(result, ignore=CONFIG_IGNORE) -> hashable
    varying_keys(items, ignore=()) -> [key]  keys whose values differ among the items
                                             (knobs compared within one policy, params
                                             within one workload, costs within one engine)
    labels(items, exclude=CONFIG_IGNORE, always=("policy",)) -> [str]
                                             short distinct labels, e.g. "volt[lifo_cap=0]"
    label_of(item, keys) -> str              one item's label from the given keys
    resolve_key(items, name) -> key          "load" -> "param.load", "lifo_cap" -> "knob.lifo_cap"
    select(items, ["KEY=V[,V...]", ...])     the items matching every condition (--where)
    sort_items(items, keys, first=())        ordered by value: policies in POLICY_ORDER,
                                             numbers numerically; "-KEY" descending (--sort)
    group_by_config(results, ignore=CONFIG_IGNORE) -> [Group]   in first-seen order
    split_series(results, x_key, ignore=CONFIG_IGNORE) -> [Series]
        one Series per configuration that differs in anything but x_key (and ignore):
        .label, .points = [(x, Group)] sorted by x, .groups

A configuration: Group (several files of one configuration pooled)
    .results .config .flat .label (set by group_by_config / split_series)
    .trials                                  every trial of every file
    median(key), ci95(key), values(key)      over the pooled trials; for one file
                                             exactly the file's figures
    percentiles(name=None), percentile(q, name=None)
        one file: its series; several: the merged distribution (each file's
        series weighted by its sample count; as precise as the series' levels)
    percentile_ci95(q, name=None)            one file: its own; several: batch means
                                             over every pooled trial's own percentile
                                             (trials[].percentiles), around the merged one
    utilization_per_worker(), baseline_ns(), latency_histogram_name(),
    sample_count(name=None), counter(name) (summed over the files),
    mean_service_ns(), offered_load(), requests_per_trial()

Histograms (lossless, from a histogram's `buckets`)
    Histogram.from_json(h) -> Histogram      HistogramError without buckets
    h.percentile(q) -> int | None            q in 0..1, exactly as the harness computes it
    h.percentiles(levels) -> [(q, value)]    h + h2, merge_histograms([h...]): exact merges
    h.count .min .max .mean .counts          counts: {slot's lowest value: count}
    h.to_json(sampled_1_in) -> dict          a histogram object as result files hold it
    result.exact_histogram(name=None)        the merged Histogram of a Result or Group
                                             (None if a file has no buckets); Group
                                             percentiles are exact when every file has them

Statistics and theory
    median(values) -> float | None
    median_ci95(values) -> (lo, hi, coverage) | None   as the harness computes it
    batch_means_ci95(center, values) -> (lo, hi) | None   center +- t(0.975, n-1) sd / sqrt(n)
    t975(df) -> float                        Student t quantile 0.975, as core/pctci.c
    erlang_c(k, a) -> float                  probability of waiting in M/M/k, a = lambda/mu
    mm1_p99(rho, q=0.99) -> float            M/M/1 response-time quantile / mean service
    mmk_p99(rho, k, q=0.99) -> float         M/M/k (FCFS) response-time quantile / mean service

Constants
    SCHEMA_VERSIONS (1,)   MEDIAN_KEYS   LATENCY_HISTOGRAMS ("end_to_end_ns", "sched_delay_ns")

Figure styles (shared by matplotlib and gnuplot)
    policy_style(policy) -> Style            .colour .marker .filled .gnuplot_pt .dash
    item_styles(items) -> [Style]            per item; a policy's variants (other knobs) get
                                             a colour no policy drawn has and a marker no
                                             other item has; the same knobs at other worker
                                             counts or loads, another dash
    gnuplot_styles(styles) -> str            `set linetype` lines for the gnuplot scripts
    PALETTE, POLICY_ORDER

Formatting
    fmt_value(v) -> str                      3 -> "3", 0.7 -> "0.7", None -> ""
    fmt_named(key, v) -> str                 fmt_value, or an enumerated value's name
                                             (param.dist 1 -> "exponential")
    fmt_requests(items) -> str | None        "150000 requests", "10000/15549 requests (auto)"
    CI_METHODS                               {ci95 method: what it is, in words}
    time_unit(ns) -> (name, divisor)         a readable unit for values up to ns
    fmt_ns(ns, digits=3) -> str              "12.3 us"
    LEVEL_TICKS                              [(1/(1-p), label)] for percentile axes
"""

import gzip
import json
import math
import os
import sys

import resultpack  # noqa: E402  (beside this file: archives of raw results)

SCHEMA = "harness-result"
SCHEMA_VERSIONS = (1,)

MEDIAN_KEYS = ("makespan_ns", "tasks_per_s", "ns_per_task", "overhead_ns_per_task",
               "utilization_total")
LATENCY_HISTOGRAMS = ("end_to_end_ns", "sched_delay_ns")
CONFIG_IGNORE = ("seed", "trials", "warmup")

# Named percentile fields of a histogram, by fraction.
_NAMED_LEVELS = ((0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99_9"),
                 (0.9999, "p99_99"), (1.0, "max"), (0.0, "min"))

# The levels of a histogram's `percentiles` series (harness/report.c), as fractions.
PLOT_LEVELS = [x / 100 for x in (0, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 92.5, 95, 96,
                                 97, 98, 99, 99.3, 99.5, 99.7, 99.8, 99.9, 99.93, 99.95, 99.97,
                                 99.98, 99.99, 99.995, 99.999, 100)]

# Axis ticks of an HdrHistogram-style percentile plot: x = 1/(1-p).
LEVEL_TICKS = [(1.0, "0%"), (10.0, "90%"), (100.0, "99%"), (1e3, "99.9%"),
               (1e4, "99.99%"), (1e5, "99.999%"), (1e6, "99.9999%")]


# ----------------------------------------------------------- figure styles
#
# One colour and one marker per policy, shared by plot.py (matplotlib) and
# the gnuplot scripts (plot.py writes them a style file). The colours are
# Paul Tol's "muted" qualitative scheme (P. Tol, "Colour schemes", SRON
# technical note SRON/EPS/TN/09-002), nine colours that stay distinct for
# colour-blind readers and leave black to the theory curves; with more
# policies than colours, a colour repeats only with another marker and dash.

PALETTE = ("#332288", "#88CCEE", "#44AA99", "#CC6677", "#DDCC77", "#117733", "#882255",
           "#999933", "#AA4499")

# Rows and series follow this order (the order --policy=all runs them).
POLICY_ORDER = ("volt", "fixed-interval-61", "steal-one", "tokio", "tokio-1.28", "go",
                "central-queue", "static-partition", "locality", "blumofe-leiserson", "rayon",
                "volt-broken")

# (matplotlib marker, filled, gnuplot point type) - the same shape in both.
MARKER_SHAPES = (("o", True, 7), ("s", True, 5), ("^", True, 9), ("D", True, 13),
                 ("v", True, 11), ("p", True, 15), ("o", False, 6), ("s", False, 4),
                 ("^", False, 8), ("D", False, 12), ("v", False, 10), ("p", False, 14))
# Series dashes. Dashed and dotted are left to reference lines (theory
# curves, the ideal speedup), drawn in black, so no series looks like one.
DASH_DOT_DOT = (0, (4, 1.5, 1, 1.5, 1, 1.5))
DASHES = ("-", "-.", DASH_DOT_DOT)  # gnuplot dash types 1, 4, 5
_GNUPLOT_DT = {"-": 1, "--": 2, ":": 3, "-.": 4, DASH_DOT_DOT: 5}


class Style:
    """How one policy is drawn: .colour (#rrggbb), .marker (matplotlib),
    .filled, .gnuplot_pt, .dash (matplotlib line style), .gnuplot_dt,
    .hatch (for bars: set when the colour is another policy's too)."""

    def __init__(self, colour, shape, dash, hatch=""):
        self.colour = colour
        self.hatch = hatch
        self.marker, self.filled, self.gnuplot_pt = shape
        self.dash = dash
        self.gnuplot_dt = _GNUPLOT_DT[dash]


def policy_style(policy):
    """The policy's Style: by its place in POLICY_ORDER, else by a hash of
    its name (stable across runs)."""
    if policy in POLICY_ORDER:
        i = POLICY_ORDER.index(policy)
    else:
        i = sum(ord(c) * (k + 1) for k, c in enumerate(policy or "?")) % 97
    n = len(PALETTE)
    return Style(PALETTE[i % n], MARKER_SHAPES[i % len(MARKER_SHAPES)],
                 DASHES[(i // n) % len(DASHES)], "//" if i >= n else "")


def _knob_set(item):
    flat = item.flat if hasattr(item, "flat") else {}
    return (item.policy, tuple(sorted((k, _hashable(v)) for k, v in flat.items()
                                      if k.startswith("knob."))))


def _is_bare(item):
    """Whether the item's variant name typed no knob (`volt`, not
    `volt[lifo_cap=0]`): the policy as its code runs."""
    rs = getattr(item, "results", None)
    return bool(rs) and all("variant" in r.config for r in rs) and \
        not any(k.startswith("knob.") for k in typed_values(item))


def item_styles(items):
    """A Style per item (Result, Group or Series' group). Items of one
    policy with the same knobs share a colour and marker and differ by the
    dash (worker counts, loads; past the dashes, by an open marker). Each
    policy's first set of knobs (the bare policy, `volt`, when one is drawn)
    takes the policy's colour and marker; every other set of knobs of the
    same policy (an ablation's variants) takes a palette colour that no
    policy among the items has and no other variant took, and a marker no
    other item has, so that variants are told apart by colour and shape
    alike. When the palette runs out the policy's colour is shared, with a
    marker of the variant's own (and a hatch on bars)."""
    firsts = {}
    for it in items:
        firsts.setdefault(it.policy, _knob_set(it))
    bare = set()
    for it in items:
        if it.policy not in bare and _is_bare(it):
            firsts[it.policy] = _knob_set(it)
            bare.add(it.policy)
    bases = {pol: policy_style(pol) for pol in firsts}
    taken_shapes = set((b.marker, b.filled) for b in bases.values())
    free_colours = [c for c in PALETTE if c not in set(b.colour for b in bases.values())]
    variant_style = {}
    seen = {}
    out = []
    for it in items:
        key = _knob_set(it)
        base = bases[it.policy]
        if key not in variant_style:
            if firsts[it.policy] == key:
                variant_style[key] = base
            else:
                shape = next((sh for sh in MARKER_SHAPES
                              if (sh[0], sh[1]) not in taken_shapes), None)
                if shape is None:   # every shape taken: the policy's, its fill flipped
                    shape = next(sh for sh in MARKER_SHAPES
                                 if sh[0] == base.marker and sh[1] != base.filled)
                taken_shapes.add((shape[0], shape[1]))
                if free_colours:
                    variant_style[key] = Style(free_colours.pop(0), shape, base.dash)
                else:
                    variant_style[key] = Style(base.colour, shape,
                                               DASHES[(DASHES.index(base.dash) + 1)
                                                      % len(DASHES)],
                                               "\\\\" if base.hatch else "//")
        st = variant_style[key]
        n = seen.get(key, 0)
        seen[key] = n + 1
        shape = (st.marker, st.filled, st.gnuplot_pt)
        if n >= len(DASHES):
            shape = next(sh for sh in MARKER_SHAPES if sh[0] == st.marker and sh[1] != st.filled)
        out.append(Style(st.colour, shape, DASHES[(DASHES.index(st.dash) + n) % len(DASHES)],
                         st.hatch))
    return out


def gnuplot_styles(styles):
    """gnuplot commands defining line type i+1 as styles[i]."""
    return "".join('set linetype %d lc rgb "%s" lw 2 pt %d ps 1 dt %d\n'
                   % (i + 1, s.colour, s.gnuplot_pt, s.gnuplot_dt)
                   for i, s in enumerate(styles))


class ResultError(Exception):
    """A file that is not a readable harness result (schema version 1)."""


# ---------------------------------------------------------------- statistics

def median(values):
    """Median of the non-None values: the middle one, or the mean of the two
    middle ones (as the harness computes median.*). None if there are none."""
    v = sorted(x for x in values if x is not None)
    n = len(v)
    if n == 0:
        return None
    if n % 2:
        return float(v[n // 2])
    return (v[n // 2 - 1] + v[n // 2]) / 2.0


def _binom_cdf_half(n, j):
    """P(Bin(n, 1/2) <= j)."""
    if j < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(0, min(j, n) + 1)) / 2.0 ** n


def median_ci95(values):
    """Distribution-free 95% interval for the median, as docs/results.md
    defines median.ci95: order statistics x(j), x(n+1-j) for the largest j with
    P(Bin(n, 1/2) <= j - 1) <= 2.5%, coverage 1 - 2 P(Bin(n, 1/2) <= j - 1);
    below 6 values no such j exists and the interval is [min, max] (j = 1).
    Returns (lo, hi, coverage), or None for no values."""
    v = sorted(x for x in values if x is not None)
    n = len(v)
    if n == 0:
        return None
    j = 1
    while j + 1 <= (n + 1) // 2 and _binom_cdf_half(n, j) <= 0.025:
        j += 1
    cov = 1.0 - 2.0 * _binom_cdf_half(n, j - 1)
    return (float(v[j - 1]), float(v[n - j]), cov)


_T975 = (0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df):
    """Student's t quantile 0.975 with df degrees of freedom (core/pctci.c)."""
    if df < 1:
        return float("inf")
    return _T975[df] if df <= 30 else 1.96 + 2.4 / df


def batch_means_ci95(center, values):
    """The batch-means 95% interval around `center` from per-batch values
    (each trial's own percentile): center +- t(0.975, n - 1) sd / sqrt(n),
    lo clamped at 0, as the harness computes it. None below two values."""
    vals = [float(v) for v in values if v is not None]
    n = len(vals)
    if n < 2 or center is None:
        return None
    m = sum(vals) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return (max(0.0, center - half), center + half)


# ------------------------------------------------------------------- theory

def erlang_c(k, a):
    """Erlang C: the probability that an arrival waits in M/M/k with offered
    traffic a = lambda/mu (a < k). Computed through the Erlang B recursion
    B(0) = 1, B(i) = a B(i-1) / (i + a B(i-1)) and C = B / (1 - rho (1 - B)),
    which stays finite for any k (a^k / k! overflows from k of a few hundred)."""
    if not 0 <= a < k:
        raise ValueError("erlang_c needs 0 <= a < k")
    b = 1.0
    for i in range(1, k + 1):
        b = a * b / (i + a * b)
    rho = a / k
    return b / (1.0 - rho * (1.0 - b))


def _solve_tail(tail, q):
    """Smallest t with tail(t) <= 1 - q, tail decreasing from tail(0) = 1."""
    target = 1.0 - q
    lo, hi = 0.0, 1.0
    while tail(hi) > target:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if tail(mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


def mm1_p99(rho, q=0.99):
    """Quantile q of the M/M/1 response time, in units of the mean service
    time: -ln(1 - q) / (1 - rho) (the response time is exponential with rate
    mu (1 - rho)). For k partitioned queues with random routing, each is
    M/M/1 at the same rho."""
    if not 0 <= rho < 1:
        raise ValueError("mm1_p99 needs 0 <= rho < 1")
    return -math.log(1.0 - q) / (1.0 - rho)


def mmk_p99(rho, k, q=0.99):
    """Quantile q of the M/M/k (one shared FCFS queue) response time, in units
    of the mean service time. With mu = 1: the wait is 0 with probability
    1 - C and exponential with rate r = k - lambda with probability C
    (P(wait > t) = C exp(-r t), C = Erlang C); the response time adds an
    independent exponential service of rate 1, so
        P(T > t) = (1 - C) e^-t + C (r e^-t - e^-rt) / (r - 1)
    (C (1 + t) e^-t when r = 1), solved for P(T > t) = 1 - q by bisection."""
    if not 0 <= rho < 1:
        raise ValueError("mmk_p99 needs 0 <= rho < 1")
    lam = rho * k
    c = erlang_c(k, lam)
    r = k - lam

    def tail(t):
        if abs(r - 1.0) < 1e-9:
            both = (1.0 + t) * math.exp(-t)
        else:
            both = (r * math.exp(-t) - math.exp(-r * t)) / (r - 1.0)
        return (1.0 - c) * math.exp(-t) + c * both

    return _solve_tail(tail, q)


# --------------------------------------------------------------- formatting

def fmt_value(v):
    """A configuration value as a short string: 3, 0.7, 1000, "" for None."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        return "%g" % v
    return str(v)


_UNITS = (("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9))


def time_unit(ns):
    """(name, divisor) of the largest unit in which ns is at least 1."""
    name, div = _UNITS[0]
    for n, d in _UNITS:
        if ns is not None and abs(ns) >= d:
            name, div = n, d
    return name, div


def fmt_ns(ns, digits=3):
    """A duration in ns, in a readable unit with `digits` significant digits."""
    if ns is None:
        return ""
    name, div = time_unit(ns)
    return "%.*g %s" % (digits, ns / div, name)


# ------------------------------------------------------------------ results

def _percentile_from_series(series, q):
    """The smallest value whose level is at least q, from [(fraction, ns)]."""
    if not series:
        return None
    for f, v in series:
        if f >= q - 1e-12:
            return float(v)
    return float(series[-1][1])


def _level_key(q):
    """The key of a reported percentile level (0.99 -> "p99"), or None."""
    for f, key in _NAMED_LEVELS:
        if abs(q - f) < 1e-12 and key not in ("min", "max"):
            return key
    return None


def _series_of(hist):
    """The histogram's percentile series, or one built from its named fields
    (a file written before `percentiles` existed)."""
    s = hist.get("percentiles")
    if isinstance(s, list) and s:
        return [(float(f), float(v)) for f, v in s]
    pts = []
    for f, key in sorted(_NAMED_LEVELS):
        if key in hist and hist[key] is not None:
            pts.append((f, float(hist[key])))
    return pts


class HistogramError(ValueError):
    """Histograms that cannot be merged (another layout), or no buckets."""


class Histogram:
    """A latency histogram held losslessly: the `buckets` of a result's
    histogram (docs/results.md), the harness's log-linear layout
    (core/hist.c). Histograms of the same layout merge exactly (m = a + b,
    or merge_histograms(list)), and percentile() computes what the harness
    computes: the highest value equivalent to the slot holding the
    ceil(q * count)-th smallest value, capped at the exact max.

    .sub_bucket_count .highest .sig_digits .count .min .max .mean .saturated
    .counts   {slot's lowest value: count}, non-empty slots only
    """

    def __init__(self, sub_bucket_count, highest, sig_digits, counts=None, vmin=0, vmax=0,
                 mean=0.0, saturated=0):
        self.sub_bucket_count = int(sub_bucket_count)
        self.highest = int(highest)
        self.sig_digits = int(sig_digits)
        self.counts = dict(counts or {})
        self.count = sum(self.counts.values())
        self.min = int(vmin) if self.count else 0
        self.max = int(vmax) if self.count else 0
        self.mean = float(mean) if self.count else 0.0
        self.saturated = int(saturated)
        self._shift = self.sub_bucket_count.bit_length() - 1    # log2(sub_bucket_count)

    @classmethod
    def from_json(cls, h):
        """From a result's histogram object; HistogramError if it has no
        `buckets` (a file written before they were stored)."""
        b = (h or {}).get("buckets")
        if not b:
            raise HistogramError("histogram has no buckets (written by an older harness)")
        if b.get("encoding") != "delta-lowest-count":
            raise HistogramError("unknown bucket encoding %r" % b.get("encoding"))
        flat = b["counts"]
        counts, v = {}, 0
        for i in range(0, len(flat), 2):
            v += int(flat[i])
            counts[v] = int(flat[i + 1])
        out = cls(b["sub_bucket_count"], b["highest"], h["sig_digits"], counts,
                  h.get("min", 0), h.get("max", 0), h.get("mean", 0.0), b.get("saturated", 0))
        if out.count != int(h.get("count", out.count)):
            raise HistogramError("bucket counts sum to %d, the histogram says %d"
                                 % (out.count, h["count"]))
        return out

    def layout(self):
        return (self.sub_bucket_count, self.highest, self.sig_digits)

    def __add__(self, other):
        if self.layout() != other.layout():
            raise HistogramError("histograms of different layouts (sub-buckets, highest, "
                                 "digits) %s and %s cannot be merged" % (self.layout(),
                                                                          other.layout()))
        counts = dict(self.counts)
        for v, n in other.counts.items():
            counts[v] = counts.get(v, 0) + n
        both = [h for h in (self, other) if h.count]
        total = sum(h.count for h in both)
        mean = sum(h.mean * h.count for h in both) / total if total else 0.0
        return Histogram(self.sub_bucket_count, self.highest, self.sig_digits, counts,
                         min(h.min for h in both) if both else 0,
                         max(h.max for h in both) if both else 0, mean,
                         self.saturated + other.saturated)

    def highest_equivalent(self, v):
        """The largest value counted in the same slot as v."""
        b = (v | (self.sub_bucket_count - 1)).bit_length() - self._shift
        return ((v >> b) << b) + (1 << b) - 1

    def percentile(self, q):
        """q in 0..1 (0.99 = p99); None when empty."""
        if not self.count:
            return None
        if q >= 1.0:
            return self.max
        x = q * self.count
        x -= x * (4 * sys.float_info.epsilon)       # as core/hist.c's rank_at
        want = 1 if not x > 1.0 else self.count if x >= self.count else math.ceil(x)
        seen = 0
        for v in sorted(self.counts):
            seen += self.counts[v]
            if seen >= want:
                return min(self.highest_equivalent(v), self.max)
        return self.max

    def percentiles(self, levels):
        """[(fraction, value)] at the given fractions."""
        return [(q, self.percentile(q)) for q in levels]

    def value_at_rank(self, rank):
        """The r-th smallest value (1-based) as the harness reports values:
        the highest value of its slot, capped at the max."""
        seen = 0
        for v in sorted(self.counts):
            seen += self.counts[v]
            if seen >= rank:
                return min(self.highest_equivalent(v), self.max)
        return self.max

    def percentile_ci(self, q, z=1.96):
        """(lo, hi): a distribution-free interval for the q-quantile from the
        order statistics x(j) and x(k) with j, k = n q -/+ z sqrt(n q (1 - q))
        (the binomial count of values below the quantile, normal
        approximation; 95% for z = 1.96). It treats the values as
        independent draws, which successive latencies of one run are not
        quite; None when empty."""
        n = self.count
        if not n:
            return None
        half = z * math.sqrt(n * q * (1 - q))
        j = max(1, int(math.floor(n * q - half)))
        k = min(n, int(math.ceil(n * q + half)) + 1)
        return (self.value_at_rank(j), self.value_at_rank(k))

    def to_json(self, sampled_1_in=1):
        """A histogram object as a result file holds it (named levels,
        the series at `PLOT_LEVELS` and the buckets)."""
        flat, prev = [], 0
        for v in sorted(self.counts):
            flat += [v - prev, self.counts[v]]
            prev = v
        out = {"sampled_1_in": sampled_1_in, "count": self.count, "min": self.min,
               "mean": self.mean}
        for f, key in _NAMED_LEVELS:
            if key not in ("min", "max"):
                out[key] = self.percentile(f) or 0
        out.update({"max": self.max, "sig_digits": self.sig_digits,
                    "percentiles": [[q, self.percentile(q) or 0] for q in PLOT_LEVELS],
                    "buckets": {"encoding": "delta-lowest-count",
                                "sub_bucket_count": self.sub_bucket_count,
                                "highest": self.highest, "saturated": self.saturated,
                                "counts": flat}})
        return out


def merge_histograms(hists):
    """One Histogram of several (HistogramError if their layouts differ)."""
    hists = list(hists)
    if not hists:
        raise HistogramError("nothing to merge")
    out = hists[0]
    for h in hists[1:]:
        out = out + h
    return out


class _Figures:
    """What Result and Group have in common (built on values() and
    histogram access)."""

    def exact_histogram(self, name=None):
        """The named (default: latency) histogram as a Histogram, merged over
        the files of a Group; None if a file has no buckets or no samples."""
        name = name or self.latency_histogram_name()
        if name is None:
            return None
        hs = []
        for r in self.results:
            h = r.histogram(name)
            if not h or not h.get("count"):
                continue
            try:
                hs.append(Histogram.from_json(h))
            except HistogramError:
                return None
        return merge_histograms(hs) if hs else None

    def latency_histogram_name(self):
        for name in LATENCY_HISTOGRAMS:
            if self._has_histogram(name):
                return name
        return None

    def mean_service_ns(self):
        s = self.config.get("params", {}).get("service_us")
        return None if s is None else float(s) * 1e3

    def offered_load(self):
        v = self.config.get("params", {}).get("load")
        return None if v is None else float(v)

    def requests_per_trial(self):
        """The schedule sizes the trials ran (metrics.requests), distinct and
        ascending: with requests=0 (automatic) the harness resolves the count
        from the load and the workers (docs/open-loop.md) and records it only
        there. Files without that metric give params.requests when it is set;
        [] when neither says."""
        got = set()
        for t in self.trials:
            v = (t.get("metrics") or {}).get("requests")
            if v is not None:
                got.add(int(v))
        if not got:
            v = self.params.get("requests")
            if v:
                got.add(int(v))
        return sorted(got)


class Result(_Figures):
    """One result file. See the module docstring for the API."""

    def __init__(self, doc, path="<memory>"):
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            raise ResultError("%s: not a harness result (no \"schema\": \"%s\")" % (path, SCHEMA))
        ver = doc.get("schema_version")
        if ver not in SCHEMA_VERSIONS:
            raise ResultError("%s: schema_version %r, this reader knows %s"
                              % (path, ver, ", ".join(map(str, SCHEMA_VERSIONS))))
        for key in ("config", "trials", "median", "provenance"):
            if key not in doc:
                raise ResultError("%s: no \"%s\"" % (path, key))
        self.path = path
        self.doc = doc
        self.config = doc["config"]
        self.provenance = doc.get("provenance") or {}
        self.trials = doc.get("trials") or []
        self.policy = self.config.get("policy")
        self.workload = self.config.get("workload")
        self.engine = self.config.get("engine", "threads")
        self.workers = int(self.config.get("workers", 0))
        self.knobs = self.config.get("knobs") or {}
        self.params = self.config.get("params") or {}
        self.flat = flat_config(self)
        self.label = self.policy

    def __repr__(self):
        return "Result(%r)" % self.path

    @property
    def results(self):
        return [self]

    def median(self, key):
        v = self.doc["median"].get(key)
        return None if v is None else float(v)

    def ci95(self, key):
        c = (self.doc["median"].get("ci95") or {}).get(key)
        if not c:
            return None
        return (float(c["lo"]), float(c["hi"]), float(c.get("coverage", float("nan"))))

    def values(self, key):
        out = []
        for t in self.trials:
            if key in CPU_TRIAL_KEYS:
                v = (t.get("cpu") or {}).get(CPU_TRIAL_KEYS[key])
            else:
                v = t.get(key)
            out.append(None if v is None else float(v))
        return out

    def counter(self, name):
        return int((self.doc.get("counters_total") or {}).get(name, 0))

    def _has_histogram(self, name):
        h = (self.doc.get("histograms") or {}).get(name)
        return bool(h) and h.get("count", 0) > 0

    def histogram(self, name=None):
        if name is None:
            name = self.latency_histogram_name()
            if name is None:
                return None
        return (self.doc.get("histograms") or {}).get(name)

    def percentiles(self, name=None):
        h = self.histogram(name)
        if not h or not h.get("count"):
            return []
        return _series_of(h)

    def percentile(self, q, name=None):
        h = self.histogram(name)
        if not h or not h.get("count"):
            return None
        for f, key in _NAMED_LEVELS:
            if abs(q - f) < 1e-12 and h.get(key) is not None:
                return float(h[key])
        if h.get("buckets"):
            return float(Histogram.from_json(h).percentile(q))
        return _percentile_from_series(_series_of(h), q)

    def percentile_ci95(self, q, name=None):
        h = self.histogram(name)
        key = _level_key(q)
        c = ((h or {}).get("ci95") or {}).get(key) if key else None
        if not c:
            return None
        return (float(c["lo"]), float(c["hi"]), h["ci95"].get("method", ""))

    def sample_count(self, name=None):
        h = self.histogram(name)
        return int(h.get("count", 0)) if h else 0

    def utilization_per_worker(self):
        rows = [t.get("utilization") or [] for t in self.trials]
        return [median(r[i] for r in rows if i < len(r)) or 0.0 for i in range(self.workers)]

    def baseline_ns(self):
        b = self.doc.get("baseline")
        if not b:
            return None
        return median(t.get("ns") for t in b.get("trials") or [])


# (flat key, value) -> the value's name, from the results' config.value_names
# (dist=1 is "exponential", interval=0 "adaptive"): labels print the name,
# the flat configuration keeps the number.
VALUE_NAMES = {}


def flat_config(result):
    """The configuration as one flat dict: the scalar config fields, plus
    knob.NAME, param.NAME and (sim) cost.NAME. The variant's name is left
    out: it is a label of the knobs, which are all here; so is sim_causal
    when true (the default)."""
    cfg = result.config if isinstance(result, _Figures) else result
    out = {}
    for k, v in cfg.items():
        if isinstance(v, (dict, list)) or k == "variant":
            continue
        # The sim's default, as in results from before the field: only its
        # ablation (cost.causal=0) is a configuration of its own.
        if k == "sim_causal" and v is True:
            continue
        out[k] = v
    for prefix, key in (("knob.", "knobs"), ("param.", "params"), ("cost.", "sim_costs_ns")):
        for k, v in (cfg.get(key) or {}).items():
            out[prefix + k] = v
    names = cfg.get("value_names") or {}
    for prefix, key in (("knob.", "knobs"), ("param.", "params")):
        for k, name in (names.get(key) or {}).items():
            if prefix + k in out:
                VALUE_NAMES[(prefix + k, _hashable(out[prefix + k]))] = name
    return out


def fmt_named(key, v):
    """fmt_value, or the value's name for an enumerated knob or parameter."""
    return VALUE_NAMES.get((key, _hashable(v)), fmt_value(v))


def fmt_requests(items):
    """The requests per trial of open-loop items (Results or Groups), for a
    title or a note: "150000 requests" as set, "10000/15549 requests (auto)"
    when the count was automatic (requests=0) and each trial's resolved
    count is known, "auto requests" when it is not; None for items that are
    not request workloads."""
    items = [it for it in items if "param.requests" in it.flat]
    if not items:
        return None
    auto = any(not it.params.get("requests") for it in items)
    counts = sorted(set(n for it in items for n in it.requests_per_trial()))
    if not counts:
        return "auto requests"
    text = "%s requests" % "/".join(map(str, counts))
    return text + " (auto)" if auto else text


# What each histograms.*.ci95 method is (docs/results.md), for notes.
CI_METHODS = {
    "batch-means-trials": "batch means over trials",
    "batch-means-slices": "batch means over slices of one trial",
    "order-statistics": "binomial order statistics, independent samples assumed",
}


def typed_values(item):
    """{flat key: text} of the knob and parameter values that the variant's
    name (config.variant: volt[interval=0,lifo_cap=3] load=0.5) gives as
    they were typed; for a Group, those all its files agree on. A label
    prints these as typed, so volt[interval=0] is not relabelled with the
    value's name (interval=adaptive)."""
    out = None
    for r in getattr(item, "results", None) or []:
        typed = _typed_in_name(r.config.get("variant") or "")
        out = typed if out is None else {k: v for k, v in out.items() if typed.get(k) == v}
    return out or {}


def _typed_in_name(name):
    policy, _, rest = name.partition(" ")
    out = {}
    if policy.endswith("]") and "[" in policy:
        for kv in policy[policy.index("[") + 1:-1].split(","):
            k, eq, v = kv.partition("=")
            if eq:
                out["knob." + k] = v
    for kv in rest.split():
        k, eq, v = kv.partition("=")
        if eq:
            out["param." + k] = v
    return out


def _hashable(v):
    return json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v


def config_key(result, ignore=CONFIG_IGNORE):
    """A hashable identity of the result's configuration, leaving out the keys
    in `ignore` (by default seed, trials and warmup)."""
    flat = result.flat if isinstance(result, _Figures) else flat_config(result)
    return tuple(sorted((k, _hashable(v)) for k, v in flat.items() if k not in ignore))


def is_result_name(name):
    """Whether a file name is one a result may have: *.json, or *.json.gz
    (results/reference stores its raw results compressed). Temporary files
    (*.tmp) are neither."""
    return name.endswith(".json") or name.endswith(".json.gz")


def result_key(path):
    """One result's name however it is stored: the path without a trailing
    .gz, and a result inside an archive (DIR.tar.xz/NAME.json) named as in
    the directory the archive stands for (DIR/NAME.json)."""
    path = path[:-3] if path.endswith(".json.gz") else path
    sm = resultpack.split_member(path)
    if sm:
        path = os.path.join(sm[0][:-len(resultpack.SUFFIX)], *sm[1].split("/"))
    return path


def read_json(path):
    """The JSON document in a file, gzip-compressed or plain: told by the
    gzip magic bytes, not the name, so a renamed file still reads. Raises
    OSError (EOFError and gzip's BadGzipFile are OSError too) or ValueError
    (not JSON, not UTF-8). A path inside an archive (DIR.tar.xz/NAME.json,
    scripts/resultpack.py) reads the member."""
    path = resultpack.resolve(path)
    if not os.path.exists(path) and resultpack.split_member(path):
        data = resultpack.read_member(path)
    else:
        with open(path, "rb") as f:
            data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data.decode("utf-8"))


def _archive_results(arch):
    """The results inside an archive, as DIR.tar.xz/NAME.json paths (sorted)."""
    try:
        names = resultpack.members(arch)
    except OSError as e:
        raise ResultError("%s: %s" % (arch, getattr(e, "strerror", None) or e))
    return [os.path.join(arch, *n.split("/")) for n in sorted(names)
            if is_result_name(n.rsplit("/", 1)[-1])]


def find_result_files(paths):
    """The *.json and *.json.gz files among `paths`: files as given,
    directories walked recursively (sorted). An archive (DIR.tar.xz,
    scripts/resultpack.py), met in a walk or given, stands for the directory
    it holds: its results are listed as DIR.tar.xz/NAME.json; so does DIR
    itself when only DIR.tar.xz is on disk, and DIR/NAME.json(.gz) means
    DIR.tar.xz/NAME.json."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for f in sorted(files):
                    if is_result_name(f):
                        out.append(os.path.join(root, f))
                    elif resultpack.is_archive_name(f):
                        out.extend(_archive_results(os.path.join(root, f)))
        elif resultpack.is_archive_name(p) and os.path.isfile(p):
            out.extend(_archive_results(p))
        elif resultpack.archive_for(p):
            out.extend(_archive_results(resultpack.archive_for(p)))
        else:
            out.append(resultpack.resolve(p))
    return out


def load(path):
    """One result file (plain or gzip-compressed JSON). ResultError if it
    cannot be read or is not a result."""
    try:
        doc = read_json(path)
    except OSError as e:
        raise ResultError("%s: %s" % (path, getattr(e, "strerror", None) or e))
    except ValueError as e:
        raise ResultError("%s: not JSON (%s)" % (path, e))
    return Result(doc, path)


def load_all(paths, warn=sys.stderr):
    """Every result among `paths` (files and directories). A file named
    explicitly must be a result (ResultError otherwise); a JSON file inside a
    directory that is not a result is skipped, with a line on `warn` (None:
    silently)."""
    explicit = set(resultpack.resolve(p) for p in paths if not os.path.isdir(p))
    out = []
    for p in find_result_files(paths):
        try:
            out.append(load(p))
        except ResultError as e:
            if p in explicit:
                raise
            if warn is not None:
                print("skipped %s" % e, file=warn)
    return out


# ------------------------------------------------------------ configurations

def _scope(key):
    """Which config field a key is compared within: knobs belong to a
    policy, params (and the sampling period) to a workload, costs to an
    engine."""
    if key.startswith("knob."):
        return "policy"
    if key.startswith("param.") or key == "sample_period":
        return "workload"       # the default sampling period is the workload's
    if key.startswith("cost."):
        return "engine"
    return None


_MISSING = object()


def varying_keys(items, ignore=()):
    """Flat-config keys whose values differ among `items` (Results or
    Groups), in a readable order: policy, workload, engine, workers, knobs,
    params, costs, the rest. A knob is compared among items of the same
    policy only (another policy has other knobs); params likewise within a
    workload and costs within an engine."""
    flats = [it.flat for it in items]
    keys = set()
    for f in flats:
        keys.update(f)
    out = []
    for k in keys:
        if k in ignore:
            continue
        scope = _scope(k)
        buckets = {}
        for f in flats:
            buckets.setdefault(f.get(scope) if scope else None, []).append(f)
        for members in buckets.values():
            if scope and not any(k in f for f in members):
                continue    # another policy's knob, another workload's parameter
            vals = set(_hashable(f[k]) if k in f else _MISSING for f in members)
            if len(vals) > 1:
                out.append(k)
                break

    def order(k):
        head = ("policy", "workload", "engine", "workers")
        if k in head:
            return (0, head.index(k), k)
        rank = {"knob.": 1, "param.": 2, "cost.": 3}
        for pre, r in rank.items():
            if k.startswith(pre):
                return (r, 0, k)
        return (4, 0, k)

    return sorted(out, key=order)


def knobs_varying_by_policy(items, ignore=()):
    """{policy: set of knob keys whose values differ among that policy's
    items}: a label names a knob only for the policy it varies in."""
    out = {}
    by = {}
    for it in items:
        by.setdefault(it.flat.get("policy"), []).append(it.flat)
    for pol, flats in by.items():
        keys = set(k for f in flats for k in f if k.startswith("knob.") and k not in ignore)
        out[pol] = set(k for k in keys
                       if len(set(_hashable(f.get(k, _MISSING)) if k in f else None
                                  for f in flats)) > 1)
    return out


def label_of(item, keys, knobs=None):
    """The label of one item (Result, Group or flat-config dict) from the
    given flat-config keys: policy, workload and engine by value, knobs in
    brackets after the policy as the harness names a variant
    (volt[lifo_cap=0,interval=61]), the rest as name=value (param. and
    cost. prefixes dropped). `knobs`, from knobs_varying_by_policy, limits
    the knobs named to those that vary within the item's policy."""
    flat = item if isinstance(item, dict) else item.flat
    typed = {} if isinstance(item, dict) else typed_values(item)
    own = None if knobs is None else knobs.get(flat.get("policy"), set())
    parts, knobs = [], []
    for k in keys:
        if k not in flat:
            continue
        v = typed.get(k) or fmt_named(k, flat[k])
        if k in ("policy", "workload", "engine"):
            parts.append(v)
        elif k.startswith("knob."):
            if own is None or k in own:
                knobs.append("%s=%s" % (k[5:], v))
        else:
            name = k.split(".", 1)[1] if "." in k else k
            parts.append("%s=%s" % (name, v))
    if knobs:
        brackets = "[%s]" % ",".join(knobs)
        if "policy" in keys and "policy" in flat:
            parts[_policy_pos(keys, flat)] += brackets
        else:
            parts.insert(0, brackets)
    return " ".join(parts)


def _policy_pos(keys, flat):
    """Where the policy's part is in label_of's parts."""
    return [k for k in keys if k in flat and not k.startswith("knob.")].index("policy")


def labels(items, exclude=CONFIG_IGNORE, always=("policy",)):
    """A short label per item (Result or Group): the keys in `always`, then
    every key that varies among the items, minus `exclude`; e.g.
    ["volt", "volt[lifo_cap=0]", "tokio"]. Labels are made distinct by a
    #n suffix if the configurations themselves cannot tell them apart."""
    keys = [k for k in always if k not in exclude]
    keys += [k for k in varying_keys(items, ignore=exclude) if k not in keys]
    knobs = knobs_varying_by_policy(items, exclude)
    out = _typed_labels(items, keys, knobs)
    if out is None:
        out = [label_of(it, keys, knobs) or "?" for it in items]
    seen = {}
    for i, lab in enumerate(out):
        seen.setdefault(lab, []).append(i)
    for lab, idx in seen.items():
        if len(idx) > 1:
            for n, i in enumerate(idx, 1):
                out[i] = "%s #%d" % (lab, n)
    return out


def _typed_labels(items, keys, knobs):
    """Labels that name, of the knobs that vary, only those each item's
    variant name typed (config.variant: `--policy volt,volt:lifo_cap=0`
    gives volt and volt[lifo_cap=0], not every knob that differs between
    them); None when an item has no variant name or two labels come out
    equal (then every varying knob is named)."""
    out = []
    for it in items:
        rs = getattr(it, "results", None)
        if not rs or any("variant" not in r.config for r in rs):
            return None
        typed = typed_values(it)
        pol = it.flat.get("policy")
        own = {pol: set(k for k in knobs.get(pol, ()) if k in typed)}
        out.append(label_of(it, keys, own) or "?")
    return out if len(set(out)) == len(out) else None


# ---------------------------------------------------- selecting and ordering

def resolve_key(items, name):
    """The flat-config key a short name means among the items: the name
    itself (policy, workers, param.load), else param.NAME, knob.NAME or
    cost.NAME, whichever some item has. KeyError with the known names."""
    keys = set()
    for it in items:
        keys.update(it.flat if not isinstance(it, dict) else it)
    if name in keys:
        return name
    for pre in ("param.", "knob.", "cost."):
        if pre + name in keys:
            return pre + name
    short = sorted(set(k.split(".", 1)[-1] for k in keys))
    raise KeyError("no configuration key '%s' (known: %s)" % (name, ", ".join(short)))


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _matches(v, wanted):
    for w in wanted:
        a, b = _num(v), _num(w)
        if (a is not None and b is not None and a == b) or fmt_value(v) == w:
            return True
    return False


def select(items, wheres):
    """The items whose configuration matches every `KEY=V[,V...]` in wheres
    (KEY as resolve_key reads it; numbers compare by value, so load=0.5
    matches 0.50). KeyError or ValueError with a one-line reason."""
    out = list(items)
    for w in wheres:
        if "=" not in w or w.startswith("=") or w.endswith("="):
            raise ValueError("--where expects KEY=VALUE[,VALUE...], got '%s'" % w)
        name, vals = w.split("=", 1)
        key = resolve_key(items, name)
        wanted = [v for v in vals.split(",") if v]
        out = [it for it in out if key in it.flat and _matches(it.flat[key], wanted)]
    return out


def value_rank(key, v):
    """Sort rank of one value: policies in POLICY_ORDER, numbers by value,
    then text."""
    if key == "policy":
        return (0, POLICY_ORDER.index(v), "") if v in POLICY_ORDER else (1, 0, str(v))
    n = _num(v)
    return (0, n, "") if n is not None and not isinstance(v, bool) else (1, 0, str(v))


def sort_items(items, keys, first=()):
    """The items ordered by the values of `first` (flat keys; a leading '-'
    sorts that key descending), then of `keys`: every table row, column and
    plotted series in value order, not file order. Stable."""
    out = list(items)
    for k in reversed(list(first) + [k for k in keys if k not in first]):
        desc = k.startswith("-")
        k = k[1:] if desc else k
        out.sort(key=lambda it: value_rank(k, it.flat.get(k)) if k in it.flat else (2, 0, ""),
                 reverse=desc)
    return out


# The CPU medians (median.cpu_per_task_ns, ...) and where each trial keeps
# its figure (trials[].cpu, docs/results.md).
CPU_TRIAL_KEYS = {"cpu_per_task_ns": "per_task_ns", "idle_cpu": "idle_cpu",
                  "cpu_cores": "cores"}


class Group(_Figures):
    """The result files of one configuration, pooled. See the module
    docstring for the API."""

    def __init__(self, results):
        if not results:
            raise ValueError("a Group needs at least one result")
        self.results = list(results)
        first = self.results[0]
        self.config = first.config
        self.flat = first.flat
        self.policy = first.policy
        self.workload = first.workload
        self.engine = first.engine
        self.workers = first.workers
        self.knobs = first.knobs
        self.params = first.params
        self.trials = [t for r in self.results for t in r.trials]
        self.label = first.policy

    def __repr__(self):
        return "Group(%r, %d files)" % (self.label, len(self.results))

    def _one(self):
        return self.results[0] if len(self.results) == 1 else None

    def values(self, key):
        return [v for r in self.results for v in r.values(key)]

    def median(self, key):
        one = self._one()
        return one.median(key) if one else median(self.values(key))

    def ci95(self, key):
        one = self._one()
        return one.ci95(key) if one else median_ci95(self.values(key))

    def counter(self, name):
        return sum(r.counter(name) for r in self.results)

    def _has_histogram(self, name):
        return any(r._has_histogram(name) for r in self.results)

    def sample_count(self, name=None):
        name = name or self.latency_histogram_name()
        return sum(r.sample_count(name) for r in self.results)

    def percentiles(self, name=None):
        name = name or self.latency_histogram_name()
        one = self._one()
        if one:
            return one.percentiles(name)
        exact = self.exact_histogram(name)
        if exact is not None:
            levels = sorted(set(f for r in self.results for f, _ in r.percentiles(name)))
            return exact.percentiles(levels or PLOT_LEVELS)
        # Files without buckets: each file's series weighted by its samples.
        parts = [(r.sample_count(name), r.percentiles(name)) for r in self.results]
        parts = [(n, s) for n, s in parts if n and s]
        if not parts:
            return []
        total = float(sum(n for n, _ in parts))
        levels = sorted(set(f for _, s in parts for f, _ in s))
        cands = sorted(set(v for _, s in parts for _, v in s))

        def cdf(x):
            # Fraction of all samples at or below x: each file contributes
            # the highest level whose value is at or below x.
            acc = 0.0
            for n, s in parts:
                below = 0.0
                for f, v in s:
                    if v <= x:
                        below = f
                acc += n * below
            return acc / total

        cum = [(cdf(x), x) for x in cands]
        out = []
        for q in levels:
            for c, x in cum:
                if c >= q - 1e-12:
                    out.append((q, x))
                    break
            else:
                out.append((q, cands[-1]))
        return out

    def percentile(self, q, name=None):
        one = self._one()
        if one:
            return one.percentile(q, name)
        exact = self.exact_histogram(name)
        if exact is not None:
            return float(exact.percentile(q))
        return _percentile_from_series(self.percentiles(name), q)

    def percentile_ci95(self, q, name=None):
        one = self._one()
        if one:
            return one.percentile_ci95(q, name)
        name = name or self.latency_histogram_name()
        key = _level_key(q)
        vals = [((t.get("percentiles") or {}).get(name) or {}).get(key) for t in self.trials]
        if not key or any(v is None for v in vals):
            return None
        ci = batch_means_ci95(self.percentile(q, name), vals)
        return None if ci is None else (ci[0], ci[1], "batch-means-trials")

    def utilization_per_worker(self):
        one = self._one()
        if one:
            return one.utilization_per_worker()
        rows = [t.get("utilization") or [] for t in self.trials]
        return [median(r[i] for r in rows if i < len(r)) or 0.0 for i in range(self.workers)]

    def baseline_ns(self):
        ns = []
        for r in self.results:
            b = r.doc.get("baseline")
            if b:
                ns.extend(t.get("ns") for t in b.get("trials") or [])
        return median(ns)

    @property
    def provenance(self):
        return self.results[0].provenance


def group_by_config(results, ignore=CONFIG_IGNORE):
    """Results of the same configuration (config_key) pooled into Groups, in
    the order their first file appears; each Group's .label is set from
    labels() over all the groups."""
    index = {}
    order = []
    for r in results:
        k = config_key(r, ignore)
        if k not in index:
            index[k] = []
            order.append(k)
        index[k].append(r)
    groups = [Group(index[k]) for k in order]
    for g, lab in zip(groups, labels(groups, exclude=ignore)):
        g.label = lab
    return groups


class Series:
    """Points (x, Group) of one configuration that varies only in x."""

    def __init__(self, label, points):
        self.label = label
        self.points = sorted(points, key=lambda p: p[0])

    @property
    def groups(self):
        return [g for _, g in self.points]

    def __repr__(self):
        return "Series(%r, %d points)" % (self.label, len(self.points))


def split_series(results, x_key, ignore=CONFIG_IGNORE):
    """Split results into series along x_key (a flat-config key such as
    "workers" or "param.load"): each Series holds the configurations that
    agree on everything but x_key (and `ignore`), one Group per x value, and
    is labelled by what distinguishes it from the other series. Results
    without x_key are left out."""
    ign = tuple(ignore) + (x_key,)
    have = [r for r in results if x_key in r.flat]
    buckets = {}
    order = []
    for r in have:
        k = config_key(r, ign)
        if k not in buckets:
            buckets[k] = []
            order.append(k)
        buckets[k].append(r)
    series = []
    for k in order:
        groups = group_by_config(buckets[k], ignore)
        pts = [(float(g.flat[x_key]), g) for g in groups]
        series.append(Series("", pts))
    reps = [s.points[0][1] for s in series]
    for s, lab in zip(series, labels(reps, exclude=ign)):
        s.label = lab
        for _, g in s.points:
            g.label = lab
    return series
