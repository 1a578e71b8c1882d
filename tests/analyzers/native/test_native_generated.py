"""SLIM002 on a header a library generates into the build directory and gives its
dependants through a PUBLIC include directory there (`configure_file`, the usual way a
CMake project hands out its configuration).

With the build directory outside the source directory, `ninja -t deps` names the header
by an absolute path under no root slim knew, so it was taken for a system header: `app`,
which reads `l_config.h` and links nothing of `l`, got a removable verdict of high
confidence whose cut does not compile. The header is `l`'s (its own include directory
holds it), whether the build directory is inside the sources or not; the truth is
checked on the build itself, with the system CMake (codemodel 2.4) and CMake from PyPI.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ._cmake_project import build as _build_at
from ._cmake_project import ninja_deps, report

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_generated"


@pytest.fixture(params=["outside", "inside"])
def where(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _layout(tmp_path: Path, where: str) -> tuple[Path, Path]:
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    return src, (tmp_path / "build" if where == "outside" else src / "build")


def test_a_generated_header_of_a_library_is_a_use(cmake: str, where: str, tmp_path: Path) -> None:
    src, build = _layout(tmp_path, where)
    _build_at(cmake, src, build)
    deps = ninja_deps(build, tmp_path / "deps.txt")
    args = ["//:app"]
    args += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(build / "app.map"), "--binary", str(build / "app")]
    args += ["--binary", str(build / "lib" / "libl.a"), "--select", "SLIM002"]
    (found,) = report(src, *args)
    assert (found["dep"], found["verdict"], found["removable"]) == (
        "//lib:l",
        "header-only-use",
        False,
    ), found
    header = build / "lib" / "l_config.h"
    named = str(header) if where == "outside" else str(header.relative_to(src))
    assert f"app/main.c includes {named} (ninja -t deps)" in str(found["message"])


def test_truth_app_does_not_compile_without_l(cmake: str, where: str, tmp_path: Path) -> None:
    src, build = _layout(tmp_path, where)
    top = src / "CMakeLists.txt"
    top.write_text(top.read_text().replace("target_link_libraries(app PRIVATE l)\n", ""))
    with pytest.raises(AssertionError, match=r"l_config\.h"):
        _build_at(cmake, src, build)
