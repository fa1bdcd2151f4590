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

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if ((${#missing[@]})); then
	echo "setup: installing ${missing[*]}" >&2
	SUDO=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { echo "setup: need root to install ${missing[*]}" >&2; exit 1; }
		SUDO=(sudo)
	fi
	export DEBIAN_FRONTEND=noninteractive
	"${SUDO[@]}" apt-get update -qq
	"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build=${1:-build}
shift || true
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
echo "setup: built $build/harness" >&2
