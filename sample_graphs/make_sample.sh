#!/usr/bin/env bash
# Regenerates every committed output of the sample monorepo with the real tools:
#   cmake+ninja build (file API reply, ninja graph/deps/log, ELF binaries, static archives),
#   linker maps of cpu_server and gpu_trainer from ld.bfd, gold, lld and mold,
#   Python -X importtime traces, Bazel query/cquery/aquery exports, and the review pair.
# Usage: sample_graphs/make_sample.sh [part ...]   parts: cmake linkmaps python bazel review timings
# Every part is skipped with a message when its tool is missing. Scratch space goes to
# sample_graphs/build/ (gitignored). See sample_graphs/README.md for each command.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$HERE/monorepo
EXP=$SRC/exports
WORK=${SLIM_SAMPLE_WORK:-$HERE/build}
PY=${PYTHON:-python3}
PARTS=${*:-cmake linkmaps python bazel review timings}
mkdir -p "$WORK" "$EXP"
export LC_ALL=C TZ=UTC

B=$WORK/cmake
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda-13.0}
scrub() {
  sed -e "s#$B#<BUILD_DIR>#g" -e "s#$SRC#<SOURCE_DIR>#g" -e "s#$WORK#<WORK>#g" \
    -e "s#$HERE#<SAMPLE_GRAPHS>#g"
}
# The file API reply also names CMake's own install (its modules and binary).
scrub_cmake() {
  local args=(-e "s#$B#<BUILD_DIR>#g" -e "s#$SRC#<SOURCE_DIR>#g")
  [ -n "${CMROOT:-}" ] && args+=(-e "s#$CMROOT#<CMAKE_ROOT>#g")
  [ -n "${CMBIN:-}" ] && args+=(-e "s#$CMBIN/cmake#<CMAKE_BIN>/cmake#g" -e "s#$CMBIN/ctest#<CMAKE_BIN>/ctest#g" -e "s#$CMBIN/cpack#<CMAKE_BIN>/cpack#g")
  sed "${args[@]}"
}

# Configure + build one CMake tree with the file API query in place.
cmake_tree() { # build_dir extra_cmake_args...
  local bd=$1; shift
  rm -rf "$bd"; mkdir -p "$bd/.cmake/api/v1/query/client-slim"
  cat > "$bd/.cmake/api/v1/query/client-slim/query.json" <<'JSON'
{ "requests": [ {"kind": "codemodel", "version": 2}, {"kind": "cache", "version": 2},
                {"kind": "cmakeFiles", "version": 1}, {"kind": "toolchains", "version": 1} ],
  "client": {"purpose": "slim sample monorepo"} }
JSON
  local pm="-ffile-prefix-map=$SRC=. -ffile-prefix-map=$bd=."
  ( cd "$bd" && cmake -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CUDA_COMPILER="${NVCC:-/usr/local/bin/nvcc}" \
      -DCMAKE_CXX_FLAGS="$pm" -DCMAKE_CUDA_FLAGS="-Xcompiler=${pm// /,}" \
      -DCMAKE_EXE_LINKER_FLAGS="-Wl,--gc-sections" "$@" "$SRC" > cmake-configure.log 2>&1 ) \
    || { cat "$bd/cmake-configure.log"; return 1; }
}

cmake_roots() {
  echo 'message("${CMAKE_ROOT};${CMAKE_COMMAND}")' > "$WORK/root.cmake"
  local r; r=$(cmake -P "$WORK/root.cmake" 2>&1); CMROOT=${r%%;*}; CMBIN=$(dirname "${r##*;}")
}

