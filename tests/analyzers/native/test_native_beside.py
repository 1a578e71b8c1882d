"""SLIM002 on a header found beside the file that includes it.

pixman's tests include "utils.h" from test/, where the header lives, and link
`libtestutils` for nothing else: the compiler searches the includer's own directory
first, so no include directory of the edge is needed, yet the header (listed by the
library) was read as a use. `tests/data/src/native_beside`: `quoted` includes "utils.h"
(the cut is dead: same object, same exit), `angled` includes <utils.h>, which only the
edge's include directory finds (the cut does not compile), and so does `noquote`, the
quoted one compiled with gcc's obsolete `-I-` (no search of the includer's directory).
The truth is checked on the build, with both CMakes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ._cmake_project import build, built, cut_breaks, report, run

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_beside"


def _slim002(cmake: str, tmp_path: Path) -> dict[str, dict[str, object]]:
    src, out, deps = built(cmake, SRC, tmp_path)
    args = ["//:quoted", "//:angled", "//:noquote", "--graph", str(out), "--compile", str(deps)]
    args += ["--workspace", str(src), "--binary", str(out / "libtestutils.a")]
    for app in ("quoted", "angled", "noquote"):
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
    for app in ("//:angled", "//:noquote"):  # <utils.h>; "utils.h" under -I-
        f = found[app]
        assert (f["dep"], f["verdict"], f["removable"]) == (
            "//:testutils",
            "header-only-use",
            False,
        )


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
