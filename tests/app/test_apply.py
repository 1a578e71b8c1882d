"""`slim apply --write` plans every edit first and applies all of them or none.

The issue's case, built for real (`tests/data/src/apply_cmake`: cmake + ninja + gcc, ld.bfd
maps, `ninja -t deps`): two executables in two directories link a library neither uses;
`b` names it through `${backend}`, which no edit of the line can remove. slim used to edit
`a/CMakeLists.txt`, then fail on `b/`, leaving the tree half-edited. The sample monorepo
(BUILD files for buildozer plus CMakeLists.txt) checks the same with buildozer.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
SRC = REPO / "tests" / "data" / "src" / "apply_cmake"
MONO = REPO / "sample_graphs" / "monorepo"


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def _tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _build(root: Path) -> tuple[Path, Path]:
    """Configure (file API query) and build the project; (build dir, ninja -t deps)."""
    for tool in ("cmake", "ninja", "g++"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed (bash .ci/install-system-tools.sh)")
    build = root / "build"
    query = build / ".cmake" / "api" / "v1" / "query"
    query.mkdir(parents=True)
    (query / "codemodel-v2").touch()
    flags = "-DCMAKE_CXX_FLAGS=-ffunction-sections -fdata-sections"
    r = _run(["cmake", "-S", str(root / "src"), "-B", str(build), "-G", "Ninja", flags], root)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _run(["ninja", "-C", str(build)], root)
    assert r.returncode == 0, r.stdout + r.stderr
    deps = root / "deps.txt"
    r = _run(["ninja", "-C", str(build), "-t", "deps"], root)
    assert r.returncode == 0, r.stderr
    deps.write_text(r.stdout)
    return build, deps


def _apply(root: Path, build: Path, deps: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return _run(
        [
            sys.executable,
            "-m",
            "slim",
            "apply",
            "//a:a",
            "//b:b",
            "--graph",
            str(build),
            "--no-cache",
            "--linkmap",
            str(build / "a.map"),
            "--linkmap",
            str(build / "b.map"),
            "--compile",
            str(deps),
            "--workspace",
            str(root / "src"),
            *extra,
        ],
        root,
    )


def test_a_cut_that_cannot_be_made_changes_no_file(tmp_path: Path) -> None:
    shutil.copytree(SRC, tmp_path / "src")
    build, deps = _build(tmp_path)
    dry = _apply(tmp_path, build, deps)
    assert dry.returncode == 0, dry.stderr
    assert "a/CMakeLists.txt:2: in target_link_libraries(a …) remove legacy" in dry.stdout
    assert "b/CMakeLists.txt:3: in target_link_libraries(b …) remove legacy" in dry.stdout
    before = _tree_hash(tmp_path / "src")
    proc = _apply(tmp_path, build, deps, "--write")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "slim: error: b/CMakeLists.txt:3: expected legacy in target_link_libraries, found "
        "'target_link_libraries(b PRIVATE ${backend})'; nothing was changed\n"
    )
    assert _tree_hash(tmp_path / "src") == before  # a/CMakeLists.txt untouched too
    assert not list((tmp_path / "src").rglob("*.tmp"))


def test_cuts_that_can_all_be_made_are_made_together_and_the_build_holds(tmp_path: Path) -> None:
    shutil.copytree(SRC, tmp_path / "src")
    b_lists = tmp_path / "src" / "b" / "CMakeLists.txt"
    b_lists.write_text(b_lists.read_text().replace("${backend}", "legacy"))
    build, deps = _build(tmp_path)
    proc = _apply(tmp_path, build, deps, "--write")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "a/CMakeLists.txt:2: removed legacy",
        "b/CMakeLists.txt:3: removed legacy",
    ]
    assert "legacy" not in (tmp_path / "src" / "a" / "CMakeLists.txt").read_text()
    assert "PRIVATE legacy" not in b_lists.read_text()
    r = _run(["ninja", "-C", str(build)], tmp_path)  # cmake re-runs: the cut build links
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("buildozer") is None, reason="buildozer not installed")
def test_buildozer_edits_are_not_written_when_a_cmake_edit_cannot_be_made(
    tmp_path: Path,
) -> None:
    """The sample's cuts edit serving/BUILD (buildozer) and serving/CMakeLists.txt; with
    the legacy_io line naming it through a variable, neither file changes."""
    shutil.copy(REPO / "slim.toml", tmp_path / "slim.toml")
    shutil.copytree(MONO, tmp_path / "sample_graphs" / "monorepo")
    serving = tmp_path / "sample_graphs" / "monorepo" / "serving"
    lists = serving / "CMakeLists.txt"
    text = lists.read_text()
    assert "\n  legacy_io\n" in text
    lists.write_text(text.replace("\n  legacy_io\n", "\n  ${backend}\n"))
    before = _tree_hash(tmp_path / "sample_graphs" / "monorepo")
    proc = _run([sys.executable, "-m", "slim", "apply", "--write"], tmp_path)
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert proc.stderr.startswith("slim: error: serving/CMakeLists.txt:6: expected legacy_io in ")
    assert proc.stderr.endswith("; nothing was changed\n")
    assert _tree_hash(tmp_path / "sample_graphs" / "monorepo") == before
    # with the line as it was, both files are edited in one go
    lists.write_text(text)
    proc = _run([sys.executable, "-m", "slim", "apply", "--write"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("buildozer: applied 2 command(s)\n")
    assert "//native/legacy_io" not in (serving / "BUILD").read_text()
    assert "legacy_io" not in lists.read_text().split("target_link_libraries(cpu_server")[1]
