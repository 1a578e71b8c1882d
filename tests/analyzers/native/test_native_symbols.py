"""SLIM002/SLIM004 on real links: gcc-built objects and archives, linked by each linker.

Every scenario the issue names as a false-"removable" trap (registration library,
static constructors, weak-symbol provider, transitively used library) is built for real,
linked with ld.bfd, gold, lld and mold (skipped with a reason where absent), and the
parsed map is joined to an in-memory graph whose labels own those archives.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from slim_analyzers.native import SPEC
from slim_analyzers.native._details import SharedLibDetails
from slim_analyzers.native.analyzer import NativeSymbolsAnalyzer

from slim.ingest.binary import elf
from slim.ingest.compile import depfile
from slim.ingest.linkmap import gc_sections, gold_map, ld_map, lld_map, mold_map
from slim.model.compile import CompileDeps, CompiledObject
from slim.model.context import AnalysisContext
from slim.model.facts import Facts
from slim.model.findings import Confidence, Finding
from slim.model.graph import EdgeKind, GraphBuilder
from slim.model.options import RootOptions

OBJ = "bazel-out/k8-fastbuild/bin"
SOURCES = {
    "app/main.c": """
extern int used_entry(int);
extern void weak_hook(void) __attribute__((weak));
int main(int argc, char **argv) {
  (void)argv;
  if (weak_hook) weak_hook();
  return used_entry(argc);
}
""",
    "native/used/used.c": (
        "extern int trans_add(int); int used_entry(int x) { return trans_add(x) + 1; }"
    ),
    "native/trans/trans.c": "int trans_add(int x) { return x + 2; }",
    "native/dead/dead.c": 'int dead_fn(int x) { return x * 7; } const char dead_table[] = "dead";',
    "native/reg/reg.c": (
        "extern int registry_count; int registry_count = 0;"
        "__attribute__((constructor)) static void reg_init(void) { registry_count++; }"
        "int reg_lookup(int x) { return x + registry_count; }"
    ),
    "native/ctor/ctor.c": (
        "static int ready; __attribute__((constructor)) static void ctor_init(void) { ready = 1; }"
        "int ctor_ready(void) { return ready; }"
    ),
    "native/weak/weak.c": (
        "__attribute__((weak)) void weak_hook(void) {} int weak_other(void) { return 3; }"
    ),
}
LIBS = ["used", "trans", "dead", "reg", "ctor", "weak"]
LINKERS = {
    "bfd": ("ld.bfd", ld_map),
    "gold": ("ld.gold", gold_map),
    "lld": ("ld.lld", lld_map),
    "mold": ("mold", mold_map),
}


@dataclass
class Link:
    linker: str
    root: Path
    map: Path
    gc: Path
    binary: Path
    archives: dict[str, Path]


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def build(tmp: Path, linker: str, whole_archive_reg: bool = False) -> Link:
    tool = LINKERS[linker][0]
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed: needed to build the objects")
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed: cannot link with {linker}")
    cflags = ["-O1", "-ffunction-sections", "-fdata-sections", "-fno-asynchronous-unwind-tables"]
    cflags.append("-MD")  # depfiles: what each compile read (SLIM002's compile-time evidence)
    for rel, text in SOURCES.items():
        src = tmp / rel
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(text)
    objdir = tmp / OBJ / "app/_objs/app"
    objdir.mkdir(parents=True, exist_ok=True)
    r = _run(["gcc", *cflags, "-c", "app/main.c", "-o", f"{OBJ}/app/_objs/app/main.o"], tmp)
    assert r.returncode == 0, r.stderr
    archives = {}
    for lib in LIBS:
        obj = f"native/{lib}/{lib}.o"
        r = _run(["gcc", *cflags, "-c", f"native/{lib}/{lib}.c", "-o", obj], tmp)
        assert r.returncode == 0, r.stderr
        ar = f"native/{lib}/lib{lib}.a"
        r = _run(["ar", "rcs", ar, obj], tmp)
        assert r.returncode == 0, r.stderr
        archives[lib] = tmp / ar
    libs = [f"native/{lib}/lib{lib}.a" for lib in LIBS]
    if whole_archive_reg:
        i = LIBS.index("reg")
        libs[i : i + 1] = ["-Wl,--whole-archive", libs[i], "-Wl,--no-whole-archive"]
    flags = "-Wl,-Map=app.map,--gc-sections,--print-gc-sections"
    if linker != "mold":
        flags += ",--cref"
    cmd = [
        "gcc",
        f"-fuse-ld={linker}",
        f"{OBJ}/app/_objs/app/main.o",
        *libs,
        "-o",
        "app.bin",
        flags,
    ]
    r = _run(cmd, tmp)
    if r.returncode != 0 and linker == "lld" and "fuse-ld" in r.stderr:
        pytest.skip(f"gcc cannot drive lld here: {r.stderr.strip()[:200]}")
    assert r.returncode == 0, r.stderr
    gc = tmp / "gc.txt"
    gc.write_text(r.stderr if linker in ("bfd", "gold") else r.stdout)
    return Link(linker, tmp, tmp / "app.map", gc, tmp / "app.bin", archives)


def graph_for() -> tuple[GraphBuilder, int]:
    b = GraphBuilder()
    root = b.add_target("//app:app", "cc_binary", srcs=("//app:main.c",))
    for lib in LIBS:
        attrs: dict[str, str | int | bool | tuple[str, ...]] = {}
        if lib == "reg":
            attrs["alwayslink"] = True
        b.add_target(
            f"//native/{lib}:{lib}", "cc_library", srcs=(f"//native/{lib}:{lib}.c",), attrs=attrs
        )
    for lib in LIBS:
        if lib != "trans":
            b.add_edge(root, b.intern(f"//native/{lib}:{lib}"), EdgeKind.DEPS)
    b.add_edge(b.intern("//native/used:used"), b.intern("//native/trans:trans"), EdgeKind.DEPS)
    b.add_edge(root, b.intern("//native/trans:trans"), EdgeKind.DEPS)
    return b, root


def analyze(
    link: Link,
    with_elf: bool = True,
    with_gc: bool = True,
    with_compile: bool = True,
    with_sources: bool = True,
) -> dict[tuple[str, str], Finding]:
    b, _root = graph_for()
    g = b.build()
    facts = Facts()
    if with_compile:
        facts.extend(depfile.load(link.root / OBJ / "app/_objs/app/main.d"))
    facts.extend(LINKERS[link.linker][1].load(link.map))
    if with_gc and link.gc.read_text().strip():
        facts.extend(gc_sections.load(link.gc))
    if with_elf:
        for a in link.archives.values():
            facts.extend(elf.load(a))
        facts.extend(elf.load(link.binary))
    options = RootOptions(workspace=link.root if with_sources else None)
    ctx = AnalysisContext(graph=g, root=g.lookup("//app:app") or 0, facts=facts, options=options)
    out = {}
    for f in NativeSymbolsAnalyzer().analyze(ctx):
        if f.code == "SLIM002":
            out[(f.target, f.dep)] = f
    return out


@pytest.fixture(scope="module", params=sorted(LINKERS))
def link(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Link:
    return build(tmp_path_factory.mktemp(f"link-{request.param}"), request.param)


def test_spec_declares_rules_and_evidence() -> None:
    assert SPEC.codes == ("SLIM002", "SLIM004")
    assert SPEC.requires == frozenset({"linkmap", "binary"})


def test_planted_dead_library_is_removable(link: Link) -> None:
    found = analyze(link)
    f = found[("//app:app", "//native/dead:dead")]
    assert f.removable
    assert f.verdict == "unreferenced"
    assert f.evidence, "the finding quotes the map"
    assert any(e.source.endswith("app.map") for e in f.evidence)
    if link.linker == "bfd":
        assert f.confidence is Confidence.HIGH
        assert any(e.detail.startswith("LOAD native/dead/libdead.a") for e in f.evidence)


def test_without_the_sources_a_probe_cannot_be_ruled_out(link: Link) -> None:
    """A depfile lists no header that `__has_include` only probes: without --workspace the
    cut stands at medium confidence, saying what is missing."""
    f = analyze(link, with_sources=False)[("//app:app", "//native/dead:dead")]
    assert f.removable
    assert f.confidence is Confidence.MEDIUM
    assert "Not certain without --workspace (the sources: a __has_include probe" in f.message


def test_without_compile_evidence_the_dead_library_is_not_removable(link: Link) -> None:
    f = analyze(link, with_compile=False, with_sources=False)[("//app:app", "//native/dead:dead")]
    assert f.verdict == "unreferenced"
    assert not f.removable
    assert f.confidence is Confidence.MEDIUM
    assert "-MD" in f.message


def test_used_and_transitively_used_libraries_are_not_flagged(link: Link) -> None:
    found = analyze(link)
    deps = {dep for _, dep in found}
    assert "//native/used:used" not in deps
    assert "//native/trans:trans" not in deps


def test_registration_library_is_not_removable(link: Link) -> None:
    f = analyze(link)[("//app:app", "//native/reg:reg")]
    assert not f.removable
    assert "registration library" in f.message


def test_constructor_of_an_archive_nothing_is_extracted_from_never_runs(link: Link) -> None:
    """Issue 12 §5: no member of libctor.a is in the link, so its constructor cannot run;
    the cut is proposed only with compile-time evidence that no header of it is read."""
    f = analyze(link)[("//app:app", "//native/ctor:ctor")]
    assert f.removable, f.message
    assert "static initializers" in f.message
    assert "cannot run here" in f.message
    blind = analyze(link, with_compile=False)[("//app:app", "//native/ctor:ctor")]
    assert not blind.removable, blind.message


def test_weak_symbol_provider_is_not_removable(link: Link) -> None:
    f = analyze(link)[("//app:app", "//native/weak:weak")]
    assert not f.removable
    assert "weak" in f.message


def test_without_elf_evidence_confidence_drops_and_says_what_is_missing(link: Link) -> None:
    f = analyze(link, with_elf=False)[("//app:app", "//native/dead:dead")]
    assert f.confidence is Confidence.MEDIUM
    assert "--binary" in f.message
    # the ctor library can no longer be told apart: it is still never HIGH
    c = analyze(link, with_elf=False)[("//app:app", "//native/ctor:ctor")]
    assert c.confidence is not Confidence.HIGH


def test_whole_archive_registration_is_linked_and_not_flagged(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    for linker in sorted(LINKERS):
        try:
            lk = build(tmp_path / linker, linker, whole_archive_reg=True)
        except pytest.skip.Exception:
            continue
        found = analyze(lk)
        assert ("//app:app", "//native/reg:reg") not in found, linker
        m = LINKERS[linker][1].load(lk.map)[0]
        if linker in ("bfd", "gold"):
            assert "native/reg/libreg.a" in m.whole_archive
    del request


def test_map_of_another_binary_is_reported_not_checked(link: Link) -> None:
    b, _ = graph_for()
    other = b.add_target("//tools:other", "cc_binary")
    b.add_edge(other, b.intern("//native/dead:dead"), EdgeKind.DEPS)
    g = b.build()
    facts = Facts()
    facts.extend(LINKERS[link.linker][1].load(link.map))
    ctx = AnalysisContext(graph=g, root=g.lookup("//tools:other") or 0, facts=facts)
    out = list(NativeSymbolsAnalyzer().analyze(ctx))
    assert [f.verdict for f in out] == ["not-checked"]
    assert not out[0].removable


def test_unresolved_weak_reference_without_the_archive_blocks_removal(link: Link) -> None:
    """The binary refers to `weak_hook` weakly; without weak's archive nothing rules it out."""
    b, _ = graph_for()
    g = b.build()
    facts = Facts()
    facts.extend(LINKERS[link.linker][1].load(link.map))
    (link.root / "out").mkdir(exist_ok=True)
    bin_copy = link.root / "out" / "app"  # named like the root: the analyzer takes it as the root
    shutil.copy(link.binary, bin_copy)
    facts.extend(elf.load(bin_copy))
    ctx = AnalysisContext(graph=g, root=g.lookup("//app:app") or 0, facts=facts)
    found = {f.dep: f for f in NativeSymbolsAnalyzer().analyze(ctx) if f.code == "SLIM002"}
    assert not found["//native/weak:weak"].removable
    assert "weak_hook" in found["//native/weak:weak"].message


