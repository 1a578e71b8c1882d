"""SLIM003/SLIM005 on real nvcc output: committed samples and the sample monorepo."""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

from slim_analyzers.gpu import SPEC
from slim_analyzers.gpu._attribution import attribute, cpu_only, cpu_variant, entry_edges
from slim_analyzers.gpu._details import ArchsDetails, KernelsDetails
from slim_analyzers.gpu.analyzer import GpuKernels

from slim.analysis.engine import analyze, same_evidence
from slim.ingest import load_evidence
from slim.ingest.binary.fatbin import read_device_code, read_elf
from slim.model.actions import Remove, Replace
from slim.model.context import AnalysisContext
from slim.model.facts import Facts, InputFile
from slim.model.findings import Finding
from slim.model.graph import BuildGraph, EdgeKind, GraphBuilder
from slim.model.options import RootOptions

REPO = Path(__file__).parents[3]
CUDA = REPO / "tests" / "data" / "cuda"
MONO = REPO / "sample_graphs" / "monorepo"
EXPORTS = MONO / "exports"
APP = CUDA / "app.fatbin-sections.elf"
LIBKERN = CUDA / "libkern.a"
KERNELS = ("add_one_kernel", "void slim::scale_kernel<float>(float*, float, int)")


def _graph(
    *, tags: tuple[str, ...] = ("cpu-only",), variant: bool = True, gpu_sibling: str = ""
) -> BuildGraph:
    """//app:app -> //app:runner -> //kern:kern (nvcc) [+ //kern:kern_cpu sharing kern.h]
    [+ a second binary `gpu_sibling` that links //app:runner too]."""
    b = GraphBuilder()
    app = b.add_target("//app:app", "cc_binary", srcs=["//app:main.cc"], tags=tags)
    runner = b.add_target("//app:runner", "cc_library", srcs=["//app:runner.cc"])
    base = b.add_target("//base:base", "cc_library", srcs=["//base:base.cc"])
    kern = b.add_target("//kern:kern", "cc_library", srcs=["//kern:kern.cu", "//kern:kern.h"])
    if variant:
        b.add_target("//kern:kern_cpu", "cc_library", srcs=["//kern:kern_cpu.cc", "//kern:kern.h"])
    b.add_edge(app, runner, EdgeKind.DEPS)
    b.add_edge(app, base, EdgeKind.DEPS)
    b.add_edge(runner, kern, EdgeKind.DEPS)
    b.add_edge(runner, base, EdgeKind.DEPS)
    if gpu_sibling:
        gpu = b.add_target(gpu_sibling, "cc_binary", srcs=["//gpu:main.cc"])
        b.add_edge(gpu, runner, EdgeKind.DEPS)
    b.add_artifact(LIBKERN.as_posix(), "//kern:kern")
    return b.build()


def _facts(*paths: Path) -> Facts:
    facts = Facts()
    for p in paths:
        facts.extend(read_device_code(p))
        facts.inputs.append(InputFile("binary", p.as_posix(), "elf"))
    return facts


def _run(graph: BuildGraph, facts: Facts, options: RootOptions | None = None) -> list[Finding]:
    root = graph.lookup("//app:app")
    assert root is not None
    ctx = AnalysisContext(graph=graph, root=root, facts=facts, options=options or RootOptions())
    return sorted(GpuKernels().analyze(ctx), key=lambda f: f.sort_key)


def _data(f: Finding) -> dict[str, str | int | float | bool]:
    """The typed details of a GPU finding as flat key/value pairs, for compact asserts."""
    d = f.details
    out: dict[str, str | int | float | bool] = {}
    if isinstance(d, KernelsDetails):
        out |= {
            "kernels": "; ".join(d.kernels),
            "kernel_count": len(d.kernels),
            "archs": ",".join(a.arch for a in d.archs),
            "bytes": d.bytes,
            "cut": d.cut,
            "cpu_only_reason": d.cpu_only_source,
            "attribution": ",".join(d.attribution),
            "cpu_variant": d.cpu_variant,
            "candidates": ",".join(d.candidates),
            "binary": d.binary,
        }
        for t in d.targets:
            out[f"target_bytes[{t.target}]"] = t.bytes
            out[f"path[{t.target}]"] = t.path
            out[f"inputs[{t.target}]"] = ",".join(t.inputs)
    if isinstance(d, ArchsDetails):
        out |= {
            "binary": d.binary,
            "deployed": ",".join(d.deployed),
            "unused_bytes": d.unused_bytes,
            "gencode_drop": d.gencode_drop,
        }
    for a in getattr(d, "archs", ()):
        if a.bytes:
            out[f"bytes[{a.arch}]"] = a.bytes
        if a.status:
            out[f"arch_status[{a.arch}]"] = a.status
    return out


