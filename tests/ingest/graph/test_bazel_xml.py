"""Bazel --output=xml: the golden, the streaming reader's edge cases and bad input."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import load_graph
from slim.ingest.graph import bazel_xml
from slim.model.canonical import graph_to_canonical
from slim.model.graph import EdgeKind
from tests.golden import golden_mismatch, loads_or_refuses, update_goldens

DATA = Path(__file__).parents[2] / "data" / "bazel"
UPDATE = update_goldens()
HYPOTHESIS_DIR = Path(tempfile.mkdtemp(prefix="slim-xml-"))

GENERATED = b"""<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <rule class="genrule" location="/ws/x/BUILD:1:8" name="//x:gen">
        <list name="outs">
            <output value="//x:out.h"/>
        </list>
        <list name="tools">
            <label value="//tools:stamp"/>
        </list>
        <rule-input name="//tools:stamp"/>
        <rule-output name="//x:out.h"/>
    </rule>
    <generated-file generating-rule="//x:gen" location="/ws/x/BUILD:1:8" name="//x:out.h"/>
    <rule class="cc_library" location="/ws/x/BUILD:6:11" name="//x:lib">
        <list name="hdrs">
            <label value="//x:out.h"/>
        </list>
        <label name="malloc" value="//x:my_malloc"/>
        <boolean name="alwayslink" value="true"/>
        <list name="tags">
            <string value="manual"/>
        </list>
        <rule-input name="//x:out.h"/>
        <rule-input name="//x:my_malloc"/>
        <rule-input name="@bazel_tools//tools/cpp:toolchain"/>
    </rule>
    <package-group name="//x:friends" location="/ws/x/BUILD:12:14"/>
</query>
"""


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_golden() -> None:
    msg = golden_mismatch(
        graph_to_canonical(load_graph([DATA / "query.xml"])),
        DATA / "query.xml.expected.json",
        UPDATE,
    )
    assert msg is None, msg


def test_sample_edges_kinds_and_locations() -> None:
    g = load_graph([DATA / "query.xml"])
    assert g.formats == ("bazel-xml",)
    impl = g.ids["//java:impl"]
    assert sorted((g.labels[e.dep], e.kind) for e in g.out_edges(impl)) == [
        ("//java:api", EdgeKind.DEPS),
        ("//java:api", EdgeKind.EXPORTS),
        ("//java:rt", EdgeKind.RUNTIME_DEPS),
    ]
    t = g.target(impl)
    assert (t.kind, str(t.location), t.srcs) == (
        "java_library",
        "java/BUILD:5",
        ("//java:com/ex/Impl.java",),
    )
    assert g.target(g.ids["//py:mypkg"]).attrs == {"imports": ("src",)}


def test_generated_files_fold_and_rule_input_only_labels_are_implicit(tmp_path: Path) -> None:
    g = load_graph([_write(tmp_path, "g.xml", GENERATED)])
    lib = g.ids["//x:lib"]
    assert sorted((g.labels[e.dep], e.kind) for e in g.out_edges(lib)) == [
        ("//x:gen", EdgeKind.SRCS),
        ("//x:my_malloc", EdgeKind.IMPLICIT),
        ("@bazel_tools//tools/cpp:toolchain", EdgeKind.IMPLICIT),
    ]
    t = g.target(lib)
    assert t.tags == ("manual",)
    assert t.attrs == {"alwayslink": True}
    assert "//x:friends" not in g.ids
    assert "//x:out.h" not in g.ids
    gen = g.ids["//x:gen"]
    assert [(g.labels[e.dep], e.kind) for e in g.out_edges(gen)] == [
        ("//tools:stamp", EdgeKind.TOOLS)
    ]


def test_log_lines_and_crlf_are_accepted(tmp_path: Path) -> None:
    body = (DATA / "query.xml").read_bytes().replace(b"\n", b"\r\n")
    p = _write(tmp_path, "l.xml", b"INFO: Invocation ID: 1234\r\nLoading: 0 packages\r\n" + body)
    expected = graph_to_canonical(load_graph([DATA / "query.xml"]))
    assert graph_to_canonical(load_graph([p])) == expected


def test_a_doctype_is_refused_before_any_entity_expands(tmp_path: Path) -> None:
    bomb = (
        b'<?xml version="1.0"?>\n<!DOCTYPE q [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<query>&b;</query>\n'
    )
    with pytest.raises(InputError, match=r":2: expected a Bazel query XML document"):
        load_graph([_write(tmp_path, "bomb.xml", bomb)], "bazel-xml")


def test_truncated_sample_names_the_line(tmp_path: Path) -> None:
    text = (DATA / "query.xml").read_bytes()
    p = _write(tmp_path, "cut.xml", text[: text.index(b"//java:rt") + 3])
    with pytest.raises(InputError) as err:
        load_graph([p])
    msg = str(err.value)
    assert "cut.xml:" in msg
    assert "expected well-formed XML" in msg
    assert "\n" not in msg


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", r":1: expected a <query> XML document, found no elements"),
        (b'<?xml version="1.1"?>\n<graph/>\n', r":2: expected a <query> root element"),
        (b'<?xml version="1.1"?>\n<query version="2">\n</query>\n', "at least one <rule>"),
        (b'<?xml version="1.1"?>\n<query>\n<rule class="x"/>\n</query>\n', r":3: expected a name="),
        (b"digraph mygraph {\n}\n", r":1: expected well-formed XML"),
        (  # an encoding Python has no codec for (expat raised LookupError)
            b'<?xml version="1.1" encoding="TTF-8"?>\n<query version="2">\n</query>\n',
            r":1: expected an XML declaration of a known encoding \(Bazel writes UTF-8\), "
            "found unknown encoding: TTF-8$",
        ),
    ],
)
def test_bad_documents(tmp_path: Path, data: bytes, match: str) -> None:
    with pytest.raises(InputError, match=match):
        load_graph([_write(tmp_path, "bad.xml", data)], "bazel-xml")


def test_binary_garbage_and_a_proto_file(tmp_path: Path) -> None:
    garbage = _write(tmp_path, "g.xml", random.Random(3).randbytes(2048))
    with pytest.raises(InputError):
        load_graph([garbage], "bazel-xml")
    with pytest.raises(InputError):
        load_graph([DATA / "query.pb"], "bazel-xml")


def test_sniff() -> None:
    head = (DATA / "query.xml").read_bytes()[:8192]
    assert bazel_xml.sniff(head, Path("q.xml"))
    assert bazel_xml.sniff(b"INFO: x\n" + head, Path("q.xml"))
    assert not bazel_xml.sniff(b'<?xml version="1.0"?>\n<svg/>', Path("a.svg"))


@settings(deadline=None, max_examples=150)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    path = HYPOTHESIS_DIR / "arbitrary.xml"
    path.write_bytes(b'<?xml version="1.1"?>\n<query>\n' + data)
    assert loads_or_refuses(bazel_xml.load, path)