# -- the sample monorepo: CMake/Bazel exports, maps from four linkers ----------------------

MONOREPO = Path(__file__).parents[3] / "sample_graphs" / "monorepo"
EXPORTS = MONOREPO / "exports"


@pytest.mark.parametrize("graph_export", ["bazel/query.pb", "cmake/reply"])
@pytest.mark.parametrize("linker", ["bfd", "gold", "lld", "mold"])
def test_sample_monorepo_end_to_end(graph_export: str, linker: str) -> None:
    from slim.ingest import load_evidence, load_graph

    map_path = EXPORTS / "linkmaps" / f"cpu_server.{linker}.map"
    g = load_graph([EXPORTS / graph_export])
    root = g.lookup("//serving:cpu_server")
    assert root is not None
    facts = Facts()
    for p in sorted((EXPORTS / "linkmaps").glob(f"cpu_server.{linker}.*")):
        facts.extend(load_evidence(p, "linkmap")[1])
    for a in sorted((EXPORTS / "archives").rglob("*.a")):
        facts.extend(load_evidence(a, "binary")[1])
    facts.extend(load_evidence(EXPORTS / "bin" / "cpu_server", "binary")[1])
    # Compile-time evidence: a static #include scan of the sample's sources.
    opts = RootOptions(workspace=MONOREPO)
    ctx = AnalysisContext(graph=g, root=root, facts=facts, options=opts)
    found = {f.dep: f for f in NativeSymbolsAnalyzer().analyze(ctx) if f.code == "SLIM002"}
    planted = found["//native/legacy_io:legacy_io"]
    assert planted.removable
    assert planted.verdict == "unreferenced"
    assert planted.target == "//serving:cpu_server"
    assert any(map_path.name in e.source for e in planted.evidence)
    if linker == "bfd":  # a full map, but only a scan for the compile: not certain
        assert planted.confidence is Confidence.MEDIUM
        assert "a static #include scan does not see every include path" in planted.message
    assert "//native/mathutil:mathutil" not in found  # used through ops' references
    reg = found.get("//native/registry:registry")
    assert reg is None or not reg.removable  # linked whole-archive: live
    weak = found.get("//native/weakhooks:weakhooks")
    assert weak is None or not weak.removable
    assert not any(f.removable for d, f in found.items() if d != "//native/legacy_io:legacy_io")