copy_reply() { # build_dir out_dir
  rm -rf "$2"; mkdir -p "$2"
  for f in "$1"/.cmake/api/v1/reply/*.json; do
    case "$(basename "$f")" in
      cache-v2-*) "$PY" - "$f" <<'PY' | scrub_cmake > "$2/$(basename "$f")" ;;
import json, sys
d = json.load(open(sys.argv[1]))
keep = ("CMAKE_BUILD_TYPE", "CMAKE_CUDA_ARCHITECTURES", "CMAKE_CUDA_COMPILER", "CMAKE_CXX_COMPILER",
        "CMAKE_GENERATOR", "CMAKE_PROJECT_NAME")
d["entries"] = [e for e in d["entries"] if e["name"] in keep]   # the full cache is long
print(json.dumps(d, indent=2))
PY
      *) scrub_cmake < "$f" > "$2/$(basename "$f")" ;;
    esac
  done
}

part_cmake() {
  command -v cmake >/dev/null && command -v ninja >/dev/null \
    || { echo "cmake/ninja not found: skipping the CMake part"; return 0; }
  command -v "${NVCC:-/usr/local/bin/nvcc}" >/dev/null \
    || { echo "nvcc not found: skipping the CMake part (the project compiles CUDA)"; return 0; }
  cmake_tree "$B"
  cmake_roots
  ( cd "$B" && ninja -v > ninja-build.log 2>&1 ) || { cat "$B/ninja-build.log"; return 1; }
  local o=$EXP/cmake; rm -rf "$o"; mkdir -p "$o"
  copy_reply "$B" "$o/reply"
  ( cd "$B" && ninja -t graph ) | scrub > "$o/ninja-graph.dot"
  ( cd "$B" && ninja -t deps ) | scrub > "$o/ninja-deps.txt"
  scrub < "$B/.ninja_log" > "$o/ninja_log.txt"
  ( cd "$B" && ninja -t commands serving/cpu_server training/gpu_trainer ) | scrub > "$o/commands.txt"
  rm -rf "$EXP/bin" "$EXP/archives"; mkdir -p "$EXP/bin"
  cp "$B/serving/cpu_server" "$B/training/gpu_trainer" "$EXP/bin/"
  ( cd "$B" && find . -name 'lib*.a' | sort ) | while read -r a; do
    mkdir -p "$EXP/archives/$(dirname "$a")"; cp "$B/$a" "$EXP/archives/$a"
  done
  echo "cmake: $(ls "$o/reply" | wc -l) reply files, binaries and $(find "$EXP/archives" -name '*.a' | wc -l) archives"
}

# Relink a CMake executable with another linker, from the build dir, with a map.
relink() { # target(dir/name) linker   (env: B build dir, MAPS_OUT output dir)
  local t=$1 ld=$2 name; name=$(basename "$t")
  local mo=${MAPS_OUT:-$EXP/linkmaps}
  local cmd; cmd=$(cd "$B" && ninja -t commands "$t" | tail -1 | sed -e 's/^: && //' -e 's/ && :$//')
  local out=relink/$name.$ld map=relink/$name.$ld.map gc=relink/$name.$ld.gc.txt
  local extra="-fuse-ld=$ld -Wl,-Map=$map"
  case $ld in
    bfd) extra="$extra,--cref,--gc-sections,--print-gc-sections" ;;
    gold) extra="$extra,--gc-sections,--print-gc-sections" ;;
    lld) extra="$extra,--gc-sections,--print-gc-sections,--why-extract=relink/$name.lld.why-extract.txt" ;;
    mold) extra="$extra,--gc-sections,--print-gc-sections" ;;
  esac
  cmd=${cmd/ -o $t / -o $out }
  ( cd "$B" && mkdir -p relink && eval "$cmd $extra" > "$gc" 2>&1 )
  echo "$cmd $extra" | scrub >> "$mo/link-commands.txt"
  scrub < "$B/$map" > "$mo/$name.$ld.map"
  scrub < "$B/$gc" > "$mo/$name.$ld.gc.txt"
  [ -f "$B/relink/$name.lld.why-extract.txt" ] && [ "$ld" = lld ] \
    && scrub < "$B/relink/$name.lld.why-extract.txt" > "$mo/$name.lld.why-extract.txt"
  return 0
}

part_linkmaps() {
  [ -f "$B/build.ninja" ] || { echo "no CMake build in $B: run the cmake part first"; return 0; }
  rm -rf "$EXP/linkmaps"; mkdir -p "$EXP/linkmaps"; rm -rf "$B/relink"
  for ld in bfd gold lld mold; do
    if ! command -v "ld.$ld" >/dev/null && ! command -v "$ld" >/dev/null; then
      echo "linker $ld not found: skipping its maps"; continue
    fi
    relink serving/cpu_server "$ld"
    relink training/gpu_trainer "$ld"
  done
  echo "linkmaps: $(ls "$EXP/linkmaps" | wc -l) files"
}

part_python() {
  local t=$SRC/traces; rm -rf "$t"; mkdir -p "$t"
  # -X importtime writes to stderr; PYTHONPATH stands in for Bazel's imports = ["src"].
  ( cd "$SRC" && PYTHONDONTWRITEBYTECODE=1 "$PY" -X importtime -m py.apps.server \
      > "$t/server.stdout.txt" 2> "$t/server.importtime.txt" )
  ( cd "$SRC" && PYTHONDONTWRITEBYTECODE=1 "$PY" -X importtime -m py.apps.server --plugins \
      > "$t/server.plugins.stdout.txt" 2> "$t/server.plugins.importtime.txt" )
  ( cd "$SRC" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=py/vendored/src \
      "$PY" -X importtime -m py.apps.trainer > "$t/trainer.stdout.txt" 2> "$t/trainer.importtime.txt" )
  # importlib.import_module() imports get no -X importtime row (CPython times only the
  # `import` statement path); -v also logs them, so keep a -v trace of the plugin run.
  local prefix; prefix=$("$PY" -c 'import sys; print(sys.base_prefix)')
  ( cd "$SRC" && PYTHONDONTWRITEBYTECODE=1 "$PY" -v -m py.apps.server --plugins \
      2>&1 >/dev/null | sed -e "s#$SRC#<SOURCE_DIR>#g" -e "s#$prefix#<PREFIX>#g" \
      -e "s#$HOME#<HOME>#g" > "$t/server.plugins.verbose.txt" )
  "$PY" -c 'import sys; print(sys.version.split()[0])' > "$t/python.version.txt"
  echo "python: $(ls "$t" | wc -l) trace files"
}

# Bazel (Debian's bazel-bootstrap 4.2.3 works offline; rules_cc replaced by a stub).
BZ_WS=$WORK/bazel/ws
bazel_setup() { # workspace_dir
  local ws=$1; rm -rf "$ws"; mkdir -p "$ws"
  ( cd "$SRC" && tar cf - --exclude=./exports --exclude=./traces --exclude='__pycache__' . ) \
    | ( cd "$ws" && tar xf - )
  mkdir -p "$WORK/bazel/stub"; rm -rf "$WORK/bazel/stub/rules_cc"
  cp -r "$HERE/_offline_rules_cc" "$WORK/bazel/stub/rules_cc"
  rm -rf "$WORK/bazel/stub/remote_coverage_tools"
  cp -r "$HERE/_offline_remote_coverage_tools" "$WORK/bazel/stub/remote_coverage_tools"
  pkgdir() { dpkg -L "$1" 2>/dev/null | grep -E "$2" | head -1 || true; }
  local platforms skylib rules_java
  platforms=${PLATFORMS_REPO:-$(pkgdir bazel-platforms '/tools/platforms$')}
  skylib=${SKYLIB_REPO:-$(pkgdir bazel-skylib '/tools/skylib$')}
  rules_java=${RULES_JAVA_REPO:-$(pkgdir bazel-rules-java '/rules/java$')}
  {
    echo "common --override_repository=rules_cc=$WORK/bazel/stub/rules_cc"
    echo "common --override_repository=remote_coverage_tools=$WORK/bazel/stub/remote_coverage_tools"
    [ -d "$platforms" ] && echo "common --override_repository=platforms=$platforms"
    [ -d "$skylib" ] && echo "common --override_repository=bazel_skylib=$skylib"
    [ -d "$rules_java" ] && echo "common --override_repository=rules_java=$rules_java"
  } > "$ws/.bazelrc"
}
BZROOT=$WORK/bazel/root
BZ() { ( cd "$BZWS" && HOME=$WORK/bazel/home bazel --output_user_root="$BZROOT" "$@" ); }
bclean() {
  sed -e "s#$BZWS#<WORKSPACE>#g" -e "s#${BZOUT:-/nonexistent}#<OUTPUT_BASE>#g" \
    -e "s#$BZROOT#<OUTPUT_USER_ROOT>#g" -e "s#$WORK#<WORK>#g"
}
bazel_exports() { # workspace_dir out_prefix  (writes <prefix>query.pb etc.)
  BZWS=$1; local p=$2
  BZOUT=$(BZ info output_base 2>/dev/null)
  local q="query --noimplicit_deps --relative_locations --order_output=full"
  local u='deps(//serving:cpu_server) + deps(//training:gpu_trainer) + deps(//py/...)'
  BZ $q "$u" --output=proto 2>/dev/null > "${p}query.pb"
  BZ $q "$u" --output=xml 2>/dev/null | bclean > "${p}query.xml"
  BZ $q "$u" --output=graph 2>/dev/null | bclean > "${p}query.graph.dot"
  BZ $q "$u" --output=label_kind 2>/dev/null | bclean > "${p}query.label_kind.txt"
  BZ cquery "$u" --noimplicit_deps --relative_locations --output=jsonproto 2>/dev/null \
    | bclean > "${p}cquery.jsonproto.json"
}

part_bazel() {
  command -v bazel >/dev/null \
    || { echo "bazel not found (apt-get install bazel-bootstrap): skipping the Bazel part"; return 0; }
  bazel_setup "$BZ_WS"; BZWS=$BZ_WS
  local o=$EXP/bazel; rm -rf "$o"; mkdir -p "$o"
  { BZ version 2>&1 | grep -v -e WARNING -e '^OpenJDK' || true
    dpkg-query -W -f='debian package bazel-bootstrap ${Version}\n' bazel-bootstrap 2>/dev/null || true
  } | bclean > "$o/bazel.version.txt"
  bazel_exports "$BZ_WS" "$o/"
  BZ aquery 'deps(//serving:cpu_server)' --noimplicit_deps --output=jsonproto 2>/dev/null \
    | bclean > "$o/aquery.jsonproto.json"
  for f in jsonproto streamed_jsonproto; do   # Bazel >= 5/6 only; record the refusal
    if BZ query //serving:cpu_server --output=$f > "$WORK/bazel/q.$f" 2> "$WORK/bazel/err.txt"; then
      cp "$WORK/bazel/q.$f" "$o/query.$f.json"
    else
      grep -m1 ERROR "$WORK/bazel/err.txt" | bclean >> "$o/unsupported.txt" || true
    fi
  done
  BZ shutdown >/dev/null 2>&1 || true
  echo "bazel: $(ls "$o" | wc -l) files"
}

part_review() {
  local o=$EXP/review; rm -rf "$o"; mkdir -p "$o"
  # head = base + one new, unreferenced dep: //serving:cpu_server -> //native/old_codec
  if command -v bazel >/dev/null; then
    local head=$WORK/bazel/ws-head
    bazel_setup "$BZ_WS"
    bazel_setup "$head"
    "$PY" - "$head/serving/BUILD" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = '        "//native/legacy_io",\n'
assert s.count(old) == 1
s = s.replace(old, old + '        "//native/old_codec",\n')
open(p, "w").write(s)
PY
    bazel_exports "$BZ_WS" "$o/base."
    BZ shutdown >/dev/null 2>&1 || true
    bazel_exports "$head" "$o/head."
    BZ shutdown >/dev/null 2>&1 || true
  else
    echo "bazel not found: skipping the Bazel review exports"
  fi
  if command -v cmake >/dev/null && command -v ninja >/dev/null; then
    cmake_roots
    cmake_tree "$WORK/cmake-base"
    B=$WORK/cmake-base copy_reply "$WORK/cmake-base" "$o/base.cmake-reply"
    cmake_tree "$WORK/cmake-head" -DSLIM_SAMPLE_HEAD=ON
    B=$WORK/cmake-head copy_reply "$WORK/cmake-head" "$o/head.cmake-reply"
    # head evidence: cpu_server relinked with old_codec on its link line (nothing extracted);
    # the base evidence is the main exports (same sources, same link).
    local hb=$WORK/cmake-head
    ( cd "$hb" && ninja > ninja-build.log 2>&1 ) || { cat "$hb/ninja-build.log"; return 1; }
    rm -rf "$hb/relink"; mkdir -p "$o/head.linkmaps" "$o/head.bin/serving" \
      "$o/head.archives/native/old_codec"
    B=$hb MAPS_OUT=$o/head.linkmaps relink serving/cpu_server bfd
    B=$hb MAPS_OUT=$o/head.linkmaps relink serving/cpu_server lld
    cp "$hb/serving/cpu_server" "$o/head.bin/serving/cpu_server"
    cp "$hb/native/old_codec/libold_codec.a" "$o/head.archives/native/old_codec/"
  fi
  echo "review: $(ls "$o" | wc -l) entries"
}

# Clean parallel builds of the whole project at -j2 and -j8 (fresh tree each): the
# .ninja_log files behind the wall-clock savings (docs/savings.md).
part_timings() {
  command -v cmake >/dev/null && command -v ninja >/dev/null \
    && command -v "${NVCC:-/usr/local/bin/nvcc}" >/dev/null \
    || { echo "cmake/ninja/nvcc not found: skipping the timings part"; return 0; }
  local o=$EXP/cmake j
  for j in 2 8; do
    cmake_tree "$WORK/cmake-j$j"
    ( cd "$WORK/cmake-j$j" && ninja -j"$j" > ninja-build.log 2>&1 ) \
      || { cat "$WORK/cmake-j$j/ninja-build.log"; return 1; }
    B=$WORK/cmake-j$j scrub < "$WORK/cmake-j$j/.ninja_log" > "$o/ninja_log.j$j.txt"
  done
  echo "timings: $(ls "$o"/ninja_log.j*.txt | wc -l) logs ($(nproc) cores)"
}

for part in $PARTS; do
  case $part in
    cmake) part_cmake ;;
    linkmaps) part_linkmaps ;;
    python) part_python ;;
    bazel) part_bazel ;;
    review) part_review ;;
    timings) part_timings ;;
    *) echo "unknown part $part (expected: cmake linkmaps python bazel review timings)"; exit 2 ;;
  esac
done
