#!/usr/bin/env bash
#
# test_variants.sh - several variants of one policy in one run.
#
#   test_variants.sh HARNESS
#
# An ablation of four volt variants (`--policy volt,volt:lifo_cap=0,...`)
# on the deterministic sim engine: every variant's trials run interleaved
# with the others' (no variant's trials form one block in the printed run
# order), each variant is named volt[KNOB=V] in the header, the progress
# lines and the comparison table. Crossing --set lists gives one variant per
# combination, in order; a variant's knobs reach the runtime (lifo_cap=0
# makes no LIFO poll) and its result file names it. Bad specs exit 2 with
# one line. Runs in a temporary directory; nothing is written into the tree.

set -u
testlib_name=test_variants
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_variants.sh HARNESS}
[ -x "$harness" ] || { echo "test_variants: $harness is not an executable file" >&2; exit 1; }
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")
scripts=$(cd "$(dirname "$0")/../scripts" && pwd)
py=/usr/bin/python3
if ! [ -x "$py" ]; then
	# A missing tool fails under CI, where it must be installed.
	[ "${CI:-}" = true ] && { echo "test_variants: no $py" >&2; exit 1; }
	echo "test_variants: skipped: no $py"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_variants.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset PYTHONOPTIMIZE	# the checks are asserts


sim=(--workload=fib --param n=15 --engine=sim --workers 4 --warmup 0)

# The ablation: four variants of volt, four trials each, one process.
"$harness" --policy 'volt,volt:lifo_cap=0,volt:lifo_cap=1,volt[interval=61]' "${sim[@]}" \
	--trials 4 --no-json >"$tmp/out" 2>"$tmp/err" </dev/null || fail "ablation: exit status $?"
"$py" - "$tmp/out" "$tmp/err" >"$tmp/seq" <<'EOF' || fail "ablation"
import re, sys
out = open(sys.argv[1]).read().splitlines()
err = open(sys.argv[2]).read().splitlines()
names = ["volt", "volt[lifo_cap=0]", "volt[lifo_cap=1]", "volt[interval=61]"]
knobs = ["all at defaults", "lifo_cap=0", "lifo_cap=1", "interval=61"]
# The header names every variant with its knobs, in the order given.
head = [l[11:] for l in out[:4]]
assert head == ["%s (knobs: %s)" % nk for nk in zip(names, knobs)], head
# The run order: one progress line per trial, trial i/4 of each variant in turn.
order = []
for l in err:
    m = re.match(r"trial (\d+)/4 (\S+): ", l)
    if m:
        order.append((m.group(2), int(m.group(1))))
assert sorted(order) == sorted((n, i) for n in names for i in range(1, 5)), order
for n in names:
    assert [i for v, i in order if v == n] == [1, 2, 3, 4], (n, order)
# Interleaved: no variant ran its four trials back to back.
seq = [v for v, _ in order]
for n in names:
    pos = [k for k, v in enumerate(seq) if v == n]
    assert pos[-1] - pos[0] > 3, ("trials of %s ran as one block" % n, seq)
# The comparison table: one row per variant, under its own name, in order.
table = out[[k for k, l in enumerate(out) if l.split()[:2] == ["policy", "ns/task"]][0]:]
rows = [l.split()[0] for l in table if l.split() and l.split()[0] in names]
assert rows == names, rows
print(" ".join(seq))
EOF
pass "ablation of 4 variants, trials interleaved: $(cat "$tmp/seq")"

# Crossing --set lists: volt gets 2 x 2 variants (the first list varies
# slowest), tokio 2 (the second list targets volt only); 6 in all.
"$harness" --policy volt,tokio --set lifo_cap=0,3 --set volt.interval=0,61 "${sim[@]}" \
	--trials 2 --no-json >"$tmp/out" 2>"$tmp/err" </dev/null || fail "crossing: exit status $?"
"$py" - "$tmp/out" "$tmp/err" <<'EOF' || fail "crossing --set lists"
import re, sys
out = open(sys.argv[1]).read().splitlines()
err = open(sys.argv[2]).read()
names = ["volt[lifo_cap=0,interval=0]", "volt[lifo_cap=0,interval=61]",
         "volt[lifo_cap=3,interval=0]", "volt[lifo_cap=3,interval=61]",
         "tokio[lifo_cap=0]", "tokio[lifo_cap=3]"]
knobs = ["lifo_cap=0", "lifo_cap=0, interval=61", "all at defaults", "interval=61",
         "lifo_cap=0", "all at defaults"]
