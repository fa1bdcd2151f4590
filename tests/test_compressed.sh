#!/usr/bin/env bash
#
# test_compressed.sh - compact result files, compressed results read as they
# are, and command lines as a user types them.
#
#   test_compressed.sh HARNESS JSON_CHECK
#
# A result is written on one line by default and indented with
# --json-indent, the same document either way. A result gzip-compressed
# (NAME.json.gz, as results/reference stores them) is read as it is by
# json_check, the schema check (tests/validate_results.py), harnesslib,
# tables.py, plot.py and csv_summary.py, and gives the same figures as the
# plain file; a sweep counts it as its run's result when it resumes;
# reproduce.sh --check matches r.json.gz with r.json. A raw directory packed
# into one archive (scripts/resultpack.py: raw/ -> raw.tar.xz, as
# results/reference stores them) reads as the directory it stands for, packs
# to the same bytes twice and unpacks to what it held. The recorded command
# line names the program and paths under the working directory relative to
# it. Small sim runs only: nothing here depends on the clock.
set -u
testlib_name=test_compressed
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_compressed.sh HARNESS JSON_CHECK}
json_check=${2:?usage: test_compressed.sh HARNESS JSON_CHECK}
here=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
"$py" -c 'import matplotlib, jsonschema' 2>/dev/null || {
	[ "${CI:-}" = true ] && { echo "test_compressed: FAIL: $py lacks matplotlib or jsonschema" >&2; exit 1; }
	echo "test_compressed: skipped: $py lacks matplotlib or jsonschema"
	exit 77
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_compressed.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg MPLCONFIGDIR="$tmp/mpl"

# The program as a user at this directory reaches it: bin/harness.
mkdir -p bin sub "$MPLCONFIGDIR"
ln -s "$harness" bin/harness
sim=(--policy=volt --workload=fib --param n=14 --engine=sim --workers 2 --trials 2 --warmup 0 --quiet)

"$tmp/bin/harness" "${sim[@]}" --json "$tmp/sub/r.json" >out 2>err || fail "compact run: exit $?"
[ "$(wc -l <sub/r.json)" -eq 1 ] || fail "the default result is not one line: $(wc -l <sub/r.json) lines"
head -c 40 sub/r.json | grep -q '^{"schema":"harness-result",' || fail "the default result is not compact"
bin/harness "${sim[@]}" --json sub/i.json --json-indent >out 2>err || fail "--json-indent run: exit $?"
[ "$(wc -l <sub/i.json)" -gt 100 ] || fail "--json-indent wrote $(wc -l <sub/i.json) lines"
grep -q '^  "schema": "harness-result",$' sub/i.json || fail "--json-indent: not two spaces a level"
"$py" - sub/r.json sub/i.json <<'EOF' || fail "compact and indented results differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    del d["provenance"]
    d["config"].pop("json_indent", None)
assert a == b, "the two documents differ beyond provenance"
EOF
pass "results are compact by default, indented with --json-indent, the same document"

cl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["provenance"]["command_line"])' sub/r.json)
[ "$cl" = "bin/harness ${sim[*]} --json sub/r.json" ] || fail "command line recorded as: $cl"
bin/harness "${sim[@]}" --json="$tmp/sub/-d.json" >out 2>err || fail "--json=PATH run: exit $?"
cl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["provenance"]["command_line"])' sub/-d.json)
[[ $cl = "bin/harness "*" --json=sub/-d.json" ]] || fail "--json=PATH recorded as: $cl"
(cd sub && ../bin/harness "${sim[@]}" --json "$tmp/sub/e.json" >/dev/null 2>&1) || fail "run from sub/"
cl=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["provenance"]["command_line"])' sub/e.json)
[[ $cl = "../bin/harness "*" --json e.json" ]] || fail "run from sub/: recorded as: $cl"
pass "the command line names paths under the working directory relative to it"

# The same result, compressed, read by everything that reads results.
mkdir -p gz plain
cp sub/r.json plain/fib-volt-2w-sim.json
gzip -9nc sub/r.json >gz/fib-volt-2w-sim.json.gz
"$json_check" gz/fib-volt-2w-sim.json.gz >out 2>err || fail "json_check on a .json.gz"
"$py" "$here/tests/validate_results.py" "$here/docs/result.schema.json" gz >out 2>err ||
	fail "validate_results on a directory of .json.gz"
