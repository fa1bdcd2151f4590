#!/usr/bin/env bash
#
# test_trials_auto.sh - --trials auto / --ci-target (docs/measuring.md).
#
#   test_trials_auto.sh HARNESS JSON_CHECK
#
# On the sim engine a trial's makespan depends only on its seed, so the
# trial counts are exact and repeatable. Three policies interleaved in one
# run at a target that the three meet differently (fib(18) on 4 simulated
# workers: static-partition's makespans do not vary, volt's a little,
# tokio's more; the run must show all three outcomes):
#   - every result file passes json_check (count within [min, max], the
#     reason consistent with the half-width, the baseline run min times);
#   - the stopping rule, recomputed here from the trials' makespans (the
#     binomial ranks of the median's interval summed independently): no
#     count from min up to the last one met the target, the last one did
#     unless it is the maximum, the half-width written is the one
#     recomputed, and so are both ends of the median's interval;
#   - each configuration's progress lines number its trials 1..n, never one
#     past the maximum (the driver CHECKs that it does not run one);
#   - the interleaving stayed fair: after the first min trials of every
#     configuration, trial i of any configuration ran after trial i - 1 of
#     every configuration that still ran one (one round at a time);
#   - the summary names the reason of each (target met, maximum reached).
# A threads-engine run at a loose target checks its baseline count with
# json_check (no figure of it decides anything). The results pass the JSON
# Schema of docs/result.schema.json, which rejects an unknown reason.

set -u
testlib_name=test_trials_auto
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_trials_auto.sh HARNESS JSON_CHECK}
json_check=${2:?usage: test_trials_auto.sh HARNESS JSON_CHECK}
py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_trials_auto.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

"$harness" --policy=volt,tokio,static-partition --workload=fib --param n=18 --engine=sim \
	--workers 4 --warmup 1 --trials auto --ci-target 0.04% --trials-max 30 \
	--json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" || fail "sim run: exit status $?"
for p in volt tokio static-partition; do
	"$json_check" "$tmp/r.$p.json" >/dev/null 2>>"$tmp/err" || fail "json_check rejects $p"
done
pass "three interleaved sim variants: json_check accepts each result"

"$py" - "$tmp" >"$tmp/rule" 2>&1 <<'PYEOF' || { cat "$tmp/rule" >&2; fail "stopping rule"; }
import json, re, sys

tmp = sys.argv[1]


def rank(n):
    # the largest j with P(B <= j - 1) <= 2.5%, B ~ Bin(n, 1/2)
    from math import comb
    j, cum = 1, 0.0
    for k in range(n):
        cum += comb(n, k) / 2 ** n
        if cum > 0.025 or k + 1 > (n + 1) // 2:
            break
        j = k + 1
    return j


def halfwidth(v):
    v = sorted(v)
    n = len(v)
    j = rank(n)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    return (v[n - j] - v[j - 1]) / 2 / med


outcomes = {}
for p in ("volt", "tokio", "static-partition"):
    d = json.load(open("%s/r.%s.json" % (tmp, p)))
    a = d["trials_auto"]
    ms = [t["makespan_ns"] for t in d["trials"]]
    n, lo, hi, tgt = len(ms), a["min"], a["max"], a["ci_target"]
    assert (lo, hi, abs(tgt - 0.0004) < 1e-12) == (6, 30, True), a
    assert n == a["trials"] == d["config"]["trials"], (p, n, a)
    seeds = [int(t["seed"]) for t in d["trials"]]
    assert seeds == list(range(int(d["config"]["seed"]), int(d["config"]["seed"]) + n)), seeds
    for k in range(lo, n):
        assert halfwidth(ms[:k]) > tgt, "%s: %d trials already met the target" % (p, k)
    h = halfwidth(ms)
    assert abs(h - a["half_width"]) <= 1e-9 * max(1, h), (p, h, a["half_width"])
    # The median's interval in the file: the order statistics x(j) and
    # x(n + 1 - j) of the trials, both ends.
    ci, srt, j = d["median"]["ci95"]["makespan_ns"], sorted(ms), rank(n)
    assert (ci["lo"], ci["hi"]) == (srt[j - 1], srt[n - j]), (p, n, j, ci, srt)
    met = h <= tgt
    assert a["stopped"] == ("target" if met else "max"), (p, h, a)
    assert met or n == hi, (p, n, h)
    outcomes[p] = "min" if n == lo else a["stopped"]
    print("%s: %d trials, half-width %.4f%%, %s" % (p, n, 100 * h, a["stopped"]))
assert sorted(outcomes.values()) == ["max", "min", "target"], outcomes

