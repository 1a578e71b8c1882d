"""SLIM004 on shared libraries the linker dropped (`-Wl,--as-needed`).

A binary linked with a shared library it takes nothing from has no DT_NEEDED entry for
it: only the map's LOAD line shows it was given. The build edge is dead all the same
(the library is built for nothing). `tests/data/src/native_as_needed`: `app` uses core
only (`app -> extra` is dead), `app4` reaches extra through an INTERFACE wrapper (the
edge to the wrapper is the cut), `app2` calls extra, `app3` links `plugin` and names it
in its data (it may `dlopen` it), `app5` needs `hooks` (DT_NEEDED) for the `dlsym` of
`hook_fn` alone, `app7` needs it for the `dlsym` of `host`, a library it calls (`app8`
needs `plugin` for the `dlopen` of `loader`), `app9` calls `dlopen` with a name it
builds at run time (its `plugin2` is in no data), `app6` needs `probe`'s include directory
for a `__has_include` probe (no depfile lists a probed header). The truth is checked on
the build: both cuts build and run; cutting app3's edge builds, and `app3` then fails to
load the plugin (so do app8's loader and app9); cutting app5's or app7's builds, and
`hook_fn` is no longer found; cutting app6's builds, and `app6` takes the other branch.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ._cmake_project import build, built, codemodel_minor, report, run

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_as_needed"
LIBS = ("libcore.so", "libextra.so", "libplugin.so", "libhooks.so", "libprobe.so")
LIBS += ("libhost.so", "libloader.so", "libplugin2.so")


def _slim004(
    cmake: str, tmp_path: Path, app: str, libs: tuple[str, ...] = LIBS
) -> list[dict[str, object]]:
    src, out, deps = built(cmake, SRC, tmp_path)
    args = [f"//:{app}", "--graph", str(out), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", str(out / f"{app}.map"), "--binary", str(out / app)]
    for lib in libs:
        args += ["--binary", str(out / "lib" / lib)]
    return report(src, *args, "--config", "/dev/null")


def test_the_edge_to_a_library_the_link_dropped_is_removable(cmake: str, tmp_path: Path) -> None:
    (f,) = _slim004(cmake, tmp_path, "app")
    assert (f["code"], f["target"], f["dep"], f["verdict"]) == (
        "SLIM004",
        "//:app",
        "//lib:extra",
        "unused",
    )
    assert f["removable"], f
    assert "the linker dropped it (--as-needed)" in str(f["message"])
    shown = [str(e["detail"]) for e in f["evidence"]]  # type: ignore[union-attr]
    assert "LOAD lib/libextra.so (given to the linker)" in shown
    assert any(d.startswith("no DT_NEEDED libextra.so (the link dropped it") for d in shown)


def test_the_edge_to_a_wrapper_of_it_is_the_cut(cmake: str, tmp_path: Path) -> None:
    found = _slim004(cmake, tmp_path, "app4")
    if codemodel_minor(tmp_path / "build") >= 9:
        (f,) = found
        assert (f["target"], f["dep"], f["removable"]) == ("//:app4", "//lib:extra_iface", True)
        assert "//lib:extra_iface brings it and nothing else" in str(f["message"])
    else:  # no INTERFACE library in the reply: the edge through it looks implicit
        assert found == []


def test_a_library_the_binary_calls_is_no_finding(cmake: str, tmp_path: Path) -> None:
    assert _slim004(cmake, tmp_path, "app2") == []


@pytest.mark.parametrize(
    ("app", "dep", "why"),
    [
        ("app3", "//lib:plugin", "holds the string 'libplugin' in its data: the program may load"),
        ("app5", "//lib:hooks", "calls dlsym and holds the string 'hook_fn', a symbol the"),
        ("app7", "//lib:hooks", "libhost.so calls dlsym and holds the string 'hook_fn', a"),
        ("app8", "//lib:plugin", "libloader.so holds the string 'libplugin' in its data: the"),
        ("app9", "//lib:plugin2", "app9 calls dlopen: the program may load the library by a"),
    ],
)
def test_a_library_the_binary_may_load_or_look_up_by_name_is_kept(
    cmake: str, tmp_path: Path, app: str, dep: str, why: str
) -> None:
    """app3 names the plugin (dlopen), app5 a symbol of hooks (dlsym); app7 and app8 call
    a library of the program that does (host looks the symbol up, loader names the
    plugin), not the binary; app9 calls dlopen with a name no data shows."""
    (f,) = _slim004(cmake, tmp_path, app)
    assert (f["target"], f["dep"], f["verdict"], f["removable"]) == (
        f"//:{app}",
        dep,
        "unused-unsafe",
        False,
    )
    assert why in str(f["kept_because"])


def test_a_library_of_the_build_the_program_loads_must_be_given(cmake: str, tmp_path: Path) -> None:
    """Without libhost.so, what app7's host looks up is not read: libhost.so is built by
    the graph's //lib:host, so the cut is not proven (libc.so.6, not given either, is no
    library of the build and blocks nothing: see app)."""
    libs = tuple(lib for lib in LIBS if lib != "libhost.so")
    (f,) = _slim004(cmake, tmp_path, "app7", libs)
    assert (f["dep"], f["verdict"], f["confidence"], f["removable"]) == (
        "//lib:hooks",
        "unused",
        "medium",
        False,
    )
    assert str(f["kept_because"]).startswith("libhost.so not given (a library of the build")
    details = f["details"]
    assert isinstance(details, dict)
    assert details["missing_evidence"] == ["--binary libhost.so"]


def test_a_library_whose_header_the_binary_only_probes_is_kept(cmake: str, tmp_path: Path) -> None:
    """`__has_include(<probe.h>)` is answered by the edge's include directory; gcc's
    depfile does not list a probed header, so the sources are read for probes."""
    (f,) = _slim004(cmake, tmp_path, "app6")
    assert (f["target"], f["dep"], f["verdict"], f["removable"]) == (
        "//:app6",
        "//lib:probe",
        "header-only-use",
        False,
    )
    assert "app6.c probes (__has_include) lib/probe_inc/probe.h" in str(f["message"])


def _cut(src: Path, line: str, to: str) -> None:
    path = src / "CMakeLists.txt"
    text = path.read_text()
    assert line in text, line
    path.write_text(text.replace(line, to))


def test_truth_both_cuts_build_and_run(cmake: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    _cut(
        src,
        "target_link_libraries(app PRIVATE core extra)",
        "target_link_libraries(app PRIVATE core)",
    )
    _cut(
        src,
        "target_link_libraries(app4 PRIVATE core extra_iface)",
        "target_link_libraries(app4 PRIVATE core)",
    )
    out = tmp_path / "build"
    build(cmake, src, out)
    for app in ("app", "app4"):
        assert run([str(out / app)], out).returncode == 0


@pytest.mark.parametrize(
    ("app", "argv", "broken"),
    [
        ("app3", ["load"], 2),
        ("app5", [], 3),
        ("app6", [], 4),
        ("app7", [], 3),
        ("app8", [], 2),
        ("app9", [], 2),
    ],
)
def test_truth_the_kept_cuts_build_and_break_the_program(
    cmake: str, tmp_path: Path, app: str, argv: list[str], broken: int
) -> None:
    """Built alone (`ninja APP`), as a user building one target does: without its edge,
    app3, app8's loader and app9 fail to load the plugin (exit 2), app5 and app7's host find no
    `hook_fn` (exit 3), app6 takes the other branch (exit 4)."""
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    line = next(x for x in (SRC / "CMakeLists.txt").read_text().splitlines()
                if x.startswith(f"target_link_libraries({app} "))  # fmt: skip
    for cut in (False, True):
        if cut:
            _cut(src, line, line.rsplit(" ", 1)[0] + ")")
        out = tmp_path / f"build-{cut}"
        assert run([cmake, "-S", str(src), "-B", str(out), "-G", "Ninja"], src).returncode == 0
        assert run(["ninja", "-C", str(out), app], src).returncode == 0
        assert run([str(out / app), *argv], out).returncode == (broken if cut else 0)
