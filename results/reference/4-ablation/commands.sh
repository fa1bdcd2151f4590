#!/bin/sh
# 4. Ablations: volt against single-mechanism variants, tokio, tokio-1.28 and go
# The commands that made the files in this directory, in order, run from the repository root
# by scripts/reproduce.sh. Each raw*/commands.sh lists the harness command line of every run
# of that sweep; each result file holds its own in provenance.command_line.
set -e
# The sim-engine results here were kept from an earlier invocation (README.md says when); this one reran the others.
build/harness --policy=volt\,volt:lifo_cap=0\,volt:lifo_cap=1000000000\,fixed-interval-61\,steal-one\,volt:wake=1\,tokio\,tokio-1.28\,go --workload=fib --param n=25 --engine threads --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/4-ablation/raw/fib-n-25-threads-2w.json
build/harness --policy=volt\,volt:lifo_cap=0\,volt:lifo_cap=1000000000\,fixed-interval-61\,steal-one\,volt:wake=1\,tokio\,tokio-1.28\,go --workload=uts --param preset=T3-small --engine threads --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/4-ablation/raw/uts-preset-T3-small-threads-2w.json
build/harness --policy=volt\,volt:lifo_cap=0\,volt:lifo_cap=1000000000\,fixed-interval-61\,steal-one\,volt:wake=1\,tokio\,tokio-1.28\,go --workload=ping-pong --engine threads --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/4-ablation/raw/ping-pong-threads-2w.json
build/harness --policy=volt\,volt:lifo_cap=0\,volt:lifo_cap=1000000000\,fixed-interval-61\,steal-one\,volt:wake=1\,tokio\,tokio-1.28\,go --workload=yield-many --engine threads --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/4-ablation/raw/yield-many-threads-2w.json
build/harness --policy=volt\,volt:lifo_cap=0\,volt:lifo_cap=1000000000\,fixed-interval-61\,steal-one\,volt:wake=1\,tokio\,tokio-1.28\,go --workload=open-loop --param load=0.5 --engine threads --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/4-ablation/raw/open-loop-load-0.5-threads-2w.json
build/harness --policy=volt\,volt:lifo_cap=0\,volt:lifo_cap=1000000000\,fixed-interval-61\,steal-one\,volt:wake=1\,tokio\,tokio-1.28\,go --workload=open-loop --param load=0.8 --engine threads --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/4-ablation/raw/open-loop-load-0.8-threads-2w.json
build/harness --policy=volt\,volt:lifo_cap=0\,volt:lifo_cap=1000000000\,fixed-interval-61\,steal-one\,volt:wake=1\,tokio\,tokio-1.28\,go --workload=open-loop --param load=0.9 --engine threads --workers 2 --trials 7 --warmup 1 --no-baseline --quiet --json results/reference/4-ablation/raw/open-loop-load-0.9-threads-2w.json
scripts/reproduce.sh --table ablation results/reference/4-ablation/raw > results/reference/4-ablation/ablation.md
scripts/reproduce.sh --table ablation-figure results/reference/4-ablation/ablation.png results/reference/4-ablation/raw
