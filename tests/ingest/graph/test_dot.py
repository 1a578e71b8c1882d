"""The shared DOT tokenizer/parser: grammar corners, errors, real samples vs Graphviz."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest.graph.dot import (
    DotEdge,
    DotGraph,
    DotNode,
    dot_body,
    graph_name,
    parse_file,
    parse_text,
)

DATA = Path(__file__).parents[2] / "data"
SAMPLES = sorted(
    [
        *DATA.glob("bazel/*.dot"),
        *DATA.glob("buck2/*.golden.dot"),
        *DATA.glob("cmake/*/graphviz/deps.dot*"),
        *DATA.glob("ninja/*/graph-app.dot"),
    ]
)


def nodes(text: str) -> list[DotNode]:
    return [s for s in parse_text(text) if isinstance(s, DotNode)]


def edges(text: str) -> list[DotEdge]:
    return [s for s in parse_text(text) if isinstance(s, DotEdge)]


def pairs(text: str) -> list[tuple[str, str]]:
    return [(e.src, e.dst) for e in edges(text)]


def test_header_and_graph_kinds() -> None:
    sts = parse_text('strict graph "my g" { a -- b }')
    assert sts[0] == DotGraph("my g", directed=False, strict=True, line=1)
    assert pairs('strict graph "my g" { a -- b }') == [("a", "b")]
    assert isinstance(parse_text("digraph { }")[0], DotGraph)


def test_quoted_ids_keep_backslashes_except_escaped_quote() -> None:
    text = r'digraph { "//a:b\n//a:c" -> "say \"hi\"" ; "x\\" -> "y\\z" }'
    assert pairs(text) == [("//a:b\\n//a:c", 'say "hi"'), ("x\\\\", "y\\\\z")]


def test_bare_ids_numerals_and_chains() -> None:
    assert pairs("digraph { a -> b -> c; 1 -> -2.5 }") == [("a", "b"), ("b", "c"), ("1", "-2.5")]


def test_attribute_lists_and_separators() -> None:
    (n,) = nodes('digraph { n [a=1, b="two"; c=3][d=4 e] }')
    assert dict(n.attrs) == {"a": "1", "b": "two", "c": "3", "d": "4", "e": "true"}


def test_comments_of_every_kind() -> None:
    text = """# preprocessor line
