"""SLIM002 on an edge whose dep gives the link nothing itself but brings a library the
link uses.

Found on googletest (built with its tests, every test relinked with a bfd map): tests
with their own main() link `gtest_main`, whose only member (main) is never extracted,
and get `gtest`, which they use, only through it (`PUBLIC`). The edge was removable of
high confidence; the cut does not link (`undefined reference to testing::Message::
Message()`). A cut takes the dep's closure with it: when a library the link uses leaves
the root's closure, the edge is `used-transitively`, kept. `tests/data/src/native_transitive`
has the same shape; the truth is checked on the build, with both CMakes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import cmake_tools as _cmake

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_transitive"


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


@pytest.fixture(params=list(dict.fromkeys(c for c in (_cmake.system(), _cmake.pypi()) if c)))
def cmake(request: pytest.FixtureRequest) -> str:
    for tool in ("ninja", "gcc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (bash .ci/install-system-tools.sh)")
    return str(request.param)


def test_a_cut_that_drops_a_used_library_is_kept(cmake: str, tmp_path: Path) -> None:
    src, build = tmp_path / "src", tmp_path / "build"
    shutil.copytree(SRC, src)
    _build(cmake, src, build)
    deps = tmp_path / "deps.txt"
    deps.write_text(_run(["ninja", "-C", str(build), "-t", "deps"], src).stdout)
    cmd = [sys.executable, "-m", "slim", "report", "//:app", "--no-cache"]
    cmd += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    cmd += ["--linkmap", str(build / "app.map"), "--binary", str(build / "app")]
    cmd += ["--binary", str(build / "libmainlib.a"), "--binary", str(build / "libcore.a")]
    cmd += ["--select", "SLIM002", "--format", "json"]
    r = _run(cmd, src)
    assert r.returncode == 0, r.stderr[-2000:]
    (found,) = json.loads(r.stdout)["findings"]
    assert (found["dep"], found["verdict"], found["removable"], found["confidence"]) == (
        "//:mainlib",
        "used-transitively",
        False,
        "high",
    ), found
    assert (
        "also takes //:core out of //:app's closure, and the link uses it (" in (found["message"])
    )
    assert any("libcore.a(core.c.o)" in e["detail"] for e in found["evidence"])


def test_a_library_edge_is_kept_when_another_binary_uses_what_it_brings(
    cmake: str, tmp_path: Path
) -> None:
    """`glue -> mainlib` (PRIVATE): app1's link uses neither; app2's uses `core`, which it
    gets only through that edge. Judged for app1 with app2's map given, the edge is not
    removable: app2 still needs it."""
    src, build = tmp_path / "src", tmp_path / "build"
    shutil.copytree(SRC, src)
    _build(cmake, src, build)
    deps = tmp_path / "deps.txt"
    deps.write_text(_run(["ninja", "-C", str(build), "-t", "deps"], src).stdout)
    cmd = [sys.executable, "-m", "slim", "report", "//:app1", "//:app2", "--no-cache"]
    cmd += ["--graph", str(build), "--compile", str(deps), "--workspace", str(src)]
    for app in ("app1", "app2"):
        cmd += ["--linkmap", str(build / f"{app}.map"), "--binary", str(build / app)]
    for lib in ("mainlib", "core", "glue"):
        cmd += ["--binary", str(build / f"lib{lib}.a")]
    cmd += ["--select", "SLIM002", "--format", "json"]
    r = _run(cmd, src)
    assert r.returncode == 0, r.stderr[-2000:]
    found = {(f["root"], f["target"], f["dep"]): f for f in json.loads(r.stdout)["findings"]}
    edge = found[("//:app1", "//:glue", "//:mainlib")]
    assert (edge["verdict"], edge["removable"]) == ("unused-by-this-root", False), edge
    assert "still used through it by //:app2" in edge["message"]
    assert not any(f["removable"] for f in found.values()), found


def test_truth_app2_does_not_link_without_glue_to_mainlib(cmake: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    top = src / "CMakeLists.txt"
    top.write_text(top.read_text().replace("target_link_libraries(glue PRIVATE mainlib)\n", ""))
    with pytest.raises(AssertionError, match="undefined reference to `core_fn'"):
        _build(cmake, src, tmp_path / "build")


def test_truth_app_does_not_link_without_mainlib(cmake: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    top = src / "CMakeLists.txt"
    top.write_text(top.read_text().replace("target_link_libraries(app PRIVATE mainlib)\n", ""))
    with pytest.raises(AssertionError, match="undefined reference to `core_fn'"):
        _build(cmake, src, tmp_path / "build")
