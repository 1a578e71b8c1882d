"""SLIM002 does not claim a header use it cannot trace to a dep.

libwebp (3757b8af, CMake 4.4, static): `webp` is a library of object files whose
`target_include_directories(webp PUBLIC src)` the CMake file API shows on no target (it has
no compile of its own). `webp_quality -> exampleutil` contributes no code, and slim kept it
as `header-only-use` (high): "needed to compile: webp_quality.c includes src/webp/types.h".
The cut builds a byte-identical object and binary: the directory still comes through
`extras -> webp`. Nothing in the reply says which dep gives it, before the cut or after,
so the edge is kept as unknown, saying what is missing, not as a use.
`tests/data/src/native_objlib` has the shape; the truth is checked on the build.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ._cmake_project import build, built, report

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_objlib"


def test_a_header_read_through_an_include_directory_no_dep_is_seen_to_give_is_unknown(
    cmake: str, tmp_path: Path
) -> None:
    src, out, deps = built(cmake, SRC, tmp_path)
    args = ["//:app", "--graph", str(out), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(out / "app.map"), "--binary", str(out / "app")]
    for lib in ("libutil.a", "libextras.a", "libwebp.a"):
        args += ["--binary", str(out / lib)]
    (found,) = report(src, *args, "--select", "SLIM002")
    assert (found["target"], found["dep"]) == ("//:app", "//:util"), found
    assert (found["verdict"], found["removable"]) == ("unreferenced", False), found
    assert str(found["kept_because"]).startswith(
        "the graph does not show which dep gives the include directory these headers are "
        "read through (//:app (app/app.c reads src/webp/types.h through src))"
    ), found
    details = found["details"]
    assert isinstance(details, dict)
    assert any("passes that include directory on" in m for m in details["missing_evidence"])


def test_truth_the_cut_builds_the_same_object_and_program(cmake: str, tmp_path: Path) -> None:
    _, before, _ = built(cmake, SRC, tmp_path / "before")
    src = tmp_path / "cut"
    shutil.copytree(SRC, src)
    lists = src / "CMakeLists.txt"
    text = lists.read_text()
    assert "target_link_libraries(app util extras)\n" in text
    lists.write_text(
        text.replace("target_link_libraries(app util extras)", "target_link_libraries(app extras)")
    )
    after = tmp_path / "cut-build"
    build(cmake, src, after)
    obj = Path("CMakeFiles") / "app.dir" / "app" / "app.c.o"
    assert (before / obj).read_bytes() == (after / obj).read_bytes()
    assert subprocess.run([str(after / "app")], check=False).returncode == 0