def test_sample_monorepo_without_archives_still_blocks_the_weak_provider() -> None:
    from slim.ingest import load_evidence, load_graph

    g = load_graph([EXPORTS / "bazel" / "query.pb"])
    root = g.lookup("//serving:cpu_server")
    assert root is not None
    facts = Facts()
    facts.extend(load_evidence(EXPORTS / "linkmaps" / "cpu_server.bfd.map", "linkmap")[1])
    facts.extend(load_evidence(EXPORTS / "bin" / "cpu_server", "binary")[1])
    ctx = AnalysisContext(graph=g, root=root, facts=facts)
    found = {f.dep: f for f in NativeSymbolsAnalyzer().analyze(ctx) if f.code == "SLIM002"}
    assert not found["//native/weakhooks:weakhooks"].removable
    # Conservative on purpose: any archive not given could be the weak symbol's provider.
    legacy = found["//native/legacy_io:legacy_io"]
    assert not legacy.removable
    assert "slim_request_hook" in legacy.message


# -- SLIM004 on the committed ELF samples (app needs libsample.so.1 and libunused.so) ------

ELF_DATA = Path(__file__).parents[2] / "data" / "elf"


def _slim004(
    paths: list[str], ctor_lib: bool = False, compiled: bool = True, sources: Path | None = None
) -> list[Finding]:
    """SLIM004 of `//app:app` given these ELF files (and, when `compiled`, the depfile of
    its one source, which reads no header of the libraries; `sources`: the workspace)."""
    b = GraphBuilder()
    root = b.add_target("//app:app", "cc_binary", srcs=("//app:main.c",))
    for name in ("sample", "unused"):
        dep = b.add_target(f"//lib:{name}", "cc_library", srcs=(f"//lib:{name}.c",))
        b.add_edge(root, dep, EdgeKind.DEPS)
    b.add_artifact(str(ELF_DATA / "app"), "//app:app")
    b.add_artifact(str(ELF_DATA / "libsample.so"), "//lib:sample")
    b.add_artifact(str(ELF_DATA / "libunused.so"), "//lib:unused")
    g = b.build()
    facts = Facts()
    for p in paths:
        facts.extend(elf.load(ELF_DATA / p))
    if compiled:
        main = CompiledObject("app/main.o", "app/main.c", ("/usr/include/stdio.h",), 1)
        facts.extend([CompileDeps("main.d", "depfile", (main,))])
    options = RootOptions(workspace=sources)
    ctx = AnalysisContext(graph=g, root=g.lookup("//app:app") or 0, facts=facts, options=options)
    return [f for f in NativeSymbolsAnalyzer().analyze(ctx) if f.code == "SLIM004"]


