"""Buck2 query DOT (`dot` and `dot_compact`) on Buck2's own golden outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import detect, load_graph
from slim.model.graph import EdgeKind
from tests.ingest._canonical import check_golden

DATA = Path(__file__).parents[2] / "data" / "buck2"
SAMPLES = sorted(DATA.glob("*.golden.dot"))
BINARY = "root//bin:the_binary"


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_golden(sample: Path, request: pytest.FixtureRequest) -> None:
    assert detect(sample, "graph").name == "buck2-dot"
    check_golden(load_graph([sample]), sample, request)


def test_dot_and_dot_compact_give_the_same_graph() -> None:
    a = load_graph([DATA / "dot.deps.golden.dot"])
    b = load_graph([DATA / "dot_compact.deps.golden.dot"])
    c = load_graph([DATA / "dot.attrs.golden.dot"])
    assert a.labels == b.labels == c.labels
    assert a.edge_dst.tolist() == b.edge_dst.tolist() == c.edge_dst.tolist()
    assert "1" not in a.labels
    assert len(a) == 8
    i = b.lookup(BINARY)
    assert i is not None
    assert sorted(b.labels[e.dep] for e in b.out_edges(i)) == [
        "root//:data",
        "root//lib:lib1",
        "root//lib:lib2",
        "root//lib:lib3",
    ]
    assert {e.kind for e in b.out_edges(i)} == {EdgeKind.UNTYPED}


def test_without_buck_type_kinds_are_unknown_and_said() -> None:
    g = load_graph([DATA / "dot.attrs.golden.dot"])
    assert set(g.kinds) == {"rule"}
    assert any("buck.type" in n for n in g.notes)


def test_configured_labels_and_buck_attributes(tmp_path: Path) -> None:
    p = tmp_path / "cq.dot"
    p.write_text(
        "digraph result_graph {\n"
        '  1 [label="root//app:app (prelude//platforms:default#524f8da68ea2a374)",'
        'buck_type="prelude//rules.bzl:python_binary",buck_labels="[\\"ci\\", \\"slow\\"]"];\n'
        "  1 -> 2;\n"
        '  2 [label="root//lib:lib (prelude//platforms:default#524f8da68ea2a374)",'
        'buck_type=python_library,buck_base_module="\\"corp.lib\\""];\n'
        "}\n",
        encoding="utf-8",
    )
    g = load_graph([p])
    app, lib = g.lookup("root//app:app"), g.lookup("root//lib:lib")
    assert app is not None
    assert lib is not None
    assert g.kinds[app] == "python_binary"
    assert g.kinds[lib] == "python_library"
    assert g.tags[app] == ("ci", "slow")
    assert g.attrs[lib]["base_module"] == "corp.lib"
    assert g.configurations[app] == ("prelude//platforms:default#524f8da68ea2a374",)
    assert g.edge_kinds(app, lib) == [EdgeKind.UNTYPED]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "expected a DOT graph"),
        (b'digraph result_graph {\n  1 -> 2;\n  1 [label="root//a:', ':3: expected a closing `"`'),
        (b"digraph result_graph {\n  1 -> 2;\n", ":2: expected `}`"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", ":1: expected UTF-8"),
        (b'[{"name": "x"}]', ":1: expected `digraph` or `graph`"),
    ],
    ids=["empty", "unterminated-string", "truncated", "binary", "wrong-format"],
)
def test_bad_input(tmp_path: Path, content: bytes, expected: str) -> None:
    p = tmp_path / "bad.dot"
    p.write_bytes(content)
    with pytest.raises(InputError, match=expected) as exc:
        load_graph([p], "buck2-dot")
    assert "\n" not in str(exc.value)
