#!/usr/bin/env bash
# quickstart.sh - install what is missing, build, and run volt on fib(30)
# on every core. Extra arguments go to the harness.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
exec build/harness --policy=volt --workload=fib "$@"
