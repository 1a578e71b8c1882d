#!/usr/bin/env bash
# System tools the real-tool tests use (linkers, graphviz, buildozer). Missing ones make
# their tests skip with a reason; this script never fails the run on its own.
set -u
need=()
command -v dot >/dev/null || need+=(graphviz)
command -v ld.lld >/dev/null || need+=(lld)
command -v mold >/dev/null || need+=(mold)
command -v ld.gold >/dev/null || need+=(binutils)
command -v gcc >/dev/null || need+=(gcc g++)
command -v ninja >/dev/null || need+=(ninja-build)
command -v cmake >/dev/null || need+=(cmake)
if [ ${#need[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 \
    || echo "warning: apt-get install ${need[*]} failed; dependent tests will skip"
fi
if ! command -v buildozer >/dev/null && command -v npm >/dev/null; then
  npm install -g --silent @bazel/buildozer >/dev/null 2>&1 \
    || echo "warning: npm install @bazel/buildozer failed; buildozer tests will skip"
fi
exit 0
