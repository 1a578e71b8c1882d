"""SLIM002 on an edge that gives the dependant its language standard.

`modern` declares `target_compile_features(modern PUBLIC cxx_std_20)`; `app` links it
PRIVATE and uses nothing of it, but compiles with `-std=gnu++20` only through it and uses
`consteval`. The edge was removable of high confidence (no map or depfile shows the
standard); the cut does not compile (g++ 12 defaults to C++17). The CMake file API's
`languageStandard` traces the standard to the `target_link_libraries` line: the verdict
is `usage-requirements`, kept. The truth is checked on the build, with both CMakes.
"""

from __future__ import annotations

from pathlib import Path

from ._cmake_project import built, cut_breaks, report

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_standard"


def test_an_edge_giving_the_language_standard_is_kept(cmake: str, tmp_path: Path) -> None:
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:app", "--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "app.map"), "--binary", str(build / "app")]
    args += ["--binary", str(build / "libmodern.a"), "--select", "SLIM002"]
    (found,) = report(src, *args)
    assert (found["dep"], found["verdict"], found["removable"]) == (
        "//:modern",
        "usage-requirements",
        False,
    ), found
    assert "usage requirements: -std=gnu++20 (the CXX 20 standard) (" in str(found["message"])


def test_truth_app_does_not_compile_without_modern(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(app PRIVATE modern)",
        "consteval. does not name a type",  # (gcc quotes with ‘’)
    )
