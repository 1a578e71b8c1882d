"""Bazel query/cquery --output=label_kind: nodes, kinds, configurations and the no-edges note."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import load_graph
from slim.ingest.graph import bazel_label_kind
from slim.model.canonical import graph_to_canonical
from tests.golden import golden_mismatch, loads_or_refuses, update_goldens

DATA = Path(__file__).parents[2] / "data" / "bazel"
UPDATE = update_goldens()
HYPOTHESIS_DIR = Path(tempfile.mkdtemp(prefix="slim-lk-"))


@pytest.mark.parametrize("sample", ["query.label_kind.txt", "cquery.label_kind.txt"])
def test_golden(sample: str) -> None:
    g = load_graph([DATA / sample])
    assert g.formats == ("bazel-label-kind",)
    msg = golden_mismatch(graph_to_canonical(g), DATA / f"{sample}.expected.json", UPDATE)
    assert msg is None, msg


def test_query_sample_has_the_eight_rules_and_no_edges() -> None:
    g = load_graph([DATA / "query.label_kind.txt"])
    assert sorted(zip(g.labels, g.kinds, strict=True)) == [
        ("//app:app", "cc_binary"),
        ("//java:api", "java_library"),
        ("//java:impl", "java_library"),
        ("//java:rt", "java_library"),
        ("//lib:core", "cc_library"),
        ("//lib:util", "cc_library"),
        ("//py:mypkg", "py_library"),
        ("//py:tool", "py_binary"),
    ]
    assert g.edge_count == 0
    assert bazel_label_kind.NOTE in g.notes
    assert "no dependency edges" in bazel_label_kind.NOTE


def test_cquery_sample_keeps_every_configuration_of_a_label() -> None:
    g = load_graph([DATA / "cquery.label_kind.txt"])
    k8 = g.ids["@local_config_cc//:cc-compiler-k8"]
    assert g.configurations[k8] == ("HOST", "f5527a6")
    assert g.kinds[g.ids["//app:app"]] == "cc_binary"
    assert not [lab for lab in g.labels if "(" in lab or lab.endswith(".cc")]
    assert not [lab for lab in g.labels if "whitelists" in lab]


@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        ("cc_library rule //lib:util (f5527a6)", ("cc_library", "//lib:util", "f5527a6")),
        ("source file //app:main.cc (null)", ("source file", "//app:main.cc", None)),
        ("source file //d:my file (1).txt", ("source file", "//d:my file (1).txt", None)),
        ("generated file //x:out.h", ("generated file", "//x:out.h", None)),
        ("package group //x:friends", ("package group", "//x:friends", None)),
        ("cc_library rule @@rules_cc+//cc:lib", ("cc_library", "@@rules_cc+//cc:lib", None)),
        ("cc_library //lib:util", None),
        ("2 //lib:core", None),
    ],
)
def test_parse_line(line: str, parsed: tuple[str, str, str | None] | None) -> None:
    assert bazel_label_kind.parse_line(line) == parsed


def test_log_lines_crlf_and_sources_without_owner(tmp_path: Path) -> None:
    p = tmp_path / "lk.txt"
    p.write_bytes(
        b"INFO: Invocation ID: 42\r\ncc_binary rule //app:app\r\n"
        b"source file //app:main.cc\r\ngenerated file //app:gen.h\r\n"
    )
    g = load_graph([p])
    assert g.labels == ["//app:app"]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", r":1: expected at least one `<kind> <label>` line, found none"),
        (b"cc_binary rule //app:app\nsource fi\n", r":2: expected `<rule class> rule <label>`"),
        (b"cc_binary rule //app:app\nsource file //app:ma", r":2: expected a newline at the end"),
        (b"0 //app:app\n", r":1: expected `<rule class> rule <label>`"),
        (b"cc_binary rule //app:app\n\xff\xfe\x00\x01\n", r":2: expected UTF-8 text"),
    ],
)
def test_bad_input(tmp_path: Path, data: bytes, match: str) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(data)
    with pytest.raises(InputError, match=match):
        load_graph([p], "bazel-label-kind")


def test_wrong_format_is_refused() -> None:
    with pytest.raises(InputError, match=r"query\.minrank\.txt:1: expected"):
        load_graph([DATA / "query.minrank.txt"], "bazel-label-kind")
    with pytest.raises(InputError):
        load_graph([DATA / "query.pb"], "bazel-label-kind")


def test_sniff() -> None:
    assert bazel_label_kind.sniff(b"cc_binary rule //app:app\n", Path("x"))
    assert bazel_label_kind.sniff(b"source file @r//a:b.c (null)\n", Path("x"))
    assert not bazel_label_kind.sniff(b"0 //app:app\n", Path("x"))
    assert not bazel_label_kind.sniff(b"digraph mygraph {\n", Path("x"))


@settings(deadline=None, max_examples=150)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    path = HYPOTHESIS_DIR / "arbitrary.txt"
    path.write_bytes(data)
    assert loads_or_refuses(bazel_label_kind.load, path)
