"""SLIM002 on a header found beside the file that includes it.

pixman's tests include "utils.h" from test/, where the header lives, and link
`libtestutils` for nothing else: the compiler searches the includer's own directory
first, so no include directory of the edge is needed, yet the header (listed by the
library) was read as a use. `tests/data/src/native_beside`: `quoted` includes "utils.h"
(the cut is dead: same object, same exit), `angled` includes <utils.h>, which only the
edge's include directory finds (the cut does not compile), and so does `noquote`, the
quoted one compiled with gcc's obsolete `-I-` (no search of the includer's directory),
and `forced`, whose compile option `-include utils.h` forces the header in.
The truth is checked on the build, with both CMakes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ._cmake_project import build, built, cut_breaks, report, run

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_beside"


APPS = ("quoted", "angled", "noquote", "forced")


def _slim002(cmake: str, tmp_path: Path, *, depfiles: bool = True) -> dict[str, dict[str, object]]:
    src, out, deps = built(cmake, SRC, tmp_path)
    args = [*(f"//:{app}" for app in APPS), "--graph", str(out)]
    args += ["--compile", str(deps)] if depfiles else []
    args += ["--workspace", str(src), "--binary", str(out / "libtestutils.a")]
    for app in APPS:
        args += ["--linkmap", str(out / f"{app}.map"), "--binary", str(out / app)]
    return {str(f["target"]): f for f in report(src, *args, "--select", "SLIM002")}


def test_a_header_included_from_its_own_directory_needs_no_edge(cmake: str, tmp_path: Path) -> None:
    found = _slim002(cmake, tmp_path)
    quoted = found["//:quoted"]
    assert (quoted["dep"], quoted["verdict"], quoted["removable"]) == (
        "//:testutils",
        "unreferenced",
        True,
    )
    shown = [(e["source"], e["detail"]) for e in quoted["evidence"]]  # type: ignore[union-attr]
    assert (
        "test/quoted.c",
        '#include "utils.h" (from its own directory: found without the edge\'s include '
        "directories)",
    ) in shown


def test_a_header_found_through_the_edges_include_directory_is_a_use(
    cmake: str, tmp_path: Path
) -> None:
    found = _slim002(cmake, tmp_path)
    for app in ("//:angled", "//:noquote", "//:forced"):  # <utils.h>; -I-; -include utils.h
        f = found[app]
        assert (f["dep"], f["verdict"], f["removable"]) == (
            "//:testutils",
            "header-only-use",
            False,
        )


def test_a_header_forced_in_by_a_compile_option_is_a_use_of_a_scan(
    cmake: str, tmp_path: Path
) -> None:
    """No `#include` names it: with only a static scan (no depfiles), `forced -> testutils`
    was removable of high confidence; its cut does not compile."""
    f = _slim002(cmake, tmp_path, depfiles=False)["//:forced"]
    assert (f["dep"], f["verdict"], f["removable"], f["confidence"]) == (
        "//:testutils",
        "header-only-use",
        False,
        "medium",
    )
    shown = [(e["source"], e["detail"]) for e in f["evidence"]]  # type: ignore[union-attr]
    assert ("test/forced.c", "-include utils.h (a compile option)") in shown


def test_truth_the_quoted_cut_builds_the_same_object(cmake: str, tmp_path: Path) -> None:
    _, before, _ = built(cmake, SRC, tmp_path / "before")
    src = tmp_path / "cut"
    shutil.copytree(SRC, src)
    lists = src / "CMakeLists.txt"
    line = "target_link_libraries(quoted PRIVATE testutils)\n"
    assert line in lists.read_text()
    lists.write_text(lists.read_text().replace(line, ""))
    after = tmp_path / "cut-build"
    build(cmake, src, after)
    obj = Path("CMakeFiles") / "quoted.dir" / "test" / "quoted.c.o"
    assert (before / obj).read_bytes() == (after / obj).read_bytes()
    assert run([str(after / "quoted")], after).returncode == 0


def test_truth_the_angled_cut_does_not_compile(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake, SRC, tmp_path, "CMakeLists.txt",
        "target_link_libraries(angled PRIVATE testutils)", "utils.h: No such file or directory",
    )  # fmt: skip


def test_truth_the_cut_under_the_obsolete_quote_switch_does_not_compile(
    cmake: str, tmp_path: Path
) -> None:
    cut_breaks(
        cmake, SRC, tmp_path, "CMakeLists.txt",
        "target_link_libraries(noquote PRIVATE testutils)", "utils.h: No such file or directory",
    )  # fmt: skip


def test_truth_the_cut_of_a_forced_include_does_not_compile(cmake: str, tmp_path: Path) -> None:
    cut_breaks(
        cmake, SRC, tmp_path, "CMakeLists.txt",
        "target_link_libraries(forced PRIVATE testutils)", "utils.h: No such file or directory",
    )  # fmt: skip