def test_spec() -> None:
    assert SPEC.codes == ("SLIM003", "SLIM005", "SLIM930")
    assert SPEC.requires == frozenset({"binary"})


def test_kernels_in_cpu_binary_are_charged_to_the_archive_member_target() -> None:
    findings = _run(_graph(), _facts(APP, LIBKERN))
    edge = [f for f in findings if f.dep]
    (f,) = edge
    assert (f.code, f.target, f.dep, f.root) == (
        "SLIM003",
        "//app:runner",
        "//kern:kern",
        "//app:app",
    )
    d = _data(f)
    assert d["kernels"] == "; ".join(KERNELS)
    assert d["kernel_count"] == 2
    assert d["archs"] == "sm_80,sm_90,compute_90"
    assert d["bytes"] == 0x2D68
    assert d["bytes[sm_80]"] == 0x40 + 0x13E8
    assert d["bytes[sm_90]"] == 0x40 + 0x16D8
    assert d["bytes[compute_90]"] == 0x50 + 0x1C8
    assert d["target_bytes[//kern:kern]"] == 0x2D68
    assert d["path[//kern:kern]"] == "//app:app -> //app:runner -> //kern:kern"
    assert d["cut"] == "//app:runner -> //kern:kern"
    assert d["cpu_only_reason"] == "tag 'cpu-only' on //app:app"
    assert d["attribution"] == "identical bytes"
    assert d["cpu_variant"] == "//kern:kern_cpu"
    assert f.confidence.value == "high"
    assert f.action == Replace("//app:runner", "//kern:kern", "//kern:kern_cpu")
    assert not f.removable, "no map says which symbols the link takes from //kern:kern"
    assert "without a linker map with cross references" in f.kept_because
    assert isinstance(f.details, KernelsDetails)
    assert f.details.missing_evidence == ("a linker map of //app:app with --cref",)
    assert any("libkern.a(kern.o) holds a byte-identical fatbin" in e.detail for e in f.evidence)
    assert any(e.offset == 0x8E9D0 - 0x8E9D0 + 0x9D0 + 0x1A08 for e in f.evidence)


def test_unattributed_containers_are_reported_not_dropped() -> None:
    findings = _run(_graph(), _facts(APP, LIBKERN))
    (wide,) = [f for f in findings if not f.dep]
    assert wide.code == "SLIM003"
    assert "which linked input contributed it is unknown" in wide.message
    assert _data(wide)["bytes"] == 0xC60 + 0xDA8
    assert _data(wide)["candidates"] == "//kern:kern"
    assert not wide.removable


def test_without_archives_nothing_is_attributed() -> None:
    findings = _run(_graph(), _facts(APP))
    (f,) = findings
    assert not f.dep
    assert _data(f)["kernel_count"] == 2
    assert "--linkmap" in f.message


def test_a_library_edge_another_gpu_binary_shares_is_not_removable() -> None:
    """//app:runner -> //kern:kern is in //gpu:server's build too: repointing it at the CPU
    variant would take the kernels from a GPU binary, so it is named, not proposed."""
    (f,) = [f for f in _run(_graph(gpu_sibling="//gpu:server"), _facts(APP, LIBKERN)) if f.dep]
    assert not f.removable
    assert "//gpu:server is not CPU-only and may need the kernels" in f.message
    assert f.kept_because.startswith("the edge is shared, and //gpu:server is not CPU-only")
    g = _graph(gpu_sibling="//gpu:server")
    root = g.lookup("//app:app")
    assert root is not None
    cpu = RootOptions(cpu_only=True, cpu_only_source="cpu_only in slim.toml")

    def options_of(label: str) -> RootOptions:
        return cpu if label == "//gpu:server" else RootOptions()

    ctx = AnalysisContext(g, root, _facts(APP, LIBKERN), options_of=options_of)
    (f,) = [f for f in GpuKernels().analyze(ctx) if f.dep]
    assert "the edge is shared" not in f.message, "every binary sharing the edge is CPU-only"
    assert "cross references" in f.kept_because, "but the link evidence is missing"