digraph { // line comment -> x
  a /* block
  spanning -> lines */ -> b  # not a comment here? no: only at column 0
}"""
    with pytest.raises(InputError):  # '#' mid-line is not a comment in DOT
        parse_text(text)
    ok = text.replace("  # not a comment here? no: only at column 0", "")
    assert pairs(ok) == [("a", "b")]


def test_statement_split_across_lines() -> None:
    text = 'digraph {\n  "a" -> "b"\n  [label="//conditions:default"];\n  "c"\n}'
    (e,) = edges(text)
    assert (e.src, e.dst, e.attrs["label"], e.line) == ("a", "b", "//conditions:default", 2)
    assert [n.id for n in nodes(text)] == ["c"]


def test_string_spanning_lines_and_continuation() -> None:
    text = 'digraph {\n "multi\nline" -> "con\\\ntinued"\n}'
    assert pairs(text) == [("multi\nline", "continued")]


def test_plus_concatenation_and_html_ids() -> None:
    (n,) = nodes('digraph { "ab" + "cd" [label=<<b>x</b>>] }')
    assert n.id == "abcd"
    assert n.attrs["label"] == "<b>x</b>"


def test_ports_are_not_part_of_node_identity() -> None:
    assert pairs("digraph { a:p1 -> b:p2:ne }") == [("a", "b")]


def test_subgraphs_scope_defaults_and_endpoints() -> None:
    text = """digraph G {
  node [shape=box];
  subgraph cluster_x { node [color=red]; edge [style=dotted]; a; a -> b }
  c;
  c -> { d e } -> f
  g = 1
}"""
    ns = {n.id: n for n in nodes(text)}
    assert ns["a"].scope == ("cluster_x",)
    assert dict(ns["a"].attrs) == {"shape": "box", "color": "red"}
    assert dict(ns["c"].attrs) == {"shape": "box"}
    assert ns["d"].scope == ("%1",)
    assert "g" not in ns
    es = edges(text)
    assert es[0].attrs == {"style": "dotted"}
    assert es[0].scope == ("cluster_x",)
    assert [(e.src, e.dst) for e in es[1:]] == [("c", "d"), ("c", "e"), ("d", "f"), ("e", "f")]


def test_graph_attribute_statements_are_not_nodes() -> None:
    assert nodes('digraph ninja { rankdir="LR" graph [x=1] node [fontsize=10] }') == []


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ('digraph {\n  "a" -> "b\n}\n', 2, 'a closing `"`'),
        ("digraph { /* never closed\n", 1, "`*/`"),
        ("digraph { a -> b\n", 1, "`}` closing the graph"),
        ("", 1, "a DOT graph"),
        ("digraph { a [x=] }", 1, "an attribute value"),
        ("digraph { ] }", 1, "a node id"),
        ("digraph { a -> }", 1, "a node id"),
        ("graph2 { }", 1, "`digraph` or `graph`"),
        ("digraph { a ! b }", 1, "a DOT token"),
        ("digraph { a [label=<x] }", 1, "`>` closing"),
    ],
)
def test_bad_input_is_one_line_input_error(text: str, line: int, expected: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_text(text, "g.dot")
    msg = str(exc.value)
    assert msg.startswith(f"g.dot:{line}: expected {expected}"), msg
    assert "\n" not in msg


def test_deep_nesting_is_an_input_error_not_a_recursion_error() -> None:
    with pytest.raises(InputError, match="nested at most"):
        parse_text("digraph {" + "{" * 5000 + "}" * 5000 + "}")


def test_binary_garbage_file(tmp_path: Path) -> None:
    p = tmp_path / "g.dot"
    p.write_bytes(b"digraph {\n \xff\xfe\x00 }\n")
    with pytest.raises(InputError, match=r"g.dot:2: expected UTF-8"):
        list(parse_file(p))


def test_graph_name_sniff_helper() -> None:
    head = b"# This file is @generated\n\n// c\n/* b */ digraph result_graph {\n"
    assert dot_body(head).startswith(b"digraph")
    assert graph_name(head) == "result_graph"
    assert graph_name(b'digraph "slimsample" {') == "slimsample"
    assert graph_name(b"digraph {") == ""
    assert graph_name(b'{"type": "RULE"}') is None


@given(st.text(max_size=300))
@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_arbitrary_text_gives_input_error_or_statements(text: str) -> None:
    message = ""
    try:
        parse_text(text)
    except InputError as exc:
        message = str(exc)
    assert "\n" not in message


_DOT_ALPHABET = st.sampled_from(
    [
        "digraph",
        "graph",
        "subgraph",
        "node",
        "edge",
        "{",
        "}",
        "[",
        "]",
        ";",
        ",",
        "=",
        ":",
        "->",
        "--",
        '"',
        "\\",
        '"a b"',
        "x",
        "1",
        "/*",
        "*/",
        "//",
        "\n",
        "#",
        "<",
        ">",
        "+",
        " ",
    ]
)


@given(st.lists(_DOT_ALPHABET, max_size=60))
@settings(deadline=None, max_examples=400)
def test_dot_shaped_token_soup_gives_input_error_or_statements(parts: list[str]) -> None:
    with contextlib.suppress(InputError):
        parse_text(" ".join(parts))


def _graphviz_edges(path: Path) -> tuple[set[str], Counter[tuple[str, str]]]:
    out = subprocess.run(
        ["dot", "-Tjson0", str(path)], check=True, capture_output=True, timeout=60
    ).stdout
    doc = json.loads(out)
    objs = doc.get("objects", [])
    names = {o["name"] for o in objs if "nodes" not in o and "subgraphs" not in o}
    es = Counter((objs[e["tail"]]["name"], objs[e["head"]]["name"]) for e in doc.get("edges", []))
    return names, es


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: str(p.relative_to(DATA)))
def test_real_samples_agree_with_graphviz(sample: Path) -> None:
    if shutil.which("dot") is None:
        pytest.skip("graphviz `dot` not installed: cannot cross-check the parser")
    sts = list(parse_file(sample))
    ours_nodes = {s.id for s in sts if isinstance(s, DotNode)}
    ours_nodes |= {x for s in sts if isinstance(s, DotEdge) for x in (s.src, s.dst)}
    ours_edges = Counter((s.src, s.dst) for s in sts if isinstance(s, DotEdge))
    names, theirs = _graphviz_edges(sample)
    assert ours_nodes == names
    assert ours_edges == theirs


_LINE_PARTS = st.sampled_from(
    [
        '"a"',
        '"b c"',
        "x",
        "12",
        '"q\\"t"',
        '"n\\\\"',
        "->",
        "--",
        "[",
        "]",
        "k=v",
        'k="v w"',
        ",",
        ";",
        "=",
        "// c",
        "node",
        "{",
        "}",
        " ",
        "-",
        "\\",
        '"',
    ]
)


@given(st.lists(st.lists(_LINE_PARTS, max_size=8), max_size=8))
@settings(deadline=None, max_examples=400)
def test_simple_line_shortcut_changes_nothing(lines: list[list[str]]) -> None:
    text = "digraph {\n" + "\n".join(" ".join(p) for p in lines) + "\n}\n"
    results = []
    for fast in (True, False):
        try:
            results.append(("ok", parse_text(text, fast=fast)))
        except InputError as exc:
            results.append(("error", [str(exc)]))
    assert results[0][0] == results[1][0]
    if results[0][0] == "ok":
        assert results[0][1] == results[1][1]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: str(p.relative_to(DATA)))
def test_simple_line_shortcut_on_real_samples(sample: Path) -> None:
    text = sample.read_text(encoding="utf-8")
    assert parse_text(text, fast=True) == parse_text(text, fast=False)


def test_dialect_sniffers_tell_samples_apart_and_leave_generic_dot_alone(tmp_path: Path) -> None:
    from slim.ingest import detect

    expected = {"bazel": "bazel-graph", "buck2": "buck2-dot", "cmake": "cmake-graphviz"}
    for sample in SAMPLES:
        area = sample.relative_to(DATA).parts[0]
        assert detect(sample, "graph").name == expected.get(area, "ninja-graph"), sample
    generic = tmp_path / "g.dot"
    generic.write_text("digraph G {\n  a -> b\n}\n")
    with pytest.raises(InputError, match="expected a graph input"):
        detect(generic, "graph")


def test_subgraph_product_bomb_is_refused() -> None:
    side = " ".join(f"n{i}" for i in range(1500))
    with pytest.raises(InputError, match="at most 1000000 edges"):
        parse_text(f"digraph {{ {{{side}}} -> {{{side}}} }}")
