"""Reproductions of wrong SLIM002 verdicts found by validating slim on real C++ projects.

ggml (ML inference library: 15 executables, 6 static libraries) and leveldb (googletest,
gmock, google benchmark) were built with CMake + Ninja + gcc, linked with bfd, gold, lld
and mold, and every declared link edge was removed in a scratch copy and rebuilt
(/work/brief/validation-native.md has the numbers). Each wrong verdict is reproduced here
on `tests/data/src/native_repro`, a small project built the same way; every test also
checks the truth on the build itself (the edge is cut and the project rebuilt), so the
expectation is the build's, not slim's. Each reproduction names the issue section and
the rule it guards; the ones whose file API differs between codemodel 2.4 (the system
CMake 3.25) and 2.9+ (CMake from PyPI, a test dependency) run with both.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from slim.app.session import Request, Session
from slim.infra.config import Config
from slim.model.findings import Finding
from slim.model.report import Report
from tests import cmake_tools as _cmake

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_repro"
APPS = ("app1", "app2", "app3", "app4", "app5", "app6", "app7", "tool1", "tool2")
ARCHIVES = (
    "half/libhalf.a",
    "unused/libunused.a",
    "helper/libhelper.a",
    "ctor/libctor.a",
    "bundled/libbundled.a",
    "hooks/libhooks.a",
    "api/libapi.a",
    "used/libused.a",
    "toolsupport/libtoolsupport.a",
    "dual/libdual_a.a",
    "dual/libdual_b.a",
    "dual/libdual_p.a",
)


@dataclass
class Build:
    root: Path
    src: Path
    build: Path
    deps: Path
    ninja_graph: Path
    renamed_reply: Path

    @property
    def reply(self) -> Path:
        return self.build / ".cmake" / "api" / "v1" / "reply"

    def map(self, app: str, linker: str = "bfd") -> Path:
        return self.build / (f"{app}.map" if linker == "bfd" else f"{app}.{linker}.map")

    def gc(self, app: str, linker: str = "bfd") -> Path:
        return self.build / (f"{app}.gc.txt" if linker == "bfd" else f"{app}.{linker}.gc.txt")

    def binary(self, app: str, linker: str = "bfd") -> Path:
        return self.build / ("apps/" + app if linker == "bfd" else f"{app}.{linker}")


def _run(cmd: list[str] | str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, check=False, shell=isinstance(cmd, str)
    )


def _configure(src: Path, build: Path, cmake: str | None = None) -> None:
    query = build / ".cmake" / "api" / "v1" / "query"
    query.mkdir(parents=True, exist_ok=True)
    (query / "codemodel-v2").touch()
    flags = "-ffunction-sections -fdata-sections"
    exe = cmake or _cmake.system() or _cmake.pypi()
    r = _run(
        [exe, "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCMAKE_CXX_FLAGS={flags}"],
        src,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def _link_command(build: Path, app: str) -> str:
    r = _run(["ninja", "-C", str(build), "-t", "commands", f"apps/{app}"], build)
    assert r.returncode == 0, r.stderr
    cmd = r.stdout.strip().splitlines()[-1]
    return cmd.removeprefix(": && ").removesuffix(" && :")


def _relink(build: Path, app: str, linker: str) -> None:
    """Link `app` again with --print-gc-sections (bfd/gold print it on stderr, lld on
    stdout), for bfd in place, for gold and lld next to it as `<app>.<linker>`."""
    cmd = _link_command(build, app)
    gc = build / (f"{app}.gc.txt" if linker == "bfd" else f"{app}.{linker}.gc.txt")
    if linker != "bfd":
        cmd = cmd.replace(f"-Wl,-Map={app}.map", f"-fuse-ld={linker} -Wl,-Map={app}.{linker}.map")
        cmd = cmd.replace(f"-o apps/{app} ", f"-o {app}.{linker} ")
    redirect = ">" if linker == "lld" else "2>"
    r = _run(f"{cmd} -Wl,--print-gc-sections {redirect} {shlex.quote(str(gc))}", build)
    assert r.returncode == 0, (cmd, r.stdout, r.stderr, gc.read_text())


def _need_tools() -> None:
    for tool in ("ninja", "g++", "ld.gold", "ld.lld"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (bash .ci/install-system-tools.sh)")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The project built with the system CMake (codemodel 2.4 on Debian 12)."""
    _need_tools()
    if _cmake.system() is None:
        pytest.skip("cmake is not installed (bash .ci/install-system-tools.sh)")
    return _build(tmp_path_factory.mktemp("native_repro"), _cmake.system())