head = [l[11:] for l in out[:6]]
assert head == ["%s (knobs: %s)" % nk for nk in zip(names, knobs)], head
table = out[[k for k, l in enumerate(out) if l.split()[:2] == ["policy", "ns/task"]][0]:]
rows = [l.split()[0] for l in table if l.split() and l.split()[0] in names]
assert rows == names, rows
for n in names:
    assert len(re.findall(r"^trial \d/2 %s: " % re.escape(n), err, re.M)) == 2, n
EOF
pass "crossing --set lifo_cap=0,3 --set volt.interval=0,61 under volt,tokio: 6 variants"

# A variant's knobs reach the runtime, and its result file names it.
for spec in volt 'volt:lifo_cap=0'; do
	"$harness" --policy "$spec" "${sim[@]}" --trials 1 --json "$tmp/r.json" \
		>"$tmp/out" 2>"$tmp/err" </dev/null || fail "$spec: exit status $?"
	"$py" - "$tmp/r.json" "$spec" <<'EOF' || fail "$spec: result file"
import json, sys
doc = json.load(open(sys.argv[1]))
cfg = doc["config"]
lifo = doc["counters_total"]["lifo_polls"]
if sys.argv[2] == "volt":
    assert cfg["variant"] == "volt" and cfg["knobs"]["lifo_cap"] == 3, cfg
    assert lifo > 0, lifo
else:
    assert cfg["variant"] == "volt[lifo_cap=0]" and cfg["knobs"]["lifo_cap"] == 0, cfg
    assert lifo == 0, lifo
assert cfg["policy"] == "volt", cfg
EOF
done
pass "volt:lifo_cap=0 makes no LIFO poll and is named volt[lifo_cap=0] in its result"

# Crossing --param lists: every variant at every value, named after a space, one process.
"$harness" --policy volt,tokio --param n=12,14 --workload=fib --engine=sim --workers 4 \
	--warmup 0 --trials 2 --no-json \
	>"$tmp/out" 2>"$tmp/err" </dev/null || fail "--param list: exit status $?"
"$py" - "$tmp/out" "$tmp/err" <<'EOF' || fail "crossing --param lists"
import re, sys
out = open(sys.argv[1]).read().splitlines()
err = open(sys.argv[2]).read()
names = ["volt n=12", "tokio n=12", "volt n=14", "tokio n=14"]
table = out[[k for k, l in enumerate(out) if l.split()[:2] == ["policy", "ns/task"]][0]:]
rows = [" ".join(l.split()[:2]) for l in table[1:] if " ".join(l.split()[:2]) in names]
assert rows == names, rows
assert "workload   fib (n=per variant, cutoff=0)" in out, out[:8]
for n in names:
    assert len(re.findall(r"^trial \d/2 %s: " % re.escape(n), err, re.M)) == 2, n
EOF
# On threads, each parameter set has its own sequential baseline, and each result file its
# own parameters and baseline (fib counts the same tasks sequentially and in parallel).
mkdir "$tmp/pl" && cd "$tmp/pl" || fail "mkdir"
"$harness" --policy volt --workload fib --param n=10,13 --workers 2 --trials 2 --warmup 0 \
	>"$tmp/out" 2>"$tmp/err" </dev/null || fail "--param list on threads: exit status $?"
cd "$tmp" || fail "cd"
[ "$(grep -c '^trial [12]/2 baseline n=1[03]: ' "$tmp/err")" -eq 4 ] ||
	fail "--param list: not two baselines of two trials each"
