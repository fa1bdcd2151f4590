# testlib.sh - the counting and reporting every shell test shares.
#
#   testlib_name=test_x; . "$(dirname "$0")/testlib.sh"
#
# pass MESSAGE counts a check and prints "ok: MESSAGE". fail MESSAGE counts
# a failed check, prints it on stderr with the first lines of $tmp/out and
# $tmp/err (when the test keeps its last command's output there), then
# ends the test with "NAME: N passed, N failed" and status 1. With
# testlib_keep_going=1 set before sourcing, fail only counts and prints,
# and the test ends with testlib_done, whose status says whether any
# check failed.

passed=0
failed=0

pass() {
	passed=$((passed + 1))
	echo "ok: $*"
}

fail() {
	failed=$((failed + 1))
	echo "FAIL: $*" >&2
	[ "${testlib_keep_going:-0}" = 1 ] && return 0
	local f
	for f in out err; do
		[ -s "${tmp:-/nonexistent}/$f" ] && { echo "--- std$f:" >&2; head -n 30 "$tmp/$f" >&2; }
	done
	echo "$testlib_name: $passed passed, $failed failed"
	exit 1
}

testlib_done() {
	echo "$testlib_name: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
