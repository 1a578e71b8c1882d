"""SLIM003 points an edge at a CPU variant only with proof: the link's cross references
and the variant's symbols (it defines what the program takes from the GPU target), and
compile evidence (no compile reads a header only the GPU target provides).

The sample monorepo's real map (bfd, `--cref`) and archives give the proof; a variant
built here that lacks one of the launchers, a missing archive or missing compile
evidence keep the finding, each saying what is missing.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from slim_analyzers.gpu._details import KernelsDetails
from slim_analyzers.gpu.analyzer import GpuKernels
from slim_analyzers.native._edge_verdict import EdgeEvidence, repoint_use

from slim.ingest import load_evidence, load_graph
from slim.model.context import AnalysisContext
from slim.model.facts import Facts, InputFile
from slim.model.findings import Finding
from slim.model.graph import EdgeKind, GraphBuilder
from slim.model.options import RootOptions
from slim.model.ownership import Ownership

MONO = Path(__file__).resolve().parents[3] / "sample_graphs" / "monorepo"
EXPORTS = MONO / "exports"
ARCHIVES = EXPORTS / "archives" / "kernels"
DATA_CUDA = Path(__file__).resolve().parents[2] / "data" / "cuda"
CPU = RootOptions(cpu_only=True, cpu_only_source="--cpu-only")


def _facts(*archives: Path, gpu: Path | None = ARCHIVES / "libcuda_kernels.a") -> Facts:
    facts = Facts()
    for p in (EXPORTS / "bin" / "cpu_server", *([gpu] if gpu else []), *archives):
        fmt, loaded = load_evidence(p, "binary")
        facts.extend(loaded)
        facts.inputs.append(InputFile("binary", p.as_posix(), fmt.name))
    path = EXPORTS / "linkmaps" / "cpu_server.bfd.map"
    fmt, loaded = load_evidence(path, "linkmap")
    facts.extend(loaded)
    facts.inputs.append(InputFile("linkmap", path.as_posix(), fmt.name))
    return facts


#: A second CPU-only server linking //serving:model_runner (one line of a streamed
#: jsonproto export, merged with the sample's): the repointed edge is its edge too.
BATCH_SERVER = (
    '{"type":"RULE","rule":{"name":"//serving:batch_server","ruleClass":"cc_binary",'
    '"location":"serving/BUILD:40:1","attribute":[{"name":"deps","type":"LABEL_LIST",'
    '"stringListValue":["//serving:model_runner"],"explicitlySpecified":true},'
    '{"name":"tags","type":"STRING_LIST","stringListValue":["cpu-only"],'
    '"explicitlySpecified":true}],"ruleInput":["//serving:model_runner"]}}\n'
)


def _slim003(
    facts: Facts,
    workspace: Path | None = MONO,
    more: tuple[Path, ...] = (),
    evidence_of: Callable[[str], Facts | None] = lambda _label: None,
) -> Finding:
    graphs = [EXPORTS / "bazel" / "cquery.jsonproto.json", EXPORTS / "cmake" / "reply", *more]
    g = load_graph(graphs)
    root = g.lookup("//serving:cpu_server")
    assert root is not None
    options = RootOptions(cpu_only=True, cpu_only_source="--cpu-only", workspace=workspace)
    ctx = AnalysisContext(
        graph=g,
        root=root,
        facts=facts,
        options=options,
        evidence_of=evidence_of,
        options_of=lambda _label: options,
    )
    (f,) = [f for f in GpuKernels().analyze(ctx) if f.dep]
    assert (f.target, f.dep) == ("//serving:model_runner", "//kernels:cuda_kernels")
    assert f.action is not None
    assert "//kernels:cpu_kernels" in str(f.action)
    return f


def _missing(f: Finding) -> tuple[str, ...]:
    assert isinstance(f.details, KernelsDetails)
    return f.details.missing_evidence


def test_the_variant_defining_what_the_link_takes_and_giving_the_headers_is_proven() -> None:
    f = _slim003(_facts(ARCHIVES / "libcpu_kernels.a"))
    assert f.removable, f.message
    assert not f.kept_because
    assert not _missing(f)
    shown = [e.detail for e in f.evidence]
    assert (
        "//kernels:cpu_kernels defines each of the 2 symbol(s) the link takes from "
        "//kernels:cuda_kernels (kernels::Backend(), kernels::LaunchScale(float*, int, float))"
    ) in shown
    assert any("is also provided by //kernels:cpu_kernels" in d for d in shown)


def test_without_the_variants_archive_the_cut_is_not_proposed() -> None:
    f = _slim003(_facts())
    assert not f.removable
    assert "whether //kernels:cpu_kernels defines the 2 symbol(s)" in f.kept_because
    assert _missing(f) == ("the archive of //kernels:cpu_kernels (--binary)",)
    assert "Not removable: " in f.message


def test_a_variant_lacking_a_symbol_the_link_takes_is_kept(tmp_path: Path) -> None:
    """A CPU variant built here that defines `Backend()` but not `LaunchScale`, which
    model_runner calls (the map's cross references say so): the repointed link fails."""
    for tool in ("g++", "ar"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (bash .ci/install-system-tools.sh)")
    src = tmp_path / "cpu_kernels.cc"
    src.write_text('namespace kernels { const char* Backend() { return "cpu"; } }\n')
    lib = tmp_path / "kernels" / "libcpu_kernels.a"
    lib.parent.mkdir()
    obj = tmp_path / "cpu_kernels.cc.o"
    subprocess.run(["g++", "-c", str(src), "-o", str(obj)], check=True)
    subprocess.run(["ar", "rcs", str(lib), str(obj)], check=True)
    f = _slim003(_facts(lib))
    assert not f.removable
    assert f.kept_because == (
        "//kernels:cpu_kernels does not define kernels::LaunchScale(float*, int, float), "
        "which //serving:cpu_server's link takes from //kernels:cuda_kernels"
    )
    (ref,) = [e for e in f.evidence if "(--cref)" in e.detail]
    assert ref.source.endswith("cpu_server.bfd.map")
    assert ref.line
    assert "serving/libmodel_runner.a(model_runner.cc.o)" in ref.detail


def test_a_gpu_object_registering_itself_at_start_up_keeps_the_cut(tmp_path: Path) -> None:
    """The GPU target's linked member also runs a static registrar (a real nvcc object:
    a .cu with a static object whose constructor registers it, as kernel libraries do):
    the cut takes that registration out of the program, and nothing shows the variant
    makes it. The sample's own member, whose only constructor is nvcc's fatbin
    registration, is proven (first test)."""
    if shutil.which("ar") is None:
        pytest.skip("ar is not installed (bash .ci/install-system-tools.sh)")
    lib = tmp_path / "kernels" / "libcuda_kernels.a"
    lib.parent.mkdir()
    member = tmp_path / "cuda_kernels.cu.o"
    shutil.copy(DATA_CUDA / "registrar.o", member)
    subprocess.run(["ar", "rcs", str(lib), str(member)], check=True)
    f = _slim003(_facts(ARCHIVES / "libcpu_kernels.a", gpu=lib))
    assert not f.removable
    assert f.kept_because == (
        f"{lib}(cuda_kernels.cu.o) of //kernels:cuda_kernels, linked into "
        "//serving:cpu_server, runs static initializers besides nvcc's fatbin registration "
        "(a C++ dynamic initializer or a constructor): the cut takes them out of the "
        "program, and whether //kernels:cpu_kernels does what they do (a registration into "
        "code that stays) is unknown"
    )
    assert any(e.detail == ".init_array entries besides nvcc's" for e in f.evidence)


def test_without_the_gpu_targets_archive_the_cut_is_not_proposed() -> None:
    """Its linked member may run a registrar: unknown without the archive."""
    f = _slim003(_facts(ARCHIVES / "libcpu_kernels.a", gpu=None))
    assert not f.removable
    assert "whether the objects of //kernels:cuda_kernels linked into " in f.kept_because
    assert _missing(f) == ("the archive of //kernels:cuda_kernels (--binary)",)


def test_without_compile_evidence_the_cut_is_not_proposed() -> None:
    f = _slim003(_facts(ARCHIVES / "libcpu_kernels.a"), workspace=None)
    assert not f.removable
    assert "reads a header of //kernels:cuda_kernels that //kernels:cpu_kernels" in (f.kept_because)
    assert "compile-time evidence for //serving:model_runner" in _missing(f)


def test_a_binary_sharing_the_edge_without_its_own_map_keeps_the_cut(tmp_path: Path) -> None:
    """//serving:batch_server links model_runner too: its link takes from cuda_kernels
    what its own map says, and no map of it is given."""
    extra = tmp_path / "batch.jsonproto.json"
    extra.write_text(BATCH_SERVER)
    f = _slim003(_facts(ARCHIVES / "libcpu_kernels.a"), more=(extra,))
    assert not f.removable
    assert f.kept_because.startswith(
        "//serving:model_runner -> //kernels:cuda_kernels is shared: which symbols the link "
        "of //serving:batch_server takes from //kernels:cuda_kernels is unknown"
    )
    assert _missing(f) == ("a linker map of //serving:batch_server with --cref",)
    mine = _facts(ARCHIVES / "libcpu_kernels.a")
    other = _slim003(mine, more=(extra,), evidence_of=lambda _label: mine)
    assert not other.removable, "the server's map is not the batch server's link"


# -- the compile side, on a graph and sources written here ----------------------------------
def _repoint(tmp_path: Path, includes: list[str], kern_attrs: dict[str, object] | None = None):  # type: ignore[no-untyped-def]
    """//app:app -> //app:runner -> //kern:kern (kern.h, launch.h) repointed at
    //kern:kern_cpu (kern.h only); runner.cc includes `includes`."""
    for rel, text in {
        "app/main.cc": "int main() { return 0; }\n",
        "app/runner.cc": "".join(f'#include "{h}"\n' for h in includes),
        "kern/kern.h": "void launch();\n",
        "kern/launch.h": "void launch_async();\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    b = GraphBuilder()
    app = b.add_target("//app:app", "cc_binary", srcs=["//app:main.cc"])
    runner = b.add_target("//app:runner", "cc_library", srcs=["//app:runner.cc"])
    kern = b.add_target(
        "//kern:kern",
        "cc_library",
        srcs=["//kern:kern.cu", "//kern:kern.h", "//kern:launch.h"],
        attrs=kern_attrs,  # type: ignore[arg-type]
    )
    cpu = b.add_target("//kern:kern_cpu", "cc_library", srcs=["//kern:cpu.cc", "//kern:kern.h"])
    b.add_edge(app, runner, EdgeKind.DEPS)
    b.add_edge(runner, kern, EdgeKind.DEPS)
    g = b.build()
    ctx = AnalysisContext(g, app, Facts(), options=RootOptions(workspace=tmp_path))
    ev = EdgeEvidence.load(ctx, Ownership.of(g), set(ctx.closure.tolist()))
    return repoint_use(ev, runner, kern, cpu)


def test_a_header_the_variant_gives_too_is_no_loss(tmp_path: Path) -> None:
    use = _repoint(tmp_path, ["kern/kern.h"])
    assert (use.headers, use.unknown, use.flags) == ((), (), ())
    assert use.how == "static #include scan"


def test_a_header_only_the_gpu_target_gives_is_lost(tmp_path: Path) -> None:
    use = _repoint(tmp_path, ["kern/kern.h", "kern/launch.h"])
    assert use.headers == ("app/runner.cc includes kern/launch.h",)


def test_definitions_the_gpu_target_hands_over_are_a_change(tmp_path: Path) -> None:
    use = _repoint(tmp_path, ["kern/kern.h"], {"defines": ("USE_CUDA=1",)})
    assert use.flags == ("-DUSE_CUDA=1",)
