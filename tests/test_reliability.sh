#!/usr/bin/env bash
#
# test_reliability.sh - the tables of docs/reliability.md, run.
#
#   test_reliability.sh HARNESS DOC [CASE...]
#
# The bad-input table is read from DOC and run row by row: exit status,
# the one line on stderr, nothing on stdout, no file created or changed.
# The named cases check outputs that are not plain files and runs that are
# interrupted or fail. With CASE arguments only those cases run: a case's
# name, "table" (the whole table), "table-a" to "table-d" (a quarter of
# its rows each), "outputs" (the cases of outputs that are not plain files, in two
# halves outputs-a and outputs-b) or "runs" (interrupted and failed runs,
# runs-a and runs-b); ctest runs the eight parts as separate tests, each
# well inside the time limit under the sanitizers on a loaded machine.
# Everything happens in a temporary directory.

set -u
testlib_name=test_reliability testlib_keep_going=1
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_reliability.sh HARNESS DOC [CASE...]}
doc=${2:?usage: test_reliability.sh HARNESS DOC [CASE...]}
shift 2
only=("$@")
[ -x "$harness" ] || { echo "test_reliability: $harness is not executable" >&2; exit 1; }
[ -r "$doc" ] || { echo "test_reliability: cannot read $doc" >&2; exit 1; }
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")
doc=$(cd "$(dirname "$doc")" && pwd)/$(basename "$doc")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_reliability.XXXXXX") || exit 1
children=()
cleanup() {
	for p in "${children[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -c 0	# SIGQUIT and SIGABRT would dump core into the directory under test

declare -A group=(
	[outputs-a]="stdout dev-stdout symlink fifo dev-null"
	[outputs-b]="tmp-names several names"
	[runs-a]="sigint sigterm sighup sigquit sigabrt"
	[runs-b]="watchdog wrong-answer calibrate-sigint calibrate-sigterm"
)
group[outputs]="${group[outputs-a]} ${group[outputs-b]}"
group[runs]="${group[runs-a]} ${group[runs-b]}"
wanted() {
	[ ${#only[@]} -eq 0 ] && return 0
	local c
	for c in "${only[@]}"; do
		[ "$c" = "$1" ] && return 0
		[[ " ${group[$c]:-} " == *" $1 "* ]] && return 0
	done
	return 1
}

# Every node under a directory: name, type, inode, size, mtime, link
# target, and the contents of regular files.
snapshot() {
	(cd "$1" && find . -printf '%p %y %i %s %T@ %l\n' | sort &&
		find . -type f -exec md5sum {} + | sort)
}

# ---- the bad-input table ------------------------------------------------

RUN="--policy=volt --workload=fib --param n=18"
SIM="$RUN --engine=sim"

make_fixtures() {
	local box=$1
	mkdir -p "$box/dir"
	echo file >"$box/file"
	echo target >"$box/target"
	ln -s target "$box/link"
	mkfifo "$box/fifo"
	: >"$box/empty"
	printf 'poll = 1\n\0\n' >"$box/nul"
	echo 'poll = -1' >"$box/neg"
	echo 'poll = 18446744073709551616' >"$box/overflow"
	echo 'poll = 10000001' >"$box/huge"
	{ printf '# %0300d\n' 0; echo 'poll = 1'; echo 'bogus line'; } >"$box/long"
	echo 'nosuch = 3' >"$box/unknown"
	printf 'poll = 1\npoll = 2\n' >"$box/twice"
	printf '# only a comment\n\n' >"$box/nocost"
}

# run_table PART: every row (all), or one quarter of them (a: rows 1, 5,
# 9, ...; b: 2, 6, ...; c; d).
run_table() {
	local part=$1 box=$tmp/table rows=0 n=0
	make_fixtures "$box"
	local before
	before=$(snapshot "$box")
	while IFS=$'\t' read -r what args status msg; do
		n=$((n + 1))
		if [ "$part" != all ]; then
			local parts=abcd
			[ "$part" = "${parts:$(((n - 1) % 4)):1}" ] || continue
		fi
		rows=$((rows + 1))
		args=${args//SIM/$SIM}
		args=${args//RUN/$RUN}
		local argv
		eval "argv=($args)"
		(cd "$box" && timeout 60 "$harness" "${argv[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null)
		local got=$?
		# Read by the shell, not by head and grep: a process costs
		# milliseconds of system time on a virtual machine, and the
		# table has a hundred rows.
		local errs line lines
		mapfile -t errs <"$tmp/err"
		line=${errs[0]-}
		lines=${#errs[@]}
		if [ "$got" != "$status" ]; then
			fail "$what: exit status $got, expected $status ($(cat "$tmp/err"))"
		elif [ "$lines" -ne 1 ]; then
			fail "$what: $lines lines on stderr, expected 1"
		elif [ -s "$tmp/out" ]; then
			fail "$what: wrote to stdout: $(head -c 200 "$tmp/out")"
		elif [ "${msg%...}" != "$msg" ] && [ "${line#"harness: ${msg%...}"}" = "$line" ]; then
			fail "$what: stderr '$line' does not start with 'harness: ${msg%...}'"
		elif [ "${msg%...}" = "$msg" ] && [ "$line" != "harness: $msg" ]; then
			fail "$what: stderr '$line', expected 'harness: $msg'"
		elif [ "$(snapshot "$box")" != "$before" ]; then
			fail "$what: the directory changed: $(diff <(echo "$before") <(snapshot "$box") | head -n 4)"
			rm -rf "$box" && make_fixtures "$box" && before=$(snapshot "$box")
		else
			pass "$what"
		fi
	done < <(awk '
		/<!-- reliability table: begin -->/ { on = 1; next }
		/<!-- reliability table: end -->/ { on = 0 }
		on && /^\| / && !/^\|---/ && !/^\| bad input \|/ {
			sub(/^\| /, ""); sub(/ \|$/, "")
			n = split($0, f, / \| /)
			if (n != 4) { print "bad row: " $0 > "/dev/stderr"; exit 1 }
			gsub(/^`|`$/, "", f[2]); gsub(/^`|`$/, "", f[4])
			print f[1] "\t" f[2] "\t" f[3] "\t" f[4]
		}' "$doc")
	[ "$n" -ge 50 ] || fail "the table in $doc has $n rows, expected at least 50"
	[ "$rows" -ge 12 ] || fail "ran $rows rows of the table, expected at least 12"
	[ -c /dev/null ] || fail "/dev/null is no longer a character device"
}

if wanted table; then
	run_table all
else
	for part in a b c d; do
		wanted "table-$part" && run_table "$part"
	done
fi

# ---- outputs that are not plain files ----------------------------------

small=(--policy=volt --workload=fib --param n=16 --workers 2 --trials 1 --warmup 0)

box() {
	rm -rf "$tmp/box" && mkdir "$tmp/box" && cd "$tmp/box" || exit 1
}

if wanted stdout; then
	box
	"$harness" "${small[@]}" --json - 2>"$tmp/err" >"$tmp/out" || fail "stdout: exit status $?"
	if /usr/bin/python3 -m json.tool "$tmp/out" >/dev/null 2>&1 &&
		grep -q '"schema": *"harness-result"' "$tmp/out" && grep -q '^median' "$tmp/err"; then
		"$harness" "${small[@]}" --json - 2>/dev/null | /usr/bin/python3 -m json.tool >/dev/null ||
			fail "stdout: harness --json - | python3 -m json.tool failed"
		[ -z "$(ls -A)" ] && pass "stdout: --json - | python3 -m json.tool" ||
			fail "stdout: created $(ls -A)"
	else
		fail "stdout: stdout is not one JSON document, or the summary is not on stderr"
	fi
fi

if wanted dev-stdout; then
	box
	"$harness" "${small[@]}" --json /dev/stdout 2>"$tmp/err" | cat >"$tmp/out"
	/usr/bin/python3 -m json.tool "$tmp/out" >/dev/null 2>&1 && [ -z "$(ls -A)" ] &&
		pass "dev-stdout: --json /dev/stdout into a pipe" ||
		fail "dev-stdout: the pipe does not carry one JSON document"
fi

if wanted symlink; then
	box
	echo old >target
	ln -s target link
	"$harness" "${small[@]}" --json link >"$tmp/out" 2>"$tmp/err" || fail "symlink: exit status $?"
	if [ -L link ] && [ "$(readlink link)" = target ] && [ "$(ls -A | tr '\n' ' ')" = "link target " ] &&
		/usr/bin/python3 -m json.tool target >/dev/null 2>&1; then
		pass "symlink: the link's target replaced, the link kept"
	else
		fail "symlink: link replaced or target not written: $(ls -la)"
	fi
fi

if wanted fifo; then
	box
	mkfifo fifo
	timeout 60 cat fifo >"$tmp/fifo.out" &	# no writer ever (the FIFO replaced): give up
	reader=$!
	children+=("$reader")
	"$harness" "${small[@]}" --no-json --hdr fifo >"$tmp/out" 2>"$tmp/err" || fail "fifo: exit status $?"
	wait "$reader"
	if [ -p fifo ] && [ "$(ls -A)" = fifo ] && grep -q 'Percentile' "$tmp/fifo.out"; then
		pass "fifo: written into the FIFO, which stays a FIFO"
	else
		fail "fifo: $(ls -la); reader got $(head -c 100 "$tmp/fifo.out")"
	fi
fi

if wanted dev-null; then
	box
	"$harness" "${small[@]}" --json /dev/null --hdr /dev/null >"$tmp/out" 2>"$tmp/err" &&
		[ -c /dev/null ] && [ -z "$(ls -A)" ] && pass "dev-null: /dev/null stays a device" ||
		fail "dev-null: exit status or /dev/null changed: $(ls -la /dev/null)"
fi

if wanted several; then
	box
	"$harness" --policy=volt,volt:lifo_cap=0 --workload=fib --param n=16 --workers 2 --trials 1 \
		--warmup 0 --json r.json --hdr lat.hgrm >"$tmp/out" 2>"$tmp/err" ||
		fail "several: exit status $?"
	want="lat.volt-lifo_cap=0.hgrm lat.volt.hgrm r.volt-lifo_cap=0.json r.volt.json "
	got=$(ls -A | LC_ALL=C sort | tr '\n' ' ')
	[ "$got" = "$(echo "$want" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ' | sed 's/^ //')" ] &&
		/usr/bin/python3 -m json.tool r.volt-lifo_cap=0.json >/dev/null &&
		pass "several: one file per variant, the name before the extension" ||
		fail "several: wrote '$got', expected '$want'"
fi

# Names of enumerated values: accepted, printed in the summary, kept as
# numbers in the result with their names beside them, and used by the
# scripts' labels.
if wanted names; then
	box
	"$harness" --policy=volt --workload=open-loop --engine=sim --workers 2 --trials 1 --warmup 0 \
		--param dist=bimodal-1 --param requests=200 --set interval=61 --json r.json \
		>"$tmp/out" 2>"$tmp/err" || fail "names: exit status $?"
	scripts=$(cd "$(dirname "$doc")/../scripts" && pwd)
	label=$(/usr/bin/python3 -c '
import json, sys
sys.path.insert(0, sys.argv[1])
import harnesslib as hl
cfg = json.load(open(sys.argv[2]))["config"]
flat = hl.flat_config(cfg)
assert cfg["params"]["dist"] == 2, cfg["params"]
assert cfg["value_names"]["params"]["dist"] == "bimodal-1", cfg["value_names"]
assert "interval" not in cfg["value_names"]["knobs"], cfg["value_names"]
print(hl.label_of(flat, ["policy", "knob.interval", "param.dist"]))
' "$scripts" r.json 2>&1)
	if grep -q 'dist=bimodal-1' "$tmp/out" && [ "$label" = "volt[interval=61] dist=bimodal-1" ]; then
		pass "names: summary, result and labels name dist=bimodal-1"
	else
		fail "names: summary $(grep -o 'dist=[^,]*' "$tmp/out"), label '$label'"
	fi
fi

# Start a long run in the background (pid), wait until `want` temporary
# files exist (ntmp: how many did).
start_long() {
	local want=$1
	shift
	set -m	# a background job of a shell without job control ignores SIGINT
	"$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	set +m
	children+=("$pid")
	ntmp=0
	for _ in $(seq 400); do
		ntmp=$(ls -A | grep -c '\.tmp$')
		[ "$ntmp" -ge "$want" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
}

long=(--policy=volt --workload=fib --param n=27 --workers 2 --trials 1000 --warmup 0)

if wanted tmp-names; then
	box
	start_long 3 "$harness" "${long[@]}" --json r.json --hdr r.hgrm --trace r.trace
	n=$ntmp
	names=$(ls -A | grep '\.tmp$' | sort -u | wc -l)
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ "$n" -eq 3 ] && [ "$names" -eq 3 ] && [ -z "$(ls -A)" ] &&
		pass "tmp-names: three outputs, three temporary files, all removed" ||
		fail "tmp-names: $n temporary files ($names names), left: $(ls -A)"
fi

# ---- interrupted and failed runs ---------------------------------------

# signal_case NAME SIGNAL STATUS: a long run with every output, killed
# once its temporary files exist.
signal_case() {
	local name=$1 sig=$2 want=$3
	wanted "$name" || return 0
	box
	start_long 3 "$harness" "${long[@]}" --json r.json --hdr r.hgrm --trace r.trace
	local n=$ntmp
	if [ "$n" -lt 3 ]; then
		kill -KILL "$pid" 2>/dev/null
		fail "$name: $n temporary files before the signal, expected 3"
		return
	fi
	kill -"$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null	# no "Hangup" from the shell
	local status=$?
	[ "$status" -eq "$want" ] || fail "$name: exit status $status, expected $want"
	[ -z "$(ls -A)" ] && pass "$name: exit $status, nothing left" || fail "$name: left $(ls -A)"
}

signal_case sigint INT 130
signal_case sigterm TERM 143
signal_case sighup HUP 129
signal_case sigquit QUIT 131
signal_case sigabrt ABRT 134

if wanted watchdog; then
	box
	# Four tasks, each searching 16 M tree nodes serially: no task
	# completes within the watchdog's second, and the workers cannot be
	# stopped inside them.
	timeout 120 "$harness" --policy=volt --workload=uts --param preset=custom \
		--param type=geometric --param shape=fixed --param b0=4 --param depth=13 \
		--param cutoff=1 --workers 2 --trials 1 --warmup 0 --no-baseline --watchdog 1 \
		--json r.json --hdr r.hgrm --trace r.trace >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq 3 ] && grep -q 'stalled' "$tmp/err" && [ -z "$(ls -A)" ] &&
		pass "watchdog: exit 3 with a task stuck, nothing left" ||
		fail "watchdog: exit status $status, left: $(ls -A)"
fi

if wanted wrong-answer; then
	box
	"$harness" --policy=volt --workload=sort --param n=10000 --param cutoff=100 \
		--param corrupt=swap --workers 2 --trials 1 --warmup 0 --json r.json --hdr r.hgrm \
		--trace r.trace >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq 1 ] && [ -z "$(ls -A)" ] && pass "wrong-answer: exit 1, nothing left" ||
		fail "wrong-answer: exit status $status, left: $(ls -A)"
fi

calibrate_case() {
	local name=$1 sig=$2 want=$3
	wanted "$name" || return 0
	box
	start_long 1 "$harness" --calibrate c.costs
	local n=$ntmp
	if [ "$n" -lt 1 ]; then
		kill -KILL "$pid" 2>/dev/null
		fail "$name: no temporary file while calibrating"
		return
	fi
	kill -"$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null	# no "Hangup" from the shell
	local status=$?
	[ "$status" -eq "$want" ] && [ -z "$(ls -A)" ] && pass "$name: exit $status, nothing left" ||
		fail "$name: exit status $status, left: $(ls -A)"
}

calibrate_case calibrate-sigint INT 130
calibrate_case calibrate-sigterm TERM 143

cd /
echo "test_reliability: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
