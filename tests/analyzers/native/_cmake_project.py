"""Build a small CMake + Ninja project of `tests/data/src/` with the file API query, and
run commands on it: the fixtures whose truth is checked on the build itself."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import cmake_tools as _cmake


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def build(cmake: str, src: Path, out: Path, config: str | None = None) -> None:
    """Configure `src` into `out` (codemodel-v2 queried) and build it; AssertionError with
    the tools' output when either fails. With `config`, the build is Ninja Multi-Config
    and that configuration is built."""
    query = out / ".cmake" / "api" / "v1" / "query"
    query.mkdir(parents=True, exist_ok=True)
    (query / "codemodel-v2").touch()
    generator = "Ninja" if config is None else "Ninja Multi-Config"
    r = run([cmake, "-S", str(src), "-B", str(out), "-G", generator], src)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(["ninja", "-C", str(out), *ninja_file(config)], src)
    assert r.returncode == 0, r.stdout + r.stderr


def ninja_file(config: str | None) -> list[str]:
    """The arguments that pick a Ninja Multi-Config build's configuration."""
    return [] if config is None else ["-f", f"build-{config}.ninja"]


def ninja_deps(out: Path, to: Path, config: str | None = None) -> Path:
    """`ninja -t deps` of the build in `out`, written to `to`."""
    to.write_text(run(["ninja", "-C", str(out), *ninja_file(config), "-t", "deps"], out).stdout)
    return to


def cmakes() -> list[str]:
    """The system CMake (codemodel 2.4) and CMake from PyPI (2.9+), each once."""
    return list(dict.fromkeys(c for c in (_cmake.system(), _cmake.pypi()) if c is not None))


def need_tools() -> None:
    for tool in ("ninja", "gcc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (bash .ci/install-system-tools.sh)")


def report(cwd: Path, *args: str) -> list[dict[str, object]]:
    """The findings of `slim report ARGS --no-cache --format json` (exit 0 or 1)."""
    cmd = [sys.executable, "-m", "slim", "report", *args, "--no-cache", "--format", "json"]
    r = run(cmd, cwd)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    found: list[dict[str, object]] = json.loads(r.stdout)["findings"]
    return found


def built(cmake: str, fixture: Path, tmp: Path) -> tuple[Path, Path, Path]:
    """(sources, build directory, `ninja -t deps`) of `fixture` copied under `tmp` and
    built there."""
    src, out = tmp / "src", tmp / "build"
    shutil.copytree(fixture, src)
    build(cmake, src, out)
    return src, out, ninja_deps(out, tmp / "deps.txt")


def codemodel_minor(out: Path) -> int:
    """The codemodel-v2 minor version of the reply in the build directory `out`."""
    index = max((out / ".cmake" / "api" / "v1" / "reply").glob("index-*.json"))
    objects = json.loads(index.read_text())["objects"]
    return int(next(o["version"]["minor"] for o in objects if o["kind"] == "codemodel"))


def cut_breaks(
    cmake: str, fixture: Path, tmp: Path, cmakelists: str, line: str, error: str
) -> None:
    """The truth: `fixture` with `line` removed from `cmakelists` does not build, failing
    with `error` (a regular expression)."""
    src = tmp / "src"
    shutil.copytree(fixture, src)
    path = src / cmakelists
    text = path.read_text()
    assert line + "\n" in text, line
    path.write_text(text.replace(line + "\n", ""))
    with pytest.raises(AssertionError, match=error):
        build(cmake, src, tmp / "build")