def test_no_variant_means_cut_is_not_safe() -> None:
    (f,) = [f for f in _run(_graph(variant=False), _facts(APP, LIBKERN)) if f.dep]
    assert not f.removable
    assert f.action == Remove("//app:runner", "//kern:kern")
    assert "no CPU variant found" in f.message


def test_gpu_binary_with_kernels_is_not_a_finding() -> None:
    assert _run(_graph(tags=()), _facts(APP, LIBKERN)) == []


def test_cpu_only_sources() -> None:
    g = _graph(tags=("no-gpu",))
    root = g.lookup("//app:app")
    assert root is not None
    ctx = AnalysisContext(g, root, Facts())
    assert cpu_only(ctx) == (True, "tag 'no-gpu' on //app:app")
    ctx = AnalysisContext(g, root, Facts(), RootOptions(cpu_only_tags=("server",)))
    assert cpu_only(ctx) == (False, "")
    opts = RootOptions(cpu_only=True, cpu_only_source="cpu_only in x")
    assert cpu_only(AnalysisContext(g, root, Facts(), opts)) == (True, "cpu_only in x")
    ctx = AnalysisContext(g, root, Facts(), RootOptions(cpu_only=False))
    assert cpu_only(ctx)[0] is False
    flag = RootOptions(cpu_only=True, cpu_only_source="--cpu-only on the command line")
    findings = _run(_graph(tags=()), _facts(APP, LIBKERN), flag)
    assert {_data(f)["cpu_only_reason"] for f in findings} == {"--cpu-only on the command line"}


def test_first_edge_into_gpu_subgraph() -> None:
    b = GraphBuilder()
    r = b.add_target("//r:r", "cc_binary")
    a = b.add_target("//a:a", "cc_library")
    w = b.add_target("//gpu:wrap", "cc_library", tags=["gpu"])
    c = b.add_target("//gpu:kern", "cc_library")
    x = b.add_target("//x:x", "cc_library")
    b.add_edge(r, a, EdgeKind.DEPS)
    b.add_edge(a, w, EdgeKind.DEPS)
    b.add_edge(w, c, EdgeKind.DEPS)
    b.add_edge(r, x, EdgeKind.DEPS)
    b.add_edge(x, c, EdgeKind.DEPS)
    b.add_edge(r, w, EdgeKind.DATA)
    g = b.build()
    edges = entry_edges(g, r, {c})
    assert [(g.labels[u], g.labels[v]) for u, v in edges] == [
        ("//a:a", "//gpu:wrap"),
        ("//x:x", "//gpu:kern"),
    ]


def test_cpu_variant_by_name_without_shared_header() -> None:
    b = GraphBuilder()
    k = b.add_target("//k:cuda_ops", "cc_library", srcs=["//k:ops.cu"])
    b.add_target("//k:cpu_ops", "cc_library", srcs=["//k:ops.cc"])
    b.add_target("//k:unrelated", "cc_library", srcs=["//k:u.cc"])
    b.add_target("//other:cpu_ops", "cc_library", srcs=["//other:ops.cc"])
    g = b.build()
    hit = cpu_variant(g, k, {k})
    assert hit is not None
    assert (g.labels[hit[0]], hit[1]) == ("//k:cpu_ops", False)


# -- SLIM005 -------------------------------------------------------------------------------
def test_unused_arch_with_ptx_kept_for_forward_compatibility() -> None:
    g = _graph(tags=())
    findings = _run(g, _facts(APP, LIBKERN), RootOptions(cuda_archs=("sm_90",)))
    by_target = {f.target: f for f in findings}
    f = by_target["//kern:kern"]
    assert (f.code, f.verdict) == ("SLIM005", "unused-arch")
    d = _data(f)
    assert d["gencode_drop"] == "-gencode arch=compute_80,code=sm_80"
    assert d["unused_bytes"] == 0x40 + 0x13E8
    assert d["arch_status[sm_80]"] == "unused"
    assert d["arch_status[sm_90]"] == "deployed"
    assert d["arch_status[compute_90]"] == "ptx: forward compatibility"
    assert "PTX compute_90 kept for forward compatibility" in f.message
    assert f.saving is not None
    assert f.saving.bytes == 0x40 + 0x13E8


