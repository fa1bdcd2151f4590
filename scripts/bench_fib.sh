#!/usr/bin/env bash
# bench_fib.sh - ns per task for fib(N) (default 30) under a policy at 1 and
# 2 workers, next to the sequential baseline: ROUNDS rounds (default 5), each
# running the 1-worker and the 2-worker configuration once in alternating
# order, so both see the same machine; medians over the rounds. A benchmark,
# not a test: it prints, and exits non-zero only if a run fails.
#
#   scripts/bench_fib.sh [--policy volt] [--n 30] [--rounds 5] [--build build]
set -euo pipefail
cd "$(dirname "$0")/.."
policy=volt n=30 rounds=5 build=build
while (($#)); do
	case $1 in
	--policy) policy=$2; shift 2 ;;
	--n) n=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	*) echo "bench_fib: unknown argument $1" >&2; exit 2 ;;
	esac
done
h=$build/harness
[ -x "$h" ] || { echo "bench_fib: $h not built (run scripts/setup.sh)" >&2; exit 1; }

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

declare -A ns
base=()
c2c() { "$h" --probe-c2c 2>/dev/null | awk '{printf "%.0f", $2}'; }
c2c_before=$(c2c)
for ((r = 1; r <= rounds; r++)); do
	order="1 2"
	((r % 2 == 0)) && order="2 1"
	for w in $order; do
		out=$("$h" --policy="$policy" --workload=fib --param n="$n" --workers "$w" \
			--trials 3 --warmup 1 --no-json 2>/dev/null)
		ns[$w]+="$(awk '$1 == "median" {print $4}' <<<"$out") "
		base+=("$(awk '/^baseline median/ {print $3}' <<<"$out")")
	done
	echo "round $r/$rounds done" >&2
done
c2c_after=$(c2c)
m1=$(tr ' ' '\n' <<<"${ns[1]}" | grep . | median)
m2=$(tr ' ' '\n' <<<"${ns[2]}" | grep . | median)
mb=$(printf '%s\n' "${base[@]}" | median)
printf 'fib(%s) under %s, median of %s rounds (ns per task = makespan / task nodes)\n' \
	"$n" "$policy" "$rounds"
printf '  core-to-core round trip: %s ns before, %s ns after (2-worker figures depend on it)\n' \
	"${c2c_before:-?}" "${c2c_after:-?}"
printf '  sequential baseline  %8.2f ns/node\n' "$mb"
printf '  1 worker             %8.2f ns/task\n' "$m1"
printf '  2 workers            %8.2f ns/task  (speedup %.2fx over 1 worker)\n' "$m2" \
	"$(awk -v a="$m1" -v b="$m2" 'BEGIN {print a / b}')"
