"""SLIM002 on an edge that carries the dep's usage requirements into the compile.

`l` declares `target_compile_definitions(l PUBLIC APP_MODE=2)` and an INTERFACE compile
option; `app` links `l` PRIVATE, uses none of its code and reads none of its headers, but
compiles with `-DAPP_MODE=2` (its source stops with `#error` without it). No map or
depfile shows that, so the edge got a removable verdict whose cut does not compile (or,
without the `#error`, silently compiles something else). The CMake file API traces each
definition and option of `app`'s compile to the line that brought it: the verdict is
`usage-requirements`, kept. The truth is checked on the build, with the system CMake
(codemodel 2.4) and CMake from PyPI.
"""

from __future__ import annotations

from pathlib import Path

from ._cmake_project import built, cut_breaks, report

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_requirements"


def test_an_edge_carrying_compile_definitions_is_kept(cmake: str, tmp_path: Path) -> None:
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:app"]
    args += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "app.map"), "--binary", str(build / "app")]
    args += ["--binary", str(build / "libl.a"), "--select", "SLIM002"]
    (found,) = report(src, *args)
    assert (found["dep"], found["verdict"], found["removable"], found["confidence"]) == (
        "//:l",
        "usage-requirements",
        False,
        "high",
    ), found
    assert "usage requirements: -DAPP_MODE=2, -fno-common (" in found["message"]
    assert "traces them to CMakeLists.txt:10)" in found["message"]


def test_a_line_declaring_several_deps_keeps_each_and_says_so(cmake: str, tmp_path: Path) -> None:
    """`target_link_libraries(app2 PRIVATE l m)`: APP_MODE is traced to the line, not to
    `l`, so `m` is kept too (a dead edge missed, the safe way), and the message says why."""
    src, build, _ = built(cmake, SRC, tmp_path)
    args = ["//:app2"]
    args += ["--graph", str(build), "--workspace", str(src), "--select", "SLIM002"]
    args += ["--linkmap", str(build / "app2.map"), "--binary", str(build / "app2")]
    args += ["--binary", str(build / "libl.a"), "--binary", str(build / "libm.a")]
    found = {f["dep"]: f for f in report(src, *args)}
    assert {d: (f["verdict"], f["removable"]) for d, f in found.items()} == {
        "//:l": ("usage-requirements", False),
        "//:m": ("usage-requirements", False),
    }
    assert (
        "requirements of //:m or of //:l (declared on the same line): -DAPP_MODE=2"
        in (found["//:m"]["message"])
    )


def test_truth_app_does_not_compile_without_l(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(app PRIVATE l)",
        "APP_MODE is not defined",
    )


def test_an_edge_carrying_a_link_option_is_kept(cmake: str, tmp_path: Path) -> None:
    """`target_link_options(lo INTERFACE -Wl,--defsym=app_answer=42)`: `app3` links nothing
    of `lo`, but its link needs the symbol the option defines. The edge was removable of
    high confidence; the file API traces the option to the `target_link_libraries` line."""
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:app3"]
    args += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "app3.map"), "--binary", str(build / "app3")]
    args += ["--binary", str(build / "liblo.a"), "--select", "SLIM002"]
    (found,) = report(src, *args)
    assert (found["dep"], found["verdict"], found["removable"]) == (
        "//:lo",
        "usage-requirements",
        False,
    ), found
    assert (
        "gives //:app3's link //:lo's usage requirements: -Wl,--defsym=app_answer=42 (the CMake "
        "file API traces them to CMakeLists.txt:" in str(found["message"])
    )


def test_truth_app3_does_not_link_without_lo(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(app3 PRIVATE lo)",
        "undefined reference to `app_answer'",
    )


def test_an_edge_carrying_a_link_directory_is_kept(cmake: str, tmp_path: Path) -> None:
    """`target_link_directories(ldep INTERFACE …/extdir)`: `app4` links nothing of `ldep`,
    but the `-lext` it names itself is found only there."""
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:app4"]
    args += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "app4.map"), "--binary", str(build / "app4")]
    args += ["--binary", str(build / "libldep.a"), "--select", "SLIM002"]
    found = {f["dep"]: f for f in report(src, *args)}
    ldep = found["//:ldep"]
    assert (ldep["verdict"], ldep["removable"]) == ("usage-requirements", False), ldep
    assert f"-L{build}/extdir" in str(ldep["message"])


def test_truth_app4_does_not_link_without_ldep(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(app4 PRIVATE ldep)",
        "cannot find -lext",
    )


def test_an_edge_carrying_an_interface_source_is_kept(cmake: str, tmp_path: Path) -> None:
    """`target_sources(isrc INTERFACE lib/shim.c)`: `app5` compiles shim.c as its own
    source (its object is `app5`'s, so the map charges nothing to `isrc`) and calls it.
    The edge was removable of high confidence."""
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:app5"]
    args += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "app5.map"), "--binary", str(build / "app5")]
    args += ["--binary", str(build / "libisrc.a"), "--select", "SLIM002"]
    (found,) = report(src, *args)
    assert (found["dep"], found["verdict"], found["removable"]) == (
        "//:isrc",
        "usage-requirements",
        False,
    ), found
    assert "lib/shim.c (a source compiled into it)" in str(found["message"])


def test_truth_app5_does_not_link_without_isrc(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(app5 PRIVATE isrc)",
        "undefined reference to `shim_fn'",
    )


def test_an_edge_carrying_a_precompiled_header_is_kept(cmake: str, tmp_path: Path) -> None:
    """`target_precompile_headers(pch PUBLIC lib/pch.h)`: `app6` includes nothing and uses
    the header's macro. Its depfiles list only the source (the `.gch` is read in place of
    the header, and the header's own compile is charged to `app6`), so the edge was
    removable of high confidence; the file API traces the header to the link line."""
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:app6"]
    args += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "app6.map"), "--binary", str(build / "app6")]
    args += ["--binary", str(build / "libpch.a"), "--select", "SLIM002"]
    (found,) = report(src, *args)
    assert (found["dep"], found["verdict"], found["removable"]) == (
        "//:pch",
        "usage-requirements",
        False,
    ), found
    assert "lib/pch.h (a precompiled header)" in str(found["message"])


def test_truth_app6_does_not_compile_without_pch(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(app6 PRIVATE pch)",
        "PCH_K. undeclared",
    )
