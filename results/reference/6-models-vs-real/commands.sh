#!/bin/sh
# 6. The models beside the real runtimes: tokio-1.28, go, rayon against Tokio, Go, Rayon
# The commands that made the files in this directory, in order, run from the repository root
# by scripts/reproduce.sh. Each raw*/commands.sh lists the harness command line of every run
# of that sweep; each result file holds its own in provenance.command_line.
set -e
scripts/peers.sh build
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=fib --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/fib-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon --workload=fib --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/fib-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=spawn-many --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon --workload=spawn-many --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,rayon --workload=spawn-many --param from=1 --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-from-1-threads-1w.json
build/harness --engine real --policy=tokio-1.28\,rayon --workload=spawn-many --param from=1 --workers 1 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-from-1-real-1w.json
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=fib --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/fib-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon --workload=fib --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/fib-real-2w.json
build/harness --engine threads --policy=tokio-1.28\,go\,rayon --workload=spawn-many --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,go\,rayon --workload=spawn-many --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-real-2w.json
build/harness --engine threads --policy=tokio-1.28\,rayon --workload=spawn-many --param from=1 --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-from-1-threads-2w.json
build/harness --engine real --policy=tokio-1.28\,rayon --workload=spawn-many --param from=1 --workers 2 --trials 7 --warmup 1 --quiet --json results/reference/6-models-vs-real/raw/spawn-many-from-1-real-2w.json
scripts/reproduce.sh --table models-vs-real results/reference/6-models-vs-real/raw > results/reference/6-models-vs-real/models-vs-real.md
