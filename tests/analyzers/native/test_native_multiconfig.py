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

from ._cmake_project import build, ninja_deps, report

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_multiconfig"
LINE = "target_link_libraries(app PRIVATE $<$<CONFIG:Debug>:dbglib>)"


def test_a_dep_linked_in_one_configuration_only_is_kept(cmake: str, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "build"
    shutil.copytree(SRC, src)
    build(cmake, src, out, "Release")
    deps = ninja_deps(out, tmp_path / "deps.txt", "Release")
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
    build(cmake, src, tmp_path / "release", "Release")
    with pytest.raises(AssertionError, match=r"undefined reference to .dbg_fn"):
        build(cmake, src, tmp_path / "debug", "Debug")
