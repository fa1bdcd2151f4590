#!/usr/bin/env bash
#
# with_results.sh - run one test and validate every result it made.
#
#   with_results.sh DIR SCHEMA -- COMMAND ARGS...
#
# Empties DIR, runs COMMAND with HARNESS_TEST_RESULTS=DIR, under which the
# harness writes a copy of every result document it writes (harness/main.c,
# copy_for_tests): to a file, to stdout, into a sweep's directory, from the
# build tree or an installed copy. When COMMAND passes, every copy is checked
# against SCHEMA (docs/result.schema.json) with the standard validator
# (tests/validate_results.py, python3-jsonschema); the test then fails on an
# invalid result, on none at all (a test wrapped here makes results, so an
# empty DIR means the copies stopped), and without python3-jsonschema. A
# failed or skipped (77) COMMAND keeps its own status. DIR stays behind for a
# look at what the test wrote.

set -u
[ $# -ge 4 ] && [ "$3" = -- ] ||
	{ echo "usage: with_results.sh DIR SCHEMA -- COMMAND ARGS..." >&2; exit 2; }
dir=$1
schema=$2
shift 3
validate=$(cd "$(dirname "$0")" && pwd)/validate_results.py

rm -rf "$dir" && mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)
HARNESS_TEST_RESULTS=$dir "$@"
status=$?
[ "$status" -eq 0 ] || exit "$status"

/usr/bin/python3 "$validate" "$schema" "$dir" >"$dir.check" 2>&1
vstatus=$?
case $vstatus in
0) echo "with_results: $(tail -n 1 "$dir.check") against $(basename "$schema")"
   exit 0 ;;
77) echo "with_results: FAIL: /usr/bin/python3 with python3-jsonschema is needed to" \
	"validate this test's results (scripts/setup.sh installs it)" >&2 ;;
*) echo "with_results: FAIL: results of this test in $dir:" >&2
   head -n 30 "$dir.check" >&2 ;;
esac
exit 1