# Fair interleaving, from the progress lines: trial i of a configuration
# (i > min) comes after trial i - 1 of every configuration.
seen = {}
pos = 0
for line in open(tmp + "/err"):
    m = re.match(r"trial (\d+)/<=30 (\S+):", line)
    if not m:
        continue
    i, c = int(m.group(1)), m.group(2)
    seen[(i, c)] = pos
    pos += 1
# Each configuration's progress lines number its trials 1..n, n those in
# its result, never one past --trials-max.
for p in ("volt", "tokio", "static-partition"):
    n = len(json.load(open("%s/r.%s.json" % (tmp, p)))["trials"])
    nums = sorted(i for (i, c) in seen if c == p)
    assert nums == list(range(1, n + 1)) and n <= 30, (p, n, nums)
for (i, c), at in seen.items():
    if i > 6:
        for (i2, c2), at2 in seen.items():
            assert not (i2 == i - 1 and at2 > at), "trial %d of %s ran before trial %d of %s" % (
                i, c, i2, c2)
print("rounds fair over %d measured trials" % len(seen))
PYEOF
pass "stopping rule recomputed: $(tr '\n' ';' <"$tmp/rule")"

grep -q '^trials auto tokio: 30 trials, stopped at the maximum (--trials-max 30)' "$tmp/out" ||
	fail "the summary does not say tokio stopped at the maximum"
grep -qE '^trials auto volt: [0-9]+ trials, stopped at the target' "$tmp/out" ||
	fail "the summary does not say volt met the target"
pass "the summary names what stopped each variant"

# The same run again: the same counts (a sim run depends on its inputs only).
"$harness" --policy=volt,tokio,static-partition --workload=fib --param n=18 --engine=sim \
	--workers 4 --warmup 1 --trials auto --ci-target 0.04% --trials-max 30 \
	--json "$tmp/s.json" >"$tmp/out2" 2>/dev/null || fail "second sim run: exit status $?"
diff <(grep '^trials auto' "$tmp/out") <(grep '^trials auto' "$tmp/out2") >/dev/null ||
	fail "a second identical sim run stopped at other counts"
pass "repeatable"

# --trials-time: a limit the minimum trials already pass stops tokio (which
# needs more than 30 at this target, above) at the minimum, the reason said; the
# limit is wall time, so only its being passed is certain, not when.
"$harness" --policy=tokio --workload=fib --param n=18 --engine=sim --workers 4 --warmup 1 \
	--trials auto --ci-target 0.04% --trials-max 30 --trials-time 0.000001 \
	--json "$tmp/tl.json" >"$tmp/out" 2>"$tmp/err" || fail "time-limited run: exit status $?"
"$json_check" "$tmp/tl.json" >/dev/null 2>>"$tmp/err" || fail "json_check rejects the time-limited result"
"$py" -c '
import json, sys
a = json.load(open(sys.argv[1]))["trials_auto"]
assert (a["stopped"], a["trials"], a["time_limit_s"]) == ("time", 6, 1e-06), a
' "$tmp/tl.json" || fail "time-limited run: not stopped by the time at the minimum"
grep -q '^trials auto tokio: 6 trials, stopped at the time limit (--trials-time 1e-06 s)' "$tmp/out" ||
	fail "the summary does not say the time limit stopped the trials"
pass "--trials-time stops further rounds and says so"

# Threads engine, a target any run meets: the baseline runs min times.
"$harness" --policy=volt --workload=fib --param n=15 --workers 2 --warmup 0 --trials auto \
	--ci-target 99% --json "$tmp/t.json" >"$tmp/out" 2>"$tmp/err" ||
	fail "threads run: exit status $?"
"$json_check" "$tmp/t.json" >/dev/null 2>>"$tmp/err" || fail "json_check rejects the threads result"
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["baseline"]["trials"]) == d["trials_auto"]["min"] == 6, d["trials_auto"]
assert d["trials_auto"]["trials"] >= 6
' "$tmp/t.json" || fail "threads run: baseline count"
pass "threads engine: the baseline runs the minimum count"

# docs/result.schema.json describes trials_auto (python3-jsonschema, where installed).
if "$py" -c 'import jsonschema' 2>/dev/null; then
	src=$(cd "$(dirname "$0")/.." && pwd)
	"$py" "$src/tests/validate_results.py" "$src/docs/result.schema.json" "$tmp"/r.*.json \
		"$tmp/t.json" >"$tmp/out" 2>&1 || fail "the schema rejects a --trials auto result"
	"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["trials_auto"]["stopped"] = "never"
json.dump(d, open(sys.argv[2], "w"))
' "$tmp/t.json" "$tmp/bad.json"
	"$py" "$src/tests/validate_results.py" "$src/docs/result.schema.json" "$tmp/bad.json" \
		>/dev/null 2>&1 && fail "the schema accepts trials_auto.stopped = never"
	pass "the schema accepts the results and rejects an unknown reason"
fi

echo "$testlib_name: $passed passed, $failed failed"