def test_same_major_cubin_runs_on_newer_minor() -> None:
    findings = _run(
        _graph(tags=()), _facts(APP, LIBKERN), RootOptions(cuda_archs=("sm_86", "sm_90"))
    )
    assert findings == []


def test_deployed_arch_without_any_image() -> None:
    findings = _run(_graph(tags=()), _facts(APP, LIBKERN), RootOptions(cuda_archs=("sm_75",)))
    f = next(f for f in findings if f.target == "//kern:kern")
    d = _data(f)
    assert d["arch_status[sm_75]"] == "no image"
    assert d["arch_status[sm_80]"] == "unused"
    assert d["arch_status[sm_90]"] == "unused"
    assert "no cubin or PTX in it can run on the deployed sm_75" in f.message


def test_ptx_jit_for_a_newer_deployed_gpu() -> None:
    findings = _run(_graph(tags=()), _facts(APP, LIBKERN), RootOptions(cuda_archs=("sm_100",)))
    f = next(f for f in findings if f.target == "//kern:kern")
    assert _data(f)["arch_status[compute_90]"] == "ptx: JIT for sm_100"


VARIANTS = CUDA / "libvariants.fatbin-sections.so"  # sm_90a, sm_90, sm_103f, sm_100, compute_90a


def test_arch_specific_images_are_named_as_cuobjdump_names_them() -> None:
    """The entry flags tell `sm_90a` from `sm_90`: the names agree with cuobjdump's listing
    of the same file, image by image (cuobjdump prints a family-specific `sm_103f` as
    `sm_103`)."""
    listing = (CUDA / "libvariants.cuobjdump.txt").read_text()
    theirs = re.findall(r"\.(sm_\d+a?)\.(cubin|ptx)$", listing, flags=re.M)
    (dc,) = read_device_code(VARIANTS)
    ours = [(e.arch_name, e.kind) for e in dc.entries]
    spelled = {"ptx": lambda n: n.replace("sm_", "compute_"), "cubin": lambda n: n}
    want = [(spelled[k](n) + ("f" if n == "sm_103" else ""), k) for n, k in theirs]
    assert len(ours) == 9
    assert sorted(ours) == sorted(want)


def test_an_arch_specific_cubin_loads_on_its_own_architecture_only() -> None:
    """sm_90a runs on sm_90 alone and compute_90a PTX JIT-compiles for sm_90 alone, so
    for a fleet of sm_100 GPUs both are unused, and the flags to drop name them as nvcc
    spells them; for sm_90 the sm_90a cubin is the deployed one."""
    g = _graph(tags=())
    f = _run(g, _facts(VARIANTS), RootOptions(cuda_archs=("sm_100",)))[0]
    d = _data(f)
    assert d["arch_status[sm_90a]"] == "unused"
    assert d["arch_status[sm_103f]"] == "unused"  # a family's later minor: not on sm_100
    assert d["arch_status[sm_100]"] == "deployed"
    assert d["arch_status[compute_90a]"] == "ptx: forward compatibility"
    assert d["gencode_drop"] == (
        "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90a,code=sm_90a "
        "-gencode arch=compute_103f,code=sm_103f"
    )
    f = _run(g, _facts(VARIANTS), RootOptions(cuda_archs=("sm_90",)))[0]
    d = _data(f)
    assert (d["arch_status[sm_90a]"], d["arch_status[sm_90]"]) == ("deployed", "deployed")
    f = _run(g, _facts(VARIANTS), RootOptions(cuda_archs=("sm_110",)))[0]
    assert _data(f)["arch_status[sm_110]"] == "no image"  # compute_90a cannot JIT for it
    assert "no cubin or PTX in it can run on the deployed sm_110" in f.message


# -- evidence problems ---------------------------------------------------------------------
def test_corrupt_fatbin_is_reported_and_the_rest_analyzed(tmp_path: Path) -> None:
    data = bytearray(APP.read_bytes())
    (sec,) = [s for s in read_elf(bytes(data)).sections if s.name == ".nv_fatbin"]
    third = sec.offset + 0x1A08
    struct.pack_into("<Q", data, third + 0x10 + 0x38, 1 << 40)
    struct.pack_into("<I", data, third + 0x10 + 0x10, 0x449)
    struct.pack_into("<Q", data, third + 0x10 + 0x28, 0x8011)
    bad = tmp_path / "app"
    bad.write_bytes(bytes(data))
    findings = _run(_graph(), _facts(bad, LIBKERN))
    (unread,) = [f for f in findings if f.code == "SLIM930"]
    assert "a decompression bomb?" in unread.message
    assert unread.evidence[0].offset == third + 0x10 + 0x38
    assert any(f.code == "SLIM003" for f in findings)


