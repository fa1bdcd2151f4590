#!/usr/bin/env bash
# reproduce.sh - the reference results, from a clean clone, into results/reference/:
#
#   1-imbalanced/    the imbalanced static partition (docs/sources.md): utilization of static partition
#                    against work stealing, threads engine at 2 workers and sim engine at 4
#   2-zygos/         p99 / S against load on 16 simulated workers, exponential and bimodal-1
#                    service, with the M/M/1 and M/M/16 curves (the ZygOS figure)
#   3-tokio-shapes/  Tokio's scheduler benchmarks (spawn-many local and remote, chained-spawn,
#                    yield-many, ping-pong) for every policy, threads engine, 2 workers
#   4-ablation/      volt against volt with one mechanism changed, tokio, tokio-1.28 and go:
#                    makespan (open-loop: p99) relative to volt, threads at 2 workers, sim at 16, 64
#   6-models-vs-real/  tokio-1.28, go and rayon (threads engine) beside the real Tokio, Go and
#                    Rayon (--engine=real, peers/README.md) on fib and spawn-many, 1 and 2
#                    workers; scripts/peers.sh builds the peers first
#   8-scaling/       the classic work/span table and the normalized-speedup figure: every policy
#                    on fib, nqueens, UTS (T1's and T3's families), sort and imbalanced, sim at 1 to
#                    256 workers (T_1, T_inf, T_P) and threads at 1 and 2 (T_S, T_1, T_2)
#   5-sim-vs-threads/  the sim, calibrated on this machine just before, against the threads
#                    engine: every policy x fork-join, shape and open-loop workloads x 1 and 2
#                    workers (docs/sim.md, "Validation"); under 10 minutes on its own
#                    (--parts 5); REPRODUCE_SMALL=1 checks its pipeline at small sizes
#   7-cpu-vs-latency/  what each policy burns for its latency: open-loop p99 against CPU per
#                    request, 16 sim workers (with knob values) and 2 threads, and the idle CPU
#                    at loads 0.01..0.1; about 4 minutes on its own (--parts 7)
#
# Each directory holds its grid (grid.json), the raw results and harness logs (raw*/, written
# by scripts/sweep.py), the tables (*.md, *.tex), the figures (*.png) and commands.sh: every
# command that made them, in order, runnable from the repository root. README.md sums up.
#
#   scripts/reproduce.sh [--build DIR] [--no-setup] [--resume] [-j N] [--out DIR]
#                        [--parts LIST] [--engines LIST]
#   scripts/reproduce.sh --check DIR [--against REF]
#   scripts/reproduce.sh --help   print this text
#
#   --build DIR   build directory (default build); scripts/setup.sh builds it first
#   --no-setup    use DIR/harness as it is
#   --resume      keep the results already in results/reference/ and run only the missing
#                 ones (default: start from scratch)
#   -j N          simulated runs at once (default: online CPUs); threads-engine runs always
#                 run one at a time
#   --out DIR     write everything under DIR instead of results/reference/
#   --parts LIST  rebuild only these parts, e.g. 1,2 (default 1,2,3,4,5,6,7,8)
#   --engines LIST  rerun only the runs of these engines, sim and/or threads (default both):
#                 the other engine's results of a part are kept as they are (none are made
#                 under a fresh --out), its tables and figures redrawn from both. --engines sim
#                 rebuilds every simulated result (exact, minutes) and leaves the wall-clock
#                 ones of parts 1, 3 and 4 alone. README.md is always rewritten whole; it
#                 says when, at which revision and on how loaded a machine each part's
#                 results of each engine were made (from the result files themselves), and
#                 includes DIR/NOTES.md, kept across rebuilds, for what the files cannot say.
#   --check DIR   compare a reproduction under DIR with REF (default results/reference/):
#                 sim results identical but for provenance; threads results within each
#                 other's 95% interval, or the cause named from the noise accounting
#                 (scripts/reproduce_check.py). Runs nothing. A reproduction made with
#                 --parts or --engines is compared on what it reran (DIR/reproduced.json).
#
#   scripts/reproduce.sh --table KIND DIR...   print one of the tables below (Markdown) from
#                                              result directories: imbalanced, p99-load, ops,
#                                              sim-vs-threads, work-span, ablation (each variant against
#                                              volt, or the first variant without knobs, as
#                                              ratios with intervals: any ablation's results)
#   scripts/reproduce.sh --table ablation-figure OUT.png DIR...   the same as bars
#
# About 15 minutes on a 2-core machine, most of it the threads-engine runs of parts 1 and 4.
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
	# This text: the comment block at the head of the script, without its "# ".
	sed -n '2,/^set -euo pipefail$/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	exit 0
fi
cd "$(dirname "$0")/.."
PY=/usr/bin/python3

# ---------------------------------------------------------------------------------------------
# Tables the generic scripts do not make: scripts/reproduce_tables.py, from harnesslib.

table() {
	"$PY" scripts/reproduce_tables.py "$@"
}

if [ "${1:-}" = "--table" ]; then
	shift
	table "$@"
	exit
fi
if [ "${1:-}" = "--check" ]; then
	[ $# -eq 2 ] || { [ $# -eq 4 ] && [ "${3:-}" = "--against" ]; } ||
		{ echo "reproduce: usage: --check DIR [--against REF]" >&2; exit 2; }
	for d in "$2" "${4:-results/reference}"; do
		[ -d "$d" ] || { echo "reproduce: $d is not a directory" >&2; exit 2; }
	done
	exec "$PY" scripts/reproduce_check.py "$2" "${4:-results/reference}"
fi

build=build setup=1 resume=0 jobs=$(nproc) REF=results/reference
sel_parts=1,2,3,4,5,6,7,8 sel_engines=sim,threads
while (($#)); do
	case $1 in
	--out) REF=${2:?reproduce: --out needs a directory}; shift 2 ;;
	--parts) sel_parts=${2:?reproduce: --parts needs a list, e.g. 1,2}; shift 2 ;;
	--engines) sel_engines=${2:?reproduce: --engines needs sim, threads or both}; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--no-setup) setup=0; shift ;;
	--resume) resume=1; shift ;;
	-j) jobs=$2; shift 2 ;;
	*) echo "reproduce: unknown argument $1 (scripts/reproduce.sh --help lists them)" >&2; exit 2 ;;
	esac
done

