#!/usr/bin/env bash
# bench_sim.sh - how fast the simulation engine runs: simulated task polls
# per second for fib(N) (default 30) on W virtual workers (default 64)
# under a policy: 5 trials per process, median of ROUNDS processes (default
# 5), start-up included. Rates are given per second of wall time and per
# second of CPU time (user + system) of the process: on a shared machine
# the second moves much less. A benchmark, not a test: it prints, and exits
# non-zero only if a run fails.
#
#   scripts/bench_sim.sh [--policy volt] [--n 30] [--workers 64] [--rounds 5] [--build build]
#                        [--compare OLD_BUILD]
#
# --compare runs OLD_BUILD's harness too, alternating the two process by
# process so that both see the same machine, and prints the speed-up of the
# medians, then the median and range of the rounds' own ratios (each round
# runs both builds back to back).
set -euo pipefail
cd "$(dirname "$0")/.."
policy=volt n=30 workers=64 rounds=5 build=build compare=""
while (($#)); do
	case $1 in
	--policy) policy=$2; shift 2 ;;
	--n) n=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--compare) compare=$2; shift 2 ;;
	*) echo "bench_sim: unknown argument $1" >&2; exit 2 ;;
	esac
done
for b in "$build" ${compare:+"$compare"}; do
	[ -x "$b/harness" ] || { echo "bench_sim: $b/harness not built (run scripts/setup.sh)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# run BUILD TAG: one process; appends its wall and CPU rates to TAG.wall
# and TAG.cpu, and leaves the poll count in $tmp/polls.
run() {
	local t0 t1 cpu
	t0=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$1/harness" --policy="$policy" --workload=fib \
		--param n="$n" --engine=sim --workers "$workers" --trials 5 --warmup 0 --no-baseline \
		--json "$tmp/r.json" >/dev/null 2>&1
	t1=$(date +%s%N)
	tr -d ' \n' <"$tmp/r.json" | sed -n 's/.*"counters_total":{"polls":\([0-9]*\).*/\1/p' >"$tmp/polls"
	cpu=$(awk '{print $1 + $2}' "$tmp/time")
	awk -v p="$(cat "$tmp/polls")" -v ns=$((t1 - t0)) 'BEGIN {printf "%.0f\n", p / (ns / 1e9)}' >>"$tmp/$2.wall"
	awk -v p="$(cat "$tmp/polls")" -v s="$cpu" 'BEGIN {printf "%.0f\n", p / (s > 0 ? s : 0.01)}' >>"$tmp/$2.cpu"
}

for ((r = 1; r <= rounds; r++)); do
	if [ -n "$compare" ] && ((r % 2 == 0)); then
		run "$compare" old
		run "$build" new
	else
		run "$build" new
		[ -n "$compare" ] && run "$compare" old
	fi
done
printf 'sim engine: fib(%s) under %s on %s virtual workers, %s polls per process (5 trials)\n' \
	"$n" "$policy" "$workers" "$(cat "$tmp/polls")"
show() {
	printf '  %-10s %6.2f million simulated polls per second of wall time, %6.2f per second of CPU time (median of %s processes)\n' \
		"$1" "$(median <"$tmp/$2.wall" | awk '{print $1 / 1e6}')" \
		"$(median <"$tmp/$2.cpu" | awk '{print $1 / 1e6}')" "$rounds"
}
if [ -n "$compare" ]; then
	show "$compare" old
	show "$build" new
	printf '  speed-up %.2fx (wall), %.2fx (CPU)\n' \
		"$(awk -v a="$(median <"$tmp/new.wall")" -v b="$(median <"$tmp/old.wall")" 'BEGIN {print a / b}')" \
		"$(awk -v a="$(median <"$tmp/new.cpu")" -v b="$(median <"$tmp/old.cpu")" 'BEGIN {print a / b}')"
	# Each round ran the two builds one after the other: the spread of
	# the rounds' own ratios is how far one round's figure can be trusted.
	paste "$tmp/new.cpu" "$tmp/old.cpu" | awk '{print $1 / $2}' >"$tmp/pairs"
	printf '  per round (CPU): median %.2fx, from %.2fx to %.2fx\n' \
		"$(median <"$tmp/pairs")" "$(sort -g "$tmp/pairs" | head -1)" "$(sort -g "$tmp/pairs" | tail -1)"
else
	show "$build" new
fi
