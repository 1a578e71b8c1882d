"""The CMake binaries tests build with: the system one (CMake 3.25 on Debian
12: file API codemodel 2.4) and the one from PyPI (a test dependency, `cmake>=4.2`:
codemodel 2.9+, which reports interface targets and `linkLibraries`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path


@cache
def pypi() -> str:
    from cmake import CMAKE_BIN_DIR

    return str(Path(CMAKE_BIN_DIR) / "cmake")


@cache
def system() -> str | None:
    """The first `cmake` on PATH that is a binary, not a script: the PyPI package's
    wrapper (in a venv's bin) and version managers' shims (pyenv's) are scripts that
    run the PyPI one."""
    venv_bin = Path(sys.prefix, "bin").resolve()
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if d and Path(d).resolve() == venv_bin:
            continue
        hit = shutil.which("cmake", path=d)
        if hit is not None and not _is_script(hit):
            return hit
    return None


def _is_script(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"#!"


@cache
def version(exe: str) -> tuple[int, ...]:
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
    m = re.search(r"version (\d+)\.(\d+)", out.stdout)
    return tuple(int(x) for x in m.groups()) if m else ()


def available() -> dict[str, str]:
    """`system` (when installed) and `pypi` CMake, by name."""
    out = {"pypi": pypi()}
    sys_cmake = system()
    if sys_cmake is not None:
        out["system"] = sys_cmake
    return out
