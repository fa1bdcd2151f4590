#!/usr/bin/env bash
# setup.sh - install the Debian packages the harness needs (only the missing
# ones), then configure and build a Release tree in build/.
#
#   scripts/setup.sh [BUILD_DIR [extra cmake args...]]
#
# Runs as root on Debian 12 (uses sudo when not root and sudo exists).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(gcc clang make cmake pkg-config git libjemalloc-dev libjansson-dev nettle-dev libhwloc-dev zlib1g-dev
	python3 python3-matplotlib python3-jsonschema gnuplot-nox parallel chromium valgrind time
	spin)

scripts/install.sh "${PACKAGES[@]}"

build=${1:-build}
shift || true
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
echo "setup: built $build/harness" >&2