def _workspace(tmp: Path) -> Path:
    """The sources of `_slim004`'s program: a main.c that probes nothing."""
    (tmp / "app").mkdir()
    (tmp / "app" / "main.c").write_text("#include <stdio.h>\nint main(void) { return 0; }\n")
    return tmp


def test_needed_library_resolving_nothing_is_reported(tmp_path: Path) -> None:
    (f,) = _slim004(["app", "libsample.so", "libunused.so"], sources=_workspace(tmp_path))
    assert (f.target, f.dep, f.removable) == ("//app:app", "//lib:unused", True)
    assert f.confidence is Confidence.HIGH
    assert any(e.detail == "DT_NEEDED libunused.so" for e in f.evidence)
    assert any(e.source == "compile" for e in f.evidence)
    assert f.saving is not None
    assert f.saving.bytes > 0


def test_an_unused_needed_library_is_not_removable_without_compile_evidence() -> None:
    """Resolving no symbol says nothing of the headers the compile reads (an inline
    function, a macro): the edge waits for compile-time evidence, as SLIM002's does."""
    (f,) = _slim004(["app", "libsample.so", "libunused.so"], compiled=False)
    assert (f.dep, f.removable) == ("//lib:unused", False)
    assert "includes //lib:unused's headers is unknown" in f.message
    assert f.kept_because.startswith("whether the compile of //app:app includes //lib:unused")
    assert isinstance(f.details, SharedLibDetails)  # what is missing, for a bot reading JSON
    assert f.details.missing_evidence == ("compile-time evidence for //app:app",)
    assert f.details.to_json()["needed"] == "libunused.so"


