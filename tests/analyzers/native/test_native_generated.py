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

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import cmake_tools as _cmake

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_generated"


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def _build(cmake: str, src: Path, build: Path) -> None:
    query = build / ".cmake" / "api" / "v1" / "query"
    query.mkdir(parents=True, exist_ok=True)
    (query / "codemodel-v2").touch()
    r = _run([cmake, "-S", str(src), "-B", str(build), "-G", "Ninja"], src)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _run(["ninja", "-C", str(build)], src)
    assert r.returncode == 0, r.stdout + r.stderr


def _cmakes() -> list[str]:
    found = [c for c in (_cmake.system(), _cmake.pypi()) if c is not None]
    return list(dict.fromkeys(found))


@pytest.fixture(params=["outside", "inside"])
def where(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=_cmakes())
def cmake(request: pytest.FixtureRequest) -> str:
    for tool in ("ninja", "gcc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (bash .ci/install-system-tools.sh)")
    return str(request.param)


def _layout(tmp_path: Path, where: str) -> tuple[Path, Path]:
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    return src, (tmp_path / "build" if where == "outside" else src / "build")


def test_a_generated_header_of_a_library_is_a_use(cmake: str, where: str, tmp_path: Path) -> None:
    src, build = _layout(tmp_path, where)
    _build(cmake, src, build)
    deps = tmp_path / "deps.txt"
    deps.write_text(_run(["ninja", "-C", str(build), "-t", "deps"], src).stdout)
    cmd = [sys.executable, "-m", "slim", "report", "//:app", "--no-cache"]
    cmd += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    cmd += ["--linkmap", str(build / "app.map"), "--binary", str(build / "app")]
    cmd += ["--binary", str(build / "lib" / "libl.a"), "--select", "SLIM002"]
    cmd += ["--format", "json", "--exit-zero"]
    r = _run(cmd, src)
    assert r.returncode == 0, r.stderr[-2000:]
    (found,) = json.loads(r.stdout)["findings"]
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
        _build(cmake, src, build)
