"""SLIM002 on a CMake project whose sources live outside its CMake source directory.

zstd keeps its CMake build in `build/cmake` and its sources in `lib/`, `programs/`,
`tests/`: the file API lists them by absolute path. The static #include scan (no
--compile) followed those absolute paths into headers whose parent directories never
end (`dirname("/") == "/"`), so `slim report` looped, taking all memory (12 GB in 8
minutes on zstd's `datagen`). `tests/data/src/native_outside` has the same layout;
the report runs in a child with a memory and time limit, and the truth is checked on
the build itself.

With `ninja -t deps` as compile evidence, a header outside every root slim knew (no
--workspace, or the CMake directory as the workspace) was taken for a system header, so
`inside` (a source in the CMake directory reading `lib/core.h` of `core`, outside it)
got a removable verdict whose cut does not compile. Such a header is the project's when
a CMake target names its directory (sources, include directories): it stays absolute,
as the graph names it.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import cmake_tools as _cmake

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_outside"
MEMORY_LIMIT = 2 << 30
TIMEOUT = 120


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def _build(src: Path, build: Path) -> None:
    query = build / ".cmake" / "api" / "v1" / "query"
    query.mkdir(parents=True, exist_ok=True)
    (query / "codemodel-v2").touch()
    exe = _cmake.system() or _cmake.pypi()
    r = _run([exe, "-S", str(src / "build" / "cmake"), "-B", str(build), "-G", "Ninja"], src)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _run(["ninja", "-C", str(build)], src)
    assert r.returncode == 0, r.stdout + r.stderr


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    for tool in ("ninja", "gcc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (bash .ci/install-system-tools.sh)")
    root = tmp_path_factory.mktemp("native_outside")
    src = root / "src"
    shutil.copytree(SRC, src)
    _build(src, root / "build")
    return src, root / "build"


def _scan_report(src: Path, build: Path) -> dict[tuple[str, str], dict[str, object]]:
    """`slim report` of both apps with the static #include scan as compile evidence."""
    cmd = [sys.executable, "-m", "slim", "report", "//app:gen", "//app:hdr", "--no-cache"]
    cmd += ["--graph", str(build / ".cmake" / "api" / "v1" / "reply")]
    cmd += ["--workspace", str(src), "--select", "SLIM002", "--format", "json", "--exit-zero"]
    for app in ("gen", "hdr"):
        cmd += ["--linkmap", str(build / f"{app}.map"), "--binary", str(build / "app" / app)]
    cmd += ["--binary", str(build / "lib" / "libcore.a")]
    try:
        r = subprocess.run(
            cmd, capture_output=True, text=True, timeout=TIMEOUT, preexec_fn=_limit, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"slim report did not finish in {TIMEOUT} s")
    assert r.returncode == 0, r.stderr[-2000:]
    found = json.loads(r.stdout)["findings"]
    return {(str(f["target"]), str(f["dep"])): f for f in found}


def test_static_scan_of_absolute_sources_finishes_and_finds_the_header_use(
    project: tuple[Path, Path],
) -> None:
    src, build = project
    found = _scan_report(src, build)
    hdr = found[("//app:hdr", "//lib:core")]
    assert hdr["verdict"] == "header-only-use", hdr
    assert not hdr["removable"]
    assert "lib/core.h" in str(hdr["message"])
    gen = found[("//app:gen", "//lib:core")]
    assert gen["verdict"] == "unreferenced", gen
    assert gen["removable"], gen


def _deps_report(src: Path, build: Path, workspace: Path | None) -> dict[str, dict[str, object]]:
    """`slim report //app:inside` with `ninja -t deps` as compile evidence: finding by dep."""
    deps = build / "deps.txt"
    deps.write_text(_run(["ninja", "-C", str(build), "-t", "deps"], src).stdout)
    cmd = [sys.executable, "-m", "slim", "report", "//app:inside", "--no-cache"]
    cmd += ["--graph", str(build / ".cmake" / "api" / "v1" / "reply"), "--compile", str(deps)]
    cmd += ["--linkmap", str(build / "inside.map"), "--binary", str(build / "app" / "inside")]
    cmd += ["--binary", str(build / "lib" / "libcore.a"), "--select", "SLIM002"]
    cmd += ["--format", "json", "--exit-zero"]
    if workspace is not None:
        cmd += ["--workspace", str(workspace)]
    r = _run(cmd, src)
    assert r.returncode == 0, r.stderr[-2000:]
    return {str(f["dep"]): f for f in json.loads(r.stdout)["findings"]}


@pytest.mark.parametrize("workspace", [None, "build/cmake", "."])
def test_a_header_outside_every_root_is_a_use_when_a_target_names_its_directory(
    project: tuple[Path, Path], workspace: str | None
) -> None:
    src, build = project
    found = _deps_report(src, build, None if workspace is None else src / workspace)
    core = found["//lib:core"]
    assert core["verdict"] == "header-only-use", core
    assert not core["removable"]
    assert f"app/inside.c includes {src / 'lib' / 'core.h'} (ninja -t deps)" in str(core["message"])


def test_truth_inside_does_not_compile_without_core(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    src, _ = project
    copy = tmp_path / "src"
    shutil.copytree(src, copy)
    apps = copy / "build" / "cmake" / "app" / "CMakeLists.txt"
    apps.write_text(apps.read_text().replace("target_link_libraries(inside core)\n", ""))
    with pytest.raises(AssertionError, match=r"core\.h"):
        _build(copy, tmp_path / "build")


def test_truth_gen_builds_without_core_and_hdr_does_not(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    src, _ = project
    copy = tmp_path / "src"
    shutil.copytree(src, copy)
    apps = copy / "build" / "cmake" / "app" / "CMakeLists.txt"
    text = apps.read_text()
    apps.write_text(text.replace("target_link_libraries(gen core)\n", ""))
    _build(copy, tmp_path / "build-gen")
    apps.write_text(text.replace("target_link_libraries(hdr core)\n", ""))
    with pytest.raises(AssertionError, match=r"core\.h"):
        _build(copy, tmp_path / "build-hdr")
