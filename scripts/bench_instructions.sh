#!/usr/bin/env bash
# bench_instructions.sh - instructions per task inside the worker step,
# counted by callgrind (deterministic, unlike time on a shared machine), for
# fib, nqueens and spawn-many under every policy: one worker on the threads
# engine, seed 1, the second of two runs each, all in one process
# (build/tests/instr_run).
# Prints a table of instructions per task, each configuration's breakdown by
# function (self cost per task), and compares the totals with a committed
# baseline: a figure more than 3% above its baseline fails (exit 1). Lower
# the baseline whenever the figures drop (--update), so the tolerance only
# ever tightens.
#
#   scripts/bench_instructions.sh [--build build] [--baseline FILE] [--update]
#                                 [--compare OLD_BUILD] [--policies a,b|all]
#
#   --update           write the figures of this build to the baseline file
#   --compare OLD      also count OLD_BUILD (a build of another commit) and
#                      print both side by side with the change in percent
#   --no-breakdown     the tables only
#
# Needs valgrind and /usr/bin/python3; without valgrind it exits 77 (ctest:
# skipped). Figures depend on the compiler and its version: the baseline
# is for the Release build with the compiler named in its header.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build baseline=scripts/instructions.baseline update=0 compare="" policies=all breakdown=1
while (($#)); do
	case $1 in
	--build) build=$2; shift 2 ;;
	--baseline) baseline=$2; shift 2 ;;
	--update) update=1; shift ;;
	--compare) compare=$2; shift 2 ;;
	--policies) policies=$2; shift 2 ;;
	--no-breakdown) breakdown=0; shift ;;
	*) echo "bench_instructions: unknown argument $1" >&2; exit 2 ;;
	esac
done
command -v valgrind >/dev/null || { echo "bench_instructions: valgrind not installed" >&2; exit 77; }
for b in "$build" ${compare:+"$compare"}; do
	[ -x "$b/tests/instr_run" ] ||
		{ echo "bench_instructions: $b/tests/instr_run not built" >&2; exit 1; }
done

# The configurations: small enough for callgrind to count all of them in a
# few seconds, large enough that start-up is noise.
workloads=(fib:n=18 nqueens:n=8 spawn-many:n=2000)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count BUILD DIR: one callgrind process; DIR gets labels and one dump per
# configuration. --fair-sched keeps the harness thread and the worker
# taking turns (the engine's start-up handshake spins otherwise).
count() {
	mkdir -p "$2"
	valgrind --tool=callgrind --fair-sched=yes --toggle-collect=worker_step \
		--zero-before=instr_config_start --dump-after=instr_config_done --callgrind-out-file="$2/cg.out" \
		"$1/tests/instr_run" "$policies" "${workloads[@]}" >"$2/labels" 2>"$2/valgrind.log" ||
		{ cat "$2/valgrind.log" >&2; echo "bench_instructions: $1 failed" >&2; exit 1; }
}
count "$build" "$tmp/new"
[ -n "$compare" ] && count "$compare" "$tmp/old"

/usr/bin/python3 - "$tmp" "$baseline" "$update" "$breakdown" "$compare" <<'EOF'
import os, re, sys

tmp, baseline_path, update, breakdown, compare = sys.argv[1:6]
TOLERANCE = 1.03


def self_costs(path):
    """Self instructions per function of one callgrind dump, and its total."""
    names, costs, fn, after_call = {}, {}, None, False
    total = summary = None
    with open(path) as f:
        for line in f:
            # totals: what the dump holds, since the last zeroing
            # (--zero-before); summary: since the last dump.
            if line.startswith('totals:'):
                total = int(line.split()[1])
            elif line.startswith('summary:'):
                summary = int(line.split()[1])
            elif line.startswith('fn='):
                m = re.match(r'fn=\((\d+)\)(?: (.*))?', line.rstrip('\n'))
                if m.group(2) is not None:
                    names[m.group(1)] = m.group(2)
                fn = names[m.group(1)]
            elif line.startswith('cfn='):
                m = re.match(r'cfn=\((\d+)\)(?: (.*))?', line.rstrip('\n'))
                if m and m.group(2) is not None:
                    names[m.group(1)] = m.group(2)
            elif line.startswith('calls='):
                after_call = True
            elif line[:1] in '0123456789+-*' and line.strip():
                if after_call:
                    after_call = False  # the inclusive cost of that call
                    continue
                parts = line.split()
                if len(parts) >= 2 and fn is not None:
                    costs[fn] = costs.get(fn, 0) + int(parts[1])
    total = summary if total is None else total
    assert total is not None, path
    assert sum(costs.values()) == total, (path, sum(costs.values()), total)
    return total, costs


