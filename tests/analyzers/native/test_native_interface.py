"""SLIM002 judges an edge to a library without code by what it brings, and proposes cuts
that hold together.

libevent's samples link `event_extra` and `event_core`, INTERFACE libraries wrapping the
static ones; most use core only. The edge to the wrapper was never judged (it has no
code), and the wrapper's own edge is INTERFACE, so the one dead edge went unreported.
`tests/data/src/native_interface` has the shape: `app -> extra` is dead, `app -> core` is
not. `app3` gets the core it uses through two dead libraries: each cut holds alone, both
together do not link, so one is proposed. The truth is checked on the build.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from slim_analyzers.native.slim002_unreferenced import payload

from slim.model.graph import EdgeKind, GraphBuilder

from ._cmake_project import build, built, codemodel_minor, cut_breaks, report

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_interface"
LIBS = ("libcore_static.a", "libextra_static.a", "liba.a", "libb.a", "libmlib.a")


def _slim002(cmake: str, tmp_path: Path, app: str) -> dict[tuple[str, str], dict[str, object]]:
    src, out, deps = built(cmake, SRC, tmp_path)
    args = [f"//:{app}", "--graph", str(out), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(out / f"{app}.map"), "--binary", str(out / app)]
    for lib in LIBS:
        args += ["--binary", str(out / lib)]
    args += ["--select", "SLIM002"]
    return {(str(f["target"]), str(f["dep"])): f for f in report(src, *args)}


def _removable(found: dict[tuple[str, str], dict[str, object]]) -> list[tuple[str, str]]:
    return sorted(k for k, f in found.items() if f["removable"])


def test_the_edge_to_a_wrapper_whose_code_is_unused_is_removable(
    cmake: str, tmp_path: Path
) -> None:
    found = _slim002(cmake, tmp_path, "app")
    if codemodel_minor(tmp_path / "build") >= 9:
        assert _removable(found) == [("//:app", "//:extra")], found
        assert not [k for k in found if k[1] in ("//:core", "//:core_static")], found
    else:  # no INTERFACE library in the reply: app's edges to what they wrap look implicit
        assert found == {}


def test_a_wrapper_whose_code_is_used_is_no_finding(cmake: str, tmp_path: Path) -> None:
    assert _removable(_slim002(cmake, tmp_path, "app2")) == []


def test_two_cuts_that_hold_alone_but_not_together_are_not_both_proposed(
    cmake: str, tmp_path: Path
) -> None:
    found = _slim002(cmake, tmp_path, "app3")
    assert _removable(found) == [("//:app3", "//:a")], found
    kept = found[("//:app3", "//:b")]
    assert kept["verdict"] == "unreferenced"
    assert str(kept["kept_because"]).startswith(
        "alone the cut holds, but with //:app3 -> //:a (proposed too) it also takes "
        "//:core_static out of //:app3's closure"
    )


def _cut(cmake: str, tmp_path: Path, *lines: str) -> None:
    """The fixture with `lines` removed from its CMakeLists.txt builds."""
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    path = src / "CMakeLists.txt"
    text = path.read_text()
    for line in lines:
        assert line + "\n" in text, line
        text = text.replace(line + "\n", "")
    path.write_text(text)
    build(cmake, src, tmp_path / "build")


def test_truth_app_builds_without_extra(cmake: str, tmp_path: Path) -> None:
    _cut(cmake, tmp_path, "target_link_libraries(app PRIVATE extra)")


def test_truth_app3_builds_without_a(cmake: str, tmp_path: Path) -> None:
    _cut(cmake, tmp_path, "target_link_libraries(app3 PRIVATE a)")


def test_truth_app3_does_not_build_without_both(cmake: str, tmp_path: Path) -> None:
    src = tmp_path / "fixture"
    shutil.copytree(SRC, src)
    path = src / "CMakeLists.txt"
    path.write_text(path.read_text().replace("target_link_libraries(app3 PRIVATE a)\n", ""))
    cut_breaks(
        cmake, src, tmp_path / "cut", "CMakeLists.txt", "target_link_libraries(app3 PRIVATE b)",
        "core.h: No such file or directory",
    )  # fmt: skip


def test_a_wrapper_that_also_brings_what_no_map_names_is_not_judged() -> None:
    """A wrapper's payload is the code it brings; when it also brings an imported target
    or a library named by path or -l, cutting it may take a library the link uses
    and no map ties to a target: it is not judged by what it wraps."""
    b = GraphBuilder()
    ids = {
        lab: b.add_target(lab, kind, srcs=srcs, attrs=attrs)
        for lab, kind, srcs, attrs in (
            ("//:plain", "interface_library", (), None),
            ("//:with_lz", "interface_library", (), {"link_external": ("-lz",)}),
            ("//:with_imported", "interface_library", (), None),
            ("//:ZLIB__ZLIB", "", (), {"imported": True}),
            ("//:code", "static_library", ("code.c",), None),
        )
    }
    for wrapper in ("//:plain", "//:with_lz", "//:with_imported"):
        b.add_edge(ids[wrapper], ids["//:code"], EdgeKind.EXPORTS)
    b.add_edge(ids["//:with_imported"], ids["//:ZLIB__ZLIB"], EdgeKind.EXPORTS)
    g = b.build()
    assert payload(g, ids["//:plain"]) == [ids["//:code"]]
    assert payload(g, ids["//:with_lz"]) is None
    assert payload(g, ids["//:with_imported"]) is None


def test_a_cut_that_takes_a_library_named_by_l_is_kept(cmake: str, tmp_path: Path) -> None:
    """app5 calls sqrt and gets -lm only through mlib, whose code it does not use: the
    map ties libm to no target, so the cut is kept (with codemodel 2.9+ mlib carries the
    -lm; before, the reply does not say whose call put it on app5's link line)."""
    (found,) = _slim002(cmake, tmp_path, "app5").values()
    assert (found["target"], found["dep"], found["removable"]) == ("//:app5", "//:mlib", False)
    if codemodel_minor(tmp_path / "build") >= 9:
        assert "the cut also takes //:mlib (it links m)" in str(found["kept_because"])
    else:  # the -lm is on app5's link line, put there by mlib's target_link_libraries
        assert str(found["kept_because"]).startswith(
            "//:app5's link line names -lm by path or -l, put there by a call of a target "
            "the cut takes away"
        )


def test_truth_app5_does_not_link_without_mlib(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake, SRC, tmp_path, "CMakeLists.txt", "target_link_libraries(app5 PRIVATE mlib)",
        "undefined reference to `sqrt'",
    )  # fmt: skip
