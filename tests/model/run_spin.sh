#!/usr/bin/env bash
# run_spin.sh - check the Promela model of volt's sleep protocol
# (volt_idle.pml) with spin: generate the verifier (spin -a), compile it,
# run it, and check its verdict. One check per call (ctest volt_model_*):
#
#   safety       fixed protocol, 3 workers, 1 task: exhaustive, no assertion
#                fails (no count goes below zero: no wrap; every end state,
#                all workers asleep for good, has the task run: no lost
#                wakeup)
#   safety-2x2   fixed protocol, 2 workers, 2 tasks (two publishers: the
#                case of a claimer losing its race while another publishes)
#   timeout      fixed protocol, 2 workers, 1 task, one park timeout
#   liveness     fixed protocol, 3 workers, 1 task: <> (executed == 1)
#                under weak fairness (pan -a -f), no acceptance cycle
#   liveness-timeout  the same with one park timeout
#   defect       -DDEFECT (Volt's timeout path), 3 workers, one timeout:
#                spin must find num_parked decremented at 0 (the wrap)
#   undo         -DNO_UNDO_RECHECK (a losing claimer's undo without the
#                fresh look), 2 workers, 2 tasks: spin must find the lost
#                wakeup
#   skip-last    -DSKIP_LAST (volt-broken), 3 workers, 1 task: spin must
#                find the lost wakeup
#
#   tests/model/run_spin.sh CHECK [WORKDIR]
#
# Without spin or a C compiler it exits 77 (ctest: skipped), except under CI
# (CI=true), where a missing tool fails the test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=${1:?usage: run_spin.sh CHECK [WORKDIR]}
work=${2:-}

for tool in spin cc; do
	if ! command -v "$tool" >/dev/null; then
		if [ "${CI:-}" = true ]; then
			echo "run_spin: FAIL: no $tool (CI=true: every tool must be installed; Debian package ${tool/cc/gcc})" >&2
			exit 1
		fi
		echo "run_spin: SKIP: no $tool (install the Debian package ${tool/cc/gcc})" >&2
		exit 77
	fi
done

case $check in
safety)           defs="-DN=3 -DP=1 -DTMO=0"; pan_args=""; expect=pass ;;
safety-2x2)       defs="-DN=2 -DP=2 -DTMO=0"; pan_args=""; expect=pass ;;
timeout)          defs="-DN=2 -DP=1 -DTMO=1"; pan_args=""; expect=pass ;;
liveness)         defs="-DN=3 -DP=1 -DTMO=0 -DLIVENESS"; pan_args="-a -f"; expect=pass ;;
liveness-timeout) defs="-DN=3 -DP=1 -DTMO=1 -DLIVENESS"; pan_args="-a -f"; expect=pass ;;
defect)           defs="-DN=3 -DP=1 -DTMO=1 -DDEFECT"; pan_args=""; expect="assertion violated (num_parked>0)" ;;
undo)             defs="-DN=2 -DP=2 -DTMO=0 -DNO_UNDO_RECHECK"; pan_args=""; expect="assertion violated ((executed==2)&&(q==0))" ;;
skip-last)        defs="-DN=3 -DP=1 -DTMO=0 -DSKIP_LAST"; pan_args=""; expect="assertion violated ((executed==1)&&(q==0))" ;;
*) echo "run_spin: unknown check '$check'" >&2; exit 2 ;;
esac

if [ -z "$work" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
cd "$work"
cp "$here/volt_idle.pml" .
# shellcheck disable=SC2086
spin $defs -a volt_idle.pml >spin.out 2>&1 || { cat spin.out >&2; exit 1; }
# Exhaustive: no BITSTATE or hash compaction. Safety runs drop the cycle
# machinery (-DSAFETY); the liveness runs need weak fairness over all
# N + P + 2 processes (-DNFAIR).
cflags="-O2 -DNFAIR=3"
[ -z "$pan_args" ] && cflags="$cflags -DSAFETY"
# shellcheck disable=SC2086
cc $cflags -o pan pan.c 2>cc.out || { cat cc.out >&2; exit 1; }
start=$EPOCHREALTIME
# -m: search depth bound, far above the deepest state (about 400); a run
# that hit it would say "max search depth too small" and fail below.
# shellcheck disable=SC2086
./pan -m100000 $pan_args >pan.out 2>&1 || true
secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}')
states=$(grep -oE '^ *[0-9.e+]+ states, stored' pan.out | grep -oE '[0-9.e+]+' | head -1)
errors=$(grep -oE 'errors: [0-9]+' pan.out | grep -oE '[0-9]+' | head -1)

if grep -q 'max search depth too small' pan.out; then
	cat pan.out >&2
	echo "run_spin: $check: the depth bound was hit: the search was not exhaustive" >&2
	exit 1
fi
if [ "$expect" = pass ]; then
	if [ "$errors" != 0 ] || grep -qE 'assertion violated|acceptance cycle' pan.out; then
		cat pan.out >&2
		echo "run_spin: $check: FAIL: spin found a counterexample in the fixed model" >&2
		exit 1
	fi
	# That it really searched: a model that cannot move passes too.
	if ! awk -v n="$states" 'BEGIN {exit !(n + 0 >= 10000)}'; then
		cat pan.out >&2
		echo "run_spin: $check: FAIL: only '$states' states: the model does not move" >&2
		exit 1
	fi
	echo "run_spin: $check: verified, $states states, ${secs} s ($defs $pan_args)"
else
	if ! grep -qF "$expect" pan.out; then
		cat pan.out >&2
		echo "run_spin: $check: FAIL: spin did not find '$expect'" >&2
		exit 1
	fi
	echo "run_spin: $check: counterexample found ($expect), ${secs} s ($defs)"
fi