def test_a_removable_unused_needed_library_says_how_its_edge_was_judged(tmp_path: Path) -> None:
    (f,) = _slim004(["app", "libsample.so", "libunused.so"], sources=_workspace(tmp_path))
    assert isinstance(f.details, SharedLibDetails)
    assert f.details.compile_evidence == "depfile"  # what showed no header of it read
    assert f.details.missing_evidence == ()
    assert f.details.consumers_not_checked == ()  # no other binary links the edge


def test_used_needed_library_is_not_reported_and_missing_ones_are_said() -> None:
    (f,) = _slim004(["app", "libunused.so"])  # libsample.so not given
    assert f.dep == "//lib:unused"
    assert "libsample.so.1" in f.message
    assert "not checked" in f.message


def test_library_another_library_needs_without_declaring_it_is_kept(tmp_path: Path) -> None:
    """libsample.so's own undefined `provided_elsewhere`: if a .so provided it, it stays."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed: needed to build the shared libraries")
    (tmp_path / "p.c").write_text("int provided_elsewhere(int x) { return x; }\n")
    (tmp_path / "m.c").write_text(
        "extern int sample_entry(int); int main(void){return sample_entry(1);}\n"
    )
    shutil.copy(ELF_DATA / "libsample.so", tmp_path / "libsample.so")
    r = _run(["gcc", "-shared", "-fPIC", "p.c", "-o", "libprov.so"], tmp_path)
    assert r.returncode == 0, r.stderr
    r = _run(
        [
            "gcc",
            "m.c",
            "-o",
            "app",
            "-L.",
            "-Wl,--no-as-needed",
            "-l:libsample.so",
            "-l:libprov.so",
            "-Wl,--allow-shlib-undefined",
        ],
        tmp_path,
    )
    assert r.returncode == 0, r.stderr
    b = GraphBuilder()
    root = b.add_target("//app:app", "cc_binary")
    dep = b.add_target("//lib:prov", "cc_library", srcs=("//lib:p.c",))
    b.add_edge(root, dep, EdgeKind.DEPS)
    b.add_artifact(str(tmp_path / "libprov.so"), "//lib:prov")
    g = b.build()
    facts = Facts()
    for p in ("app", "libsample.so", "libprov.so"):
        facts.extend(elf.load(tmp_path / p))
    ctx = AnalysisContext(graph=g, root=g.lookup("//app:app") or 0, facts=facts)
    (f,) = [f for f in NativeSymbolsAnalyzer().analyze(ctx) if f.code == "SLIM004"]
    assert f.dep == "//lib:prov"
    assert not f.removable
    assert "without their own DT_NEEDED" in f.message


GC_SOURCES = {
    "app/main.c": (
        "extern int used_entry(int); int main(int c, char **v) { (void)v; return used_entry(c); }"
    ),
    "native/used/used.c": (
        "extern int gcd_fn(int);\n"
        "int used_entry(int x) { return x + 1; }\n"
        "int unused_caller(int x) { return gcd_fn(x); }  /* GC'd, but it pulled libgcd */\n"
    ),
    "native/gcd/gcd.c": "int gcd_fn(int x) { return x * 3; }",
}


@pytest.mark.parametrize("linker", sorted(LINKERS))
def test_member_extracted_then_garbage_collected_is_not_removable(
    tmp_path: Path, linker: str
) -> None:
    """used.o's dead function calls gcd_fn: libgcd is extracted, then every section of
    it is discarded. The dep looks dead in the binary but used.c needs its header."""
    tool = LINKERS[linker][0]
    if shutil.which("gcc") is None or shutil.which(tool) is None:
        pytest.skip(f"gcc or {tool} not installed")
    for rel, text in GC_SOURCES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    cflags = ["-O1", "-ffunction-sections", "-fdata-sections"]
    main_o = f"{OBJ}/app/_objs/app/main.o"
    (tmp_path / main_o).parent.mkdir(parents=True, exist_ok=True)
    assert _run(["gcc", *cflags, "-c", "app/main.c", "-o", main_o], tmp_path).returncode == 0
    for lib in ("used", "gcd"):
        assert (
            _run(
                ["gcc", *cflags, "-c", f"native/{lib}/{lib}.c", "-o", f"{lib}.o"], tmp_path
            ).returncode
            == 0
        )
        assert _run(["ar", "rcs", f"native/{lib}/lib{lib}.a", f"{lib}.o"], tmp_path).returncode == 0
    gc_flag = ",--print-gc-sections"
    r = _run(
        [
            "gcc",
            f"-fuse-ld={linker}",
            main_o,
            "native/used/libused.a",
            "native/gcd/libgcd.a",
            "-o",
            "app.bin",
            f"-Wl,-Map=app.map,--gc-sections{gc_flag}",
        ],
        tmp_path,
    )
    assert r.returncode == 0, r.stderr
    (tmp_path / "gc.txt").write_text(r.stderr if linker in ("bfd", "gold") else r.stdout)
    b = GraphBuilder()
    root = b.add_target("//app:app", "cc_binary", srcs=("//app:main.c",))
    used = b.add_target("//native/used:used", "cc_library", srcs=("//native/used:used.c",))
    gcd = b.add_target("//native/gcd:gcd", "cc_library", srcs=("//native/gcd:gcd.c",))
    b.add_edge(root, used, EdgeKind.DEPS)
    b.add_edge(used, gcd, EdgeKind.DEPS)
    g = b.build()
    for with_gc in (True, False):
        facts = Facts()
        facts.extend(LINKERS[linker][1].load(tmp_path / "app.map"))
        if with_gc:
            facts.extend(gc_sections.load(tmp_path / "gc.txt"))
        facts.extend(elf.load(tmp_path / "native/gcd/libgcd.a"))
        ctx = AnalysisContext(graph=g, root=g.lookup("//app:app") or 0, facts=facts)
        found = {f.dep: f for f in NativeSymbolsAnalyzer().analyze(ctx) if f.code == "SLIM002"}
        f = found["//native/gcd:gcd"]
        assert f.target == "//native/used:used"
        assert not f.removable, (linker, with_gc, f.message)
        if with_gc or linker in ("bfd", "gold"):
            assert f.verdict == "discarded-by-gc", (linker, with_gc, f.verdict)