def load(d):
    labels = []
    with open(os.path.join(d, 'labels')) as f:
        for line in f:
            m = re.match(r'config (\S+) (\S+) (\S+) tasks (\d+)$', line.strip())
            if m:
                labels.append((m.group(1), m.group(2) + ' ' + m.group(3), int(m.group(4))))
    out = {}
    for i, (policy, wl, tasks) in enumerate(labels, 1):
        total, costs = self_costs(os.path.join(d, 'cg.out.%d' % i))
        out[(policy, wl)] = (total / tasks, tasks, {k: v / tasks for k, v in costs.items()})
    return labels, out


labels, new = load(os.path.join(tmp, 'new'))
old = load(os.path.join(tmp, 'old'))[1] if compare else {}
policies = list(dict.fromkeys(p for p, _, _ in labels))
wls = list(dict.fromkeys(w for _, w, _ in labels))

print('instructions per task inside worker_step (callgrind; threads engine, 1 worker, seed 1)')
width = max(len(w) for w in wls) + 2
if compare:
    print('  before: %s   after: this build' % compare)
    print('%-18s' % 'policy' + ''.join('%*s' % (width + 18, w) for w in wls))
else:
    print('%-18s' % 'policy' + ''.join('%*s' % (width, w) for w in wls))
for p in policies:
    row = '%-18s' % p
    for w in wls:
        n = new[(p, w)][0]
        if compare and (p, w) in old:
            o = old[(p, w)][0]
            row += '%*s' % (width + 18, '%.1f -> %.1f (%+.0f%%)' % (o, n, 100 * (n / o - 1)))
        else:
            row += '%*.1f' % (width, n)
    print(row)

if breakdown == '1':
    print('\nby function (self instructions per task; under 2% of the total as "other")')
    for p in policies:
        for w in wls:
            per, tasks, costs = new[(p, w)]
            big = sorted(((v, k) for k, v in costs.items() if v >= 0.02 * per), reverse=True)
            rest = per - sum(v for v, _ in big)
            parts = ['%s %.0f' % (k, v) for v, k in big] + (['other %.0f' % rest] if rest >= 0.5 else [])
            print('  %s %s (%d tasks): %.1f = %s' % (p, w, tasks, per, ', '.join(parts)))

if update == '1':
    with open(baseline_path, 'w') as f:
        f.write('# Instructions per task inside worker_step, by scripts/bench_instructions.sh\n'
                '# (callgrind; threads engine, 1 worker, seed 1; Release build).\n'
                '# The check fails when a figure rises more than 3% above its line here.\n'
                '# Lower these whenever the figures drop (--update); raise one only with\n'
                '# the reason in the commit message.\n'
                '# policy workload params instructions_per_task\n')
        for p in policies:
            for w in wls:
                f.write('%s %s %.1f\n' % (p, w, new[(p, w)][0]))
    print('\nwrote %s' % baseline_path)
    sys.exit(0)

base = {}
if os.path.exists(baseline_path):
    with open(baseline_path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and not line.startswith('#'):
                base[(parts[0], parts[1] + ' ' + parts[2])] = float(parts[3])
else:
    print('\nno baseline %s: nothing to compare' % baseline_path)
    sys.exit(0)

rises = []
for (p, w), (per, _, _) in new.items():
    if (p, w) not in base:
        print('note: %s %s has no baseline line' % (p, w))
    elif per > base[(p, w)] * TOLERANCE:
        rises.append('%s %s: %.1f instructions per task, baseline %.1f (+%.1f%%)'
                     % (p, w, per, base[(p, w)], 100 * (per / base[(p, w)] - 1)))
if rises:
    print('\nFAIL: more than 3%% above the baseline (%s):' % baseline_path)
    for r in rises:
        print('  ' + r)
    sys.exit(1)
lower = sum(1 for k, v in new.items() if k in base and v[0] < base[k] / TOLERANCE)
print('\nok: no figure more than 3%% above %s%s' % (
    baseline_path, '; %d more than 3%% below it: lower the baseline (--update)' % lower
    if lower else ''))
EOF
