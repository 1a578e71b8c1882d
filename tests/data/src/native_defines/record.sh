#!/usr/bin/env bash
# Build this workspace with Bazel and record what tests/data/bazel_defines/ holds.
# Needs Debian's bazel-bootstrap (4.2.3; offline, rules_cc replaced by the stub in
# sample_graphs/_offline_rules_cc). Usage: record.sh OUT_DIR [SCRATCH_DIR]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../../.." && pwd)
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
WORK=${2:-$(mktemp -d)}
WS=$WORK/ws
rm -rf "$WS" && mkdir -p "$WS" "$WORK/stub"
cp -r "$HERE"/. "$WS"/ && rm -f "$WS/record.sh"
rm -rf "$WORK/stub/rules_cc" "$WORK/stub/remote_coverage_tools"
cp -r "$REPO/sample_graphs/_offline_rules_cc" "$WORK/stub/rules_cc"
cp -r "$REPO/sample_graphs/_offline_remote_coverage_tools" "$WORK/stub/remote_coverage_tools"
pkgdir() { dpkg -L "$1" 2>/dev/null | grep -E "$2" | head -1 || true; }
{
  echo "common --override_repository=rules_cc=$WORK/stub/rules_cc"
  echo "common --override_repository=remote_coverage_tools=$WORK/stub/remote_coverage_tools"
  echo "common --override_repository=platforms=$(pkgdir bazel-platforms '/tools/platforms$')"
  echo "common --override_repository=bazel_skylib=$(pkgdir bazel-skylib '/tools/skylib$')"
  echo "common --override_repository=rules_java=$(pkgdir bazel-rules-java '/rules/java$')"
  echo "build --spawn_strategy=local"
} > "$WS/.bazelrc"
BZ() { ( cd "$WS" && HOME=$WORK/home bazel --output_user_root="$WORK/root" "$@" ); }
BZ clean 2>/dev/null  # a map is written only when the link runs again
U='deps(//app:all)'
APPS="app app_via app_sel app_free dyn_test dyn_plain_test app_hdr app_hdr2 app_vinc app_inc app_pfx app_nouse app_forced app_z dyn_z_test app_incplain app_fg app_fgh app_seldep"
BZ cquery "$U" --noimplicit_deps --relative_locations --output=jsonproto 2>/dev/null \
  > "$OUT/cquery.jsonproto.json"
BZ query "$U" --noimplicit_deps --relative_locations --order_output=full --output=proto \
  2>/dev/null > "$OUT/query.pb"
BZ query "$U" --noimplicit_deps --relative_locations --order_output=full --output=proto \
  --proto:flatten_selects=false 2>/dev/null > "$OUT/query.noflatten.pb"
rm -rf "$OUT/maps" "$OUT/bazel-out" && mkdir -p "$OUT/maps"
for app in $APPS; do
  BZ build "//app:$app" "--linkopt=-Wl,-Map=$OUT/maps/$app.map,--cref,--gc-sections" 2>/dev/null
done
BIN=$(BZ info bazel-bin 2>/dev/null)
( cd "$BIN/../../.." && find bazel-out/k8-fastbuild/bin \( -name '*.d' -o -name '*.a' -o -name '*.o' \) \
    -print | sort | while read -r f; do mkdir -p "$OUT/$(dirname "$f")"; cp "$f" "$OUT/$f"; done )
for app in $APPS; do
  cp "$BIN/app/$app" "$OUT/bazel-out/k8-fastbuild/bin/app/$app"
done
mkdir -p "$OUT/bazel-out/k8-fastbuild/bin/_solib_k8"
cp -L "$BIN"/_solib_k8/*.so "$OUT/bazel-out/k8-fastbuild/bin/_solib_k8/"
bazel --version 2>/dev/null | head -1 > "$OUT/bazel.version.txt" || true
dpkg-query -W -f='debian package bazel-bootstrap ${Version}\n' bazel-bootstrap >> "$OUT/bazel.version.txt" || true
