"""SLIM002 on an edge a multi-config CMake build has in some configurations only.

`target_link_libraries(app PRIVATE $<$<CONFIG:Debug>:dbglib>)`, built with Ninja
Multi-Config: the file API's reply holds every configuration, and slim merged their edges,
so the Release map (which links nothing of dbglib) made `app -> dbglib` removable; the
edit takes dbglib out of the Debug link, which calls `dbg_fn`, and that build does not
link. The reply's per-configuration link lines show the edge is Debug's only: it is kept.
The truth is checked on the build, with both CMakes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ._cmake_project import report, run

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_multiconfig"
LINE = "target_link_libraries(app PRIVATE $<$<CONFIG:Debug>:dbglib>)"


def _built(cmake: str, src: Path, out: Path, config: str) -> None:
    query = out / ".cmake" / "api" / "v1" / "query"
    query.mkdir(parents=True, exist_ok=True)
    (query / "codemodel-v2").touch()
    r = run([cmake, "-S", str(src), "-B", str(out), "-G", "Ninja Multi-Config"], src)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(["ninja", "-C", str(out), "-f", f"build-{config}.ninja"], src)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_dep_linked_in_one_configuration_only_is_kept(cmake: str, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "build"
    shutil.copytree(SRC, src)
    _built(cmake, src, out, "Release")
    deps = tmp_path / "deps.txt"
    deps.write_text(
        run(["ninja", "-C", str(out), "-f", "build-Release.ninja", "-t", "deps"], out).stdout
    )
    args = ["//:app", "--graph", str(out), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(out / "app.map"), "--binary", str(out / "Release" / "app")]
    args += ["--select", "SLIM002"]
    (found,) = report(src, *args)
    assert (found["dep"], found["verdict"], found["removable"]) == (
        "//:dbglib",
        "unreferenced",
        False,
    ), found
    assert "//:app links //:dbglib only in the export's configurations Debug" in str(
        found["message"]
    )


def test_truth_the_debug_build_of_the_cut_does_not_link(cmake: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    text = (src / "CMakeLists.txt").read_text()
    assert LINE + "\n" in text
    (src / "CMakeLists.txt").write_text(text.replace(LINE + "\n", ""))
    _built(cmake, src, tmp_path / "release", "Release")
    with pytest.raises(AssertionError, match=r"undefined reference to .dbg_fn"):
        _built(cmake, src, tmp_path / "debug", "Debug")