def test_cpu_only_root_without_its_binary_says_not_checked() -> None:
    findings = _run(_graph(), _facts(LIBKERN))
    (f,) = findings
    assert (f.code, f.verdict) == ("SLIM900", "not-checked")
    assert "no executable or shared library of //app:app" in f.message


def test_engine_reports_missing_binary_evidence() -> None:
    g = _graph()
    root = g.lookup("//app:app")
    assert root is not None
    rep = analyze(g, same_evidence([root], Facts()), specs=[SPEC])
    (f,) = rep.findings
    assert f.code == "SLIM900"
    assert "gpu-kernels" in f.message


def test_attribution_is_none_for_foreign_containers() -> None:
    g = _graph()
    root = g.lookup("//app:app")
    assert root is not None
    facts = _facts(APP, LIBKERN)
    (app,) = [d for d in facts.of(type(read_device_code(APP)[0])) if d.is_linked]
    got = attribute(AnalysisContext(g, root, facts), app)
    assert [a is None for a in got] == [True, True, False]


# -- the sample monorepo -------------------------------------------------------------------
def _mono_facts() -> Facts:
    facts = _facts(EXPORTS / "bin" / "cpu_server", EXPORTS / "bin" / "gpu_trainer")
    for m in ("cpu_server.bfd.map", "gpu_trainer.bfd.map"):
        path = EXPORTS / "linkmaps" / m
        fmt, loaded = load_evidence(path, "linkmap")
        facts.extend(loaded)
        facts.inputs.append(InputFile("linkmap", path.as_posix(), fmt.name))
    return facts


MONO_KERNELS = (
    "kernels::add_bias_kernel(float*, int, float)",
    "kernels::relu_kernel(float*, int)",
    "void kernels::scale_kernel<double>(double*, int, double)",
    "void kernels::scale_kernel<float>(float*, int, float)",
)


def test_monorepo_cpu_server_and_trainer() -> None:
    from slim.ingest import load_graph

    g = load_graph([EXPORTS / "bazel" / "query.pb"])
    roots = [g.lookup("//serving:cpu_server"), g.lookup("//training:gpu_trainer")]
    assert None not in roots
    rep = analyze(g, same_evidence(roots, _mono_facts()), specs=[SPEC])  # type: ignore[arg-type]
    (f,) = rep.findings
    assert (f.code, f.root, f.target, f.dep) == (
        "SLIM003",
        "//serving:cpu_server",
        "//serving:model_runner",
        "//kernels:cuda_kernels",
    )
    d = _data(f)
    assert d["kernels"] == "; ".join(MONO_KERNELS)
    assert d["archs"] == "sm_80,sm_90,compute_90"
    assert d["target_bytes[//kernels:cuda_kernels]"] == 19776
    assert d["attribution"] == "linkmap"
    assert d["inputs[//kernels:cuda_kernels]"] == "kernels/libcuda_kernels.a(cuda_kernels.cu.o)"
    assert any(e.source.endswith("cpu_server.bfd.map") and e.line for e in f.evidence)
    assert f.confidence.value == "high"


def _slim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "slim", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_repo_config_flags_the_server_not_the_trainer() -> None:
    """Done-when: both roots in one run, each with its own per-target config."""
    proc = _slim(
        "report",
        "//serving:cpu_server",
        "//training:gpu_trainer",
        "--select",
        "SLIM003,SLIM005,SLIM930",
        "--format",
        "json",
        "--no-cache",
        cwd=REPO,
    )
    assert proc.returncode == 1, proc.stderr  # removable findings: exit 1, as a linter
    import json

    findings = json.loads(proc.stdout)["findings"]
    assert [(f["code"], f["root"], f["target"], f["dep"]) for f in findings] == [
        ("SLIM003", "//serving:cpu_server", "//serving:model_runner", "//kernels:cuda_kernels")
    ]
    data = findings[0]["details"]
    assert data["kernels"] == list(MONO_KERNELS)
    assert data["cpu_variant"] == "//kernels:cpu_kernels"


