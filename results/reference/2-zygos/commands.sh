#!/bin/sh
# 2. ZygOS-style p99 / S against load, 16 simulated workers
# The commands that made the files in this directory, in order, run from the repository root
# by scripts/reproduce.sh. Each raw*/commands.sh lists the harness command line of every run
# of that sweep; each result file holds its own in provenance.command_line.
set -e
scripts/sweep.py run results/reference/2-zygos/grid-exponential.json --out results/reference/2-zygos/raw-exponential --harness build/harness -j 2
scripts/sweep.py run results/reference/2-zygos/grid-exponential-prefetch32.json --out results/reference/2-zygos/raw-exponential-prefetch32 --harness build/harness -j 2
scripts/sweep.py run results/reference/2-zygos/grid-exponential-tokio.json --out results/reference/2-zygos/raw-exponential-tokio --harness build/harness -j 2
/usr/bin/python3 scripts/plot.py p99-vs-load --theory -o results/reference/2-zygos/p99-vs-load-exponential.png --title p99\ /\ S\ against\ load\,\ 16\ sim\ workers\,\ exponential\ service\ \(S\ =\ 1\ ms\) results/reference/2-zygos/raw-exponential results/reference/2-zygos/raw-exponential-prefetch32
scripts/reproduce.sh --table p99-load results/reference/2-zygos/raw-exponential results/reference/2-zygos/raw-exponential-prefetch32 results/reference/2-zygos/raw-exponential-tokio > results/reference/2-zygos/p99-exponential.md
scripts/sweep.py run results/reference/2-zygos/grid-bimodal1.json --out results/reference/2-zygos/raw-bimodal1 --harness build/harness -j 2
scripts/sweep.py run results/reference/2-zygos/grid-bimodal1-prefetch32.json --out results/reference/2-zygos/raw-bimodal1-prefetch32 --harness build/harness -j 2
scripts/sweep.py run results/reference/2-zygos/grid-bimodal1-tokio.json --out results/reference/2-zygos/raw-bimodal1-tokio --harness build/harness -j 2
/usr/bin/python3 scripts/plot.py p99-vs-load --theory -o results/reference/2-zygos/p99-vs-load-bimodal1.png --title p99\ /\ S\ against\ load\,\ 16\ sim\ workers\,\ bimodal1\ service\ \(S\ =\ 1\ ms\) results/reference/2-zygos/raw-bimodal1 results/reference/2-zygos/raw-bimodal1-prefetch32
scripts/reproduce.sh --table p99-load results/reference/2-zygos/raw-bimodal1 results/reference/2-zygos/raw-bimodal1-prefetch32 results/reference/2-zygos/raw-bimodal1-tokio > results/reference/2-zygos/p99-bimodal1.md