grep -q "1 valid" out || fail "validate_results did not find the .json.gz: $(cat out)"
"$py" - "$here/scripts" <<'EOF' || fail "harnesslib on a .json.gz"
import sys
sys.path.insert(0, sys.argv[1])
import harnesslib as hl
files = hl.find_result_files(["gz", "plain"])
assert files == ["gz/fib-volt-2w-sim.json.gz", "plain/fib-volt-2w-sim.json"], files
a, b = (hl.load(f) for f in files)
assert a.doc == b.doc
assert a.median("makespan_ns") == b.median("makespan_ns") > 0
assert hl.result_key(files[0]) == "gz/fib-volt-2w-sim.json"
# Told by its bytes, not its name: a compressed file named .json reads too.
import shutil
shutil.copy(files[0], "renamed.json")
assert hl.load("renamed.json").doc == b.doc
EOF
for d in gz plain; do
	"$py" "$here/scripts/tables.py" --metric all "$d" >"$d.md" 2>err || fail "tables.py on $d"
	"$py" "$here/scripts/csv_summary.py" "$d" >"$d.csv" 2>err || fail "csv_summary.py on $d"
done
cmp -s gz.md plain.md || fail "tables.py: the .json.gz gives another table than the .json"
# The CSV's first column is the file's path; the rest must agree.
cmp -s <(cut -d, -f2- gz.csv) <(cut -d, -f2- plain.csv) ||
	fail "csv_summary.py: the .json.gz gives other rows than the .json"
grep -q '^gz/fib-volt-2w-sim.json.gz,volt,' gz.csv || fail "csv_summary.py: no row for the .json.gz"
grep -q volt gz.md || fail "tables.py: no volt row from the .json.gz"
"$py" "$here/scripts/plot.py" throughput -o gz.png gz >out 2>err || fail "plot.py on a .json.gz"
[ -s gz.png ] || fail "plot.py wrote no figure from the .json.gz"
pass "json_check, the schema check, harnesslib, tables, CSV and plots read a .json.gz as it is"

# reproduce.sh --check matches NAME.json.gz with NAME.json.
mkdir -p new/1-x/raw ref/1-x/raw
cp gz/fib-volt-2w-sim.json.gz new/1-x/raw/
cp plain/fib-volt-2w-sim.json ref/1-x/raw/
(cd "$here" && scripts/reproduce.sh --check "$tmp/new" --against "$tmp/ref") >out 2>&1 ||
	fail "reproduce --check of a .json.gz against its .json: exit $?"
grep -q "sim 1 identical, 0 different" out || fail "reproduce --check did not compare the pair"
pass "reproduce.sh --check matches a compressed result with a plain one"

# A raw directory packed into one archive reads as that directory.
mkdir -p pk/raw/logs
cp plain/fib-volt-2w-sim.json pk/raw/
cp gz/fib-volt-2w-sim.json.gz pk/raw/fib-volt-2w-sim-b.json.gz
printf '# bin/harness --policy=volt\n' >pk/raw/logs/a.out
cp -r pk pk2
"$py" "$here/scripts/resultpack.py" pack pk/raw >out 2>&1 || fail "resultpack pack: $(cat out)"
[ -f pk/raw.tar.xz ] && [ ! -e pk/raw ] || fail "pack did not replace pk/raw with pk/raw.tar.xz"
"$py" "$here/scripts/resultpack.py" pack pk2/raw >out 2>&1 || fail "resultpack pack (again)"
cmp -s pk/raw.tar.xz pk2/raw.tar.xz || fail "the same directory packed to other bytes"
"$py" - "$here/scripts" <<'EOF' || fail "harnesslib on an archive"
import sys
sys.path.insert(0, sys.argv[1])
import harnesslib as hl
want = ["pk/raw.tar.xz/fib-volt-2w-sim-b.json", "pk/raw.tar.xz/fib-volt-2w-sim.json"]
for paths in (["pk"], ["pk/raw"], ["pk/raw/"], ["pk/raw.tar.xz"]):
    got = hl.find_result_files(paths)
    assert got == want, (paths, got)
assert hl.result_key(want[1]) == "pk/raw/fib-volt-2w-sim.json", hl.result_key(want[1])
# The names the results had before the directory was packed still read.
for old, new in (("pk/raw/fib-volt-2w-sim-b.json.gz", want[0]), ("pk/raw/fib-volt-2w-sim.json", want[1])):
    assert hl.find_result_files([old]) == [new], (old, hl.find_result_files([old]))
    assert hl.load(old).doc == hl.load(new).doc
plain = hl.load("plain/fib-volt-2w-sim.json").doc
assert [r.doc for r in hl.load_all(["pk/raw"])] == [plain, plain]
try:
    hl.read_json("pk/raw.tar.xz/none.json")
except OSError:
    pass
else:
    raise AssertionError("a missing member read")
