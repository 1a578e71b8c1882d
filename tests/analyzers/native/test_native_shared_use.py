"""SLIM004 judges the edge to an unused DT_NEEDED library as SLIM002 judges any edge.

`app` links the shared library `foo` and resolves no symbol from it, but reads foo.h (an
inline function and a macro): the edge was removable of high confidence, and the cut
does not compile. `l -> foo` (PUBLIC) was removable from `app3`'s evidence alone, which
uses nothing of `foo`, while `app2` calls `foo_fn` through it: the cut does not link.
`app3 -> bar` is the one dead edge and stays removable. The truth is checked on the
build, with both CMakes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ._cmake_project import build, built, cut_breaks, report

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_shared_use"


def _slim004(cmake: str, tmp_path: Path, app: str) -> dict[tuple[str, str], dict[str, object]]:
    src, out, deps = built(cmake, SRC, tmp_path)
    args = [f"//:{app}", "--graph", str(out), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(out / f"{app}.map"), "--binary", str(out / app)]
    for lib in ("foo/libfoo.so", "bar/libbar.so", "l/libl.a"):
        args += ["--binary", str(out / lib)]
    args += ["--select", "SLIM004"]
    return {(str(f["target"]), str(f["dep"])): f for f in report(src, *args)}


def test_a_needed_library_whose_headers_are_read_is_kept(cmake: str, tmp_path: Path) -> None:
    (found,) = _slim004(cmake, tmp_path, "app").values()
    assert (found["target"], found["dep"], found["verdict"], found["removable"]) == (
        "//:app",
        "//foo:foo",
        "header-only-use",
        False,
    ), found
    assert "app.c includes foo/include/foo.h" in str(found["message"])


def test_a_library_edge_is_not_judged_from_one_binary(cmake: str, tmp_path: Path) -> None:
    found = _slim004(cmake, tmp_path, "app3")
    verdicts = {k: (f["verdict"], f["removable"]) for k, f in found.items()}
    assert verdicts == {
        ("//:app3", "//bar:bar"): ("unused", True),
        ("//l:l", "//foo:foo"): ("unreferenced-unsafe", False),
    }, found
    assert "//l:l -> //foo:foo is declared PUBLIC" in str(found[("//l:l", "//foo:foo")]["message"])


def test_truth_app_does_not_compile_without_foo(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake, SRC, tmp_path, "CMakeLists.txt", "target_link_libraries(app PRIVATE foo)",
        "foo.h: No such file or directory",
    )  # fmt: skip


def test_truth_app2_does_not_link_without_l_to_foo(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake, SRC, tmp_path, "l/CMakeLists.txt", "target_link_libraries(l PUBLIC foo)",
        "undefined reference to `foo_fn'",
    )  # fmt: skip


def test_truth_app3_builds_without_bar(cmake: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    lists = src / "CMakeLists.txt"
    text = lists.read_text()
    assert "target_link_libraries(app3 PRIVATE l bar)\n" in text
    lists.write_text(text.replace("PRIVATE l bar)", "PRIVATE l)"))
    build(cmake, src, tmp_path / "build")
    assert (tmp_path / "build" / "app3").is_file()