@pytest.fixture(scope="module")
def modern(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The project built with CMake from PyPI (>= 4.2: codemodel 2.9+)."""
    _need_tools()
    assert _cmake.version(_cmake.pypi()) >= (4, 2), _cmake.version(_cmake.pypi())
    return _build(tmp_path_factory.mktemp("native_repro_modern"), _cmake.pypi())


@pytest.fixture(params=["system", "pypi"])
def any_project(request: pytest.FixtureRequest) -> Build:
    """The project as each CMake builds it (the file API differs: codemodel 2.4, 2.9+)."""
    return request.getfixturevalue("project" if request.param == "system" else "modern")


def _build(root: Path, cmake: str | None) -> Build:
    src = root / "src"
    shutil.copytree(SRC, src)
    build = root / "build"
    _configure(src, build, cmake)
    r = _run(["ninja", "-C", str(build)], root)
    assert r.returncode == 0, r.stdout + r.stderr
    for app in APPS:
        _relink(build, app, "bfd")
    for linker in ("gold", "lld"):
        _relink(build, "app2", linker)
    shutil.copy(build / "apps" / "app3", build / "017.app3")
    deps = root / "deps.txt"
    r = _run(["ninja", "-C", str(build), "-t", "deps"], root)
    assert r.returncode == 0, r.stderr
    deps.write_text(r.stdout)
    ninja_graph = root / "ninja-graph.dot"
    r = _run(["ninja", "-C", str(build), "-t", "graph"], root)
    assert r.returncode == 0, r.stderr
    ninja_graph.write_text(r.stdout)
    # The same project configured with `used` renamed `used_r`: a graph whose names do
    # not line up with the maps of the first build.
    renamed = root / "renamed"
    shutil.copytree(SRC, renamed)
    for f in (renamed / "used" / "CMakeLists.txt", renamed / "apps" / "CMakeLists.txt"):
        f.write_text(re.sub(r"\bused\b(?!\.cpp)", "used_r", f.read_text()))
    _configure(renamed, root / "renamed-build", cmake)
    renamed_reply = root / "renamed-build" / ".cmake" / "api" / "v1" / "reply"
    return Build(root, src, build, deps, ninja_graph, renamed_reply)


def _report(
    b: Build,
    roots: tuple[str, ...],
    *,
    linker: str = "bfd",
    graphs: tuple[Path, ...] | None = None,
    binaries: tuple[Path, ...] | None = None,
    archives: bool = True,
) -> Report:
    apps = [r.rsplit(":", 1)[1] for r in roots]
    maps = tuple(p for a in apps for p in (b.map(a, linker), b.gc(a, linker)))
    bins = binaries if binaries is not None else tuple(b.binary(a, linker) for a in apps)
    if archives:
        bins += tuple(b.build / a for a in ARCHIVES)
    req = Request(
        graphs=graphs or (b.reply,),
        use_cache=False,
        evidence={"linkmap": maps, "binary": bins, "compile": (b.deps,)},
        workspace=b.src,
        select=("SLIM002",),
    )
    s = Session(req, config=Config())
    return s.report(s.select_roots(list(roots)))


def _findings(report: Report) -> dict[tuple[str, str, str], Finding]:
    return {(f.root, f.target, f.dep): f for f in report.findings if f.dep}


def _cut_and_build(b: Build, tmp: Path, cmakelists: str, call: str, name: str) -> tuple[bool, str]:
    """Remove `name` from the `target_link_libraries(<call> ...)` line of `cmakelists` in
    a scratch copy of the project; configure and build it. (builds?, build log)."""
    src = tmp / "cut-src"
    shutil.copytree(b.src, src)
    f = src / cmakelists
    pattern = re.compile(
        rf"^(target_link_libraries\({re.escape(call)} [^)]*?)\s+{re.escape(name)}\b", re.M
    )
    text = f.read_text()
    assert pattern.search(text), (f, call, name)
    f.write_text(pattern.sub(r"\1", text, count=1))
    build = tmp / "cut-build"
    _configure(src, build)
    r = _run(["ninja", "-C", str(build)], tmp)
    return r.returncode == 0, r.stdout + r.stderr


def _output(exe: Path) -> str:
    r = _run([str(exe)], exe.parent)
    return f"rc={r.returncode}\n{r.stdout}{r.stderr}"


# -- issue 12 section 4: evidence belongs to its binary ----------------------------------
def test_repro_all_roots_run_gives_each_root_its_own_findings(any_project: Build) -> None:
    project = any_project
    roots = ("//apps:app1", "//apps:app2")
    together = _findings(_report(project, roots))
    for root in roots:
        alone = _findings(_report(project, (root,)))
        mine = {k: (f.verdict, f.removable) for k, f in together.items() if k[0] == root}
        assert mine == {k: (f.verdict, f.removable) for k, f in alone.items()}, root
    half = together[("//apps:app2", "//apps:app2", "//half:half")]
    cited = {e.source for e in half.evidence if e.source.endswith((".map", ".txt"))}
    assert cited <= {str(project.map("app2")), str(project.gc("app2"))}, cited


def test_truth_app2_does_not_need_half(project: Build, tmp_path: Path) -> None:
    ok, log = _cut_and_build(project, tmp_path, "apps/CMakeLists.txt", "app2", "half")
    assert ok, log
    assert _output(tmp_path / "cut-build" / "apps" / "app2") == _output(project.binary("app2"))


# -- issue 12 section 3: the graph keeps every declared edge -----------------------------
def test_repro_declared_edge_is_kept_and_saving_counts_only_unreachable(any_project: Build) -> None:
    project = any_project
    fs = _findings(_report(project, ("//apps:app1",)))
    lib = fs.get(("//apps:app1", "//helper:helper", "//unused:unused"))
    if lib is not None and lib.removable:
        assert lib.saving is not None
        assert "//unused:unused" not in lib.saving.removed, lib.saving
        assert lib.saving.compile_seconds == 0.0, lib.saving
    assert ("//apps:app1", "//apps:app1", "//unused:unused") in fs


def test_truth_unused_stays_in_app1_build_without_helpers_edge(
    project: Build, tmp_path: Path
) -> None:
    ok, log = _cut_and_build(project, tmp_path, "helper/CMakeLists.txt", "helper", "unused")
    assert ok, log
    assert "unused/libunused.a" in _link_command(tmp_path / "cut-build", "app1")


# -- issue 12 section 7: fixes where the dep is really declared --------------------------
def test_repro_interface_bundle_fix_points_at_a_line_naming_what_it_removes(
    any_project: Build,
) -> None:
    project = any_project
    report = _report(project, ("//apps:app2",))
    fixes = [f.fix for f in report.findings if f.fix is not None and f.fix.location is not None]
    assert fixes
    for fix in fixes:
        assert fix.location is not None
        lines = (project.src / fix.location.path).read_text().splitlines()
        line = lines[(fix.location.line or 1) - 1]
        removed = fix.command.rsplit(" remove ", 1)[-1]
        assert re.search(rf"\b{re.escape(removed)}\b", line), (fix.command, line)


# -- issue 12 section 6: objects linked directly and collected ---------------------------
@pytest.mark.parametrize("linker", ["bfd", "gold", "lld"])
def test_repro_object_library_collected_by_gc_is_unreferenced(project: Build, linker: str) -> None:
    report = _report(project, ("//apps:app2",), linker=linker)
    f = _findings(report).get(("//apps:app2", "//apps:app2", "//objlib:objlib"))
    assert f is not None
    assert f.verdict == "unreferenced", f.message


def test_truth_app2_does_not_need_objlib(project: Build, tmp_path: Path) -> None:
    ok, log = _cut_and_build(project, tmp_path, "apps/CMakeLists.txt", "app2", "objlib")
    assert ok, log
    assert _output(tmp_path / "cut-build" / "apps" / "app2") == _output(project.binary("app2"))


# -- issue 12 section 5: initializers of an archive nothing was extracted from ----------
def test_repro_initializers_of_an_unextracted_archive_do_not_block(project: Build) -> None:
    f = _findings(_report(project, ("//apps:app2",)))[("//apps:app2", "//apps:app2", "//ctor:ctor")]
    assert f.verdict == "unreferenced", f.message
    assert f.removable, f.message


def test_truth_ctor_initializer_never_runs_in_app2(project: Build, tmp_path: Path) -> None:
    out = _output(project.binary("app2"))
    assert "ctor library initialised" not in out
    ok, log = _cut_and_build(project, tmp_path, "apps/CMakeLists.txt", "app2", "ctor")
    assert ok, log
    assert _output(tmp_path / "cut-build" / "apps" / "app2") == out


# -- issue 14, first bullet: a binary that cannot be tied to its root --------------------
def test_repro_renamed_binary_never_makes_a_verdict_less_safe(project: Build) -> None:
    key = ("//apps:app3", "//apps:app3", "//hooks:hooks")
    right = _report(project, ("//apps:app3",), archives=False)
    renamed = _report(
        project, ("//apps:app3",), binaries=(project.build / "017.app3",), archives=False
    )
    assert _findings(right)[key].removable is False
    assert _findings(renamed)[key].removable is False, _findings(renamed)[key].message
    assert any("017.app3" in n for n in renamed.notes), renamed.notes


def test_binary_copy_is_tied_by_build_id_and_a_stranger_is_reported(project: Build) -> None:
    """A copy next to the original is tied by its build-id; a binary of another link
    (app1's, given with app3's map) fits no map: reported, never app3's."""
    key = ("//apps:app3", "//apps:app3", "//hooks:hooks")
    both = _report(
        project,
        ("//apps:app3",),
        binaries=(project.binary("app3"), project.build / "017.app3"),
        archives=False,
    )
    assert any("017.app3" in n and "build-id" in n for n in both.notes), both.notes
    assert _findings(both)[key].removable is False
    stranger = _report(project, ("//apps:app3",), binaries=(project.binary("app1"),))
    assert any("apps/app1 not tied to any link" in n for n in stranger.notes), stranger.notes


# -- compile flags an edge hands over: only some exports show them ----------------------
@pytest.mark.parametrize("graph", ["ninja", "both"])
def test_repro_ninja_graph_alone_never_proves_a_cut(any_project: Build, graph: str) -> None:
    """A ninja graph has no usage requirements: the edge may hand the compile definitions
    (meson's `declare_dependency(compile_args:)`) that no map or depfile shows. With the
    CMake reply beside it, the CMake consumer's flags are traced and the cut stands."""
    project = any_project
    graphs = (project.ninja_graph,) if graph == "ninja" else (project.reply, project.ninja_graph)
    found = _findings(_report(project, ("//apps:app2",), graphs=graphs))
    half = {k[2]: f for k, f in found.items() if k[1] == "//apps:app2" and "half" in k[2]}
    assert len(half) == 1, sorted(found)
    (f,) = half.values()
    if graph == "ninja":
        assert not f.removable, f.message
        assert "hands //apps:app2's compile" in f.kept_because, f.kept_because
        assert "(ninja-graph)" in f.kept_because, f.kept_because
        missing = getattr(f.details, "missing_evidence", ())
        assert any("compile flags" in m for m in missing), f.details
    else:
        assert f.removable, f.message


# -- headers owned through an include directory (ggml's include/ layout) -----------------
@pytest.mark.parametrize("graph", ["cmake", "ninja", "both"])
def test_repro_header_under_a_shared_include_dir_is_a_use(any_project: Build, graph: str) -> None:
    project = any_project
    graphs = {
        "cmake": (project.reply,),
        "ninja": (project.ninja_graph,),
        "both": (project.reply, project.ninja_graph),
    }[graph]
    report = _report(project, ("//apps:app4",), graphs=graphs)
    f = _findings(report)[("//apps:app4", "//apps:app4", "//api:api")]
    assert not f.removable, f.message
    assert f.verdict == "header-only-use", f.message


def test_truth_app4_needs_api_to_compile(project: Build, tmp_path: Path) -> None:
    ok, log = _cut_and_build(project, tmp_path, "apps/CMakeLists.txt", "app4", "api")
    assert not ok
    assert "repro_api/api.h: No such file or directory" in log


# -- a header reached through another direct dep (ggml's examples/common.h) -------------
def test_header_another_direct_dep_passes_on_is_no_use_of_the_cut_dep(any_project: Build) -> None:
    """app6 reads dual/dual.h, which dual_a (PUBLIC include directory) still gives it once
    app6 -> dual_b is cut: removable. app7 gets dual/ only from dual_b (dual_p keeps it
    PRIVATE): needed to compile."""
    project = any_project
    fs = _findings(_report(project, ("//apps:app6", "//apps:app7")))
    f = fs[("//apps:app6", "//apps:app6", "//dual:dual_b")]
    assert f.verdict == "unreferenced", f.message
    assert f.removable, f.message
    g = fs[("//apps:app7", "//apps:app7", "//dual:dual_b")]
    assert g.verdict == "header-only-use", g.message
    assert not g.removable, g.message
    assert "dual/dual.h" in g.message, g.message


def test_truth_app6_compiles_without_dual_b_and_app7_does_not(
    project: Build, tmp_path: Path
) -> None:
    ok, log = _cut_and_build(project, tmp_path / "6", "apps/CMakeLists.txt", "app6", "dual_b")
    assert ok, log
    assert _output(tmp_path / "6" / "cut-build" / "apps" / "app6") == _output(
        project.binary("app6")
    )
    ok, log = _cut_and_build(project, tmp_path / "7", "apps/CMakeLists.txt", "app7", "dual_b")
    assert not ok
    assert "dual.h: No such file or directory" in log


# -- issue 12 section 5: ownership unknown is never dead ---------------------------------
def test_repro_map_inputs_of_unknown_ownership_are_never_dead(project: Build) -> None:
    report = _report(project, ("//apps:app5",), graphs=(project.renamed_reply,))
    f = _findings(report)[("//apps:app5", "//apps:app5", "//used:used_r")]
    assert not f.removable, f.message
    assert "ownership unknown" in f.message, f.message
    assert "used/libused.a" in f.message, f.message


def test_truth_app5_needs_used_to_link(project: Build, tmp_path: Path) -> None:
    ok, log = _cut_and_build(project, tmp_path, "apps/CMakeLists.txt", "app5", "used")
    assert not ok
    assert "undefined reference to `used_fn(int)'" in log


# -- a declaring line shared by several targets (a CMake function) ----------------------
def _build_copy(src: Path, tmp: Path) -> subprocess.CompletedProcess[str]:
    build = tmp / "copy-build"
    _configure(src, build)
    return _run(["ninja", "-C", str(build)], tmp)


def test_repro_fix_on_a_line_shared_by_several_targets_keeps_the_others(
    project: Build, tmp_path: Path
) -> None:
    src = tmp_path / "apply-src"
    shutil.copytree(project.src, src)
    evidence = {
        "--graph": project.reply,
        "--compile": project.deps,
        "--linkmap": project.map("tool1"),
        "--binary": project.binary("tool1"),
        "--workspace": src,
    }
    args = [x for k, v in evidence.items() for x in (k, str(v))]
    args += ["--linkmap", str(project.gc("tool1"))]
    args += ["--binary", str(project.build / "toolsupport" / "libtoolsupport.a")]
    cmd = [sys.executable, "-m", "slim", "apply", "//apps:tool1", "--write", "--no-cache"]
    r = _run([*cmd, *args], tmp_path)
    assert r.returncode in (0, 2), r.stdout + r.stderr
    built = _build_copy(src, tmp_path)
    assert built.returncode == 0, r.stdout + built.stdout[-3000:]


def test_truth_tool1_alone_does_not_need_toolsupport(project: Build, tmp_path: Path) -> None:
    src = tmp_path / "cut-src"
    shutil.copytree(project.src, src)
    f = src / "apps" / "CMakeLists.txt"
    line = "  target_link_libraries(${name} PRIVATE toolsupport)\n"
    assert line in f.read_text()
    cond = (
        '  if(NOT name STREQUAL "tool1")\n  target_link_libraries(${name} PRIVATE toolsupport)'
        "\n  endif()\n"
    )
    f.write_text(f.read_text().replace(line, cond))
    assert _build_copy(src, tmp_path).returncode == 0
    link = _link_command(tmp_path / "copy-build", "tool1")
    assert "libtoolsupport.a" not in link
    assert "libtoolsupport.a" in _link_command(tmp_path / "copy-build", "tool2")


# -- codemodel 2.9+ (CMake >= 4.2): visibility of a static library's edges ---------------


def test_repro_private_edge_of_a_static_library_stays_private(modern: Build) -> None:
    """Codemodel 2.9+ lists a static library's PRIVATE deps in interfaceLinkLibraries too
    (`$<LINK_ONLY:...>`): `helper PRIVATE unused` is PRIVATE, as the line says."""
    f = _findings(_report(modern, ("//apps:app1",)))[
        ("//apps:app1", "//helper:helper", "//unused:unused")
    ]
    assert "PUBLIC" not in f.message, f.message
