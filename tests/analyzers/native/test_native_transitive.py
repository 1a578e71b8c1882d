"""SLIM002 on an edge whose dep gives the link nothing itself but brings a library the
link uses.

Found on googletest (built with its tests, every test relinked with a bfd map): tests
with their own main() link `gtest_main`, whose only member (main) is never extracted,
and get `gtest`, which they use, only through it (`PUBLIC`). The edge was removable of
high confidence; the cut does not link (`undefined reference to testing::Message::
Message()`). A cut takes the dep's closure with it: when a library the link uses leaves
the root's closure, the edge is `used-transitively`, kept. `tests/data/src/native_transitive`
has the same shape; the truth is checked on the build, with both CMakes.
"""

from __future__ import annotations

from pathlib import Path

from ._cmake_project import built, cut_breaks, report

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_transitive"


def test_a_cut_that_drops_a_used_library_is_kept(cmake: str, tmp_path: Path) -> None:
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:app"]
    args += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "app.map"), "--binary", str(build / "app")]
    args += ["--binary", str(build / "libmainlib.a"), "--binary", str(build / "libcore.a")]
    args += ["--select", "SLIM002"]
    (found,) = report(src, *args)
    assert (found["dep"], found["verdict"], found["removable"], found["confidence"]) == (
        "//:mainlib",
        "used-transitively",
        False,
        "high",
    ), found
    assert (
        "also takes //:core out of //:app's closure, and the link uses it (" in (found["message"])
    )
    assert any("libcore.a(core.c.o)" in e["detail"] for e in found["evidence"])


def test_a_library_edge_is_kept_when_another_binary_uses_what_it_brings(
    cmake: str, tmp_path: Path
) -> None:
    """`glue -> mainlib` (PRIVATE): app1's link uses neither; app2's uses `core`, which it
    gets only through that edge. Judged for app1 with app2's map given, the edge is not
    removable: app2 still needs it."""
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:app1", "//:app2"]
    args += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    for app in ("app1", "app2"):
        args += ["--linkmap", str(build / f"{app}.map"), "--binary", str(build / app)]
    for lib in ("mainlib", "core", "glue"):
        args += ["--binary", str(build / f"lib{lib}.a")]
    args += ["--select", "SLIM002"]
    found = {(f["root"], f["target"], f["dep"]): f for f in report(src, *args)}
    edge = found[("//:app1", "//:glue", "//:mainlib")]
    assert (edge["verdict"], edge["removable"]) == ("unused-by-this-root", False), edge
    assert "still used through it by //:app2" in edge["message"]
    assert not any(f["removable"] for f in found.values()), found


def test_truth_app2_does_not_link_without_glue_to_mainlib(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(glue PRIVATE mainlib)",
        "undefined reference to `core_fn'",
    )


def test_truth_app_does_not_link_without_mainlib(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(app PRIVATE mainlib)",
        "undefined reference to `core_fn'",
    )
