#!/usr/bin/env bash
# test.sh - install what is missing, then build and run the whole test suite
# four ways: gcc Release, clang Release (both -Werror), gcc with
# AddressSanitizer + UndefinedBehaviorSanitizer, and gcc with
# ThreadSanitizer (the tests of the Python scripts and sweeps run in the
# first only). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build

run_suite() {	# name build-dir ctest-args -- cmake-args...
	local name=$1 dir=$2 filter=$3
	shift 3
	echo "== $name" >&2
	cmake -S . -B "$dir" "$@" >/dev/null
	cmake --build "$dir" -j "$(nproc)" >/dev/null
	(cd "$dir" && ctest --output-on-failure $filter)
}

# The scripts' and sweeps' tests exercise Python and the harness as a
# program: once, on the release build, is enough.
c_only='-E ^(scripts_.*|sweep_.*)$'

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

run_suite "gcc release" build "" -DCMAKE_BUILD_TYPE=Release
run_suite "clang release" build-clang "$c_only" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang
run_suite "asan+ubsan" build-asan "$c_only" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DHARNESS_SANITIZE=address,undefined
run_suite "tsan" build-tsan "$c_only" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHARNESS_SANITIZE=thread
echo "test: all four suites passed" >&2
