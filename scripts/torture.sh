#!/usr/bin/env bash
# torture.sh - randomized runs of every policy x workload x worker count x
# knob x seed with the watchdog on, on one or more build trees (Release and
# sanitizer builds), until a time or task budget is spent. Prints the tasks
# executed, the runs, the runs a policy's check refused (exit 2: a knob value
# it cannot run, e.g. rayon's wake_on_post=0 without a park timeout) and
# every failure with the command that reproduces it. Not part of the test
# suite.
#
#   scripts/torture.sh [--time SEC] [--tasks N] [--seed S] [--log FILE] [BUILD_DIR...]
#
#   --time SEC   stop starting runs after SEC seconds (default 600)
#   --tasks N    stop once N tasks have run (default: no limit)
#   --seed S     seed of the choices (default: the time)
#   --log FILE   append every failure's command and output to FILE
#   BUILD_DIR    build trees holding harness (default: build); a tree whose
#                CMakeCache.txt sets HARNESS_SANITIZE gets smaller runs
#
# Exit status: 0 if no run failed, 1 otherwise, 2 on bad usage.
set -uo pipefail
cd "$(dirname "$0")/.."

time_limit=600
task_limit=0
seed=$(date +%s)
log=/dev/null
builds=()
while (($#)); do
	case "$1" in
	--time) time_limit=${2:?}; shift 2 ;;
	--tasks) task_limit=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--log) log=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,20p' "$0"; exit 0 ;;
	-*) echo "torture: unknown option $1" >&2; exit 2 ;;
	*) builds+=("$1"); shift ;;
	esac
done
((${#builds[@]})) || builds=(build)
for v in "$time_limit" "$task_limit" "$seed"; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "torture: not a non-negative integer: $v" >&2; exit 2; }
done
for b in "${builds[@]}"; do
	[ -x "$b/harness" ] || { echo "torture: no harness in $b (build it first)" >&2; exit 2; }
done

RANDOM=$((seed % 32768))
pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }

# Policies (not the test-only ones) and their knob ranges, from --list.
list=$("${builds[0]}/harness" --list 2>&1)
mapfile -t policies < <(awk '/^policies/ {p = 1; next} /^real-only|^workloads/ {p = 0}
	p && /^  [^ ]/ && !/\[kept for tests/ {print $1}' <<<"$list")
knobs_of() {
	awk -v pol="$1" '/^  [^ ]/ {cur = $1} /^    [^ ]/ && cur == pol {print $1, $2, $3, $4}' <<<"$list"
}
# A value for a knob: its minimum, maximum, default or a random one between.
knob_value() {
	local def=$1 range=$2
	if [[ $range =~ ^([0-9]+)\.\.([0-9]+)$ ]]; then
		local lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
		case $((RANDOM % 5)) in
		0) echo "$lo" ;;
		1) echo "$hi" ;;
		2) echo "$def" ;;
		*) local span=$((hi - lo < 1000 ? hi - lo + 1 : 1000)); echo $((lo + RANDOM % span)) ;;
		esac
	else
		# [lo, hi] (real): the bounds, or a fraction of the default.
		range=${range#[}
		local lo=${range%,}
		case $((RANDOM % 3)) in
		0) echo "$lo" ;;
		1) echo "$def" ;;
		*) awk -v d="$def" -v r=$RANDOM 'BEGIN {printf "%g\n", d * (0.1 + r / 16384.0)}' ;;
		esac
	fi
}