def test_monorepo_report_text_end_to_end(tmp_path: Path) -> None:
    config = tmp_path / "slim.toml"
    config.write_text("", encoding="utf-8")
    proc = _slim(
        "report",
        "//serving:cpu_server",
        "//training:gpu_trainer",
        "--graph",
        "exports/bazel/query.pb",
        "--binary",
        "exports/bin/cpu_server",
        "--binary",
        "exports/bin/gpu_trainer",
        "--linkmap",
        "exports/linkmaps/cpu_server.bfd.map",
        "--select",
        "SLIM003,SLIM005,SLIM930",
        "--no-cache",
        "--config",
        str(config),
        "-v",
        cwd=MONO,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "SLIM003 //serving:model_runner -> //kernels:cuda_kernels  [" in out
    for k in MONO_KERNELS:
        assert k in out
    assert "sm_80" in out
    assert "compute_90" in out
    assert "19,776" in out
    assert re.search(r"\n +sm_80 +8,872  in CPU-only binary\n", out)
    assert re.search(r"\n +compute_90 +680  in CPU-only binary\n", out)
    assert re.search(r"\n +//kernels:cuda_kernels +19,776  target\n", out)
    assert "//training:gpu_trainer ->" not in out.split("kept (")[1]
    assert "SLIM005" not in out


def test_root_options_decide_the_check() -> None:
    """The session resolves each root's options (precedence is tested there); the analyzer
    runs SLIM005 for deployed archs and SLIM003 for a CPU-only root, citing the source."""
    archs = RootOptions(cuda_archs=("sm_90",), cuda_archs_source="cuda_archs in slim.toml")
    findings = _run(_graph(tags=()), _facts(APP, LIBKERN), archs)
    assert {f.code for f in findings} == {"SLIM005"}
    cpu = RootOptions(cpu_only=True, cpu_only_source="cpu_only in slim.toml")
    findings = _run(_graph(tags=()), _facts(APP, LIBKERN), cpu)
    assert {f.code for f in findings} == {"SLIM003"}
    assert {_data(f)["cpu_only_reason"] for f in findings} == {"cpu_only in slim.toml"}


def test_gpu_specific_root_still_reports_its_kernels() -> None:
    b = GraphBuilder()
    app = b.add_target("//app:app", "cc_binary", srcs=["//app:main.cu"], tags=["cpu-only"])
    kern = b.add_target("//kern:kern", "cc_library", srcs=["//kern:kern.cu"])
    b.add_edge(app, kern, EdgeKind.DEPS)
    b.add_artifact(LIBKERN.as_posix(), "//kern:kern")
    findings = _run(b.build(), _facts(APP, LIBKERN))
    charged = [f for f in findings if "charged to //kern:kern" in f.message]
    assert len(charged) == 1
    assert _data(charged[0])["target_bytes[//kern:kern]"] == 0x2D68
    assert not charged[0].removable


def test_rdc_device_link_image_is_charged_to_the_rdc_target() -> None:
    b = GraphBuilder()
    app = b.add_target("//app:app", "cc_binary", srcs=["//app:m.cc"], tags=["cpu-only"])
    rdc = b.add_target("//rdc:rdc", "cc_library", srcs=["//rdc:extra.cu", "//rdc:extra2.cu"])
    b.add_edge(app, rdc, EdgeKind.DEPS)
    b.add_artifact((CUDA / "librdc.a").as_posix(), "//rdc:rdc")
    rdc_app = CUDA / "app_rdc.fatbin-sections.elf"
    findings = _run(b.build(), _facts(rdc_app, CUDA / "librdc.a"))
    edge = [f for f in findings if f.dep]
    (f,) = edge
    assert (f.target, f.dep) == ("//app:app", "//rdc:rdc")
    d = _data(f)
    assert d["kernels"] == "rdc_kernel(int*)"
    assert d["attribution"] == "device link,identical bytes"
    assert d["target_bytes[//rdc:rdc]"] == 0x1438 + 0x408 + 0x310
    assert any("device-link image" in e.detail for e in f.evidence)
    # m.o's relocatable fatbin (no kernels) is not in librdc.a: it stays unattributed.
    (wide,) = [f for f in findings if not f.dep]
    assert _data(wide)["bytes"] == 0x208
