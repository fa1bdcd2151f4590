#!/bin/sh
# 5. The calibrated sim against the threads engine, every policy, 1 and 2 workers
# The commands that made the files in this directory, in order, run from the repository root
# by scripts/reproduce.sh. Each raw*/commands.sh lists the harness command line of every run
# of that sweep; each result file holds its own in provenance.command_line.
set -e
build/harness --calibrate results/reference/5-sim-vs-threads/costs.txt --quiet
build/harness --policy=all --workload=fib --param n=30 --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/fib-n-30-threads-1w.json
build/harness --policy=all --workload=fib --param n=30 --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/fib-n-30-sim-1w.json
build/harness --policy=all --workload=nqueens --param n=12 --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/nqueens-n-12-threads-1w.json
build/harness --policy=all --workload=nqueens --param n=12 --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/nqueens-n-12-sim-1w.json
build/harness --policy=all --workload=uts --param preset=T3-small --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/uts-preset-T3-small-threads-1w.json
build/harness --policy=all --workload=uts --param preset=T3-small --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/uts-preset-T3-small-sim-1w.json
build/harness --policy=all --workload=sort --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/sort-threads-1w.json
build/harness --policy=all --workload=sort --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/sort-sim-1w.json
build/harness --policy=all --workload=spawn-many --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/spawn-many-threads-1w.json
build/harness --policy=all --workload=spawn-many --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/spawn-many-sim-1w.json
build/harness --policy=all --workload=chained-spawn --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/chained-spawn-threads-1w.json
build/harness --policy=all --workload=chained-spawn --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/chained-spawn-sim-1w.json
build/harness --policy=all --workload=yield-many --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/yield-many-threads-1w.json
build/harness --policy=all --workload=yield-many --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/yield-many-sim-1w.json
build/harness --policy=all --workload=ping-pong --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/ping-pong-threads-1w.json
build/harness --policy=all --workload=ping-pong --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/ping-pong-sim-1w.json
build/harness --policy=all --workload=open-loop --param load=0.5 --param requests=2000 --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/open-loop-load-0.5-threads-1w.json
build/harness --policy=all --workload=open-loop --param load=0.5 --param requests=2000 --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/open-loop-load-0.5-sim-1w.json
build/harness --policy=all --workload=open-loop --param load=0.8 --param requests=2000 --workers 1 --trials 5 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/open-loop-load-0.8-threads-1w.json
build/harness --policy=all --workload=open-loop --param load=0.8 --param requests=2000 --workers 1 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/open-loop-load-0.8-sim-1w.json
build/harness --policy=all --workload=fib --param n=30 --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/fib-n-30-threads-2w.json
build/harness --policy=all --workload=fib --param n=30 --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/fib-n-30-sim-2w.json
build/harness --policy=all --workload=nqueens --param n=12 --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/nqueens-n-12-threads-2w.json
build/harness --policy=all --workload=nqueens --param n=12 --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/nqueens-n-12-sim-2w.json
build/harness --policy=all --workload=uts --param preset=T3-small --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/uts-preset-T3-small-threads-2w.json
build/harness --policy=all --workload=uts --param preset=T3-small --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/uts-preset-T3-small-sim-2w.json
build/harness --policy=all --workload=sort --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/sort-threads-2w.json
build/harness --policy=all --workload=sort --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/sort-sim-2w.json
build/harness --policy=all --workload=spawn-many --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/spawn-many-threads-2w.json
build/harness --policy=all --workload=spawn-many --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/spawn-many-sim-2w.json
build/harness --policy=all --workload=chained-spawn --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/chained-spawn-threads-2w.json
build/harness --policy=all --workload=chained-spawn --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/chained-spawn-sim-2w.json
build/harness --policy=all --workload=yield-many --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/yield-many-threads-2w.json
build/harness --policy=all --workload=yield-many --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/yield-many-sim-2w.json
build/harness --policy=all --workload=ping-pong --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/ping-pong-threads-2w.json
build/harness --policy=all --workload=ping-pong --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/ping-pong-sim-2w.json
build/harness --policy=all --workload=open-loop --param load=0.5 --param requests=2000 --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/open-loop-load-0.5-threads-2w.json
build/harness --policy=all --workload=open-loop --param load=0.5 --param requests=2000 --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/open-loop-load-0.5-sim-2w.json
build/harness --policy=all --workload=open-loop --param load=0.8 --param requests=2000 --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/open-loop-load-0.8-threads-2w.json
build/harness --policy=all --workload=open-loop --param load=0.8 --param requests=2000 --workers 2 --engine sim --costs results/reference/5-sim-vs-threads/costs.txt --trials 1 --warmup 0 --no-baseline --quiet --json results/reference/5-sim-vs-threads/raw/open-loop-load-0.8-sim-2w.json
scripts/reproduce.sh --table sim-vs-threads results/reference/5-sim-vs-threads/raw > results/reference/5-sim-vs-threads/sim-vs-threads.md
