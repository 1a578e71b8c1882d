from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest.graph import _parallel
from slim.ingest.graph._parallel import iter_range_batches, load_lines
from slim.model.graph import EdgeKind, GraphBuilder, Location


def _handler(b: GraphBuilder, first: int, lines: list[bytes], path: str) -> None:
    """`a b` lines make an edge //a:a -> //b:b; `!` is malformed."""
    for k, raw in enumerate(lines):
        line = raw.strip()
        if not line:
            continue
        if line == b"!":
            raise InputError(path, "two labels", "'!'", line=first + k)
        x, y = line.decode().split()
        b.add_edge(b.add_target(f"//{x}:{x}", "r"), b.add_target(f"//{y}:{y}", "r"), EdgeKind.DEPS)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab\n", max_size=12), max_size=30), st.integers(1, 5))
def test_ranges_cover_every_line_once(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[str], parts: int
) -> None:
    path = tmp_path_factory.mktemp("r") / "f.txt"
    data = "".join(pieces).encode()
    path.write_bytes(data)
    cuts = _parallel._boundaries(path, parts)
    got: list[bytes] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        for _, lines in iter_range_batches(path, a, b):
            got.extend(lines)
    expected = data.split(b"\n")
    if expected and expected[-1] == b"":
        expected.pop()
    assert got == expected


def _write(path: Path, n: int, bad_at: int | None = None) -> None:
    with path.open("w") as f:
        for i in range(n):
            f.write("!\n" if i + 1 == bad_at else f"n{i} n{i + 1}\n")


def test_parallel_equals_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "edges.txt"
    _write(path, 30_000)
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 1)
    monkeypatch.setattr(_parallel, "CHUNK", 4096)
    monkeypatch.setenv("SLIM_WORKERS", "3")
    par = GraphBuilder()
    load_lines(path, par, _handler)
    monkeypatch.setenv("SLIM_WORKERS", "1")
    ser = GraphBuilder()
    load_lines(path, ser, _handler)
    g1, g2 = par.build(), ser.build()
    assert sorted(g1.labels) == sorted(g2.labels)
    e1 = sorted((g1.labels[a], g1.labels[b]) for a, b in zip(g1.edge_src, g1.edge_dst, strict=True))
    e2 = sorted((g2.labels[a], g2.labels[b]) for a, b in zip(g2.edge_src, g2.edge_dst, strict=True))
    assert e1 == e2
    assert len(e1) == 30_000


def test_error_in_a_later_range_has_the_absolute_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "edges.txt"
    _write(path, 20_000, bad_at=17_345)
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 1)
    monkeypatch.setenv("SLIM_WORKERS", "2")
    with pytest.raises(InputError) as exc:
        load_lines(path, GraphBuilder(), _handler)
    assert str(exc.value) == f"{path}:17345: expected two labels, found '!'"


def test_a_real_export_parsed_in_parallel_is_the_serial_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker results travel compactly (locations as columns, no label index) and are
    merged in bulk: the graph is the serial one (kinds, locations, srcs, tags, attributes,
    typed edges)."""
    import importlib.util
    import pickle
    import sys

    from slim.ingest import load_graph
    from slim.model.canonical import graph_to_canonical

    repo = Path(__file__).resolve().parents[3]
    spec = importlib.util.spec_from_file_location(
        "generate_large", repo / "sample_graphs" / "generate_large.py"
    )
    assert spec is not None
    assert spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("generate_large", gen)
    spec.loader.exec_module(gen)
    path = tmp_path / "g.ndjson"
    gen.generate(path, targets=4000, seed=3, avg_deps=3.0, fmt="bazel")
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 1)
    monkeypatch.setattr(_parallel, "CHUNK", 1 << 16)
    monkeypatch.setenv("SLIM_WORKERS", "1")
    ser = load_graph([path])
    monkeypatch.setenv("SLIM_WORKERS", "3")
    par = load_graph([path])
    assert graph_to_canonical(par) == graph_to_canonical(ser)
    assert sorted(par.labels) == sorted(ser.labels)
    assert {par.labels[i]: loc for i, loc in par.locations.items()} == {
        ser.labels[i]: loc for i, loc in ser.locations.items()
    }
    assert any(loc.line for loc in ser.locations.values())

    b = GraphBuilder()
    b.add_target("//a:a", "cc_library", location=Location("a/BUILD", 3), attrs={"x": True})
    b.set_location_text(b.intern("//c:c"), "c/BUILD:9:2")
    b.set_location(b.intern("//c:c"), Location("c/BIN", offset=12))
    b.add_file("//a:f.cc", generated_by="//a:a")
    b.add_label_edges(b.lookup("//a:a") or 0, ["//b:b", ":f.cc"], EdgeKind.DEPS, "//a")
    b.flush()
    back = pickle.loads(pickle.dumps(b))
    assert graph_to_canonical(back.build()) == graph_to_canonical(b.build())
    assert back.lookup("//b:b") == b.lookup("//b:b")
