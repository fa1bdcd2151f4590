#!/usr/bin/env bash
# bench_sim.sh - how fast the simulation engine runs: simulated task polls
# per second of wall time for fib(N) (default 30) on W virtual workers
# (default 64) under a policy: 5 trials per process, median of ROUNDS
# processes (default 5), start-up included. A
# benchmark, not a test: it prints, and exits non-zero only if a run fails.
#
#   scripts/bench_sim.sh [--policy volt] [--n 30] [--workers 64] [--rounds 5] [--build build]
set -euo pipefail
cd "$(dirname "$0")/.."
policy=volt n=30 workers=64 rounds=5 build=build
while (($#)); do
	case $1 in
	--policy) policy=$2; shift 2 ;;
	--n) n=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	*) echo "bench_sim: unknown argument $1" >&2; exit 2 ;;
	esac
done
h=$build/harness
[ -x "$h" ] || { echo "bench_sim: $h not built (run scripts/setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rates=()
for ((r = 1; r <= rounds; r++)); do
	t0=$(date +%s%N)
	"$h" --policy="$policy" --workload=fib --param n="$n" --engine=sim --workers "$workers" \
		--trials 5 --warmup 0 --json "$tmp/r.json" >/dev/null 2>&1
	t1=$(date +%s%N)
	polls=$(tr -d ' \n' <"$tmp/r.json" | sed -n 's/.*"counters_total":{"polls":\([0-9]*\).*/\1/p')
	rates+=("$(awk -v p="$polls" -v ns=$((t1 - t0)) 'BEGIN {printf "%.0f", p / (ns / 1e9)}')")
done
median=$(printf '%s\n' "${rates[@]}" | sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')
printf 'sim engine: fib(%s) under %s on %s virtual workers, %s polls per process (5 trials)\n' \
	"$n" "$policy" "$workers" "$polls"
printf '  %.2f million simulated polls per second of wall time (median of %s processes, start-up included)\n' \
	"$(awk -v m="$median" 'BEGIN {print m / 1e6}')" "$rounds"
