#!/usr/bin/env bash
# test.sh - install what is missing, then build and run the whole test suite
# four ways: gcc Release, clang Release (both -Werror), gcc with
# AddressSanitizer + UndefinedBehaviorSanitizer, and gcc with
# ThreadSanitizer (the tests of the Python scripts and sweeps run in the
# first only).
#
# Every suite runs, whatever the ones before it did. At the end each failure
# is named (suite and test, or a suite that did not build), and the last
# line, alone, is "N passed, N failed" over the tests of all four suites (a
# suite that does not build counts as one failure; a test ctest skipped
# counts as neither). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tests at a time within a suite: one per CPU (TEST_JOBS overrides; 1 runs
# them one by one, in ctest's order). Checked before any work starts.
jobs=${TEST_JOBS:-$(nproc)}
case $jobs in
'' | *[!0-9]* | 0*) echo "test: TEST_JOBS must be a positive integer, not '$jobs'" >&2; exit 2 ;;
esac
scripts/setup.sh build

passed=0
failed=0
failures=()	# "suite: test (how)"
notes=()	# per-suite lines for the report

# record_failure SUITE WHAT: one failure, named.
record_failure() {
	failures+=("$1: $2")
	failed=$((failed + 1))
}

# tally SUITE LOG: count the tests of a ctest run from its summary and name
# its failed tests. ctest ends with "P% tests passed, F tests failed out of
# T", then "The following tests did not run:" (skipped) and "The following
# tests FAILED:" blocks of "NUM - NAME (HOW)" lines; only the text after the
# summary line is read, so no test's own output can pass for it.
tally() {
	local suite=$1 log=$2 line total nfail skipped=0 block= name
	line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
	if [ -z "$line" ]; then
		record_failure "$suite" "ctest printed no summary"
		notes+=("$suite: no summary from ctest")
		return
	fi
	nfail=$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
	total=$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
	local listed=0
	while IFS= read -r l; do
		case "$l" in
		'The following tests did not run:'*) block=skip ;;
		'The following tests FAILED:'*) block=fail ;;
		*)
			if [[ "$l" =~ ^[[:space:]]+[0-9]+\ -\ (.*)$ ]]; then
				name=${BASH_REMATCH[1]}
				if [ "$block" = fail ]; then
					record_failure "$suite" "$name"
					listed=$((listed + 1))
				elif [ "$block" = skip ]; then
					skipped=$((skipped + 1))
				fi
			else
				block=
			fi
			;;
		esac
	done < <(sed -n "/^[0-9]*% tests passed, /,\$p" "$log")
	# A failure ctest counted but did not list still counts.
	while [ "$listed" -lt "$nfail" ]; do
		record_failure "$suite" "a test ctest did not name"
		listed=$((listed + 1))
	done
	passed=$((passed + total - nfail - skipped))
	notes+=("$suite: $((total - nfail - skipped)) passed, $nfail failed, $skipped skipped")
}

run_suite() {	# name build-dir ctest-args -- cmake-args...
	local name=$1 dir=$2 filter=$3
	shift 3
	echo "== $name" >&2
	if ! cmake -S . -B "$dir" "$@" >/dev/null || ! cmake --build "$dir" -j "$(nproc)" >/dev/null; then
		record_failure "$name" "build failed, no test run"
		notes+=("$name: build failed")
		return
	fi
	local log="$dir/test-suite.log"
	# ctest's own status is read from its summary in the log (tally).
	# The tests run $jobs at a time: no test depends on timing or on
	# another's files (each works in its own temporary directory), and
	# most of a suite's time is spent waiting (process start-up, the
	# sweeps' and the calibration's sleeps), which another test fills.
	(cd "$dir" && ctest --output-on-failure -j "$jobs" $filter) 2>&1 | tee "$log" || true
	tally "$name" "$log"
}

# The scripts' and sweeps' tests exercise Python and the harness as a
# program: once, on the release build, is enough; the Promela model's
# checks (volt_model_*) run spin on the model, not on any build.
c_only='-E ^(scripts_.*|sweep_.*|volt_model_.*)$'

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

run_suite "gcc release" build "" -DCMAKE_BUILD_TYPE=Release
run_suite "clang release" build-clang "$c_only" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang
run_suite "asan+ubsan" build-asan "$c_only" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DHARNESS_SANITIZE=address,undefined
run_suite "tsan" build-tsan "$c_only" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHARNESS_SANITIZE=thread

echo
echo "test: suites:"
for n in "${notes[@]}"; do
	echo "  $n"
done
if ((${#failures[@]})); then
	echo "test: failures:"
	for f in "${failures[@]}"; do
		echo "  $f"
	done
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
