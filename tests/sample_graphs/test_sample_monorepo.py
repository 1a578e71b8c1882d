"""The committed sample monorepo outputs: they load with slim's readers and carry the
planted cases (dead native and Python deps, the GPU edge, alwayslink, weak hooks)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from slim.infra.config import load_config
from slim.ingest import FORMATS, load_evidence, load_graph
from slim.model.graph import BuildGraph, EdgeKind

REPO = Path(__file__).resolve().parent.parent.parent
MONO = REPO / "sample_graphs" / "monorepo"
EXP = MONO / "exports"
TRACES = MONO / "traces"
NATIVE = {
    "//native/base:base",
    "//native/mathutil:mathutil",
    "//native/ops:ops",
    "//native/registry:registry",
    "//native/weakhooks:weakhooks",
    "//native/legacy_io:legacy_io",
    "//kernels:cuda_kernels",
    "//serving:model_runner",
    "//serving:cpu_server",
    "//training:gpu_trainer",
}


def _graph(path: Path, fmt: str) -> BuildGraph:
    """Load with the named reader (which must be registered)."""
    assert any(f.name == fmt for f in FORMATS), f"no {fmt} reader in slim.ingest.FORMATS"
    return load_graph([path], fmt)


def _evidence(path: Path, evidence: str, fmt: str) -> list[object]:
    assert any(f.name == fmt for f in FORMATS), f"no {fmt} reader in slim.ingest.FORMATS"
    got, facts = load_evidence(path, evidence)
    assert got.name == fmt, f"{path.name} sniffed as {got.name}, expected {fmt}"
    return facts


def _edges(g: BuildGraph, kinds: frozenset[EdgeKind] | None = None) -> set[tuple[str, str]]:
    return {
        (g.labels[int(s)], g.labels[int(d)])
        for s, d, k in zip(g.edge_src, g.edge_dst, g.edge_kind, strict=True)
        if kinds is None or EdgeKind(int(k)) in kinds
    }


@pytest.fixture(scope="module")
def cquery() -> BuildGraph:
    return load_graph([EXP / "bazel" / "cquery.jsonproto.json"], "bazel-cquery-jsonproto")


def test_cquery_has_planted_native_structure(cquery: BuildGraph) -> None:
    g = cquery
    deps = _edges(g, frozenset({EdgeKind.DEPS}))
    assert ("//serving:cpu_server", "//native/legacy_io:legacy_io") in deps
    assert ("//serving:model_runner", "//kernels:cuda_kernels") in deps
    assert ("//training:gpu_trainer", "//kernels:cuda_kernels") in deps
    assert ("//native/ops:ops", "//native/mathutil:mathutil") in deps
    # mathutil reaches cpu_server only through ops (transitively used, never direct)
    assert ("//serving:cpu_server", "//native/mathutil:mathutil") not in deps
    server = g.target(g.ids["//serving:cpu_server"])
    assert server.kind == "cc_binary"
    assert "cpu-only" in server.tags
    assert g.target(g.ids["//native/registry:registry"]).attrs.get("alwayslink") is True
    kernels = g.target(g.ids["//kernels:cuda_kernels"])
    assert "cuda" in kernels.tags
    assert ("//kernels:cuda_kernels", "//kernels:cuda_kernels_nvcc") in _edges(g)


def test_cquery_has_planted_python_structure(cquery: BuildGraph) -> None:
    g = cquery
    server = g.target(g.ids["//py/apps:server"])
    assert server.kind == "py_binary"
    assert "cpu-only" in server.tags
    deps = _edges(g, frozenset({EdgeKind.DEPS}))
    for lib in ("unused_lib", "lazy_lib", "optional_lib", "plugins", "reexport", "nsext"):
        assert ("//py/apps:server", f"//py/{lib}:{lib}") in deps
    assert ("//py/reexport:reexport", "//py/core_impl:core_impl") in deps
    assert ("//py/apps:server", "//py/config:model_config") in _edges(g, frozenset({EdgeKind.DATA}))
    assert g.target(g.ids["//py/testutil:testutil"]).attrs.get("testonly") is True
    assert ("//py/apps:server_test", "//py/testutil:testutil") in deps
    assert not any(d == "//py/testutil:testutil" for s, d in deps if s == "//py/apps:server")
    assert g.target(g.ids["//py/vendored:tinyhelper"]).attrs.get("imports") == ("src",)


@pytest.mark.parametrize(("name", "fmt"), [("query.pb", "bazel-proto"), ("query.xml", "bazel-xml")])
def test_every_bazel_export_gives_the_same_graph(cquery: BuildGraph, name: str, fmt: str) -> None:
    g = _graph(EXP / "bazel" / name, fmt)
    assert set(g.labels) == set(cquery.labels)
    assert _edges(g) == _edges(cquery)


def test_label_kind_lists_the_rules(cquery: BuildGraph) -> None:
    g = _graph(EXP / "bazel" / "query.label_kind.txt", "bazel-label-kind")
    assert set(g.labels) == set(cquery.labels)
    assert g.kinds[g.ids["//serving:cpu_server"]] == "cc_binary"


def test_bazel_graph_dot_has_the_dead_edge() -> None:
    g = _graph(EXP / "bazel" / "query.graph.dot", "bazel-graph")
    assert ("//serving:cpu_server", "//native/legacy_io:legacy_io") in _edges(g)


def test_aquery_maps_archives_to_targets() -> None:
    g = _graph(EXP / "bazel" / "aquery.jsonproto.json", "bazel-aquery-jsonproto")
    assert "//serving:cpu_server" in g.ids
    owners = {g.labels[t] for t in g.artifacts.values()}
    assert "//native/legacy_io:legacy_io" in owners


def test_cmake_reply_uses_the_bazel_labels_and_maps_archives(cquery: BuildGraph) -> None:
    g = _graph(EXP / "cmake" / "reply", "cmake-file-api")
    assert set(g.labels) >= NATIVE
    assert set(cquery.labels) >= NATIVE
    assert ("//serving:cpu_server", "//native/legacy_io:legacy_io") in _edges(g)
    assert ("//serving:model_runner", "//kernels:cuda_kernels") in _edges(g)
    art = {p: g.labels[t] for p, t in g.artifacts.items()}
    assert art.get("native/legacy_io/liblegacy_io.a") == "//native/legacy_io:legacy_io"
    assert art.get("kernels/libcuda_kernels.a") == "//kernels:cuda_kernels"
    assert art.get("serving/cpu_server") == "//serving:cpu_server"


def test_ninja_exports_load() -> None:
    g = _graph(EXP / "cmake" / "ninja-graph.dot", "ninja-graph")
    assert len(g) > 10
    facts = _evidence(EXP / "cmake" / "ninja_log.txt", "timings", "ninja-log")
    assert facts


@pytest.mark.parametrize("fmt_name", ["cquery.jsonproto.json", "query.pb", "query.xml"])
def test_review_head_adds_exactly_one_edge(fmt_name: str) -> None:
    fmt = {
        "cquery.jsonproto.json": "bazel-cquery-jsonproto",
        "query.pb": "bazel-proto",
        "query.xml": "bazel-xml",
    }[fmt_name]
    base = _graph(EXP / "review" / f"base.{fmt_name}", fmt)
    head = _graph(EXP / "review" / f"head.{fmt_name}", fmt)
    assert _edges(head) - _edges(base) == {("//serving:cpu_server", "//native/old_codec:old_codec")}
    assert _edges(base) - _edges(head) == set()


def test_review_cmake_head_adds_exactly_one_edge() -> None:
    base = _graph(EXP / "review" / "base.cmake-reply", "cmake-file-api")
    head = _graph(EXP / "review" / "head.cmake-reply", "cmake-file-api")
    assert _edges(head) - _edges(base) == {("//serving:cpu_server", "//native/old_codec:old_codec")}


MAPS = sorted((EXP / "linkmaps").glob("*.map"))


def test_all_four_linkers_made_maps_for_both_binaries() -> None:
    assert {p.name for p in MAPS} == {
        f"{exe}.{ld}.map"
        for exe in ("cpu_server", "gpu_trainer")
        for ld in ("bfd", "gold", "lld", "mold")
    }


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
def test_maps_mention_the_archives_that_were_pulled(path: Path) -> None:
    text = path.read_text()
    for archive in (
        "native/base/libbase.a",
        "native/ops/libops.a",
        "native/mathutil/libmathutil.a",
        "kernels/libcuda_kernels.a",
    ):
        assert archive in text, f"{archive} not in {path.name}"
    if path.name.startswith("cpu_server"):
        assert "native/registry/libregistry.a" in text  # whole-archive
        assert "serving/libmodel_runner.a" in text
    assert "/work/" not in text
    assert "<BUILD_DIR>" not in text


def test_why_extract_shows_dead_and_weak_archives_were_not_extracted() -> None:
    text = (EXP / "linkmaps" / "cpu_server.lld.why-extract.txt").read_text()
    assert re.search(r"libmodel_runner\.a\(model_runner\.cc\.o\)", text)
    assert "liblegacy_io.a" not in text
    assert "libweakhooks.a" not in text


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("cpu_server.bfd.map", "gnu-ld-map"),
        ("cpu_server.gold.map", "gold-map"),
        ("cpu_server.lld.map", "lld-map"),
        ("cpu_server.mold.map", "mold-map"),
    ],
)
def test_maps_load_with_slim(name: str, fmt: str) -> None:
    facts = _evidence(EXP / "linkmaps" / name, "linkmap", fmt)
    assert facts


@pytest.mark.parametrize(
    ("name", "evidence", "fmt"),
    [
        *[
            (f"linkmaps/cpu_server.{ld}.gc.txt", "linkmap", "print-gc-sections")
            for ld in ("bfd", "gold", "lld", "mold")
        ],
        ("linkmaps/cpu_server.lld.why-extract.txt", "linkmap", "lld-why-extract"),
        ("bin/cpu_server", "binary", "elf"),
        ("bin/gpu_trainer", "binary", "elf"),
        ("archives/native/legacy_io/liblegacy_io.a", "binary", "elf"),
    ],
)
def test_other_native_evidence_loads_with_slim(name: str, evidence: str, fmt: str) -> None:
    assert _evidence(EXP / name, evidence, fmt)


@pytest.mark.parametrize("exe", ["cpu_server", "gpu_trainer"])
def test_binaries_are_elf_with_a_fatbin(exe: str) -> None:
    from elftools.elf.elffile import ELFFile

    path = EXP / "bin" / exe
    assert path.read_bytes()[:4] == b"\x7fELF"
    with path.open("rb") as f:
        elf = ELFFile(f)
        names = {s.name for s in elf.iter_sections()}
        assert ".nv_fatbin" in names  # cpu_server too: the planted GPU edge
        assert ".symtab" in names  # not stripped
        fatbin = elf.get_section_by_name(".nv_fatbin").data()
    assert fatbin[:4] == bytes.fromhex("50ed55ba")  # fatbin container magic 0xba55ed50


def test_archives_are_the_cmake_build_tree_layout() -> None:
    archives = {p.relative_to(EXP / "archives").as_posix() for p in (EXP / "archives").rglob("*.a")}
    assert {
        "native/legacy_io/liblegacy_io.a",
        "native/registry/libregistry.a",
        "kernels/libcuda_kernels.a",
        "kernels/libcpu_kernels.a",
        "serving/libmodel_runner.a",
    } <= archives
    for a in archives:
        assert (EXP / "archives" / a).read_bytes()[:8] == b"!<arch>\n"


def test_importtime_traces_show_the_planted_python_cases() -> None:
    def modules(name: str) -> set[str]:
        rows = (TRACES / name).read_text().splitlines()
        return {r.split("|")[-1].strip() for r in rows if r.startswith("import time:")}

    plain, plugins = modules("server.importtime.txt"), modules("server.plugins.importtime.txt")
    for m in (
        "py.common.settings",
        "py.reexport",
        "py.core_impl.engine",
        "py.optional_lib.fastpath",
        "py.nsext.textops",
    ):
        assert m in plain
        assert m in plugins
    for never in ("py.unused_lib", "py.lazy_lib", "py.lazy_lib.report"):
        assert never not in plain | plugins
    # importlib.import_module() is not timed by -X importtime; -v does log it.
    assert "py.plugins.impl" not in plugins
    verbose = (TRACES / "server.plugins.verbose.txt").read_text()
    assert "import 'py.plugins.impl'" in verbose
    assert "tinyhelper" in modules("trainer.importtime.txt")


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("server.importtime.txt", "python-importtime"),
        ("server.plugins.verbose.txt", "python-verbose"),
    ],
)
def test_traces_load_with_slim(name: str, fmt: str) -> None:
    assert _evidence(TRACES / name, "trace", fmt)


def test_root_slim_toml_names_existing_inputs() -> None:
    cfg = load_config(REPO / "slim.toml")
    paths = [p for ps in cfg.inputs.values() for p in ps]
    for tc in cfg.targets.values():
        paths += [p for ps in tc.inputs.values() for p in ps]
    for rev in cfg.raw.get("revisions", {}).values():
        paths += [REPO / p for ps in rev.values() for p in ([ps] if isinstance(ps, str) else ps)]
    assert len(paths) >= 20
    assert [p for p in paths if not p.exists()] == []
    assert cfg.workspace is not None
    assert cfg.workspace.is_dir()
    assert cfg.for_target("//serving:cpu_server").cpu_only is True
    g = load_graph(cfg.inputs["graph"])
    for root in ("//serving:cpu_server", "//py/apps:server", "//training:gpu_trainer"):
        assert root in g.ids


def test_report_from_the_repo_root_finds_exactly_the_planted_dead_edges() -> None:
    """Precision on the planted cases: `slim report` with only the root slim.toml."""
    expected = {
        ("SLIM002", "//serving:cpu_server", "//native/legacy_io:legacy_io"),
        ("SLIM003", "//serving:model_runner", "//kernels:cuda_kernels"),
        ("SLIM001", "//py/apps:server", "//py/unused_lib:unused_lib"),
    }
    roots = ["//serving:cpu_server", "//training:gpu_trainer", "//py/apps:server"]
    proc = subprocess.run(
        [sys.executable, "-m", "slim", "report", *roots, "--format", "json", "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    removable = {(f["code"], f["target"], f["dep"]) for f in findings if f["removable"]}
    assert removable == expected  # nothing else: not registry, mathutil, weakhooks, lazy_lib
    kept = {f["dep"] for f in findings if not f["removable"] and f["dep"]}
    assert "//native/weakhooks:weakhooks" in kept  # weak-hook provider: said, not cut
    assert "//py/lazy_lib:lazy_lib" in kept  # lazy import: runtime-unused, kept
    assert not any(f["root"] == "//training:gpu_trainer" and f["removable"] for f in findings)


def test_review_from_the_repo_root_reports_only_the_new_dead_edge() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "slim", "review", "//serving:cpu_server", "--format", "json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    removable = {(f["code"], f["target"], f["dep"]) for f in findings if f["removable"]}
    assert removable == {("SLIM002", "//serving:cpu_server", "//native/old_codec:old_codec")}
