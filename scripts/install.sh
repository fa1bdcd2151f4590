#!/usr/bin/env bash
# install.sh - install the Debian packages named that are missing (apt-get, as root, or
# through sudo), quietly; nothing when all are there.
#
#   scripts/install.sh PACKAGE...
#
# scripts/setup.sh (the harness's build and run dependencies) and scripts/peers.sh (the
# real runtimes' toolchains) both go through it.
set -euo pipefail
missing=()
for p in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
((${#missing[@]})) || exit 0
echo "install: installing ${missing[*]}" >&2
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install: need root to install ${missing[*]}" >&2; exit 1; }
	SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
