#!/bin/sh
# 6. The models beside the real runtimes: tokio-1.28, go, rayon against Tokio, Go, Rayon
# The commands that made the files in this directory, in order, run from the repository root
# by scripts/reproduce.sh. Each raw*/commands.sh lists the harness command line of every run
# of that sweep; each result file holds its own in provenance.command_line.
set -e
scripts/peers.sh build
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=fib --param n=27 --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/fib-n-27-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon\,tbb --workload=fib --param n=27 --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/fib-n-27-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=nqueens --param n=11 --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/nqueens-n-11-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon\,tbb --workload=nqueens --param n=11 --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/nqueens-n-11-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=spawn-many --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon --workload=spawn-many --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,rayon --workload=spawn-many --param from=1 --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-from-1-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,rayon --workload=spawn-many --param from=1 --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-from-1-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,go --workload=chained-spawn --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/chained-spawn-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,go --workload=chained-spawn --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/chained-spawn-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,go --workload=yield-many --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/yield-many-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,go --workload=yield-many --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/yield-many-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,go --workload=ping-pong --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/ping-pong-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,go --workload=ping-pong --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/ping-pong-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=fib --param n=27 --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/fib-n-27-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon\,tbb --workload=fib --param n=27 --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/fib-n-27-real-2w.json
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=nqueens --param n=11 --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/nqueens-n-11-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon\,tbb --workload=nqueens --param n=11 --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/nqueens-n-11-real-2w.json
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=spawn-many --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon --workload=spawn-many --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-real-2w.json
build/harness --engine threads --policy=tokio-1.28\,rayon --workload=spawn-many --param from=1 --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-from-1-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,rayon --workload=spawn-many --param from=1 --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-from-1-real-2w.json
build/harness --engine threads --policy=tokio-1.28\,go --workload=chained-spawn --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/chained-spawn-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,go --workload=chained-spawn --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/chained-spawn-real-2w.json
build/harness --engine threads --policy=tokio-1.28\,go --workload=yield-many --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/yield-many-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,go --workload=yield-many --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/yield-many-real-2w.json
build/harness --engine threads --policy=tokio-1.28\,go --workload=ping-pong --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/ping-pong-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,go --workload=ping-pong --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/ping-pong-real-2w.json
build/harness --engine threads --policy=tokio-1.28\,go --workload=open-loop --param load=0.5\,0.9 --workers 2 --trials 5 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/open-loop-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,go --workload=open-loop --param load=0.5\,0.9 --workers 2 --trials 5 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/open-loop-real-2w.json
scripts/reproduce.sh --table models-vs-real results/reference/6-models-vs-real/raw > results/reference/6-models-vs-real/models-vs-real.md
build/harness --calibrate results/reference/6-models-vs-real/machine.costs
scripts/runtime_costs.py --policy tokio-1.28 --harness build/harness --base results/reference/6-models-vs-real/machine.costs --out results/reference/6-models-vs-real/tokio-real.costs --check > results/reference/6-models-vs-real/tokio-real-fit.md
scripts/runtime_costs.py --policy go --harness build/harness --base results/reference/6-models-vs-real/machine.costs --out results/reference/6-models-vs-real/go-real.costs --check > results/reference/6-models-vs-real/go-real-fit.md
