"""Bazel `query`/`cquery --output=graph` DOT on the real Bazel 4.2.3 samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import detect, load_graph
from slim.ingest.graph.bazel_dot import is_source_label, split_node_id
from slim.model.graph import EdgeKind
from tests.ingest._canonical import check_golden

DATA = Path(__file__).parents[2] / "data" / "bazel"
SAMPLES = sorted(DATA.glob("*.dot"))


def _write(tmp_path: Path, text: str, name: str = "g.dot") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_golden(sample: Path, request: pytest.FixtureRequest) -> None:
    assert detect(sample, "graph").name == "bazel-graph"
    check_golden(load_graph([sample]), sample, request)


def test_factored_and_unfactored_give_the_same_graph() -> None:
    a = load_graph([DATA / "query.graph.dot"])
    b = load_graph([DATA / "query.graph.unfactored.dot"])
    assert a.labels == b.labels
    assert sorted(zip(a.edge_src.tolist(), a.edge_dst.tolist(), strict=True)) == sorted(
        zip(b.edge_src.tolist(), b.edge_dst.tolist(), strict=True)
    )


def test_query_graph_model() -> None:
    g = load_graph([DATA / "query.graph.dot"])
    # source files (main.cc, util.cc, util.txt, core.h, core.cc) are not targets
    assert sorted(g.labels) == ["//app:app", "//lib:core", "//lib:util"]
    assert set(g.kinds) == {"rule"}
    app, util, core = g.lookup("//app:app"), g.lookup("//lib:util"), g.lookup("//lib:core")
    assert app is not None
    assert util is not None
    assert core is not None
    assert g.edge_kinds(app, util) == [EdgeKind.UNTYPED]
    assert g.edge_kinds(util, core) == [EdgeKind.UNTYPED]
    assert any("untyped" in n for n in g.notes)


def test_cquery_configurations_split_off() -> None:
    g = load_graph([DATA / "cquery.graph.dot"])
    assert sorted(g.labels) == ["//app:app", "//lib:core", "//lib:util"]
    for i in range(len(g)):
        assert g.configurations[i] == ("f5527a6",)


def test_implicit_deps_select_edges_and_merged_nodes() -> None:
    g = load_graph([DATA / "query.graph.implicit-deps.dot"])
    dp = g.lookup("@bazel_tools//tools/def_parser:def_parser")
    win = g.lookup("@bazel_tools//tools/def_parser:def_parser_windows")
    cond = g.lookup("@bazel_tools//src/conditions:host_windows")
    assert dp is not None
    assert win is not None
    assert cond is not None
    # `"a" -> "b"` then `[label=...]` on the next line is one statement
    assert {e.dep for e in g.out_edges(dp)} >= {win, cond}
    # a merged node of three labels: each one its own node with the same predecessors
    empty = g.lookup("@local_config_cc//:empty")
    assert empty is not None
    preds = {e.target for e in g.in_edges(empty)}
    assert {g.labels[p] for p in preds} == {
        "@local_config_cc//:cc-compiler-k8",
        "@local_config_cc//:cc-compiler-armeabi-v7a",
    }


def test_node_limit_truncation_is_noted(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        'digraph mygraph {\n  "//a:a"\n  "//a:a" -> "//a:b\\n//a:c...and 7 more items"\n'
        '  "//a:b\\n//a:c...and 7 more items"\n}\n',
    )
    g = load_graph([p])
    assert sorted(g.labels) == ["//a:a", "//a:b", "//a:c"]
    assert any("incomplete" in n and "7 labels" in n for n in g.notes)


def test_split_node_id() -> None:
    assert split_node_id("//a:b (abc)\\n//a:c.cc (null)") == (
        [("//a:b", "abc"), ("//a:c.cc", None)],
        0,
    )
    assert split_node_id("//a\\n...and 3 more items") == ([("//a:a", None)], 3)


def test_source_heuristic() -> None:
    assert is_source_label("//lib:util.cc")
    assert is_source_label("//lib:x/y/gen.PY")
    assert not is_source_label("//lib:util")
    assert not is_source_label("//lib:libfoo.so")


def test_rule_named_like_a_file_with_deps_stays_a_target(tmp_path: Path) -> None:
    p = _write(
        tmp_path, 'digraph mygraph {\n "//a:gen.h" -> "//a:tool"\n "//a:gen.h"\n "//a:tool"\n}'
    )
    g = load_graph([p])
    assert sorted(g.labels) == ["//a:gen.h", "//a:tool"]


def test_log_lines_before_the_graph_are_skipped(tmp_path: Path) -> None:
    text = (DATA / "query.graph.dot").read_text()
    p = _write(tmp_path, "INFO: Invocation ID: 1234\nLoading: 0 packages loaded\n" + text)
    assert detect(p, "graph").name == "bazel-graph"
    assert sorted(load_graph([p]).labels) == ["//app:app", "//lib:core", "//lib:util"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "expected a DOT graph"),
        (b'digraph mygraph {\n  "//a:a" -> "//a:b\n', ':2: expected a closing `"`'),
        (b'digraph mygraph {\n  "//a:a" -> "//a:b"\n', ":2: expected `}` closing the graph"),
        (b"digraph mygraph {\n\x00\xff\xfe garbage", ":2: expected text, found a NUL byte"),
        (b'{"type": "RULE"}\n', ":1: expected `digraph` or `graph`"),
    ],
    ids=["empty", "unterminated-string", "truncated", "binary", "wrong-format"],
)
def test_bad_input(tmp_path: Path, content: bytes, expected: str) -> None:
    p = tmp_path / "bad.dot"
    p.write_bytes(content)
    with pytest.raises(InputError, match=expected) as exc:
        load_graph([p], "bazel-graph")
    assert "\n" not in str(exc.value)


def test_gzipped_graph(tmp_path: Path) -> None:
    import gzip

    p = tmp_path / "query.graph.dot.gz"
    p.write_bytes(gzip.compress((DATA / "query.graph.dot").read_bytes()))
    assert detect(p, "graph").name == "bazel-graph"
    assert load_graph([p]).labels == load_graph([DATA / "query.graph.dot"]).labels
