"""`slim verify`: real rebuilds in a scratch copy say which cuts held and which broke."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from slim.app.apply import Cut, cuts_of, edit_cmake
from slim.app.verify import verify
from slim.ingest import load_evidence, load_graph
from slim.model.actions import Remove
from slim.model.facts import Facts
from slim.model.graph import Location
from slim.plan import plan_report
from slim.plan.fixes import cmake_fix, write

REPO = Path(__file__).parents[2]
MONO = REPO / "sample_graphs" / "monorepo"
HAVE_CMAKE = shutil.which("cmake") is not None and shutil.which("ninja") is not None
needs_cmake = pytest.mark.skipif(not HAVE_CMAKE, reason="cmake or ninja not installed")

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(tiny C)
add_library(used STATIC used.c)
add_library(dead STATIC dead.c)
add_executable(app main.c)
target_link_libraries(app PRIVATE
  used
  dead)
"""
BUILD = "cmake -S . -B _b -G Ninja >/dev/null && cmake --build _b >/dev/null && ./_b/app"


def _tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def _tiny(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    root.mkdir()
    (root / "CMakeLists.txt").write_text(CMAKELISTS)
    (root / "used.c").write_text("int used(void) { return 0; }\n")
    (root / "dead.c").write_text("int dead(void) { return 1; }\n")
    (root / "main.c").write_text("int used(void);\nint main(void) { return used(); }\n")
    return root


def _cut(dep: str) -> Cut:
    a = Remove("//:app", f"//:{dep}")
    return Cut(a, (cmake_fix(a, Location("CMakeLists.txt", 6)),), "SLIM002", "high", "//:app")


def test_edit_cmake_removes_only_the_dep_token(tmp_path: Path) -> None:
    root = _tiny(tmp_path)
    assert edit_cmake(root, _cut("dead").fixes[0]) == "CMakeLists.txt:8: removed dead"
    text = (root / "CMakeLists.txt").read_text()
    assert "target_link_libraries(app PRIVATE\n  used)\n" in text
    assert "add_library(dead STATIC dead.c)" in text


@needs_cmake
def test_dead_cut_holds_and_needed_cut_breaks(tmp_path: Path) -> None:
    root = _tiny(tmp_path)
    before = _tree_hash(root)
    rep = verify([_cut("dead"), _cut("used")], root, BUILD)
    assert rep.baseline_ok
    assert rep.together is not None
    assert not rep.together.held
    assert [c.dep for c in rep.held] == ["//:dead"]
    assert [c.dep for c in rep.broke] == ["//:used"]
    assert any(line.startswith("  BROKE  cut //:app -> //:used (build exit") for line in rep.lines)
    assert _tree_hash(root) == before  # the user's tree is never touched


@needs_cmake
def test_test_command_failure_breaks_a_cut(tmp_path: Path) -> None:
    root = _tiny(tmp_path)
    rep = verify([_cut("dead")], root, BUILD, test_cmd="grep -q 'dead)' CMakeLists.txt")
    assert rep.baseline_ok
    assert [c.dep for c in rep.broke] == ["//:dead"]
    assert rep.single[0].step == "test exit 1"


def test_failing_baseline_proves_nothing(tmp_path: Path) -> None:
    root = _tiny(tmp_path)
    rep = verify([_cut("dead")], root, "exit 7")
    assert not rep.baseline_ok
    assert rep.together is None
    assert rep.lines[0] == "baseline build FAILED (exit 7) before any cut; nothing proven"


@needs_cmake
def test_monorepo_native_cut_relinks_without_its_dep() -> None:
    """The planted dead edge: cpu_server rebuilt and run without legacy_io (real nvcc build)."""
    reply = MONO / "exports" / "cmake" / "reply"
    nvcc = shutil.which("nvcc") or (
        "/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").exists() else None
    )
    if not reply.is_dir():
        pytest.skip(f"sample monorepo exports not present under {MONO}")
    if nvcc is None:
        pytest.skip("nvcc not installed: the sample monorepo compiles CUDA")
    g = load_graph([reply])
    facts = Facts()
    facts.extend(load_evidence(MONO / "exports" / "cmake" / "ninja_log.txt", "timings")[1])
    from slim.model.findings import Confidence, Finding

    f = Finding(
        "SLIM002",
        "unreferenced-native-dep",
        "//serving:cpu_server",
        "//native/legacy_io:legacy_io",
        "unreferenced",
        "planted",
        Confidence.MEDIUM,
        True,
        root="//serving:cpu_server",
        attribute="deps",
    )
    planned = plan_report(g, [g.ids["//serving:cpu_server"]], [f], facts).findings
    (cut,) = cuts_of(planned, lambda a: write(g, a))
    assert [x.kind for x in cut.fixes] == ["cmake"]
    before = _tree_hash(MONO / "serving")
    build = (
        f"cmake -S . -B _slim_build -G Ninja -DCMAKE_CUDA_COMPILER={nvcc} >/dev/null "
        "&& cmake --build _slim_build && ./_slim_build/serving/cpu_server"
    )
    rep = verify([cut], MONO, build, timeout=900)
    assert rep.baseline_ok, rep.lines
    assert rep.together is not None
    assert rep.together.held, rep.lines
    assert "  held   cut //serving:cpu_server -> //native/legacy_io:legacy_io" in rep.lines
    assert _tree_hash(MONO / "serving") == before


def test_cli_apply_is_a_dry_run_by_default() -> None:
    """`slim apply` from the repository root (its slim.toml names the sample monorepo)."""
    import subprocess
    import sys

    if not (REPO / "slim.toml").is_file() or not (MONO / "exports").is_dir():
        pytest.skip("the repository's slim.toml or the sample monorepo exports are missing")
    before = _tree_hash(MONO / "serving")
    proc = subprocess.run(
        [sys.executable, "-m", "slim", "apply"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("dry run (pass --write to change files):\n")
    assert "remove deps //native/legacy_io:legacy_io|//serving:cpu_server" in proc.stdout
    # The graph merges the Bazel and CMake exports: the CMake line is edited as well.
    assert "serving/CMakeLists.txt:6: in target_link_libraries(cpu_server …) remove legacy_io" in (
        proc.stdout
    )
    assert _tree_hash(MONO / "serving") == before


def test_a_cut_that_cannot_be_applied_is_reported_not_proven(tmp_path: Path) -> None:
    root = _tiny(tmp_path)
    rep = verify([_cut("nosuchlib")], root, "true")
    assert rep.baseline_ok
    assert rep.broke[0].dep == "//:nosuchlib"
    assert rep.single[0].step == "could not apply"
    assert "expected nosuchlib in target_link_libraries" in rep.single[0].tail
