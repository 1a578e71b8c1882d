from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest.graph import _parallel
from slim.ingest.graph._parallel import iter_range_batches, load_lines
from slim.model.graph import EdgeKind, GraphBuilder


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
