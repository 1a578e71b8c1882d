"""SLIM004 on a DT_NEEDED library whose cut takes another, used, library with it.

`app` needs liba.so and resolves nothing from it, but calls `b_fn` of libb.so, which it
gets only through `a` (`target_link_libraries(a PUBLIC b)`). The edge `app -> a` was
removable of high confidence; cut, `app` does not link. A cut takes the dep's closure
with it: the finding is kept (`unused-unsafe`) and says what it would take. The truth is
checked on the build, with both CMakes.
"""

from __future__ import annotations

from pathlib import Path

from ._cmake_project import built, cut_breaks, report

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_shared"


def test_a_needed_library_bringing_a_used_one_is_not_removable(cmake: str, tmp_path: Path) -> None:
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:app", "--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "app.map"), "--binary", str(build / "app")]
    args += ["--binary", str(build / "lib" / "liba.so"), "--binary", str(build / "lib" / "libb.so")]
    args += ["--select", "SLIM004"]
    (found,) = report(src, *args)
    assert (found["target"], found["dep"], found["verdict"], found["removable"]) == (
        "//:app",
        "//lib:a",
        "unused-unsafe",
        False,
    ), found
    assert "cutting //:app -> //lib:a also takes //lib:b out of the closure" in str(
        found["message"]
    )


def test_truth_app_does_not_link_without_a(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(app PRIVATE a)",
        "undefined reference to `b_fn'",
    )


def test_a_needed_library_whose_target_links_a_system_library_is_not_removable(
    cmake: str, tmp_path: Path
) -> None:
    """`appm` resolves nothing from libzwrap.so, but the libm it calls `cos` from is on its
    link line only through `zwrap`'s PUBLIC `m`: the edge was removable of high confidence."""
    src, build, deps = built(cmake, SRC, tmp_path)
    args = ["//:appm", "--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "appm.map"), "--binary", str(build / "appm")]
    args += ["--binary", str(build / "libzwrap.so"), "--select", "SLIM004"]
    (found,) = report(src, *args)
    assert (found["target"], found["dep"], found["verdict"], found["removable"]) == (
        "//:appm",
        "//:zwrap",
        "unused",
        False,
    ), found
    message = str(found["message"])
    assert (
        "the cut also takes //:zwrap (it links m)" in message  # codemodel 2.9+
        or "//:appm's link line names -lm by path or -l" in message  # before: the call's line
    ), message


def test_truth_appm_does_not_link_without_zwrap(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake,
        SRC,
        tmp_path,
        "CMakeLists.txt",
        "target_link_libraries(appm PRIVATE zwrap)",
        "undefined reference to `cos'",
    )
