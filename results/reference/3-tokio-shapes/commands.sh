#!/bin/sh
# 3. Tokio-style benchmarks, every policy, threads engine, 2 workers
# The commands that made the files in this directory, in order, run from the repository root
# by scripts/reproduce.sh. Each raw*/commands.sh lists the harness command line of every run
# of that sweep; each result file holds its own in provenance.command_line.
set -e
scripts/sweep.py run results/reference/3-tokio-shapes/grid.json --out results/reference/3-tokio-shapes/raw --harness build/harness
scripts/reproduce.sh --table ops results/reference/3-tokio-shapes/raw > results/reference/3-tokio-shapes/ns-per-op.md
/usr/bin/python3 scripts/tables.py --metric ns-per-task results/reference/3-tokio-shapes/raw > results/reference/3-tokio-shapes/ns-per-task.md
/usr/bin/python3 scripts/tables.py --format latex --metric ns-per-task results/reference/3-tokio-shapes/raw > results/reference/3-tokio-shapes/ns-per-task.tex
/usr/bin/python3 scripts/tables.py --metric throughput results/reference/3-tokio-shapes/raw > results/reference/3-tokio-shapes/throughput.md
/usr/bin/python3 scripts/plot.py throughput -o results/reference/3-tokio-shapes/throughput.png results/reference/3-tokio-shapes/raw