"$py" - "$tmp"/pl/results/*.json <<'EOF' || fail "--param list: result files"
import json, sys
seen = {}
for f in sys.argv[1:]:
    d = json.load(open(f))
    n = d["config"]["params"]["n"]
    assert d["config"]["variant"] == "volt n=%d" % n, d["config"]["variant"]
    assert "volt-n=%d-2w-" % n in f, f
    tasks = set(t["tasks"] for t in d["trials"]) | set(t["tasks"] for t in d["baseline"]["trials"])
    assert len(tasks) == 1, (f, tasks)      # the baseline ran this file's n
    seen[n] = tasks.pop()
assert sorted(seen) == [10, 13] and seen[10] < seen[13], seen
EOF
pass "--param n=12,14 under volt,tokio: 4 variants; n=10,13 on threads: a baseline per n"

# Values print as typed: volt:interval=0 stays interval=0 (not its name, adaptive), an
# --set interval=adaptive stays adaptive, --param dist=2 stays dist=2, in the summary table,
# the result files' variant and the labels the plotting and table scripts give them.
mkdir "$tmp/typed" && cd "$tmp/typed" || fail "mkdir"
ol=(--workload=open-loop --param requests=200 --engine=sim --workers 2 --warmup 0 --trials 1)
"$harness" --policy volt:interval=0,volt:interval=61 --param dist=2,exponential "${ol[@]}" \
	--json a.json >"$tmp/out" 2>"$tmp/err" </dev/null || fail "typed values: exit status $?"
"$harness" --policy volt --set interval=adaptive,61 "${ol[@]}" \
	--json b.json >"$tmp/out2" 2>"$tmp/err" </dev/null || fail "typed names: exit status $?"
cd "$tmp" || fail "cd"
"$py" - "$scripts" "$tmp/typed" "$tmp/out" "$tmp/out2" <<'EOF' || fail "values not as typed"
import glob, os, sys
sys.path.insert(0, sys.argv[1])
import harnesslib as hl
d, out, out2 = sys.argv[2:]
for pattern, stdout, names in (
        ("a.*.json", out, ["volt[interval=0] dist=2", "volt[interval=61] dist=2",
                           "volt[interval=0] dist=exponential",
                           "volt[interval=61] dist=exponential"]),
        ("b.*.json", out2, ["volt[interval=adaptive]", "volt[interval=61]"])):
    rs = hl.load_all(sorted(glob.glob(os.path.join(d, pattern))))
    variants = [r.config["variant"] for r in rs]
    assert sorted(variants) == sorted(names), variants
    labels = hl.labels(rs)
    assert labels == variants, (labels, variants)
    rows = open(stdout).read()
    for n in names:
        assert "\n" + n + " " in rows, (n, rows)
print("ok")
EOF
pass "interval=0, interval=adaptive and dist=2 print as typed in the table, the files and the labels"

# --check resolves the variants and runs nothing.
"$harness" --check --policy volt,volt:lifo_cap=0 --set interval=0,61 "${sim[@]}" \
	>"$tmp/out" 2>"$tmp/err" </dev/null || fail "--check: exit status $?"
[ "$(cat "$tmp/out")" = "ok volt[interval=0] fib 4 workers sim
ok volt[interval=61] fib 4 workers sim
ok volt[lifo_cap=0,interval=0] fib 4 workers sim
ok volt[lifo_cap=0,interval=61] fib 4 workers sim" ] || fail "--check: not the four variants"
[ -s "$tmp/err" ] && fail "--check printed progress"
[ -e "$tmp/results" ] && fail "--check wrote results"
pass "--check lists the 4 variants and runs nothing"

# expect_bad NAME WORD ARGS...: exit 2, one stderr line containing WORD.
expect_bad() {
	local name=$1 word=$2
	shift 2
	"$harness" "$@" --workload=fib --no-json >"$tmp/out" 2>"$tmp/err" </dev/null
	local status=$?
	[ "$status" -eq 2 ] || fail "$name: exit status $status, expected 2"
	[ "$(grep -c '' "$tmp/err")" -eq 1 ] || fail "$name: not one line on stderr"
	grep -qF -- "$word" "$tmp/err" || fail "$name: stderr does not mention '$word'"
	[ -s "$tmp/out" ] && fail "$name: wrote to stdout"
	pass "$name: $(cat "$tmp/err")"
}

expect_bad "same policy twice" "twice" --policy volt,volt
expect_bad "identical variants" "same knobs" --policy volt,volt:lifo_cap=3
expect_bad "unknown knob in a spec" "nosuchknob" --policy volt:nosuchknob=1
expect_bad "bad value in a spec" "volt[lifo_cap=x]" --policy volt:lifo_cap=x
expect_bad "unclosed bracket" "bad policy list" --policy 'volt[lifo_cap=0'
expect_bad "empty list value" "empty value" --policy volt --set lifo_cap=0,,1
expect_bad "repeated list value" "twice" --policy volt --set lifo_cap=0,0
expect_bad "list crossing nothing" "crosses no variant" --policy volt:lifo_cap=0 \
	--set lifo_cap=1,2
expect_bad "too many variants" "more than 64" --policy volt --set budget=1,2,3,4,5,6,7,8,9 \
	--set lifo_cap=0,1,2,3,4,5,6,7
expect_bad "list of costs" "one value per cost" --policy volt --engine=sim \
	--set cost.poll=1,2
expect_bad "bad value in a --param list" "70 is out of range" --policy volt --param n=10,70
expect_bad "repeated --param value" "given twice" --policy volt --param n=10,10

echo "test_variants: $passed passed, $failed failed"