EOF
mkdir -p two
cp plain/fib-volt-2w-sim.json two/
cp plain/fib-volt-2w-sim.json two/fib-volt-2w-sim-b.json
"$py" "$here/scripts/tables.py" --metric all pk/raw >pk.md 2>err || fail "tables.py on an archive"
"$py" "$here/scripts/tables.py" --metric all two >two.md 2>err || fail "tables.py on two/"
cmp -s pk.md two.md || fail "tables.py: the archive gives another table than the directory"
grep -q volt pk.md || fail "tables.py: no volt row from the archive"
"$py" "$here/scripts/plot.py" throughput -o pk.png pk >out 2>err || fail "plot.py on an archive"
[ -s pk.png ] || fail "plot.py wrote no figure from the archive"
"$py" "$here/tests/validate_results.py" "$here/docs/result.schema.json" pk >out 2>err ||
	fail "validate_results on an archive: $(cat out err)"
grep -q "2 valid" out || fail "validate_results did not find the archive's results: $(cat out)"
mkdir -p newpk/1-x
cp two/*.json ref/1-x/raw/
cp pk/raw.tar.xz newpk/1-x/
(cd "$here" && scripts/reproduce.sh --check "$tmp/newpk" --against "$tmp/ref") >out 2>&1 ||
	fail "reproduce --check of an archive against a directory: exit $? $(cat out)"
grep -q "sim 2 identical, 0 different" out || fail "reproduce --check did not match the archive: $(cat out)"
"$py" "$here/scripts/resultpack.py" cat pk/raw.tar.xz fib-volt-2w-sim.json >cat.json 2>err ||
	fail "resultpack cat"
cmp -s cat.json plain/fib-volt-2w-sim.json || fail "resultpack cat gave other bytes than the packed file"
"$py" "$here/scripts/resultpack.py" unpack pk/raw.tar.xz >out 2>&1 || fail "resultpack unpack: $(cat out)"
[ ! -e pk/raw.tar.xz ] || fail "unpack left the archive"
[ "$(cat pk/raw/logs/a.out)" = "# bin/harness --policy=volt" ] || fail "unpack: the log came out changed"
cmp -s <(gzip -dc pk/raw/fib-volt-2w-sim.json.gz) plain/fib-volt-2w-sim.json ||
	fail "unpack: the result came out changed"
"$py" "$here/scripts/resultpack.py" pack pk/raw >out 2>&1 || fail "pack after unpack: $(cat out)"
cmp -s pk/raw.tar.xz pk2/raw.tar.xz || fail "unpack then pack gave other bytes"
pass "a packed raw directory (raw.tar.xz) reads as raw/ everywhere, packs reproducibly, unpacks whole"

# A sweep counts NAME.json.gz as its run's result: a resumed sweep runs nothing.
cat >grid.json <<'EOF'
{"name": "gz", "policies": "volt", "workloads": "fib", "engines": "sim", "workers": 2,
 "params": {"n": 10}, "options": {"trials": 1, "warmup": 0}}
EOF
"$py" "$here/scripts/sweep.py" run grid.json -j 2 --out sw --harness "$tmp/bin/harness" >out 2>&1 ||
	fail "sweep run: exit $?"
n=$(find sw -maxdepth 1 -name '*.json' | wc -l)
[ "$n" -eq 1 ] || fail "the sweep wrote $n results"
gzip -9n sw/*.json
"$py" "$here/scripts/sweep.py" run grid.json --out sw --harness "$tmp/bin/harness" >out 2>&1 ||
	fail "resumed sweep: exit $?"
grep -q "1 runs, 1 exist, 0 to run" out || fail "the resumed sweep did not count the .json.gz"
[ -z "$(find sw -maxdepth 1 -name '*.json')" ] || fail "the resumed sweep ran the run again"
grep -q "^bin/harness .* --json sw/" sw/commands.sh ||
	fail "sweep commands.sh: not as typed at the repository root: $(tail -1 sw/commands.sh)"
head -qn1 sw/logs/*.out | grep -q "^# bin/harness .* --json sw/" ||
	fail "sweep log: the command not as typed: $(head -qn1 sw/logs/*.out)"
# (The parallel backend's own bookkeeping names it; reproduce.sh removes that.)
! grep -rqF --exclude=parallel.joblog --exclude=pending.cmds "$tmp" sw ||
	fail "the sweep's files name this machine's path $tmp: $(grep -rlF --exclude=parallel.joblog --exclude=pending.cmds "$tmp" sw)"
pass "a sweep resumes over compressed results; its commands.sh is as a user types it"

testlib_done
