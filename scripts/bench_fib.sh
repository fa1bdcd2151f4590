#!/usr/bin/env bash
# bench_fib.sh - ns per task for fib(N) (default 30) under a policy at 1 and
# 2 workers, next to the sequential baseline: ROUNDS rounds (default 5), each
# running the 1-worker and the 2-worker configuration once in alternating
# order, so both see the same machine; medians over the rounds. A benchmark,
# not a test: it prints, and exits non-zero only if a run fails.
#
#   scripts/bench_fib.sh [--policy volt] [--n 30] [--rounds 5] [--build build]
#                        [--compare OLD_BUILD]
#
#   --compare OLD_BUILD  also run OLD_BUILD's harness (a build of another
#                        commit) in every round, alternating with this build,
#                        and print both with their ratios: on a shared
#                        machine only figures taken side by side compare
set -euo pipefail
cd "$(dirname "$0")/.."
policy=volt n=30 rounds=5 build=build compare=""
while (($#)); do
	case $1 in
	--policy) policy=$2; shift 2 ;;
	--n) n=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--compare) compare=$2; shift 2 ;;
	*) echo "bench_fib: unknown argument $1" >&2; exit 2 ;;
	esac
done
builds=("$build")
[ -n "$compare" ] && builds=("$compare" "$build")
for b in "${builds[@]}"; do
	[ -x "$b/harness" ] || { echo "bench_fib: $b/harness not built (run scripts/setup.sh)" >&2; exit 1; }
done

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# ns[build index, workers]: one figure per round; base[build index] likewise.
declare -A ns base
c2c() { "${builds[-1]}/harness" --probe-c2c 2>/dev/null | awk '{printf "%.0f", $2}'; }
c2c_before=$(c2c)
for ((r = 1; r <= rounds; r++)); do
	# Alternate the order of workers and of builds from round to round.
	order="1 2"
	((r % 2 == 0)) && order="2 1"
	bi=$(seq 0 $((${#builds[@]} - 1)))
	((r % 2 == 0)) && bi=$(seq $((${#builds[@]} - 1)) -1 0)
	for w in $order; do
		for i in $bi; do
			out=$("${builds[$i]}/harness" --policy="$policy" --workload=fib --param n="$n" \
				--workers "$w" --trials 3 --warmup 1 --no-json 2>/dev/null)
			ns[$i,$w]+="$(awk '$1 == "median" {print $4}' <<<"$out") "
			base[$i]+="$(awk '/^baseline median/ {print $3}' <<<"$out") "
		done
	done
	echo "round $r/$rounds done" >&2
done
c2c_after=$(c2c)
med() { tr ' ' '\n' <<<"$1" | grep . | median; }

printf 'fib(%s) under %s, median of %s rounds (ns per task = makespan / task nodes)\n' \
	"$n" "$policy" "$rounds"
printf '  core-to-core round trip: %s ns before, %s ns after (2-worker figures depend on it)\n' \
	"${c2c_before:-?}" "${c2c_after:-?}"
if [ -z "$compare" ]; then
	m1=$(med "${ns[0,1]}") m2=$(med "${ns[0,2]}") mb=$(med "${base[0]}")
	printf '  sequential baseline  %8.2f ns/node\n' "$mb"
	printf '  1 worker             %8.2f ns/task\n' "$m1"
	printf '  2 workers            %8.2f ns/task  (speedup %.2fx over 1 worker)\n' "$m2" \
		"$(awk -v a="$m1" -v b="$m2" 'BEGIN {print a / b}')"
	exit 0
fi
printf '  %-20s %12s %12s %8s\n' "" "before" "after" "after/before"
printf '    (before: %s, after: %s)\n' "$compare" "$build"
row() {
	local label=$1 o=$2 a=$3
	printf '  %-20s %12.2f %12.2f %8.2f\n' "$label" "$o" "$a" \
		"$(awk -v o="$o" -v a="$a" 'BEGIN {print a / o}')"
}
row "sequential ns/node" "$(med "${base[0]}")" "$(med "${base[1]}")"
row "1 worker ns/task" "$(med "${ns[0,1]}")" "$(med "${ns[1,1]}")"
row "2 workers ns/task" "$(med "${ns[0,2]}")" "$(med "${ns[1,2]}")"
for i in 0 1; do
	label=before
	((i == 1)) && label=after
	printf '  %-6s 1 worker / sequential %.2f, 2 workers / sequential %.2f\n' "$label" \
		"$(awk -v a="$(med "${ns[$i,1]}")" -v b="$(med "${base[$i]}")" 'BEGIN {print a / b}')" \
		"$(awk -v a="$(med "${ns[$i,2]}")" -v b="$(med "${base[$i]}")" 'BEGIN {print a / b}')"
done
