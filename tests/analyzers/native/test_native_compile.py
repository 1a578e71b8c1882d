"""SLIM002 on a real CMake + Ninja + gcc build: compile-time use and every consumer.

`tests/data/src/native_compile` is built here (cmake -G Ninja, gcc, ld.bfd maps with
--cref and --gc-sections): two executables share `shared`; app1 uses `hdronly` only
through an inline function of its header, app2 includes `inclunused`'s header and uses
nothing of it, `dead` and `shared -> deadpriv` are truly unused, and `shared -> extra` is
used by app1 only. The truth is found by brute force: each edge slim reports is removed
from its CMakeLists.txt and the whole build rerun.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from slim.app.session import Request, Session
from slim.infra.config import Config
from slim.model.findings import Confidence, Finding
from tests import cmake_tools as _cmake

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "native_compile"
ROOTS = ("//apps:app1", "//apps:app2")


@dataclass
class Build:
    src: Path
    build: Path
    make_build: Path
    deps: Path

    def map(self, app: str) -> Path:
        return self.build / f"{app}.map"


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def _configure(src: Path, build: Path, generator: str) -> None:
    query = build / ".cmake" / "api" / "v1" / "query"
    query.mkdir(parents=True, exist_ok=True)
    (query / "codemodel-v2").touch()
    flags = "-ffunction-sections -fdata-sections"
    cmake = _cmake.system() or _cmake.pypi()
    r = _run(
        [cmake, "-S", str(src), "-B", str(build), "-G", generator, f"-DCMAKE_CXX_FLAGS={flags}"],
        src,
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Build:
    for tool in ("cmake", "ninja", "g++", "make"):
        assert shutil.which(tool), f"{tool} is needed (bash .ci/install-system-tools.sh)"
    root = tmp_path_factory.mktemp("native_compile")
    src = root / "src"
    shutil.copytree(SRC, src)
    build = root / "build"
    _configure(src, build, "Ninja")
    r = _run(["ninja", "-C", str(build)], root)
    assert r.returncode == 0, r.stdout + r.stderr
    deps = root / "deps.txt"
    r = _run(["ninja", "-C", str(build), "-t", "deps"], root)
    assert r.returncode == 0, r.stderr
    deps.write_text(r.stdout)
    # The Makefile generator keeps gcc's depfiles (-MD) next to the objects.
    make_build = root / "build-make"
    _configure(src, make_build, "Unix Makefiles")
    r = _run(["make", "-C", str(make_build), "-j2"], root)
    assert r.returncode == 0, r.stdout + r.stderr
    return Build(src, build, make_build, deps)


def findings(
    b: Build,
    roots: tuple[str, ...] = ROOTS,
    maps: tuple[str, ...] = ("app1", "app2"),
    compile: tuple[Path, ...] | None = None,
    workspace: Path | None = None,
) -> dict[tuple[str, str, str], Finding]:
    evidence = {"linkmap": tuple(b.map(m) for m in maps)}
    evidence["compile"] = (b.deps,) if compile is None else compile
    req = Request(
        graphs=(b.build,),
        use_cache=False,
        evidence=evidence,
        workspace=workspace,
        select=("SLIM002",),
    )
    s = Session(req, config=Config())
    ids = s.select_roots(list(roots))
    out = {}
    for f in s.analysis(ids).findings:
        if f.code == "SLIM002" and f.dep:
            out[(f.root, f.target, f.dep)] = f
    return out


def test_header_only_use_is_kept_and_names_the_include(project: Build) -> None:
    fs = findings(project)
    hdr = fs[("//apps:app1", "//apps:app1", "//hdronly:hdronly")]
    assert hdr.verdict == "header-only-use"
    assert not hdr.removable
    assert hdr.confidence is Confidence.HIGH
    assert "apps/app1.cpp includes hdronly/include/hdronly/hdr.h" in hdr.message
    assert any(e.source == str(project.deps) and e.line for e in hdr.evidence)
    inc = fs[("//apps:app2", "//apps:app2", "//inclunused:inclunused")]
    assert inc.verdict == "header-only-use"
    assert not inc.removable
    assert "inclunused/include/inclunused/inclunused.h" in inc.message


def test_library_edge_is_removable_only_when_every_consumer_was_checked(
    project: Build,
) -> None:
    both = findings(project)
    for root in ROOTS:
        dp = both[(root, "//shared:shared", "//deadpriv:deadpriv")]
        assert dp.verdict == "unreferenced", dp.message
        assert dp.removable
        assert set(dp.details.consumers_checked) == set(ROOTS)  # type: ignore[union-attr]
    extra = both[("//apps:app2", "//shared:shared", "//extra:extra")]
    assert extra.verdict == "unused-by-this-root"
    assert not extra.removable
    assert extra.details.consumers_using == ("//apps:app1",)  # type: ignore[union-attr]
    # app1 uses extra through shared: nothing about that edge is said for app1.
    assert ("//apps:app1", "//shared:shared", "//extra:extra") not in both

    one = findings(project, roots=("//apps:app2",), maps=("app2",))
    for dep in ("//deadpriv:deadpriv", "//extra:extra"):
        f = one[("//apps:app2", "//shared:shared", dep)]
        assert f.verdict == "unused-by-this-root"
        assert not f.removable
        assert f.details.consumers_not_checked == ("//apps:app1",)  # type: ignore[union-attr]
        assert "not checked for //apps:app1" in f.message
    direct = one[("//apps:app2", "//apps:app2", "//inclunused:inclunused")]
    assert direct.verdict == "header-only-use"


def test_public_edge_of_a_library_is_never_proposed(project: Build) -> None:
    """`target_link_libraries(shared PUBLIC deadpub)` hands deadpub's usage requirements
    (here a compile definition) to every target linking shared: no map shows them."""
    fs = findings(project)
    for root in ROOTS:
        f = fs[(root, "//shared:shared", "//deadpub:deadpub")]
        assert f.verdict == "unreferenced-unsafe"
        assert not f.removable
        assert "is declared PUBLIC at shared/CMakeLists.txt:6" in f.message


def test_without_compile_evidence_nothing_is_removable(project: Build) -> None:
    fs = findings(project, compile=())
    assert fs
    for f in fs.values():
        assert not f.removable, f
        assert f.confidence is not Confidence.HIGH or f.verdict == "unused-by-this-root"
    dead = fs[("//apps:app1", "//apps:app1", "//dead:dead")]
    assert dead.verdict == "unreferenced"
    assert "ninja -C build -t deps" in dead.message
    assert "-MD" in dead.message
    assert any("compile-time evidence" in m for m in dead.details.missing_evidence)  # type: ignore[union-attr]
    assert dead.kept_because.startswith("whether the compile of //apps:app1 includes //dead:dead")
    assert f"Not removable: {dead.kept_because}." in dead.message


def test_depfiles_and_static_scan_give_the_same_verdicts(project: Build) -> None:
    ninja = findings(project)
    depfiles = findings(project, compile=(project.make_build,))
    scan = findings(project, compile=(), workspace=project.src)
    key = {k: (f.verdict, f.removable) for k, f in ninja.items()}
    assert {k: (f.verdict, f.removable) for k, f in depfiles.items()} == key
    assert {k: (f.verdict, f.removable) for k, f in scan.items()} == key
    hdr = depfiles[("//apps:app1", "//apps:app1", "//hdronly:hdronly")]
    assert any(e.source.endswith("app1.cpp.o.d") for e in hdr.evidence)
    scanned = scan[("//apps:app1", "//apps:app1", "//hdronly:hdronly")]
    assert scanned.confidence is Confidence.MEDIUM
    assert any(e.source == "apps/app1.cpp" and e.line == 2 for e in scanned.evidence)


def _cut(cmakelists: Path, target: str, dep: str) -> str:
    text = cmakelists.read_text()
    pattern = re.compile(
        rf"^target_link_libraries\({re.escape(target)} (PUBLIC|PRIVATE) {re.escape(dep)}\)\n",
        re.M,
    )
    assert pattern.search(text), (cmakelists, target, dep)
    cmakelists.write_text(pattern.sub("", text))
    return text


def test_brute_force_every_reported_edge(project: Build, tmp_path: Path) -> None:
    """Remove each reported edge and rebuild: removable cuts build, kept ones do not."""
    fs = findings(project)
    edges = sorted({(f.target, f.dep): f for f in fs.values()}.items())
    verdicts = {
        k: sorted({(f.verdict, f.removable) for f in fs.values() if (f.target, f.dep) == k})
        for k, _ in edges
    }
    src = tmp_path / "src"
    shutil.copytree(project.src, src)
    build = tmp_path / "build"
    _configure(src, build, "Ninja")
    assert _run(["ninja", "-C", str(build)], tmp_path).returncode == 0
    truth = {}
    for (target, dep), f in edges:
        assert f.location is not None
        cmakelists = src / f.location.path
        name = target.rsplit(":", 1)[1]
        old = _cut(cmakelists, name, dep.rsplit(":", 1)[1])
        r = _run(["ninja", "-C", str(build)], tmp_path)
        truth[(target, dep)] = (r.returncode == 0, r.stdout + r.stderr)
        cmakelists.write_text(old)
    for key, (builds, log) in truth.items():
        removable = any(r for _, r in verdicts[key])
        if removable:
            assert builds, f"{key} reported removable but the build breaks:\n{log[-2000:]}"
    # The ground truth of each case, as the build says it.
    assert truth[("//apps:app1", "//dead:dead")][0]
    assert truth[("//shared:shared", "//deadpriv:deadpriv")][0]
    assert truth[("//shared:shared", "//deadpub:deadpub")][0]  # kept on purpose (PUBLIC)
    assert "No such file or directory" in truth[("//apps:app1", "//hdronly:hdronly")][1]
    assert "No such file or directory" in truth[("//apps:app2", "//inclunused:inclunused")][1]
    assert "undefined reference" in truth[("//shared:shared", "//extra:extra")][1]
    assert verdicts[("//apps:app1", "//dead:dead")] == [("unreferenced", True)]
    assert verdicts[("//shared:shared", "//deadpriv:deadpriv")] == [("unreferenced", True)]