workload_args() {	# $1: small (sanitizer build) or not
	local small=$1
	# Half the runs are fib, the densest in tasks (fib(31): 4.3 M).
	((RANDOM % 2)) && { echo "--workload=fib --param n=$(( (small ? 14 : 24) + RANDOM % 8 ))"; return; }
	case $(pick fib nqueens uts sort spawn-many chained-spawn yield-many ping-pong open-loop imbalanced) in
	fib) echo "--workload=fib --param n=$(( (small ? 12 : 18) + RANDOM % 8 ))" ;;
	nqueens) echo "--workload=nqueens --param n=$(( (small ? 6 : 8) + RANDOM % 3 ))" ;;
	uts) echo "--workload=uts --param preset=$(pick 1 2)" ;;
	sort) echo "--workload=sort --param n=$(( small ? 20000 : 1000000 ))" ;;
	spawn-many) echo "--workload=spawn-many --param n=$(( small ? 2000 : 100000 )) --param from=$((RANDOM % 2))" ;;
	chained-spawn) echo "--workload=chained-spawn --param n=$(( small ? 2000 : 100000 ))" ;;
	yield-many) echo "--workload=yield-many" ;;
	ping-pong) echo "--workload=ping-pong" ;;
	open-loop)
		echo "--workload=open-loop --param requests=$(( small ? 500 : 5000 )) --param load=0.$((1 + RANDOM % 9))" \
			"--param service_us=$((1 + RANDOM % 50)) --param io_us=$(pick 0 0 20)" ;;
	imbalanced) echo "--workload=imbalanced --param t0_ms=5 --param t1_ms=5 --param t2_ms=10 --param t3_ms=17" ;;
	esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'echo "torture: interrupted" >&2; stop=1' INT TERM
stop=0
start=$(date +%s)
runs=0 refused=0 failures=0 tasks=0
declare -A build_tasks build_runs

while ((!stop)); do
	now=$(date +%s)
	((now - start >= time_limit)) && break
	((task_limit && tasks >= task_limit)) && break
	b=$(pick "${builds[@]}")
	small=0
	grep -qE '^HARNESS_SANITIZE:[A-Z]*=[a-z]' "$b/CMakeCache.txt" 2>/dev/null && small=1
	pol=$(pick "${policies[@]}")
	workers=$(pick 1 2 2 3 4 4 8 16 $((small ? 8 : 64)) $((small ? 4 : 256)))
	args=(--policy="$pol" $(workload_args $small) --workers "$workers"
		--watchdog 20 --seed $((RANDOM * 32768 + RANDOM)))
	if ((RANDOM % 2)); then
		mapfile -t ks < <(knobs_of "$pol")
		if ((${#ks[@]})); then
			read -r kname kdef krange _ <<<"$(pick "${ks[@]}")"
			args+=(--set "$kname=$(knob_value "$kdef" "$krange")")
		fi
	fi
	# An explored run writes no result and takes no --trials, --warmup or
	# --no-baseline (it has none).
	if ((RANDOM % 5 == 0)); then
		args+=(--engine=sim --explore-seed $((1 + RANDOM)))
	else
		args+=(--trials 1 --warmup 0 --no-baseline --json "$tmp/r.json")
	fi
	cmd="$b/harness ${args[*]}"
	rm -f "$tmp/r.json"
	nice timeout 600 "$b/harness" "${args[@]}" >"$tmp/out" 2>&1
	rc=$?
	runs=$((runs + 1))
	build_runs[$b]=$((${build_runs[$b]:-0} + 1))
	if ((rc == 2)); then
		refused=$((refused + 1))
		continue
	fi
	if ((rc != 0)); then
		failures=$((failures + 1))
		echo "FAIL (exit $rc): $cmd"
		{ echo "=== exit $rc: $cmd"; tail -40 "$tmp/out"; } >>"$log"
		continue
	fi
	if [ -s "$tmp/r.json" ]; then
		n=$(/usr/bin/python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(sum(int(t.get("tasks", 0)) for t in d.get("trials", [])))' "$tmp/r.json" 2>/dev/null || echo 0)
	else
		n=0	# --explore-seed writes no result file
		m=$(grep -oE '[0-9]+ tasks' "$tmp/out" | head -1 | cut -d' ' -f1)
		[ -n "$m" ] && n=$m
	fi
	tasks=$((tasks + n))
	build_tasks[$b]=$((${build_tasks[$b]:-0} + n))
	if ((runs % 50 == 0)); then
		echo "torture: $runs runs, $tasks tasks, $failures failures, $(( $(date +%s) - start )) s" >&2
	fi
done

echo "torture: seed $seed, $(( $(date +%s) - start )) s"
for b in "${builds[@]}"; do
	echo "  $b: ${build_runs[$b]:-0} runs, ${build_tasks[$b]:-0} tasks"
done
echo "  total: $runs runs ($refused refused by a policy's check), $tasks tasks executed, $failures failures"
((failures == 0))
