#!/usr/bin/env bash
#
# test_install.sh - `cmake --install` into a temporary prefix, and the
# command-line conventions of the installed binary.
#
#   test_install.sh CMAKE BUILD_DIR
#
# The prefix must hold bin/harness, the man page (written from the text of
# --help: every option is in it) and the scripts. The installed binary
# must answer --version with the git revision and -h with the usage, run
# with --quiet printing nothing, and write its result under ./results of
# the working directory.

set -u
testlib_name=test_install testlib_keep_going=1
. "$(dirname "$0")/testlib.sh"

cmake=${1:?usage: test_install.sh CMAKE BUILD_DIR}
build=${2:?usage: test_install.sh CMAKE BUILD_DIR}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT


prefix=$tmp/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "cmake --install: exit status $?"; }
h=$prefix/bin/harness
[ -x "$h" ] && pass "bin/harness installed" || fail "no executable $h"

man=$(find "$prefix" -name harness.1 -type f | head -n 1)
if [ -n "$man" ] && grep -q '^\.TH HARNESS 1' "$man"; then
	missing=""
	for opt in $("$h" --help 2>/dev/null | sed -n 's/^  --\([a-z0-9-]*\).*/\1/p'); do
		grep -qF -- "\\-\\-${opt//-/\\-}" "$man" || missing="$missing --$opt"
	done
	n=$("$h" --help 2>/dev/null | grep -c '^  --')
	[ -z "$missing" ] && [ "$n" -ge 20 ] && pass "man page has all $n options of --help" ||
		fail "man page lacks:$missing ($n options in --help)"
else
	fail "no man page harness.1 under $prefix"
fi

for s in plot.py tables.py sweep.py harnesslib.py report.py; do
	[ -f "$prefix/share/harness/scripts/$s" ] || fail "script $s not installed"
done
[ -x "$prefix/share/harness/scripts/sweep.py" ] && pass "scripts installed" ||
	fail "sweep.py not installed executable"

cd "$tmp" || exit 1
"$h" --version >out 2>err || fail "--version: exit status $?"
grep -Eq '^harness [0-9]+\.[0-9]+ \(git ([0-9a-f]{40}(-dirty)?|unknown), ' out &&
	pass "--version: $(cat out)" || fail "--version printed '$(cat out)'"
if [ -d "$(dirname "$build")/.git" ] || git -C "$build" rev-parse >/dev/null 2>&1; then
	grep -q 'git unknown' out && fail "--version: no git revision in a git checkout"
fi

"$h" -h >out 2>err || fail "-h: exit status $?"
"$h" --help >help 2>err
grep -q '^usage: harness' out && cmp -s out help && pass "-h is --help" ||
	fail "-h output differs from --help"

mkdir run && cd run || exit 1
"$h" --policy=volt --workload=fib --param n=16 --workers 2 --trials 1 --warmup 0 --quiet \
	>../out 2>../err
status=$?
cd "$tmp" || exit 1
[ "$status" -eq 0 ] || fail "--quiet run: exit status $status"
[ -s out ] && fail "--quiet printed on stdout: $(head -n 2 out)"
[ -s err ] && fail "--quiet printed on stderr: $(head -n 2 err)"
ls run/results/fib-volt-2w-*.json >/dev/null 2>&1 &&
	pass "--quiet: silent, result under ./results of the working directory" ||
	fail "no result under ./results of the working directory: $(ls -R run)"

echo "test_install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
