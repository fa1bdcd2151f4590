#!/usr/bin/env bash
#
# test_outfile.sh - how result files are written when things go wrong:
# concurrent runs, full disks, broken pipes, file-size limits, signals to
# PID 1, kept modes, stale temporaries, and the output paths a run refuses
# (harness/outfile.c, docs/reliability.md).
#
#   test_outfile.sh HARNESS GROUP
#
# GROUP "names" checks names, modes, refusals and the full disk; "signals"
# checks SIGPIPE, SIGXFSZ and PID 1. Cases that need root (a small tmpfs, a
# PID namespace, another user) print a "skip:" line without it. Every run
# is a small simulated one, so that no case depends on the machine's speed.

set -u
testlib_name=test_outfile testlib_keep_going=1
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_outfile.sh HARNESS GROUP}
group=${2:?usage: test_outfile.sh HARNESS GROUP}
[ -x "$harness" ] || { echo "test_outfile: $harness is not executable" >&2; exit 1; }
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")
sweep=$(cd "$(dirname "$0")/../scripts" && pwd)/sweep.py

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_outfile.XXXXXX") || exit 1
chmod 755 "$tmp"
children=()
mounted=()
cleanup() {
	local p m
	for p in "${children[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for m in "${mounted[@]}"; do umount "$m" 2>/dev/null; done
	chmod -R u+w "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -c 0

small=(--policy=volt --workload=fib --param n=16 --workers 2 --trials 1 --warmup 0 --engine=sim)
# Long enough to be stopped by a signal: thousands of simulated trials.
long=(--policy=volt --workload=fib --param n=24 --workers 2 --trials 1000 --warmup 0 --engine=sim)

# box: a fresh empty directory as the working directory.
n_box=0
box() {
	n_box=$((n_box + 1))
	mkdir "$tmp/box$n_box" && cd "$tmp/box$n_box" || exit 1
}

seed_of() {
	/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config"]["seed"])' "$1" 2>/dev/null
}

valid_json() {
	/usr/bin/python3 -m json.tool "$1" >/dev/null 2>&1
}

# expect_refused NAME WORD ARGS...: exit 2, one line on stderr with WORD.
expect_refused() {
	local name=$1 word=$2
	shift 2
	"$harness" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	local status=$?
	if [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$word" "$tmp/err"; then
		pass "$name: exit 2, one line"
	else
		fail "$name: exit $status, stderr: $(head -c 300 "$tmp/err")"
	fi
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# ---- names, modes, refusals, a full disk -------------------------------

if [ "$group" = names ]; then
	# Six runs started together without --json pick the same default name;
	# each must end with a file of its own holding its own result (its seed),
	# and print that file's name.
	box
	pids=()
	for s in 1 2 3 4 5 6; do
		"$harness" "${small[@]}" --seed "$s" >"$tmp/out.$s" 2>"$tmp/err.$s" &
		pids+=($!)
	done
	ok=1
	for i in 0 1 2 3 4 5; do wait "${pids[$i]}" || ok=0; done
	names=""
	for s in 1 2 3 4 5 6; do
		f=$(sed -n 's/^result: //p' "$tmp/out.$s")
		[ -n "$f" ] && [ -f "$f" ] && [ "$(seed_of "$f")" = "$s" ] || ok=0
		names="$names $f"
	done
	nfiles=$(ls results | grep -c '\.json$')
	distinct=$(echo "$names" | tr ' ' '\n' | grep -c .)
	if [ "$ok" = 1 ] && [ "$nfiles" -eq 6 ] && [ "$(echo "$names" | tr ' ' '\n' | sort -u | grep -c .)" -eq 6 ] &&
		[ "$distinct" -eq 6 ] && [ -z "$(ls results | grep -v '\.json$')" ]; then
		pass "concurrent: six runs, six files, each printed and holding its own seed"
	else
		fail "concurrent: $nfiles files ($(ls results | tr '\n' ' ')), printed:$names"
	fi
	# The default name says the engine.
	case $names in
	*results/fib-volt-2w-sim-*.json*) pass "default name: fib-volt-2w-sim-<time>.json" ;;
	*) fail "default name: $names" ;;
	esac

	# A replaced result keeps its mode, a link's target too; a new file
	# gets 0666 less the umask.
	box
	"$harness" "${small[@]}" --json r.json >/dev/null 2>"$tmp/err" && chmod 600 r.json &&
		"$harness" "${small[@]}" --seed 2 --json r.json >/dev/null 2>"$tmp/err"
	m1=$(stat -c %a r.json)
	cp r.json t.json && chmod 640 t.json && ln -s t.json link &&
		"$harness" "${small[@]}" --seed 3 --json link >/dev/null 2>"$tmp/err"
	m2=$(stat -c %a t.json)
	(umask 027 && "$harness" "${small[@]}" --json new.json >/dev/null 2>"$tmp/err")
	m3=$(stat -c %a new.json)
	if [ "$m1" = 600 ] && [ "$(seed_of r.json)" = 2 ] && [ "$m2" = 640 ] && [ -L link ] &&
		[ "$(seed_of t.json)" = 3 ] && [ "$m3" = 640 ]; then
		pass "mode: a replaced 0600 stays 0600, a link's 0640 target stays 0640, umask 027 gives 0640"
	else
		fail "mode: replaced $m1, through the link $m2, new $m3 ($(head -c 200 "$tmp/err"))"
	fi

	# Refused before any work, by the run and by --check alike.
	box
	echo 'poll = 10' >c.txt
	cp c.txt c.orig
	mkdir d
	for check in "" --check; do
		w=${check:-run}
		expect_refused "$w: --costs c.txt --json c.txt" "cost file" "${small[@]}" \
			--costs c.txt --json c.txt $check
		expect_refused "$w: --json a directory" "it is a directory" "${small[@]}" --json d $check
		expect_refused "$w: --json in a missing directory" "No such file" "${small[@]}" \
			--json nodir/r.json $check
		expect_refused "$w: --json and --hdr one file" "would both be written" "${small[@]}" \
			--json r.out --hdr r.out $check
		echo "earlier log line" >log
		"$harness" "${small[@]}" --json /dev/stderr $check >"$tmp/out" 2>>log
		status=$?
		if [ "$status" -eq 2 ] && [ "$(head -n 1 log)" = "earlier log line" ] &&
			[ "$(wc -l <log)" -eq 2 ] && grep -q 'standard error' log; then
			pass "$w: --json /dev/stderr into a log: refused, the log kept"
		else
			fail "$w: --json /dev/stderr: exit $status, log: $(head -c 300 log)"
		fi
		rm -f log
	done
	if cmp -s c.txt c.orig && [ "$(ls -A | LC_ALL=C sort | tr '\n' ' ')" = "c.orig c.txt d " ]; then
		pass "refusals: the cost file unchanged, no file created"
	else
		fail "refusals: left $(ls -A | tr '\n' ' ')"
	fi

	# An argument that is not UTF-8 (a Latin-1 file name): refused at once.
	box
	expect_refused "non-UTF-8 --json" "not valid UTF-8" "${small[@]}" --json $'r\xe9sultat.json'
	expect_refused "non-UTF-8 --param" "0xff" "${small[@]}" --param $'cutoff=1\xff' --json r.json
	[ -z "$(ls -A)" ] && pass "non-UTF-8: no file" || fail "non-UTF-8: left $(ls -A)"

	# The largest documented --explore-seed is one run, not an endless loop
	# through the wrapped seed 0.
	box
	timeout 30 "$harness" --policy=volt --workload=fib --param n=12 --workers 2 --engine=sim \
		--explore-seed 18446744073709551615 >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq 0 ] && grep -q '1 seed,' "$tmp/out" &&
		pass "--explore-seed 2^64-1: one seed, exit 0" ||
		fail "--explore-seed 2^64-1: exit $status, $(head -c 200 "$tmp/out")"

	# Out of memory, said as such: a histogram (not "bad histogram
	# precision") and a workload's input (not just "create failed"). Under a
	# 2 GiB limit: 256 histograms of 5 digits need several GiB, sort's
	# largest n 32 GiB. A sanitizer's shadow memory needs more than the
	# limit: there the harness cannot start, and the case is skipped.
	box
	if (ulimit -v 2097152 && "$harness" --version) >/dev/null 2>&1; then
		(ulimit -v 2097152 && exec "$harness" --policy=tokio --workload=fib --param n=10 \
			--workers 256 --hist-digits 5 --trials 1 --warmup 0 --no-baseline --no-json) \
			>"$tmp/out" 2>"$tmp/err"
		status=$?
		[ "$status" -eq 1 ] && grep -q "out of memory for worker .*histogram (5 digits)" "$tmp/err" &&
			pass "out of memory: the histogram's ENOMEM named" ||
			fail "out of memory: histogram: exit $status, $(grep harness: "$tmp/err" | head -c 300)"
		(ulimit -v 2097152 && exec "$harness" --policy=volt --workload=sort --param n=2147483648 \
			--workers 2 --trials 1 --warmup 0 --engine=sim --no-json) >"$tmp/out" 2>"$tmp/err"
		status=$?
		[ "$status" -eq 1 ] && grep -q "workload sort: out of memory creating its input" "$tmp/err" &&
			pass "out of memory: sort n=2147483648 says why it cannot start" ||
			fail "out of memory: sort: exit $status, $(grep harness: "$tmp/err" | head -c 300)"
	else
		echo "skip: out of memory (the harness does not start under a 2 GiB limit: a sanitizer build)"
	fi

	# sweep.py: a key given twice and empty lists are refused, not "0 runs".
	box
	base='"policies": "volt", "workloads": "fib", "engines": "sim"'
	echo "{$base, \"set\": {\"lifo_cap\": [0, 1]}, \"set\": {\"interval\": [61]}}" >dup.json
	echo "{$base, \"workers\": []}" >workers.json
	echo "{$base, \"params\": {\"n\": []}}" >params.json
	echo "{$base, \"grids\": []}" >grids.json
	for g in dup:"given twice" workers:"empty list" params:"empty list" grids:"non-empty list"; do
		/usr/bin/python3 "$sweep" list "${g%%:*}.json" --harness "$harness" >"$tmp/out" 2>"$tmp/err"
		status=$?
		[ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "${g#*:}" "$tmp/err" &&
			pass "sweep.py: ${g%%:*}: refused with one line" ||
			fail "sweep.py: ${g%%:*}: exit $status, $(head -c 200 "$tmp/err")"
	done

	# A full disk: --json LINK to an existing result must leave it whole.
	box
	if is_root && mkdir fs && mount -t tmpfs -o size=64k tmpfs fs 2>/dev/null; then
		mounted+=("$PWD/fs")
		"$harness" "${small[@]}" --json fs/r.json >/dev/null 2>"$tmp/err"
		ln -s fs/r.json link
		dd if=/dev/zero of=fs/fill bs=4k 2>/dev/null
		sum=$(md5sum <fs/r.json)
		"$harness" "${small[@]}" --seed 2 --json link >"$tmp/out" 2>"$tmp/err"
		status=$?
		if [ "$status" -eq 1 ] && grep -q 'No space left' "$tmp/err" &&
			[ "$(md5sum <fs/r.json)" = "$sum" ] && valid_json fs/r.json && [ -L link ] &&
			[ "$(ls -A fs | LC_ALL=C sort | tr '\n' ' ')" = "fill r.json " ]; then
			pass "full disk: --json LINK fails with one line, the old result whole, no temporary"
		else
			fail "full disk: exit $status, $(head -c 200 "$tmp/err"), fs: $(ls -A fs | tr '\n' ' ')"
		fi
		umount fs && mounted=()
	else
		echo "skip: full disk (needs root and a tmpfs mount)"
	fi

	# A writable result in a directory the user cannot write: written in
	# place, and truncated to the new document (an old, longer file's tail
	# would make it invalid JSON). Run as another user: root writes any
	# directory.
	box
	mkdir ro && /usr/bin/python3 -c 'print("[" + "0," * 200000 + "0]")' >ro/r.json &&
		chmod 666 ro/r.json && chmod 555 ro && chmod 777 .
	if is_root && command -v setpriv >/dev/null &&
		setpriv --reuid=65534 --regid=65534 --clear-groups "$harness" --version >/dev/null 2>&1; then
		env -u HARNESS_TEST_RESULTS setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$harness" "${small[@]}" --json ro/r.json >"$tmp/out" 2>"$tmp/err"
		status=$?
		[ "$status" -eq 0 ] && valid_json ro/r.json && [ "$(seed_of ro/r.json)" = 1 ] &&
			[ "$(ls -A ro)" = r.json ] &&
			pass "in place: a read-only directory's file rewritten and truncated" ||
			fail "in place: exit $status, $(head -c 200 "$tmp/err"), size $(stat -c %s ro/r.json)"
	elif ! is_root; then
		"$harness" "${small[@]}" --json ro/r.json >"$tmp/out" 2>"$tmp/err"
		status=$?
		[ "$status" -eq 0 ] && valid_json ro/r.json &&
			pass "in place: a read-only directory's file rewritten and truncated" ||
			fail "in place: exit $status, $(head -c 200 "$tmp/err")"
	else
		echo "skip: in place (needs setpriv and a harness another user can run)"
	fi
	chmod 755 ro
fi

# ---- SIGPIPE, SIGXFSZ, PID 1 -------------------------------------------

if [ "$group" = signals ]; then
	# stdout a pipe whose reader has gone (`| head` that left): the run is
	# not killed, its result is written, the lost summary is one line, exit 1.
	box
	pipe_run() {
		/usr/bin/python3 - "$@" <<'EOF'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
sys.stderr.buffer.write(p.stderr)
print(p.returncode)
EOF
	}
	status=$(pipe_run "$harness" "${small[@]}" --json r.json 2>"$tmp/err")
	if [ "$status" = 1 ] && [ "$(grep -c '^harness:' "$tmp/err")" -eq 1 ] &&
		grep -q 'cannot write the summary to stdout: Broken pipe' "$tmp/err" &&
		valid_json r.json && [ "$(ls -A)" = r.json ]; then
		pass "SIGPIPE on stdout: exit 1 with one line, the result written, no temporary"
	else
		fail "SIGPIPE on stdout: status $status, $(head -c 300 "$tmp/err"), left: $(ls -A)"
	fi
	box
	status=$(pipe_run "$harness" "${small[@]}" --json - 2>"$tmp/err")
	if [ "$status" = 1 ] && grep -q 'Broken pipe' "$tmp/err" && [ -z "$(ls -A)" ]; then
		pass "SIGPIPE on --json -: exit 1, reported, nothing left"
	else
		fail "SIGPIPE on --json -: status $status, $(head -c 300 "$tmp/err"), left: $(ls -A)"
	fi

	# ulimit -f below the result's size: EFBIG reported, no temporary.
	box
	"$harness" "${small[@]}" --json /dev/stdout 2>/dev/null | wc -c >"$tmp/size"
	blocks=$(($(cat "$tmp/size") / 2048))
	if [ "$blocks" -ge 1 ]; then
		(ulimit -f "$blocks" && exec "$harness" "${small[@]}" --json r.json) >/dev/null 2>"$tmp/err"
		status=$?
		if [ "$status" -eq 1 ] && [ "$(grep -c '^harness:' "$tmp/err")" -eq 1 ] &&
			grep -q 'File too large' "$tmp/err" && [ -z "$(ls -A)" ]; then
			pass "SIGXFSZ: exit 1 with one line, nothing left"
		else
			fail "SIGXFSZ: exit $status, $(head -c 300 "$tmp/err"), left: $(ls -A)"
		fi
	else
		fail "SIGXFSZ: a result of $(cat "$tmp/size") bytes is too small to test"
	fi

	# As PID 1 (a container's first process), SIGTERM must stop the run
	# (the re-raised signal is ignored there): exit 143, nothing left. A
	# stale temporary with the name an earlier PID 1 would have used does
	# not block the run, and is not this run's to remove.
	box
	if is_root && unshare --fork --pid --mount-proc true 2>/dev/null; then
		touch r.json.1.0.tmp r.json.1.1.tmp
		set -m
		unshare --fork --pid --mount-proc "$harness" "${long[@]}" --json r.json \
			>"$tmp/out" 2>"$tmp/err" &
		upid=$!
		set +m
		children+=("$upid")
		inner=""
		for _ in $(seq 600); do
			inner=$(cat /proc/"$upid"/task/"$upid"/children 2>/dev/null | tr -d ' ')
			[ -n "$inner" ] && [ "$(ls -A | grep -c '\.tmp$')" -ge 3 ] && break
			kill -0 "$upid" 2>/dev/null || break
			sleep 0.05
		done
		ntmp=$(ls -A | grep -c '\.tmp$')
		[ -n "$inner" ] && kill -TERM "$inner"
		# Ended by the signal, not by the trials running out: give it up to
		# 60 s (the whole run would take minutes), then kill it.
		for _ in $(seq 600); do
			kill -0 "$upid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$upid" 2>/dev/null
		wait "$upid" 2>/dev/null
		status=$?
		left=$(ls -A | LC_ALL=C sort | tr '\n' ' ')
		if [ "$ntmp" -eq 3 ] && [ "$status" -eq 143 ] && [ "$left" = "r.json.1.0.tmp r.json.1.1.tmp " ]; then
			pass "PID 1: a stale temporary no obstacle; SIGTERM stops the run, exit 143, its temporary removed"
		else
			fail "PID 1: $ntmp temporaries, exit $status, left: $left; $(head -c 300 "$tmp/err")"
		fi
	else
		echo "skip: PID 1 (needs root and unshare --pid)"
	fi
fi

cd /
testlib_done && [ "$passed" -gt 0 ]