for p in ${sel_parts//,/ }; do
	[[ $p =~ ^[1-8]$ ]] || { echo "reproduce: --parts: no part '$p' (1, 2, 3, 4, 5, 6, 7, 8)" >&2; exit 2; }
done
for e in ${sel_engines//,/ }; do
	[[ $e = sim || $e = threads ]] ||
		{ echo "reproduce: --engines: no engine '$e' (sim, threads)" >&2; exit 2; }
done
# want PART ENGINE: whether this invocation reruns that part's runs of that engine.
want() { [[ ,$sel_parts, = *,$1,* && ,$sel_engines, = *,$2,* ]]; }
# grid_for DIR ENGINE...: DIR/grid.json, or (when only one of its two engines is rerun) a
# copy restricted to that engine, DIR/grid.ENGINE.json, which the sweep then runs.
grid_for() {
	local dir=$1
	shift
	if [ $# -eq 2 ]; then
		echo "$dir/grid.json"
		return
	fi
	"$PY" - "$dir/grid.json" "$dir/grid.$1.json" "$1" <<'EOF'
import json, sys
g = json.load(open(sys.argv[1]))
eng = sys.argv[3]
g["grids"] = [b for b in g["grids"] if b.get("engines", g.get("engines")) == eng]
g["comment"] += " Restricted to the %s engine (scripts/reproduce.sh --engines)." % eng
json.dump(g, open(sys.argv[2], "w"), indent=2)
EOF
	echo "$dir/grid.$1.json"
}

t_start=$(date +%s)
if ((setup)); then
	scripts/setup.sh "$build"
fi
H=$build/harness
[ -x "$H" ] || { echo "reproduce: $H is not built (drop --no-setup)" >&2; exit 1; }
parts=(1-imbalanced 2-zygos 3-tokio-shapes 4-ablation 5-sim-vs-threads 6-models-vs-real
       7-cpu-vs-latency)
# A part's raw results are stored packed, one archive per raw directory (raw*.tar.xz,
# scripts/resultpack.py); the parts this invocation reruns are unpacked first (their results
# as NAME.json.gz, which --resume and --engines keep) and packed again at the end. An
# interrupted invocation leaves them unpacked: --resume goes on from there.
for i in 1 2 3 4 5 6 7 8; do
	if want "$i" sim || want "$i" threads; then
		for a in "$REF/$i"-*/raw*.tar.xz; do
			if [ -e "$a" ]; then "$PY" scripts/resultpack.py unpack "$a"; fi
		done
	fi
done
# Without --resume every selected part starts afresh: all of it when both engines are rerun,
# else the rerun engine's results only (the other's stay, as do their logs).
if ((!resume)); then
	for i in 1 2 3 4 5 6 7; do
		p=${parts[i - 1]}
		if want "$i" sim && want "$i" threads; then
			rm -rf "${REF:?}/$p"
		else
			for e in sim threads; do
				if want "$i" "$e"; then
					rm -f "${REF:?}/$p"/raw*/*-"$e"-*.json "${REF:?}/$p"/raw*/*-"$e"-*.json.gz
				fi
			done
		fi
	done
	rm -f "$REF/README.md"
fi
mkdir -p "$REF"
printf '{"parts": [%s], "engines": ["%s"]}\n' "$sel_parts" "${sel_engines//,/\", \"}" \
	>"$REF/reproduced.json"

quote() {
	local q=() a
	for a in "$@"; do q+=("$(printf '%q' "$a")"); done
	printf '%s' "${q[*]}"
}

# begin DIR TITLE: start DIR/commands.sh.
begin() {
	mkdir -p "$1"
	cat >"$1/commands.sh" <<EOF
#!/bin/sh
# $2
# The commands that made the files in this directory, in order, run from the repository root
# by scripts/reproduce.sh. Each raw*/commands.sh lists the harness command line of every run
# of that sweep; each result file holds its own in provenance.command_line.
set -e
EOF
	# A part with runs of both engines of which this invocation reran one.
	local i=${1##*/} e
	i=${i%%-*}
	if [ "$i" = 1 ] || [ "$i" = 4 ] || [ "$i" = 5 ] || [ "$i" = 7 ] || [ "$i" = 8 ]; then
		for e in sim threads; do
			if ! want "$i" "$e"; then
				echo "# The $e-engine results here were kept from an earlier invocation" \
					"(README.md says when); this one reran the others." >>"$1/commands.sh"
			fi
		done
	fi
	echo "reproduce: $2" >&2
}

# run DIR CMD...: record CMD in DIR/commands.sh and run it.
run() {
	local dir=$1
	shift
	quote "$@" >>"$dir/commands.sh"
	echo >>"$dir/commands.sh"
	"$@"
}

# run_to DIR OUT CMD...: the same, with stdout to OUT.
run_to() {
	local dir=$1 out=$2
	shift 2
	printf '%s > %s\n' "$(quote "$@")" "$(printf '%q' "$out")" >>"$dir/commands.sh"
	"$@" >"$out"
}

# run_once DIR GLOB CMD...: the same, unless a result matching GLOB is there already (left
# by an interrupted invocation: --resume), when CMD is recorded and not run again.
run_once() {
	local dir=$1 glob=$2
	shift 2
	if compgen -G "$glob" >/dev/null; then
		printf '%s\n' "$(quote "$@")" >>"$dir/commands.sh"
	else
		run "$dir" "$@"
	fi
}

SWEEP=(scripts/sweep.py run)

# compress DIR...: the raw results in each DIR, gzip-compressed in place (NAME.json.gz;
# -n: no name or time in the header, so the same result compresses to the same bytes),
# and the parallel backend's bookkeeping of a finished sweep (pending.cmds, parallel.joblog:
# command lines with this machine's paths) removed. Everything that reads results reads
# the compressed files as they are (scripts/harnesslib.py); not recorded in commands.sh,
# whose commands write plain .json.
compress() {
	local d f
	for d in "$@"; do
		for f in "$d"/*.json; do
			[ -e "$f" ] || continue
			gzip -9nf "$f"
		done
		rm -f "$d/pending.cmds" "$d/parallel.joblog"
	done
}

# ---------------------------------------------------------------------------------------------
# 1. The imbalanced static partition (docs/sources.md): 100, 100, 200, 350 ms on 4 partitions.
D=$REF/1-imbalanced
if want 1 sim || want 1 threads; then
begin "$D" "1. Imbalanced partitions: static partition against work stealing (utilization)"
cat >"$D/grid.json" <<'EOF'
{
  "name": "imbalanced",
  "comment": "imbalanced static partition: partitions of 100, 100, 200, 350 ms; partition p starts on worker p mod workers. Every policy of --policy=all, interleaved in one process per engine.",
  "policies": "all",
  "interleave": true,
  "workloads": "imbalanced",
  "grids": [
    {"engines": "threads", "workers": 2, "trials": 7, "options": {"warmup": 1}},
    {"engines": "sim", "workers": 4, "trials": 5, "options": {"warmup": 1}}
  ]
}
EOF
engines=()
for e in threads sim; do if want 1 "$e"; then engines+=("$e"); fi; done
run "$D" "${SWEEP[@]}" "$(grid_for "$D" "${engines[@]}")" --out "$D/raw" --harness "$H"
run_to "$D" "$D/utilization.md" "$PY" scripts/tables.py --metric utilization "$D/raw"
run_to "$D" "$D/utilization.tex" "$PY" scripts/tables.py --format latex --metric utilization "$D/raw"
run_to "$D" "$D/makespan.md" scripts/reproduce.sh --table imbalanced "$D/raw"
# (A figure only for an engine with results: --engines under a fresh --out makes one.)
compress "$D/raw"
if compgen -G "$D/raw/*-threads-*.json.gz" >/dev/null; then
	run "$D" "$PY" scripts/plot.py utilization -o "$D/utilization-threads-2w.png" \
		--title "Imbalanced static partition on the threads engine, 2 workers (worker 0: 300 ms, worker 1: 450 ms of partitions)" \
		"$D"/raw/*-threads-*.json.gz
fi
if compgen -G "$D/raw/*-sim-*.json.gz" >/dev/null; then
	run "$D" "$PY" scripts/plot.py utilization -o "$D/utilization-sim-4w.png" \
		--title "Imbalanced static partition on the sim engine, 4 workers (100, 100, 200, 350 ms of partitions)" \
		"$D"/raw/*-sim-*.json.gz
fi
fi

# ---------------------------------------------------------------------------------------------
# 2. ZygOS: p99 / S against load, 16 simulated workers, S = 1 ms, the harness's own request
# sizing (workloads/open_loop.c: enough requests for a partitioned queue to converge) and its
# default trials; the error bars are the p99's 95% interval over the trials (batch means).
# The scheduling delay is not sampled (--sample 0): the figure reads the end-to-end latencies,
# and the second histogram would double the stored results.
D=$REF/2-zygos
if want 2 sim; then begin "$D" "2. ZygOS-style p99 / S against load, 16 simulated workers"; fi
for dist in $(if want 2 sim; then echo 1 2; fi); do
	name=$([ "$dist" = 1 ] && echo exponential || echo bimodal1)
	cat >"$D/grid-$name.json" <<EOF
{
  "name": "zygos-$name",
  "comment": "Open-loop Poisson arrivals, S = 1 ms, service dist=$dist (1 exponential, 2 bimodal-1: 90% 0.5 S, 10% 5.5 S); static-partition routes at random (k x M/M/1), central-queue is M/M/k.",
  "policies": ["static-partition", "central-queue", "volt", "tokio", "tokio-1.28", "go", "rayon", "steal-one", "locality"],
  "workloads": "open-loop",
  "engines": "sim",
  "workers": 16,
  "set": {"routing": 1},
  "params": {"load": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95], "dist": $dist, "service_us": 1000},
  "options": {"warmup": 0, "sample": 0}
}
EOF
	# volt once more with the design's private 32-task pre-fetch buffer (volt's code leaves it
	# empty): the difference between the two volt curves is that buffer alone.
	cat >"$D/grid-$name-prefetch32.json" <<EOF
{
  "name": "zygos-$name-prefetch32",
  "comment": "As grid-$name.json, volt only, with prefetch=32 (the design's private pre-fetch buffer).",
  "policies": ["volt"],
  "workloads": "open-loop",
  "engines": "sim",
  "workers": 16,
  "set": {"prefetch": 32},
  "params": {"load": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95], "dist": $dist, "service_us": 1000},
  "options": {"warmup": 0, "sample": 0}
}
EOF
	# tokio's tail above the M/M/16 curve from load 0.85 on, taken apart: one task per inject
	# pop (batch_max=1, Tokio up to 1.28) and the fixed interval of 61 (no self-tuning).
	cat >"$D/grid-$name-tokio.json" <<EOF
{
  "name": "zygos-$name-tokio",
  "comment": "As grid-$name.json, tokio with one of its 1.29 changes undone: batch_max=1 (one task per inject pop) or interval=61 (no self-tuning).",
  "policies": ["tokio"],
  "grids": [{"set": {"batch_max": 1}}, {"set": {"interval": 61}}],
  "workloads": "open-loop",
  "engines": "sim",
  "workers": 16,
  "params": {"load": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95], "dist": $dist, "service_us": 1000},
  "options": {"warmup": 0, "sample": 0}
}
EOF
	run "$D" "${SWEEP[@]}" "$D/grid-$name.json" --out "$D/raw-$name" --harness "$H" -j "$jobs"
	run "$D" "${SWEEP[@]}" "$D/grid-$name-prefetch32.json" --out "$D/raw-$name-prefetch32" \
		--harness "$H" -j "$jobs"
	run "$D" "${SWEEP[@]}" "$D/grid-$name-tokio.json" --out "$D/raw-$name-tokio" \
		--harness "$H" -j "$jobs"
	compress "$D/raw-$name" "$D/raw-$name-prefetch32" "$D/raw-$name-tokio"
	run "$D" "$PY" scripts/plot.py p99-vs-load --theory -o "$D/p99-vs-load-$name.png" \
		--title "p99 / S against load, 16 sim workers, $name service (S = 1 ms)" "$D/raw-$name" \
		"$D/raw-$name-prefetch32"
	run_to "$D" "$D/p99-$name.md" scripts/reproduce.sh --table p99-load "$D/raw-$name" \
		"$D/raw-$name-prefetch32" "$D/raw-$name-tokio"
done

# ---------------------------------------------------------------------------------------------
# 3. Tokio's scheduler benchmarks, every policy interleaved, threads engine, 2 workers.
D=$REF/3-tokio-shapes
if want 3 threads; then
begin "$D" "3. Tokio-style benchmarks, every policy, threads engine, 2 workers"
cat >"$D/grid.json" <<'EOF'
{
  "name": "tokio-shapes",
  "comment": "The shapes of Tokio's multi-threaded scheduler benchmarks at the harness's default sizes (spawn 10,000 tasks; a chain of 1,000; 200 tasks x 1,000 yields; 1,000 ping-pong pairs of 10 rounds). All policies interleaved in one process per workload.",
  "policies": "all",
  "interleave": true,
  "workloads": ["spawn-many", "chained-spawn", "yield-many", "ping-pong"],
  "engines": "threads",
  "workers": 2,
  "params": {"from": [0, 1]},
  "trials": 41,
  "options": {"warmup": 5}
}
EOF
run "$D" "${SWEEP[@]}" "$D/grid.json" --out "$D/raw" --harness "$H"
run_to "$D" "$D/ns-per-op.md" scripts/reproduce.sh --table ops "$D/raw"
compress "$D/raw"
run_to "$D" "$D/ns-per-task.md" "$PY" scripts/tables.py --metric ns-per-task "$D/raw"
run_to "$D" "$D/ns-per-task.tex" "$PY" scripts/tables.py --format latex --metric ns-per-task "$D/raw"
run_to "$D" "$D/throughput.md" "$PY" scripts/tables.py --metric throughput "$D/raw"
run "$D" "$PY" scripts/plot.py throughput -o "$D/throughput.png" "$D/raw"
fi

# ---------------------------------------------------------------------------------------------
# 4. Ablations: volt against volt with one mechanism changed (no LIFO slot, an unbounded one,
# the interval fixed at 61, steals of one task, the sleeper-stack wake order), and against
# tokio, tokio-1.28 and go; all of them interleaved in one process per workload and engine.
D=$REF/4-ablation
if want 4 sim || want 4 threads; then
begin "$D" "4. Ablations: volt against single-mechanism variants, tokio, tokio-1.28 and go"
mkdir -p "$D/raw"
ABL=volt,volt:lifo_cap=0,volt:lifo_cap=1000000000,fixed-interval-61,steal-one,volt:wake=1
ABL=$ABL,tokio,tokio-1.28,go
for setup in "threads 2 7" "sim 16 6" "sim 64 6"; do
	read -r eng nw trials <<<"$setup"
	want 4 "$eng" || continue
	for wl in fib:n=25 uts:preset=T3-small ping-pong yield-many open-loop:load=0.5 \
		open-loop:load=0.8 open-loop:load=0.9; do
		args=(--workload="${wl%%:*}")
		[ "$wl" = "${wl#*:}" ] || args+=(--param "${wl#*:}")
		# Sim open-loop at 64 workers: fewer requests (virtual idle time is stepped too).
		[[ $eng = sim && $nw = 64 && $wl = open-loop* ]] && args+=(--param requests=2000)
		run "$D" "$H" --policy="$ABL" "${args[@]}" --engine "$eng" --workers "$nw" \
			--trials "$trials" --warmup 1 --no-baseline --quiet \
			--json "$D/raw/${wl//[:=]/-}-$eng-${nw}w.json"
	done
done
compress "$D/raw"
run_to "$D" "$D/ablation.md" scripts/reproduce.sh --table ablation "$D/raw"
run "$D" scripts/reproduce.sh --table ablation-figure "$D/ablation.png" "$D/raw"
fi

# ---------------------------------------------------------------------------------------------
# 5. The sim against the threads engine (docs/sim.md, "Validation"): a calibration of this
# machine first, then every policy (--policy=all, interleaved) x the fork-join and shape
# workloads and open-loop at loads 0.5 and 0.8 x 1 and 2 workers, threads and the sim with
# that calibration; after each 2-worker workload, volt's 1-worker run of it, the anchor. REPRODUCE_SMALL=1 runs every step at small sizes (a check of the pipeline,
# not a validation).
D=$REF/5-sim-vs-threads
if want 5 sim || want 5 threads; then
begin "$D" "5. The calibrated sim against the threads engine, every policy, 1 and 2 workers"
mkdir -p "$D/raw"
if [ "${REPRODUCE_SMALL:-0}" = 1 ]; then
	VAL=(fib:n=20 nqueens:n=8 uts:preset=small-d4 sort:n=100000 spawn-many:n=2000
	     chained-spawn:n=500 yield-many:yields=100 ping-pong:pairs=200
	     open-loop:load=0.5:requests=1000 open-loop:load=0.8:requests=1000)
	vt=3 vt2=3
else
	VAL=(fib:n=30 nqueens:n=12 uts:preset=T3-small sort spawn-many chained-spawn yield-many
	     ping-pong open-loop:load=0.5:requests=2000 open-loop:load=0.8:requests=2000)
	# At 2 workers, more trials: the figure is the median of those made in the round-trip
	# regime the calibration's runs were taken in (docs/sim.md), and at 2 workers the
	# round trip itself is part of what is measured.
	vt=5 vt2=7
fi
# The calibration belongs to the threads runs beside it: made again whenever they are (the
# sim runs alone reuse it, so that they stay comparable with the threads results kept).
if want 5 threads || [ ! -f "$D/costs.txt" ]; then
	run "$D" "$H" --calibrate "$D/costs.txt" --quiet
fi
# The threads trials are kept in the round-trip regime the calibration's runs were taken in
# (--c2c-band, docs/measuring.md): the band the table selects trials by, the regimes the file
# names widened by CALIBRATE_REGIME_RATIO (1.5) either way. None if the file names none (a
# machine where the round trip cannot be probed).
band=()
rg=$(grep -o 'round-trip regime [0-9.]*\.\.[0-9.]* ns' "$D/costs.txt" |
	awk '{split($3, r, /\.\./); if (lo == "" || r[1] + 0 < lo) lo = r[1] + 0
	      if (r[2] + 0 > hi) hi = r[2] + 0}
	     END {if (hi > 0) printf "%.1f..%.1f", lo / 1.5, hi * 1.5}')
[ -n "$rg" ] && band=(--c2c-band "$rg")
# ... and at the compute speed the calibration's runs were taken at (--speed-band), on 1
# worker (its CPU) and on 2 (the slower CPU): this host computes at about two speeds 1.5
# times apart, CPU by CPU, and moves between them within a second, which the round trip does
# not see (docs/measuring.md). The ranges the file names, widened by CALIBRATE_SPEED_RATIO
# (1.1) either way.
speed=("" "" "")
sp=$(sed -n 's/.*taken at the compute speed \([0-9.]*\)\.\.\([0-9.]*\) ns on 1 worker.*, \([0-9.]*\)\.\.\([0-9.]*\) ns on 2.*/\1 \2 \3 \4/p' \
	"$D/costs.txt" | head -1)
for k in 1 2; do
	[ -n "$sp" ] && speed[k]=$(echo "$sp" | awk -v k="$k" '$(2 * k) > 0 {
		printf "--speed-band %.0f..%.0f", $(2 * k - 1) / 1.1, $(2 * k) * 1.1}')
done
# The 2-worker cells first, fib, nqueens, UTS and sort leading: the cells docs/sim.md holds
# the model to come within a minute or two of the calibration, before the host's speed, which
# moves by a third over minutes, has gone far from the one the calibration fitted.
for nw in 2 1; do
	for wl in "${VAL[@]}"; do
		args=(--workload="${wl%%:*}")
		rest=${wl#*:}
		[ "$wl" = "$rest" ] && rest=
		for pv in ${rest//:/ }; do args+=(--param "$pv"); done
		name=${wl%%:requests=*}
		name=${name//[:=]/-}
		if want 5 threads; then
			trials=$vt
			((nw > 1)) && trials=$vt2
			# shellcheck disable=SC2086 # ${speed[n]}: the option and its value, or nothing
			run "$D" "$H" --policy=all "${args[@]}" --workers "$nw" --trials "$trials" --warmup 1 \
				"${band[@]}" ${speed[nw]} --no-baseline --quiet \
				--json "$D/raw/$name-threads-${nw}w.json"
			# The anchor: volt's 1-worker run of the workload right after, the machine's
			# speed beside these cells (for 1 worker, volt's own cell in the run above).
			if ((nw > 1)) && [[ $wl != open-loop* ]]; then
				# shellcheck disable=SC2086
				run "$D" "$H" --policy=volt "${args[@]}" --workers 1 --trials "$vt" --warmup 1 \
					"${band[@]}" ${speed[1]} --no-baseline --quiet \
					--json "$D/raw/$name-anchor-${nw}w.json"
			fi
		fi
		# The sim is deterministic for a seed: one trial is its figure.
		if want 5 sim; then
			run "$D" "$H" --policy=all "${args[@]}" --workers "$nw" --engine sim \
				--costs "$D/costs.txt" --trials 1 --warmup 0 --no-baseline --quiet \
				--json "$D/raw/$name-sim-${nw}w.json"
		fi
	done
done
compress "$D/raw"
run_to "$D" "$D/sim-vs-threads.md" scripts/reproduce.sh --table sim-vs-threads "$D/raw"
fi

# ---------------------------------------------------------------------------------------------
# 6. The models beside the real runtimes they model (peers/README.md): tokio-1.28, go and rayon
# on the threads engine, and Tokio, Go and Rayon themselves (--engine=real; oneTBB, no model,
# beside them on fib and nqueens), every policy's trials of both interleaved per engine, fib,
# nqueens and spawn-many (from a worker and from outside; Go has no spawn from outside), and
# on Tokio and Go chained-spawn, yield-many and ping-pong, 1 and 2 workers; open-loop at loads
# 0.5 and 0.9 on 2. Wall-clock runs: rerun with the threads engine.
D=$REF/6-models-vs-real
if want 6 threads; then
begin "$D" "6. The models beside the real runtimes: tokio-1.28, go, rayon against Tokio, Go, Rayon"
run "$D" scripts/peers.sh "$build"
mkdir -p "$D/raw"
for nw in 1 2; do
	# fib(27): Go's 2-worker fib(30) alone took 5 minutes of real runs on a loaded machine.
	for wl in fib:n=27 nqueens:n=11 spawn-many spawn-many:from=1 chained-spawn yield-many ping-pong; do
		args=(--workload="${wl%%:*}")
		[ "$wl" = "${wl#*:}" ] || args+=(--param "${wl#*:}")
		pol=tokio-1.28,go,rayon
		[[ $wl = *from=1 ]] && pol=tokio-1.28,rayon
		# The async shapes: Rayon (and oneTBB) have fork-join only.
		[[ $wl = chained-spawn || $wl = yield-many || $wl = ping-pong ]] && pol=tokio-1.28,go
		for eng in threads real; do
			# oneTBB, the runtime with no model, beside the others' runtimes on fork-join.
			p=$pol
			[[ $eng = real && ($wl = fib* || $wl = nqueens*) ]] && p+=,tbb
			run "$D" "$H" --engine "$eng" --policy="$p" "${args[@]}" --workers "$nw" \
				--trials 7 --warmup 1 --quiet --json "$D/raw/${wl//[:=]/-}-$eng-${nw}w.json"
		done
	done
done
# open-loop at loads 0.5 and 0.9 on 2 workers (S = 100 us, exponential): the models and the
# runtimes on the same schedules, latency from the intended arrival; Go's own scheduling delay.
for eng in threads real; do
	run "$D" "$H" --engine "$eng" --policy=tokio-1.28,go --workload=open-loop --param load=0.5,0.9 \
		--workers 2 --trials 5 --warmup 1 --quiet --json "$D/raw/open-loop-$eng-2w.json"
done
compress "$D/raw"
run_to "$D" "$D/models-vs-real.md" scripts/reproduce.sh --table models-vs-real "$D/raw"
# The sim's costs fitted to Tokio and Go (docs/runtime-costs.md): this
# machine's calibration as the base, then each runtime's fit and its check at 2 workers on
# sizes the fit was not made on.
run "$D" "$H" --calibrate "$D/machine.costs"
for pol in tokio-1.28 go; do
	run_to "$D" "$D/${pol%-1.28}-real-fit.md" scripts/runtime_costs.py --policy "$pol" \
		--harness "$H" --base "$D/machine.costs" --out "$D/${pol%-1.28}-real.costs" --check
done
fi

# ---------------------------------------------------------------------------------------------
# 7. What each policy burns for its latency (docs/results.md, trials[].cpu): open-loop p99
# against CPU per request, 16 sim workers (default costs) at loads 0.1..0.9, every policy at
# its defaults and at the knob values that trade the two (volt's and tokio's searcher_cap,
# go's spin_cap, rayon's rounds_until_sleepy); 2 threads at loads 0.1..0.7 beside the sim
# calibrated on this machine just before; and the idle CPU at the trickle loads 0.01..0.1
# with one second of arrivals per trial, threads and calibrated sim at 2 workers. The
# calibrated sim delivers the arrivals through the workers' I/O polls, as threads do
# (cost.io_poll=1), so that the timekeeper's sleeps end by their timeouts there too.
D=$REF/7-cpu-vs-latency
if want 7 sim || want 7 threads; then
begin "$D" "7. What each policy burns for its latency: p99 against CPU per request, and idle CPU"
mkdir -p "$D/raw-sim" "$D/raw-2w" "$D/raw-idle"
LOADS16=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9
LOADS2=0.1,0.3,0.5,0.7
# The calibration belongs to the threads runs beside it, as part 5's does: made again whenever
# they are; the sim runs alone reuse it.
COSTS=$D/costs.txt
if want 7 threads || [ ! -f "$COSTS" ]; then
	run "$D" "$H" --calibrate "$COSTS" --quiet
fi
if want 7 sim; then
	for fam in "volt volt:searcher_cap=0.0625 volt:searcher_cap=1 volt:wake=1" \
		"tokio tokio:searcher_cap=0.0625 tokio:searcher_cap=1" \
		"go go:spin_cap=0.0625 go:spin_cap=1" \
		"rayon rayon:rounds_until_sleepy=0 rayon:rounds_until_sleepy=128"; do
		pol=${fam// /,}
		run "$D" "$H" --policy="$pol" --workload=open-loop --engine sim --workers 16 \
			--param load=$LOADS16 --param service_us=10 --param requests=50000 \
			--trials 1 --warmup 0 \
			--no-baseline --quiet --json "$D/raw-sim/${fam%% *}-sim-16w.json"
	done
fi
for eng in threads sim; do
	want 7 "$eng" || continue
	# shellcheck disable=SC2046 # the sim's options, or nothing
	run "$D" "$H" --policy=volt,tokio,go,rayon --workload=open-loop --engine "$eng" --workers 2 \
		--param load=$LOADS2 --param requests=2000 \
		$([ "$eng" = sim ] && echo --costs "$COSTS" --set cost.io_poll=1 --trials 1 --warmup 0 ||
			echo --trials 7 --warmup 1) \
		--no-baseline --quiet --json "$D/raw-2w/ol-$eng-2w.json"
	# The trickle: one second of arrivals at 2 workers and S = 100 us (requests =
	# load x 2 workers x 1 s / S).
	for load in 0.01 0.03 0.1; do
		req=$(awk -v l="$load" 'BEGIN {printf "%d", l * 20000 + 0.5}')
		# shellcheck disable=SC2046
		run "$D" "$H" --policy=volt,tokio,go,rayon --workload=open-loop --engine "$eng" \
			--workers 2 --param load="$load" --param requests="$req" --param warmup=0 \
			$([ "$eng" = sim ] && echo --costs "$COSTS" --set cost.io_poll=1 --trials 1 --warmup 0 ||
				echo --trials 2 --warmup 1) \
			--no-baseline --quiet --json "$D/raw-idle/idle-$load-$eng-2w.json"
	done
done
compress "$D/raw-sim" "$D/raw-2w" "$D/raw-idle"
if compgen -G "$D/raw-sim/*.json.gz" >/dev/null; then
	# The defaults: each family's variant without knobs (POLICY-sim-16w.POLICY-load=...).
	defaults=()
	for p in volt tokio go rayon; do defaults+=("$D/raw-sim/$p-sim-16w.$p-load="*.json.gz); done
	run "$D" "$PY" scripts/plot.py p99-vs-cpu -o "$D/p99-vs-cpu-sim-16w.png" \
		--title "p99 / S against CPU per request / S, 16 sim workers, loads 0.1..0.9, defaults" \
		"${defaults[@]}"
	for p in volt tokio go rayon; do
		run "$D" "$PY" scripts/plot.py p99-vs-cpu -o "$D/p99-vs-cpu-sim-16w-$p.png" \
			--where policy=$p \
			--title "$p and its knob values: p99 / S against CPU per request / S, 16 sim workers" \
			"$D/raw-sim"
	done
fi
if compgen -G "$D/raw-2w/*-threads-*.json.gz" >/dev/null; then
	run "$D" "$PY" scripts/plot.py p99-vs-cpu -o "$D/p99-vs-cpu-threads-2w.png" --where engine=threads \
		--title "p99 / S against CPU per request / S, 2 threads, loads 0.1..0.7" "$D/raw-2w"
fi
run_to "$D" "$D/cpu-summary.md" scripts/reproduce.sh --table cpu-summary "$D/raw-sim" "$D/raw-2w"
run_to "$D" "$D/cpu.md" scripts/reproduce.sh --table cpu "$D/raw-sim" "$D/raw-2w"
run_to "$D" "$D/idle.md" scripts/reproduce.sh --table idle "$D/raw-idle"
run_to "$D" "$D/idle-sim-vs-threads.md" scripts/reproduce.sh --table idle-sim-vs-threads \
	"$D/raw-2w" "$D/raw-idle"
fi

# ---------------------------------------------------------------------------------------------
# 8. The classic scaling tables (Cilk-5, Frigo, Leiserson and Randall, PLDI 1998): work T_1,
# span T_inf (the sim's trials[].span_ns, docs/sim.md "The span"), parallelism T_1/T_inf, and
# T_P from 1 to 256 simulated workers, every policy (volt and the policies built on its 64-bit
# parked bitmap, and blumofe-leiserson, up to 64), one process per workload and worker count
# with the policies interleaved; the sim at the default cost table plus 1 us of work per poll
# (per spawn for UTS, whose work comes with each child), imbalanced with its declared compute.
# The threads engine gives T_S (the sequential baseline) and T_1, T_2 on this machine, and the
# sim with a calibration of this machine (costs.txt) T_1 beside them.
D=$REF/8-scaling
if want 8 sim || want 8 threads; then
if ((!resume)); then
	if want 8 sim && want 8 threads; then rm -rf "${REF:?}/8-scaling"; fi
	for e in sim threads; do
		if want 8 "$e"; then rm -f "$D"/raw*/*-"$e"-*.json "$D"/raw*/*-"$e"-*.json.gz; fi
	done
fi
begin "$D" "8. Work, span, parallelism and speedup for every policy, 1 to 256 workers"
mkdir -p "$D/raw"
# workload:params, and the sim's work per poll (none: the workload declares its compute)
SCALE_WL=("fib:n=25 fib" "nqueens:n=11 nqueens" "uts:preset=medium uts" "uts:preset=T3-small uts"
	"sort:n=1000000 sort" "imbalanced:t0_ms=10:t1_ms=10:t2_ms=20:t3_ms=35 -")
SCALE_64=volt,fixed-interval-61,steal-one,locality,blumofe-leiserson
SCALE_256=tokio,tokio-1.28,go,rayon,central-queue,static-partition
# scale_args ENTRY: the harness's workload arguments of a SCALE_WL entry into args, its file
# name into name, its work into work.
scale_args() {
	local wl=${1%% *} rest pv
	work=${1##* }
	args=(--workload="${wl%%:*}")
	rest=${wl#*:}
	[ "$wl" = "$rest" ] && rest=
	for pv in ${rest//:/ }; do args+=(--param "$pv"); done
	name=${wl//[:=]/-}
}
# A calibration of this machine for the calibrated sim's T_1 beside the threads T_1: it belongs
# to the threads runs, as in parts 5 and 7, made again whenever they are; the sim runs alone
# reuse it.
COSTS=$D/costs.txt
if want 8 threads || [ ! -f "$COSTS" ]; then
	run "$D" "$H" --calibrate "$COSTS" --quiet
fi
# The threads engine first, alone on the machine: one run at a time.
if want 8 threads; then
	for entry in "${SCALE_WL[@]}"; do
		scale_args "$entry"
		for nw in 1 2; do
			run_once "$D" "$D/raw/$name-threads-${nw}w.*.json*" \
				"$H" --policy="$SCALE_64,$SCALE_256" "${args[@]}" --workers "$nw" \
				--trials 3 --warmup 1 --quiet --json "$D/raw/$name-threads-${nw}w.json"
		done
	done
fi
# The simulated runs, $jobs at a time (each is deterministic and uses one core), one process
# per policy: the driver refuses a run below its span or T_1/P (harness/driver.c check_bound),
# as the sim produced at many workers before it placed time within a step (docs/sim.md), and a
# refusal of one policy would take the others' results of the process with it. The refusals
# (none, when every run is within its bounds) are listed in refused.md and their commands kept
# in commands.sh as comments.
if want 8 sim; then
	for entry in "${SCALE_WL[@]}"; do
		scale_args "$entry"
		cost=()
		[ "$work" = - ] || cost=(--set "cost.work.$work=1000")
		for nw in 1 2 4 8 16 32 64 128 256; do
			pols=$SCALE_256
			((nw <= 64)) && pols=$SCALE_64,$SCALE_256
			for pol in ${pols//,/ }; do
				res=$D/raw/$name-sim-${nw}w.$pol.json
				quote "$H" --policy="$pol" "${args[@]}" "${cost[@]}" --workers "$nw" --engine sim \
					--trials 1 --warmup 0 --no-baseline --quiet --json "$res"
				echo
			done
		done
	done >"$D/sim.cmds"
	# Each run's stderr beside its result (the command's last word). A refused run exits 1
	# with one line ending in "result refused"; anything else stops the part.
	# --resume: the runs whose results are there are recorded, not run again.
	while IFS= read -r cmd; do
		res=${cmd##* }
		[ -e "$res" ] || [ -e "$res.gz" ] || echo "$cmd"
	done <"$D/sim.cmds" >"$D/sim.todo"
	# shellcheck disable=SC2016 # $1 is the inner shell's: the command xargs hands it
	xargs -d '\n' -P "$jobs" -I{} bash -c 'eval "$1" 2>"${1##* }.err" || true' _ {} \
		<"$D/sim.todo" >/dev/null
	refused=()
	while IFS= read -r cmd; do
		res=${cmd##* }
		if [ -e "$res" ] || [ -e "$res.gz" ]; then
			echo "$cmd"
		elif [ "$(wc -l <"$res.err")" = 1 ] && grep -q 'result refused$' "$res.err"; then
			echo "# refused: $cmd"
			refused+=("- ${res##*/}: $(sed 's/^harness: //' "$res.err")")
		else
			cat "$res.err" >&2
			echo "reproduce: part 8: $cmd failed (above)" >&2
			exit 1
		fi
		rm -f "$res.err"
	done <"$D/sim.cmds" >>"$D/commands.sh"
	{
		echo "Simulated runs the harness refused, below max(T_1/P, T_inf) (docs/sim.md,"
		echo "\"The span\"), by the result file they would have written:"
		echo
		if ((${#refused[@]})); then
			printf '%s\n' "${refused[@]}"
		else
			echo "None: every simulated run lies within its bounds."
		fi
	} >"$D/refused.md"
fi
rm -f "$D/sim.cmds" "$D/sim.todo"
# The calibrated sim's T_1: every policy on 1 worker with that calibration's costs and work per
# poll (--costs), one process per workload (nothing at 1 worker is refused).
if want 8 sim; then
	mkdir -p "$D/raw-cal"
	for entry in "${SCALE_WL[@]}"; do
		scale_args "$entry"
		run_once "$D" "$D/raw-cal/$name-sim-cal-1w.*.json*" \
			"$H" --policy="$SCALE_64,$SCALE_256" "${args[@]}" --costs "$COSTS" --workers 1 \
			--engine sim --trials 1 --warmup 0 --no-baseline --quiet \
			--json "$D/raw-cal/$name-sim-cal-1w.json"
	done
	compress "$D/raw-cal"
fi
# Why policies lie above the greedy bound (README): each as it is and with one cost or knob
# changed, at 1 worker and at P: tokio's fib(25) at 256 without its LIFO slot (every spawn into
# the ring, stealable at once) and with wakes that land at once (cost.wake_latency=0); volt's
# sort at 64 with such wakes, and its UTS medium at 64 with one lock per overflow
# (overflow_batch=1); central-queue's fib(25) at 256 with a lock held for no time
# (cost.global_lock=0); rayon's sort at 256 with steal attempts at half their cost and free
# (cost.steal_attempt=20, 0); rayon's imbalanced at 128 and 256 and blumofe-leiserson's at 64
# with free steal attempts and with leaves of 10 us (task_us=10); rayon's sort and imbalanced
# and blumofe-leiserson's imbalanced with thieves that take a task stamped after their own time
# and wait for it (cost.horizon=0, the sim before it kept a deque as it was at the thief's
# time; with free attempts too for imbalanced); tokio's and go's UTS
# T3-small at 256 with every scheduling cost 0 (ZERO) and with one task per steal and per
# global pop (steal_max=1, batch_max=1). Entries: name, policy, workload parameters
# (+-separated), work cost (- for none: the workload declares its compute), P, changes
# (+-separated, - for none).
IMB=t0_ms=10+t1_ms=10+t2_ms=20+t3_ms=35
ZERO=cost.local_push=0+cost.local_pop=0+cost.lifo=0+cost.global_lock=0+cost.global_task=0
ZERO+=+cost.steal_attempt=0+cost.steal_task=0+cost.notify=0+cost.park=0+cost.wake_latency=0
ZERO+=+cost.idle_step=0
if want 8 sim; then
	mkdir -p "$D/raw-ablation"
	for v in fib-n-25-tokio:tokio:n=25:fib:256:- fib-n-25-tokio-lifo0:tokio:n=25:fib:256:lifo_cap=0 \
		fib-n-25-tokio-wake0:tokio:n=25:fib:256:cost.wake_latency=0 \
		sort-n-1000000-volt:volt:n=1000000:sort:64:- \
		sort-n-1000000-volt-wake0:volt:n=1000000:sort:64:cost.wake_latency=0 \
		uts-preset-medium-volt:volt:preset=medium:uts:64:- \
		uts-preset-medium-volt-overflow1:volt:preset=medium:uts:64:overflow_batch=1 \
		fib-n-25-central:central-queue:n=25:fib:256:- \
		fib-n-25-central-lock0:central-queue:n=25:fib:256:cost.global_lock=0 \
		sort-n-1000000-rayon:rayon:n=1000000:sort:256:- \
		sort-n-1000000-rayon-steal20:rayon:n=1000000:sort:256:cost.steal_attempt=20 \
		sort-n-1000000-rayon-steal0:rayon:n=1000000:sort:256:cost.steal_attempt=0 \
		sort-n-1000000-rayon-horizon0:rayon:n=1000000:sort:256:cost.horizon=0 \
		imbalanced-rayon-128:rayon:$IMB:-:128:- \
		imbalanced-rayon-128-steal0:rayon:$IMB:-:128:cost.steal_attempt=0 \
		imbalanced-rayon-128-leaf10:rayon:$IMB+task_us=10:-:128:- \
		imbalanced-rayon-256:rayon:$IMB:-:256:- \
		imbalanced-rayon-256-steal0:rayon:$IMB:-:256:cost.steal_attempt=0 \
		imbalanced-rayon-128-horizon0:rayon:$IMB:-:128:cost.horizon=0 \
		imbalanced-rayon-128-horizon0-steal0:rayon:$IMB:-:128:cost.horizon=0+cost.steal_attempt=0 \
		imbalanced-rayon-256-horizon0:rayon:$IMB:-:256:cost.horizon=0 \
		imbalanced-bl:blumofe-leiserson:$IMB:-:64:- \
		imbalanced-bl-steal0:blumofe-leiserson:$IMB:-:64:cost.steal_attempt=0 \
		imbalanced-bl-horizon0:blumofe-leiserson:$IMB:-:64:cost.horizon=0 \
		imbalanced-bl-horizon0-steal0:blumofe-leiserson:$IMB:-:64:cost.horizon=0+cost.steal_attempt=0 \
		imbalanced-bl-leaf10:blumofe-leiserson:$IMB+task_us=10:-:64:- \
		uts-preset-T3-small-tokio:tokio:preset=T3-small:uts:256:- \
		uts-preset-T3-small-tokio-zero:tokio:preset=T3-small:uts:256:$ZERO \
		uts-preset-T3-small-tokio-steal1:tokio:preset=T3-small:uts:256:steal_max=1+batch_max=1 \
		uts-preset-T3-small-go:go:preset=T3-small:uts:256:- \
		uts-preset-T3-small-go-zero:go:preset=T3-small:uts:256:$ZERO \
		uts-preset-T3-small-go-steal1:go:preset=T3-small:uts:256:steal_max=1+batch_max=1; do
		IFS=: read -r vname vpol vparam vwork vp vset <<<"$v"
		set_=()
		[ "$vwork" = - ] || set_=(--set "cost.work.$vwork=1000")
		[ "$vset" = - ] || for kv in ${vset//+/ }; do set_+=(--set "$kv"); done
		param_=()
		for kv in ${vparam//+/ }; do param_+=(--param "$kv"); done
		wl=$vwork
		[ "$wl" = - ] && wl=imbalanced
		for nw in 1 "$vp"; do
			res=$D/raw-ablation/$vname-sim-${nw}w.json
			run_once "$D" "$res*" \
				"$H" --policy="$vpol" --workload="$wl" "${param_[@]}" "${set_[@]}" \
				--workers "$nw" --engine sim --trials 1 --warmup 0 --no-baseline --quiet \
				--json "$res"
		done
	done
	compress "$D/raw-ablation"
fi
compress "$D/raw"
run_to "$D" "$D/ablation.md" scripts/reproduce.sh --table work-span-ablation "$D/raw-ablation"
run_to "$D" "$D/work-span.md" "$PY" scripts/tables.py --metric work-span "$D/raw" "$D/raw-cal"
run "$D" "$PY" scripts/plot.py normalized-speedup -o "$D/normalized-speedup.png" "$D/raw"
fi

# ---------------------------------------------------------------------------------------------
# README.md: the machine, the time taken and every table.
t_end=$(date +%s)
secs=$((t_end - t_start))
# The provenance of every part's results, per engine, from the result files themselves: when,
# at which revision, and (threads) how loaded the machine was and what the noise accounting saw.
prov() {
	"$PY" - "$REF" <<'EOF'
import glob, os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.getcwd(), "scripts"))
import harnesslib as hl
ref = sys.argv[1]
first = None
rows = []
for part in ("1-imbalanced", "2-zygos", "3-tokio-shapes", "4-ablation", "5-sim-vs-threads",
             "6-models-vs-real", "7-cpu-vs-latency", "8-scaling"):
    by = {}
    # raw*/ directories, or the archives that stand for them (raw*.tar.xz).
    for f in hl.find_result_files(sorted(glob.glob(os.path.join(ref, part, "raw*")))):
        try:
            d = hl.read_json(f)
        except ValueError:
            continue
        if d.get("schema") != "harness-result":
            continue
        by.setdefault(d["config"]["engine"], []).append(d)
    for eng in ("threads", "real", "sim"):
        ds = by.get(eng)
        if not ds:
            continue
        p = [d["provenance"] for d in ds]
        first = first or p[0]
        days = sorted(set(x["timestamp_utc"][:10] for x in p))
        # A build with uncommitted changes says so (git_rev.cmake's -dirty).
        revs = sorted(set(x["git_revision"][:7] + ("-dirty" if x["git_revision"].endswith("-dirty")
                                                    else "") for x in p))
        extra = ""
        if eng == "real":
            la = [x["load_average"][0] for x in p if x.get("load_average")]
            rts = sorted(set("%s %s" % (d["config"]["peer"]["runtime"],
                                        d["config"]["peer"]["version"]) for d in ds))
            extra = ", ".join(rts) + ("; load average %.1f..%.1f" % (min(la), max(la)) if la else "")
        if eng == "threads":
            n = [d.get("noise") for d in ds]
            if all(n):
                trials = sum(len(d["trials"]) for d in ds)
                flagged = sum(x["flagged"] for x in n)
                c2c = [x["c2c_regime_ns"] for x in n if x["c2c_regime_ns"]]
                extra = "%d of %d trials flagged; round trip %.0f..%.0f ns" % (
                    flagged, trials, min(c["min"] for c in c2c), max(c["max"] for c in c2c))
            else:
                extra = "no noise record (made before the noise accounting)"
            la = [x["load_average"][0] for x in p if x.get("load_average")]
            if la:
                extra += "; load average %.1f..%.1f" % (min(la), max(la))
        rows.append("| %s | %s | %d | %s | %s | %s |" % (
            part, eng, len(ds), " .. ".join([days[0], days[-1]] if len(days) > 1 else days),
            ", ".join(revs), extra))
print("| part | engine | result files | made (UTC) | revision | machine (threads) |")
print("|---|---|---:|---|---|---|")
print("\n".join(rows))
if first:
    print()
    print("- %s `%s` (%s), allocator %s" % (first["compiler"], first["cflags"],
          first["build_type"], first["allocator"]))
    print("- %s, %d cores online, %s, host %s" % (first["cpu_model"], first["cores_online"],
          first["kernel"], first["hostname"]))
EOF
}
# The raw directories of the parts rerun, packed: raw*/ -> raw*.tar.xz.
for i in 1 2 3 4 5 6 7 8; do
	if want "$i" sim || want "$i" threads; then
		for d in "$REF/$i"-*/raw*/; do
			if [ -d "$d" ]; then "$PY" scripts/resultpack.py pack "${d%/}"; fi
		done
	fi
done
# section FILE: a table this reproduction made, or why there is none.
section() {
	if [ -f "$1" ]; then cat "$1"; else echo "(not made: this part was not run; see the table above)"; fi
}
c2c=$("$H" --probe-c2c 2>/dev/null | awk '{print $2}' || true)
{
	cat <<EOF
# Reference results

Made by \`scripts/reproduce.sh\`; its last invocation ($(date -u +%Y-%m-%d), $((secs / 60)) min $((secs % 60)) s) rebuilt
parts ${sel_parts//,/, } for $(if [[ $sel_engines = *,* ]]; then echo both engines; else echo the "$sel_engines" engine; fi). Every part's results, per engine,
as their own files record them:

$(prov)
- core-to-core round trip at the end of the last invocation: ${c2c:-?} ns (threads-engine
  figures at 2 workers depend on it)
$(if [ -f "$REF/NOTES.md" ]; then printf '\n'; cat "$REF/NOTES.md"; fi)

Each directory holds the grid, the raw results with the harness logs, the tables, the figures,
and \`commands.sh\` with the commands that made them. The raw results (one JSON document per run
and policy, \`docs/results.md\`) are stored packed, one archive per raw directory: \`raw.tar.xz\`
stands for the directory \`raw/\` that the sweep wrote. Every script reads an archive as that
directory (\`scripts/tables.py results/reference/1-imbalanced/raw\` works on a fresh clone), and
\`scripts/resultpack.py list\`, \`cat\` and \`unpack\` open one by hand (so does
\`tar -xOJf raw.tar.xz NAME.json | jq .\`). Rerun everything with \`scripts/reproduce.sh\`; the
simulated parts (sim engine) reproduce exactly, the threads-engine parts within their intervals.

## 1. Imbalanced partitions: static partition against work stealing

Four partitions of 100, 100, 200 and 350 ms of spin work, 100 us per leaf task; partition p
starts on worker p mod workers. On the sim engine with 4 workers each partition has its own
worker: static partition (no stealing) finishes when the 350 ms partition does, utilization
750 / (4 x 350) = 53.6%, while every stealing policy spreads the work to the ideal
750 / 4 = 187.5 ms. On the threads engine with 2 workers (this machine has 2 cores),
partitions 0 and 2 share worker 0 (300 ms) and partitions 1 and 3 share worker 1 (450 ms):
static partition takes 450 ms against the ideal 375 ms, utilization 750 / (2 x 450) = 83.3%;
the imbalance is smaller because two partitions per worker even it out.

$(section "$REF/1-imbalanced/utilization.md")

$(section "$REF/1-imbalanced/makespan.md")

Figures: \`1-imbalanced/utilization-threads-2w.png\`, \`1-imbalanced/utilization-sim-4w.png\`.

## 2. ZygOS: p99 / S against load, 16 simulated workers

Open-loop Poisson arrivals, mean service S = 1 ms, as many requests per point as the harness's
own sizing gives (\`workloads/open_loop.c\`: enough for one partitioned queue to converge,
about 1.1 million at load 0.95, after a warm-up it does not record) and its default 5 trials
(p99 of every trial's recorded requests pooled, latencies measured from the intended
arrival; the figures' error bars are the p99's 95% interval over the trials; the scheduling
delay is not sampled, \`--sample 0\`, which leaves every other figure as it is). Figures:
\`2-zygos/p99-vs-load-exponential.png\`, \`2-zygos/p99-vs-load-bimodal1.png\`.

The theory curves assume Poisson arrivals, exponential service (bimodal-1 has the same mean
and a larger variance), no scheduling cost and no wake-up latency (the sim's 5 us is 0.5% of
S here). Static partition runs with random routing (\`routing=random\`), which makes it
16 x M/M/1; its default, round-robin, deals arrivals in turn, which makes each queue E_16/M/1
with a lower tail than the curve. Central queue is M/M/16. Both lie on their curves to within
a few percent at every load (exponential table below).

The stealing policies stay near the shared-queue curve, an order of magnitude below the
partitioned one at high load. volt is drawn twice: as Volt's code runs (the global-batch
pre-fetch buffer empty) and with the design's private 32-task buffer (\`volt[prefetch=32]\`,
from \`grid-*-prefetch32.json\`), which hides a batch's surplus from thieves: its tail rises
from load 0.6 on. tokio's tail lies above the M/M/16 curve from load 0.85 on, and the two
rows \`tokio[batch_max=1]\` and \`tokio[interval=61]\` (\`grid-*-tokio.json\`, table only)
take it apart: with one task per inject pop (Tokio up to 1.28) tokio is on the curve; with
the batch pulls but a fixed interval of 61 it is halfway. A batch pull moves up to
len / workers + 1 requests into the puller's own queue, where they wait behind its current
1 ms request until a thief comes (worker.rs \`next_task\`); the self-tuned interval
(200 us / 1 ms, clamped to 2) has a busy worker take one request from the inject queue ahead
of its own queue every other tick, so that the requests it pulled before wait longer still.
go's batch (proc.go \`globrunqget\`) with its fixed 61 sits with \`tokio[interval=61]\`.

Exponential service:

$(section "$REF/2-zygos/p99-exponential.md")

Bimodal-1 service (90% 0.5 S, 10% 5.5 S):

$(section "$REF/2-zygos/p99-bimodal1.md")

## 3. Tokio-style benchmarks, threads engine, 2 workers

Every policy of \`--policy=all\` interleaved in one process per benchmark (one shared shuffled
trial order), 41 trials after 5 warm-up trials; wall time per operation (makespan divided
by the spawned tasks, chain links, yields or messages of the trial), median over trials with
its distribution-free 95% interval. Two workers on two shared virtual cores: the figures move
with the core-to-core round trip (see the figure's footer), so compare rows within one run.

$(section "$REF/3-tokio-shapes/ns-per-op.md")

Per task as the harness counts them (\`tables.py --metric ns-per-task\`):

$(section "$REF/3-tokio-shapes/ns-per-task.md")

## 4. Ablations: volt against single-mechanism variants

volt against volt with one mechanism changed (\`volt[lifo_cap=0]\`: no LIFO slot;
\`volt[lifo_cap=1000000000]\`: no cap on it; \`fixed-interval-61\`: the global-queue interval
fixed at 61; \`steal-one\`: steals of one task; \`volt[wake=1]\`: the sleeper-stack wake order)
and against tokio, tokio-1.28 and go, all interleaved in one process per workload: fib(25),
UTS T3-small, ping-pong, yield-many and open-loop (S = 100 us, exponential) at loads 0.5, 0.8
and 0.9; threads engine at 2 workers (7 trials), sim engine at 16 and 64 workers (6 trials;
2,000 requests per open-loop run at 64). Each cell is the median makespan (open-loop: the
p99 latency of all trials' requests pooled) over volt's, with the ratio of the two medians'
95% intervals (conservative); below 1 is faster than volt. Figure: \`4-ablation/ablation.png\`.

$(section "$REF/4-ablation/ablation.md")

## 5. The calibrated sim against the threads engine

\`harness --calibrate\` on this machine first (\`5-sim-vs-threads/costs.txt\`: the mechanisms,
the cache model's cold start and line transfer, and each workload's work per poll), then every
policy, interleaved in one process per workload, on the threads engine (5 trials at 1 worker,
7 at 2) and on the sim with that calibration (1 trial: it is deterministic), at 1 and 2
workers: fib(30), nqueens(12), UTS T3-small, sort (2,000,000 keys), the four Tokio shapes, and
open-loop (S = 100 us, exponential, 2,000 requests) at loads 0.5 and 0.8. Each cell is sim /
threads of the median makespan (open-loop: of the p50 and p99 latencies), with the threads
median's 95% interval; the median is of the trials made in the core-to-core round-trip regime
the calibration's runs were taken in (the file names it), and the table gives the ratio over
all trials beside it. A cell misses beyond 20% (35% for
central-queue and static-partition), and each miss is listed with what the results say about
it. \`docs/sim.md\` ("Validation") sums it up.

$(section "$REF/5-sim-vs-threads/sim-vs-threads.md")

## 6. The models beside the real runtimes

Each model with a real counterpart on the threads engine (\`tokio-1.28\`, \`go\`, \`rayon\`), and
the runtime itself through its peer program (\`--engine=real\`, \`peers/README.md\`: Debian's
Tokio 1.24, Go 1.19 and Rayon 1.6, built by \`scripts/peers.sh\`; oneTBB 2021, \`tbb\`, has no
model and stands beside them on fib and nqueens), 7 trials each, the policies' trials
interleaved in one process per engine: fib(27) and nqueens(11), every node a task,
spawn-many (10,000 tasks) from a worker and from outside (Go has no spawn from outside), and
on Tokio and Go, which have async tasks, chained-spawn, yield-many and ping-pong, at 1 and 2
workers; open-loop at loads 0.5 and 0.9 on 2 workers, 5 trials, the runtimes on the very
schedules the models run. Each cell is the median ns per task with its 95% interval; the ratio is the
runtime's over the model's: how much more a task costs in the runtime than in the model of
its scheduler. Below, Tokio's own counters beside the model's, per 1000 tasks (Tokio's
counts reach its metrics late: \`peers/README.md\`).

$(section "$REF/6-models-vs-real/models-vs-real.md")

The sim's costs fitted to each runtime by \`scripts/runtime_costs.py\` (\`docs/sim.md\`, "Costs of
a real runtime"; the files \`tokio-real.costs\` and \`go-real.costs\`, on this machine's
calibration \`machine.costs\`): spawn and poll to the 1-worker runs (for Go also
spawn_fresh, a spawn with no finished task's descriptor to reuse, and its fib's own work,
with chained-spawn and yield-many beside fib and spawn-many), the 2-worker lines'
costs to the 2-worker runs, and the sim's 2-worker makespan over the runtime's on sizes the
fit was not made on:

$(section "$REF/6-models-vs-real/tokio-real-fit.md")

$(section "$REF/6-models-vs-real/go-real-fit.md")

## 7. What each policy burns for its latency

Open-loop (exponential service, S = 10 us: short enough that a wake-up's latency and an idle
worker's search weigh against a request) at loads 0.1 to 0.9 on 16 simulated workers (default
costs, 50,000 requests, one trial per point), every policy at its defaults and at the knob
values that trade wake-up latency for CPU (volt's and tokio's \`searcher_cap\` at 1/16 and 1,
volt's wake order \`wake=1\`, go's \`spin_cap\` at 1/16 and 1, rayon's \`rounds_until_sleepy\` at
0 and 128); at loads 0.1 to 0.7 on 2 threads (2,000 requests, 7 trials, the four policies
interleaved; S = 100 us: at 10 us this shared machine's threads fall behind; a threads
worker's idle CPU at one load moves up to twofold between trials with the host's speed, where
the sim's moves by 5% between seeds) and on the sim
calibrated on this machine just before (\`7-cpu-vs-latency/costs.txt\`); and the trickle,
S = 100 us at loads 0.01, 0.03 and 0.1 with one second of arrivals per trial (2 trials) at 2
workers. The CPU is each worker thread's CPU clock, or in the
sim the modelled time of its steps (\`docs/results.md\`, \`trials[].cpu\`). Figures:
\`7-cpu-vs-latency/p99-vs-cpu-sim-16w.png\` (defaults), \`p99-vs-cpu-sim-16w-POLICY.png\` (each
policy with its knob values), \`p99-vs-cpu-threads-2w.png\`.

$(section "$REF/7-cpu-vs-latency/cpu-summary.md")

On 16 simulated workers rayon pays the most CPU for its tail: its workers search 32 rounds
before they sleep, and at load 0.1 its CPU per request is 6.6 S against 1.1 to 1.2 S for the
others (9.4 S with \`rounds_until_sleepy=128\`; 1.66 S with 0, for a p99 of 4.83 S instead of
4.58 S). go's \`spin_cap\` at 1/16 spends 1.15 S per request at load 0.5 against its default's
1.32 S, for the same p99. volt's and tokio's \`searcher_cap\` at 1/16 and 1, and volt's wake
order, move neither figure by more than 2% at any load. On 2 threads of this shared machine
the rows above load 0.1 measure the machine as much as the policies: their p99 reaches tens of
S, and in several of them the CPU per request lies below S, as a compute that spins on the
wall clock costs less CPU than it declares when the OS takes the CPU away (\`docs/results.md\`).

\`7-cpu-vs-latency/cpu.md\` gives, per configuration and load, the CPU per request with its
interval, the idle CPU, the cores in use, p99 / S, the wakes per request and their latency.

The idle case, CPU per second of wall time at a trickle of requests:

$(section "$REF/7-cpu-vs-latency/idle.md")

The calibrated sim's idle CPU against the threads engine's at 2 workers, with the kernel's
part of each per request (threads: the workers' system time; sim: the \`park\` and \`notify\`
costs their counters charge, \`notify_deep\` in \`notify\`'s place for a worker whose CPU the
host had scheduled out, each sleep's way back from the kernel, \`wake_return\` or
\`timeout_return\`, and rayon's yields, \`yield\`), the sleeps per request (those an unpark
ended and those a timeout ended) and the idle CPU per sleep. The calibrated sim delivers the
arrivals through the workers' I/O polls, as threads do (\`cost.io_poll=1\`: the timekeeper's
sleeps end by their timeouts), and still sleeps more often per request
(\`docs/sim.md\`, "Idle CPU against threads at 2 workers"); the two kernel columns
show how much of a gap in idle CPU is the kernel's, the two sleep columns how much of it is how
often the workers sleep, and the last two what each sleep costs all told (idle CPU is nearly
proportional to the sleeps on both engines).

$(section "$REF/7-cpu-vs-latency/idle-sim-vs-threads.md")
## 8. Work, span, parallelism and speedup, 1 to 256 workers

The Cilk papers' measures for every policy on six fork-join graphs: fib(25), nqueens(11), UTS
\`medium\` (T1's geometric family at depth 8, 257,042 nodes; T1 itself has 4.1 million) and
\`T3-small\` (T3's binomial family, 143,529 nodes), sort of 1,000,000 keys, and imbalanced at a
tenth of part 1's partitions (10, 10, 20 and 35 ms of 100 us leaves). On the sim, from 1 to 256
workers (volt, the policies built on it and blumofe-leiserson, whose parked bitmaps hold 64
workers, to 64), one trial each, at the default cost table with 1 us of work per poll (per
spawn for UTS, whose work comes with each child); imbalanced's leaves declare their compute.
T_1 is each policy's own 1-worker makespan, T_inf the span of the graph the run executed under
the same costs (\`trials[].span_ns\`, \`docs/sim.md\` "The span": each poll charged its poll,
spawns, work and compute, nothing a schedule adds). On the threads engine, at 1 and 2 workers
(3 trials each, all policies interleaved): T_S, the sequential baseline, and T_1, T_2. Beside
the threads T_1, the calibrated sim's: every policy on 1 simulated worker with a calibration of
this machine made with the threads runs (\`8-scaling/costs.txt\`: the mechanisms' costs and each
workload's work per poll; results in \`raw-cal/\`), and its T_1 over the threads T_S.

![Normalized speedup](8-scaling/normalized-speedup.png)

\`8-scaling/normalized-speedup.png\`: each policy's simulated cells, (T_1/T_P)/(T_1/T_inf)
against P/(T_1/T_inf), with linear speedup, the span bound and the greedy bound T_1/P + T_inf.
The table gives, per workload, T_S, T_1, the work overhead T_1/T_S, T_inf, the parallelism
T_1/T_inf and every speedup, a cell above the greedy bound marked with its ratio; below it, per
policy, c_1 (the median T_1/T_S) and the fit T_P = c_w T_1/P + c_inf T_inf over its simulated
cells, whose c_inf says how much of the span each policy's schedule pays: blumofe-leiserson
0.44 (never above the greedy bound) and rayon 0.71 (up to x1.90, sort at 256), volt and the policies
built on it 1.26 to 1.33, tokio 1.33, tokio-1.28 1.27, go 1.20, central-queue 1.26 (its lock
puts it up to x10 above the bound), static-partition 39.

$(section "$REF/8-scaling/work-span.md")

**Above the greedy bound, and why** (\`8-scaling/ablation.md\`, each with one change, at 1
worker and at P):

- *By a few tenths of a percent* (x1.000 to x1.03, most policies at some P): the P-worker run
  does work the 1-worker run T_1 does not, the first steals, notifies and wakes, and the greedy
  bound, stated for the same work, leaves no room for it.
- *tokio and tokio-1.28 at 128 and 256 workers* (fib x1.40 and imbalanced x2.05 at 256): most
  workers find nothing at
  the start (the root's first child sits in the LIFO slot, which thieves cannot take) and park
  without a timeout; a spawn wakes a sleeper only when no worker is searching (tokio's
  \`notify_should_wakeup\`), so the workers come back a few at a time, each wake landing a
  \`wake_latency\` (5 us) after it is sent. Without the LIFO slot (\`lifo_cap=0\`) no worker
  parks and fib meets the bound (x0.99); with wakes that land at once (\`cost.wake_latency=0\`)
  the same 501 parks cost x1.03 (imbalanced at 256: 0.807 ms, 0.397 ms with wakes at once,
  0.413 ms without the slot, against a bound of 0.394 ms). rayon never parks here (its
  thieves keep searching).
- *go at 128 and 256 workers* (fib x1.05, nqueens x1.06 at 256): a spawned child takes the
  \`runnext\` slot, which thieves take only on their last pass, after a 3 us pause while the
  victim runs (proc.go \`runqgrab\`); with \`runnext=0\` go's fib at 256 ends at 1.510 ms
  against a bound of 1.519 ms (1.596 ms as is; wakes that land at once change nothing).
- *The parking policies on sort at 16 and more workers* (volt x2.07 at 64, tokio x3.59 and go
  x4.83 at 256): sort's parallelism is 42, so a worker runs out of work at every merge and
  parks; each wake again costs 5 us, against T_1/P of 50 us at 64 workers. With wakes at once
  volt's sort at 64 drops from x2.07 to x1.14 (\`8-scaling/ablation.md\`); blumofe-leiserson,
  which does not park, stays within.
- *volt and the policies built on it on UTS medium at 32 and 64 workers* (x1.01 to x1.16):
  a full ring's overflow moves 128 tasks to the global queue taking its lock once per task,
  as Volt's push does, and at 64 workers those holds queue behind one another (66 thousand
  tasks through the global queue in volt's run). With one lock per overflow
  (\`overflow_batch=1\`) volt's UTS medium at 64 comes to x1.08 (x1.16 as Volt's code runs).
- *central-queue from 32 workers on* (fib x9.26 at 256): every task passes the one queue's lock,
  held \`global_lock\` (40 ns) per batch, so the lock, not the graph, bounds the run; with the
  lock held for no time it meets the bound.
- *static-partition*: nothing moves once placed, so one worker runs the whole graph (speedup 1
  on fib, nqueens, UTS and sort; on imbalanced, the largest partition).
- *rayon's sort at 128 and 256 workers* (x1.26, x1.90): a thief sweeps every other worker
  once, 40 ns an attempt, 10.2 us a sweep at 256 workers against T_1/P of 12.4 us, and a
  task that leaves a busy worker waits for a sweep to reach it; the sim runs a sweep as one
  step, which finds each deque as it was when the sweep reaches it, so a task pushed behind
  it waits for the next one. With attempts at 20 ns the cell at 256 comes to x1.30, free to
  x1.01 (its thieves then sleep, their 32 rounds taking no time); before the sim kept a
  deque as it was at the thief's time (\`horizon=0\`, below) it was x1.13.
- *rayon's imbalanced at 128 and 256 workers and blumofe-leiserson's at 64, before the sim
  kept a deque as it was at the thief's time* (the \`horizon=0\` rows, \`cost.horizon=0\`:
  x1.17, x1.05 and x1.10, still x1.02 with free steal attempts): a leaf's join pushes its
  parent back at the leaf's end, 100 us into its step, and the sim places a step whole in
  the queues, so thieves stepped at earlier clocks took the parent and waited for it, idle
  while leaves waited in other deques (blumofe-leiserson's run with free attempts: 313
  waits, 8.2 ms of its 83 ms of worker time), where a real thief finds the deque empty and
  searches on. The sim's thieves now see a deque as it was at their own time (\`docs/sim.md\`,
  "Time within a step"): no poll waits, and the cells lie under the bound (x0.95, x0.89,
  x0.82). Other queues still hand out such tasks: go's \`runnext\` and central-queue's global
  queue (go's run at 256 waits more than 10 us 182 times).
- *UTS T3-small under tokio, tokio-1.28 and go at 128 and 256 workers* (x1.10 to x1.12 at
  256, go x1.01 at 128): the sim's, not the policies'. The root spawns its 2,000 children in
  one 2 ms poll, and the sim places a step whole in the queues (\`docs/sim.md\`): the root's 256-slot ring
  overflows 14 times within that step, 1,806 children to the global queue, in every
  configuration tried, where 255 thieves would keep a real ring from filling; thieves that
  take a child before its stamp wait for it with what else they took queued behind it
  (p99.9 scheduling delay 1.2 ms under tokio, 2.6 us under rayon, whose deque is
  unbounded and seen by a thief as it was at the thief's time). Every scheduling cost 0 leaves tokio at x1.10 and go at x1.09; one task per
  steal and per global pop (\`steal_max=1 batch_max=1\`) comes closest, x1.06 and x1.08
  (\`docs/policies.md\`, "Above the greedy bound").

**Refused cells** (\`8-scaling/refused.md\`): the harness refuses a run below max(T_1/P,
T_inf). None is, since the sim places what a step does at its time within the step
(\`docs/sim.md\`, "Time within a step"). Before, 29 were: UTS T3-small under go and rayon at
128 and 256 workers (the root's 2,000 children were all visible as its poll started), sort
under rayon at 128 and 256, and imbalanced under rayon, go, central-queue and
blumofe-leiserson from 4 to 256 workers (a leaf's join taken by a thief before the leaf's
100 us were charged).

**Published figures.** Frigo, Leiserson and Randall, "The Implementation of the Cilk-5
Multithreaded Language" (PLDI 1998), state that a spawn costs 2 to 6 times a C function call
and that many Cilk programs run on one processor with virtually no degradation against the
equivalent C program; Blumofe et al., "Cilk: An Efficient Multithreaded Runtime System" (PPoPP
1995), that the work and the critical path model a Cilk program's running time as
T_P ~ T_1/P + c_inf T_inf, and draw the normalized-speedup figure above. Here fib's T_1/T_S on
threads is 50 to 220, not 2 to 6: the baseline is plain recursion, which the compiler turns
into about half a nanosecond a call, while every node here is a task of its own, a 64-byte
block through a queue, with no cutoff; nqueens (every partial board a task), UTS and sort do
real work per task and their T_1/T_S is 0.7 to 6. The spans differ in kind as well: Cilk
measures T_inf on the machine with the program's own instrumentation, here it is the sim's
figure for the cost table, on virtual workers that share no memory system. Cilk-5's per-program
table (fib and queens: T_1/T_S, T_1/T_inf, T_8) is not copied here: its figures could not be
checked against the paper where this was written. Nor are the speedups of UTS (Olivier et al.,
LCPC 2006: OpenMP and UPC versions with work stealing, on shared-memory machines and PC
clusters, where UPC lost to communication costs) or of BOTS (Duran et al., ICPP 2009: OpenMP
3.0 tasks on an SGI Altix): both measure real machines with their own memory systems and
runtimes, where the sim's cells here are the cost table's on virtual workers.
EOF
} >"$REF/README.md.tmp"
mv "$REF/README.md.tmp" "$REF/README.md"
echo "reproduce: done in $((secs / 60)) min $((secs % 60)) s; see $REF/README.md" >&2
