"""sample_graphs/generate_large.py: seeded, streamed, loadable, the requested size."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from slim.ingest import load_graph
from slim.model.graph import BuildGraph, EdgeKind

REPO = Path(__file__).resolve().parent.parent.parent


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_large", REPO / "sample_graphs" / "generate_large.py"
    )
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("generate_large", mod)
    spec.loader.exec_module(mod)
    return mod


gen = _module()
N = 5000


@dataclass
class Generated:
    path: Path
    stats: Any
    graph: BuildGraph


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    path = tmp_path_factory.mktemp("gen") / "graph.ndjson"
    stats = gen.generate(path, targets=N, seed=7)
    return Generated(path, stats, load_graph([path]))


@pytest.mark.parametrize("fmt", ["bazel", "buck2"])
def test_same_seed_gives_identical_bytes(tmp_path: Path, fmt: str) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    gen.generate(a, targets=3000, seed=3, fmt=fmt)
    gen.generate(b, targets=3000, seed=3, fmt=fmt)
    gen.generate(c, targets=3000, seed=4, fmt=fmt)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_bazel_output_loads_with_the_requested_size(generated: Generated) -> None:
    g, stats = generated.graph, generated.stats
    assert g.formats == ("bazel-streamed-jsonproto",)
    assert len(g) == N == stats.targets
    deps = int(np.count_nonzero(g.edge_kind == int(EdgeKind.DEPS)))
    assert deps == g.edge_count == stats.edges
    assert 13 * N <= deps <= 17 * N  # ~16 per target by default
    assert not any(k == "" for k in g.kinds)  # every dep is described: no external nodes


def test_lines_have_the_streamed_jsonproto_shape(generated: Generated) -> None:
    with generated.path.open() as f:
        first = json.loads(f.readline())
        second = json.loads(f.readline())
    assert first["type"] == "RULE"
    rule = first["rule"]
    assert set(rule) == {"name", "ruleClass", "location", "attribute", "ruleInput"}
    deps = next(a for a in rule["attribute"] if a["name"] == "deps")
    assert deps["type"] == "LABEL_LIST"
    assert deps["explicitlySpecified"] is True
    assert deps["nodep"] is False
    assert deps["stringListValue"]
    assert set(deps["stringListValue"]) <= set(rule["ruleInput"])
    assert second["type"] == "SOURCE_FILE"
    assert second["sourceFile"]["name"] in rule["ruleInput"]


def test_roots_exist_and_the_graph_is_acyclic(generated: Generated) -> None:
    g = generated.graph
    roots = gen.root_labels(N)
    assert len(roots) == generated.stats.roots
    assert roots[0] == "//app/bin0:bin0"
    for r in roots:
        assert g.kinds[g.ids[r]] in ("cc_binary", "py_binary")
    closure = g.closure([g.ids["//app/bin0:bin0"]])
    assert len(closure) > N // 10  # a root reaches a real part of the graph
    assert any("cpu-only" in g.tags.get(g.ids[r], ()) for r in roots)
    import networkx as nx

    dg = nx.DiGraph(zip(g.edge_src.tolist(), g.edge_dst.tolist(), strict=True))
    assert nx.is_directed_acyclic_graph(dg)
    indeg = np.bincount(g.edge_dst, minlength=len(g))
    assert g.labels[int(indeg.argmax())].startswith("//base/hub")  # fan-in hubs


def test_buck2_output_is_query_json_with_the_same_graph(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    stats = gen.generate(path, targets=3000, seed=1, fmt="buck2")
    data = json.loads(path.read_text())
    assert len(data) == 3000
    entry = data["root//app/bin0:bin0"]
    assert entry["buck.type"] in ("cxx_binary", "python_binary")
    assert entry["buck.deps"] == entry["deps"]
    assert sum(len(v["deps"]) for v in data.values()) == stats.edges
    bazel = tmp_path / "g.ndjson"
    gen.generate(bazel, targets=3000, seed=1, fmt="bazel")
    b = load_graph([bazel])
    assert b.edge_count == stats.edges  # same seed, same DAG in both formats
    if importlib.util.find_spec("slim.ingest.graph.buck2_json") is not None:
        g = load_graph([path], "buck2-query-json")
        assert len(g) == 3000
        assert g.edge_count >= stats.edges


def test_writes_are_streamed_in_chunks() -> None:
    class Counting(io.StringIO):
        writes = 0

        def write(self, s: str) -> int:
            self.writes += 1
            return super().write(s)

    out = Counting()
    stats = gen.write(out, targets=1200, seed=0, chunk=500)
    assert out.writes == 3
    assert len(out.getvalue()) == stats.bytes
    assert out.getvalue().count("\n") == 2 * stats.targets  # a RULE and a SOURCE_FILE line


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 4"):
        gen.generate(tmp_path / "x", targets=2)
    with pytest.raises(ValueError, match="--format"):
        gen.generate(tmp_path / "x", targets=100, fmt="ninja")
    assert not (tmp_path / "x").exists()
