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

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import cmake_tools as _cmake

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_requirements"


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
    return list(dict.fromkeys(c for c in (_cmake.system(), _cmake.pypi()) if c is not None))


@pytest.fixture(params=_cmakes())
def cmake(request: pytest.FixtureRequest) -> str:
    for tool in ("ninja", "gcc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (bash .ci/install-system-tools.sh)")
    return str(request.param)


def test_an_edge_carrying_compile_definitions_is_kept(cmake: str, tmp_path: Path) -> None:
    src, build = tmp_path / "src", tmp_path / "build"
    shutil.copytree(SRC, src)
    _build(cmake, src, build)
    deps = tmp_path / "deps.txt"
    deps.write_text(_run(["ninja", "-C", str(build), "-t", "deps"], src).stdout)
    cmd = [sys.executable, "-m", "slim", "report", "//:app", "--no-cache"]
    cmd += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    cmd += ["--linkmap", str(build / "app.map"), "--binary", str(build / "app")]
    cmd += ["--binary", str(build / "libl.a"), "--select", "SLIM002", "--format", "json"]
    r = _run(cmd, src)
    assert r.returncode == 0, r.stderr[-2000:]
    (found,) = json.loads(r.stdout)["findings"]
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
    src, build = tmp_path / "src", tmp_path / "build"
    shutil.copytree(SRC, src)
    _build(cmake, src, build)
    cmd = [sys.executable, "-m", "slim", "report", "//:app2", "--no-cache"]
    cmd += ["--graph", str(build), "--workspace", str(src), "--select", "SLIM002"]
    cmd += ["--linkmap", str(build / "app2.map"), "--binary", str(build / "app2")]
    cmd += ["--binary", str(build / "libl.a"), "--binary", str(build / "libm.a")]
    cmd += ["--format", "json"]
    r = _run(cmd, src)
    assert r.returncode == 0, r.stderr[-2000:]
    found = {f["dep"]: f for f in json.loads(r.stdout)["findings"]}
    assert {d: (f["verdict"], f["removable"]) for d, f in found.items()} == {
        "//:l": ("usage-requirements", False),
        "//:m": ("usage-requirements", False),
    }
    assert (
        "requirements of //:m or of //:l (declared on the same line): -DAPP_MODE=2"
        in (found["//:m"]["message"])
    )


def test_truth_app_does_not_compile_without_l(cmake: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    top = src / "CMakeLists.txt"
    top.write_text(top.read_text().replace("target_link_libraries(app PRIVATE l)\n", ""))
    with pytest.raises(AssertionError, match="APP_MODE is not defined"):
        _build(cmake, src, tmp_path / "build")
