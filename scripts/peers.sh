#!/usr/bin/env bash
# peers.sh - install the real runtimes' toolchains (Debian packages only, built offline) and
# build the peers: the harness's workloads written natively for Tokio, Rayon, Go and oneTBB
# (peers/README.md), one program each, into BUILD/peers/peer-{tokio,rayon,go,tbb}. Then
# checks each one's answers on small sizes.
#
#   scripts/peers.sh [BUILD_DIR]     (default build)
#
# Runs as root on Debian 12 (sudo when not root). Neither the quick start nor the test suite
# needs it. Rust crates come from Debian's librust-*-dev packages (their sources under
# /usr/share/cargo/registry, which cargo is pointed at, offline); Go uses its standard library.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

PACKAGES=(cargo rustc librust-tokio-dev librust-rayon-dev librust-libc-dev golang-go libtbb-dev g++)
scripts/install.sh "${PACKAGES[@]}"

build=${1:-build}
mkdir -p "$build/peers"
out=$(cd "$build/peers" && pwd)

# Debian's toolchains by their paths: a rustup cargo or another Go first on PATH would build
# against crates or a runtime other than the packaged ones the docs name.
CARGO=/usr/bin/cargo RUSTC=/usr/bin/rustc GO=/usr/bin/go
for t in "$CARGO" "$RUSTC" "$GO"; do
	[ -x "$t" ] || { echo "peers: $t is missing (Debian's cargo, rustc, golang-go)" >&2; exit 1; }
done

# Cargo, offline, on the crate sources Debian ships; its home and targets under the build.
mkdir -p "$out/cargo-home"
cat >"$out/cargo-home/config.toml" <<'EOF'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
EOF
for p in tokio rayon; do
	flags=
	# Tokio's per-worker counters (RuntimeMetrics) exist only with tokio_unstable.
	[ "$p" = tokio ] && flags="--cfg tokio_unstable"
	echo "peers: building peer-$p" >&2
	(cd "$ROOT/peers/$p" &&
		CARGO_HOME="$out/cargo-home" RUSTC=$RUSTC RUSTFLAGS="$flags" \
			"$CARGO" build --quiet --release --target-dir "$out/target-$p")
	cp "$out/target-$p/release/peer-$p" "$out/peer-$p"
done

echo "peers: building peer-go" >&2
(cd "$ROOT/peers/go" && GOCACHE="$out/go-cache" GOPATH="$out/go-path" GOPROXY=off GOFLAGS=-mod=mod \
	GOTOOLCHAIN=local "$GO" build -o "$out/peer-go" .)

echo "peers: building peer-tbb" >&2
g++ -O3 -DNDEBUG -std=c++17 -Wall -Wextra -o "$out/peer-tbb" "$ROOT/peers/tbb/main.cpp" -ltbb

# Every peer's answers on small sizes (each peer verifies its own and exits 1 on a wrong one),
# and its output as peers/README.md documents it: a header, then one line per trial with
# every field, tasks as the workload has them.
check_lines() {	# PEER WORKLOAD TASKS WARMUP TRIALS < output
	/usr/bin/python3 -c '
import json, sys
peer, wl, tasks, warmup, trials = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
lines = [json.loads(l) for l in sys.stdin]
h = lines[0]
for k in ("peer", "runtime", "version", "workload", "workers", "params", "counters_available"):
    assert k in h, "header: no %s" % k
assert h["peer"] == peer and h["workload"] == wl and h["workers"] == 2, h
assert len(lines) == 1 + warmup + trials, "%d lines" % len(lines)
for i, t in enumerate(lines[1:]):
    for k in ("trial", "warmup", "ns", "tasks", "verified", "cpu_user_ns", "cpu_sys_ns", "counters"):
        assert k in t, "trial %d: no %s" % (i, k)
    assert t["trial"] == i and t["warmup"] == (i < warmup) and t["verified"] is True, t
    assert t["tasks"] == tasks and t["ns"] > 0, t
    if wl == "open-loop":
        lat = t["latency_ns"]
        assert t["latency_samples"] == 30 and lat["p50"] >= 20000 and lat["p99_99"] >= lat["p50"], t
        assert 0 <= t["late_ns"]["p50"] <= t["late_ns"]["p99"], t
    if peer == "tokio" and h["counters_available"] and wl in ("fib", "spawn-many", "nqueens"):
        # Counts reach the metrics at maintenance, up to 61 polls a worker late.
        polls = t["per_worker"]["polls"]
        assert len(polls) == 2 and sum(polls) >= tasks - 2 * 61 and sum(polls) <= 2 * tasks, t
' "$@"
}
# open-loop's schedule as the harness writes one (harness/real.c): 40 requests 50 us apart,
# 20 us each, the first 10 not recorded.
sched=$out/check-schedule.txt
{ echo "40 10"; for i in $(seq 0 39); do echo "$((i * 50000)) 20000"; done; } >"$sched"
for p in tokio rayon go tbb; do
	"$out/peer-$p" --workload fib --param n=18 --workers 2 --trials 2 --warmup 1 |
		check_lines "$p" fib 8361 1 2 || { echo "peers: peer-$p fib n=18 failed" >&2; exit 1; }
	"$out/peer-$p" --workload spawn-many --param n=2000 --workers 2 --trials 1 --warmup 0 |
		check_lines "$p" spawn-many 2000 0 1 || { echo "peers: peer-$p spawn-many failed" >&2; exit 1; }
	if [ "$p" != go ]; then
		"$out/peer-$p" --workload spawn-many --param n=2000 --param from=1 --workers 2 --trials 1 \
			--warmup 0 | check_lines "$p" spawn-many 2000 0 1 ||
			{ echo "peers: peer-$p spawn-many from=1 failed" >&2; exit 1; }
	fi
	"$out/peer-$p" --workload nqueens --param n=8 --workers 2 --trials 1 --warmup 0 |
		check_lines "$p" nqueens 2057 0 1 || { echo "peers: peer-$p nqueens n=8 failed" >&2; exit 1; }
	# The async shapes: Tokio and Go only (Rayon and oneTBB have fork-join, no async tasks).
	if [ "$p" = tokio ] || [ "$p" = go ]; then
		for shape in "chained-spawn n=300 300" "yield-many tasks=20 yields=50 20" \
			"ping-pong pairs=50 rounds=5 151" "open-loop load=0.5 40"; do
			read -r wl a b c <<<"$shape"
			args=(--param "$a")
			tasks=$b
			[ -n "$c" ] && { args+=(--param "$b"); tasks=$c; }
			[ "$wl" = open-loop ] && args+=(--schedule "$sched")
			"$out/peer-$p" --workload "$wl" "${args[@]}" --workers 2 --trials 1 --warmup 0 |
				check_lines "$p" "$wl" "$tasks" 0 1 ||
				{ echo "peers: peer-$p $wl failed" >&2; exit 1; }
		done
	elif "$out/peer-$p" --workload chained-spawn --workers 2 >/dev/null 2>&1; then
		echo "peers: peer-$p accepted an async shape" >&2
		exit 1
	fi
	if "$out/peer-$p" --workload nosuch --workers 2 >/dev/null 2>&1; then
		echo "peers: peer-$p accepted an unknown workload" >&2
		exit 1
	fi
done
echo "peers: built and checked $out/peer-{tokio,rayon,go,tbb}" >&2
