"""Bazel --output=proto / streamed_proto: goldens, the cross-check with XML and JSON, and
hostile bytes (lengths past the end, over-long varints, garbage)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import load_graph
from slim.ingest.graph import bazel_proto
from slim.model.canonical import graph_to_canonical
from slim.model.graph import EdgeKind, GraphBuilder
from tests.golden import golden_mismatch, loads_or_refuses, update_goldens

DATA = Path(__file__).parents[2] / "data" / "bazel"
UPDATE = update_goldens()
HYPOTHESIS_DIR = Path(tempfile.mkdtemp(prefix="slim-proto-"))


def _vi(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _ld(field: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _shape(path: Path, fmt: str | None = None) -> dict[str, Any]:
    """The canonical graph without what legitimately differs between formats."""
    c = graph_to_canonical(load_graph([path], fmt))
    for t in c["targets"]:
        t.pop("attrs")
    c.pop("formats")
    return c


@pytest.mark.parametrize("sample", ["query.pb", "query.streamed.pb"])
def test_golden(sample: str) -> None:
    graph = load_graph([DATA / sample])
    msg = golden_mismatch(graph_to_canonical(graph), DATA / f"{sample}.expected.json", UPDATE)
    assert msg is None, msg


@pytest.mark.parametrize(
    ("sample", "fmt"), [("query.pb", "bazel-proto"), ("query.streamed.pb", "bazel-streamed-proto")]
)
def test_both_samples_hold_13_targets(
    sample: str, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    real = bazel_proto.add_target

    def spy(b: GraphBuilder, t: Any, configuration: str | None = None) -> None:
        seen.append(t.type)
        real(b, t, configuration)

    monkeypatch.setattr(bazel_proto, "add_target", spy)
    graph = load_graph([DATA / sample])
    assert graph.formats == (fmt,)
    assert sorted(seen) == ["RULE"] * 8 + ["SOURCE_FILE"] * 5


def test_proto_streamed_xml_and_jsonproto_describe_the_same_graph() -> None:
    pb = _shape(DATA / "query.pb")
    assert _shape(DATA / "query.streamed.pb") == pb
    assert _shape(DATA / "query.xml") == pb
    assert _shape(DATA / "query.streamed_jsonproto.ndjson") == pb


def test_typed_edges_and_locations_from_the_sample() -> None:
    g = load_graph([DATA / "query.pb"])
    impl = g.lookup("//java:impl")
    assert impl is not None
    kinds = {(g.labels[e.dep], e.kind) for e in g.out_edges(impl)}
    assert ("//java:api", EdgeKind.DEPS) in kinds
    assert ("//java:api", EdgeKind.EXPORTS) in kinds
    assert ("//java:rt", EdgeKind.RUNTIME_DEPS) in kinds
    t = g.target(impl)
    assert (t.kind, str(t.location)) == ("java_library", "java/BUILD:5")
    tool = g.target(g.ids["//py:tool"])
    assert [g.labels[e.dep] for e in g.out_edges(tool.id, frozenset({EdgeKind.DATA}))] == []
    assert g.target(g.ids["//py:mypkg"]).attrs["imports"] == ("src",)


def test_implicit_attributes_outside_rule_input_are_not_edges() -> None:
    """The sample was made with --noimplicit_deps: `$java_toolchain` still has a value in
    the attribute list but not in rule_input, so it must not become an edge."""
    g = load_graph([DATA / "query.pb"])
    assert not [lab for lab in g.labels if lab.startswith("@bazel_tools")]


def _target(rule: bytes) -> bytes:
    return _vi(1, 1) + _ld(2, rule)


def test_select_values_are_edges_but_condition_keys_are_not(tmp_path: Path) -> None:
    entry_linux = _ld(1, "//conditions:linux") + _ld(6, "//x:linux_dep")
    entry_default = _ld(1, "//conditions:default") + _ld(6, "//x:default_dep")
    selector = _ld(1, entry_linux) + _ld(1, entry_default)
    sel_list = _vi(1, 6) + _ld(2, selector)
    attr = _ld(1, "deps") + _vi(2, 20) + _ld(21, sel_list)
    rule = _ld(1, "//x:lib") + _ld(2, "cc_library") + _ld(3, "/ws/x/BUILD:3:1") + _ld(4, attr)
    p = _write(tmp_path, "sel.pbs", _varint(len(_target(rule))) + _target(rule))
    g = load_graph([p], "bazel-streamed-proto")
    edges = {(g.labels[e.dep], e.kind) for e in g.out_edges(g.ids["//x:lib"])}
    assert edges == {("//x:linux_dep", EdgeKind.DEPS), ("//x:default_dep", EdgeKind.DEPS)}
    assert str(g.target(g.ids["//x:lib"]).location) == "/ws/x/BUILD:3"


def test_generated_file_folds_into_its_rule(tmp_path: Path) -> None:
    gen = _vi(1, 3) + _ld(4, _ld(1, "//x:out.h") + _ld(2, "//x:gen"))
    genrule = _target(_ld(1, "//x:gen") + _ld(2, "genrule"))
    attr = _ld(1, "hdrs") + _vi(2, 6) + _ld(6, "//x:out.h")
    lib = _target(_ld(1, "//x:lib") + _ld(2, "cc_library") + _ld(4, attr) + _ld(5, "//x:out.h"))
    p = _write(tmp_path, "g.pb", _ld(1, lib) + _ld(1, gen) + _ld(1, genrule))
    g = load_graph([p], "bazel-proto")
    assert "//x:out.h" not in g.ids
    assert [(g.labels[e.dep], e.kind) for e in g.out_edges(g.ids["//x:lib"])] == [
        ("//x:gen", EdgeKind.SRCS)
    ]


@pytest.mark.parametrize(
    ("data", "expected", "offset"),
    [
        (b"\x0a\x05\x08\x01", "a length within the enclosing message", 0),
        (b"\x0a" + b"\xff" * 10 + b"\x01", "a varint of at most 10 bytes", 1),
        (b"\x0a\x02\x08", "a length within the enclosing message", 0),
        (b"\x0a\x02\x08\x01\x0f", "wire type", 4),
        (b"\x0a\x04\x08\x01\x12\x00", "a Rule with a name", 6),
        (b"\x12\x02\x08\x01", "QueryResult field 1", 0),
    ],
)
def test_hostile_query_result(tmp_path: Path, data: bytes, expected: str, offset: int) -> None:
    p = _write(tmp_path, "bad.pb", data)
    with pytest.raises(InputError) as err:
        load_graph([p], "bazel-proto")
    msg = str(err.value)
    assert expected in msg
    assert f":byte {offset}:" in msg
    assert "\n" not in msg


def test_bad_utf8_string_is_an_input_error_at_its_offset(tmp_path: Path) -> None:
    rule = _ld(1, b"//x:\xff\xfe")
    p = _write(tmp_path, "u.pbs", _varint(len(_target(rule))) + _target(rule))
    with pytest.raises(InputError, match=r"byte 11: expected a UTF-8 string"):
        load_graph([p], "bazel-streamed-proto")


def test_streamed_length_past_the_end(tmp_path: Path) -> None:
    p = _write(tmp_path, "s.pbs", (DATA / "query.streamed.pb").read_bytes()[:3000])
    with pytest.raises(InputError, match=r"byte \d+: expected a"):
        load_graph([p], "bazel-streamed-proto")


def test_truncated_sample_is_detected_and_refused(tmp_path: Path) -> None:
    p = _write(tmp_path, "t.pb", (DATA / "query.pb").read_bytes()[:5000])
    with pytest.raises(InputError, match=r"t\.pb:byte \d+: expected "):
        load_graph([p])


@pytest.mark.parametrize("fmt", ["bazel-proto", "bazel-streamed-proto"])
def test_empty_wrong_format_and_garbage(tmp_path: Path, fmt: str) -> None:
    empty = _write(tmp_path, "empty.pb", b"")
    with pytest.raises(InputError, match="at least one Target"):
        load_graph([empty], fmt)
    with pytest.raises(InputError):
        load_graph([DATA / "query.xml"], fmt)
    garbage = _write(tmp_path, "garbage.pb", random.Random(7).randbytes(4096))
    with pytest.raises(InputError):
        load_graph([garbage], fmt)


def test_sniffing_tells_the_two_layouts_apart() -> None:
    pb = (DATA / "query.pb").read_bytes()[:8192]
    spb = (DATA / "query.streamed.pb").read_bytes()[:8192]
    p = Path("x")
    assert bazel_proto.sniff_query_result(pb, p)
    assert not bazel_proto.sniff_streamed(pb, p)
    assert bazel_proto.sniff_streamed(spb, p)
    assert not bazel_proto.sniff_query_result(spb, p)
    assert not bazel_proto.sniff_streamed(b"<?xml", p)
    assert not bazel_proto.sniff_query_result(b"", p)


def test_cli_reports_a_truncated_proto_in_one_line(tmp_path: Path) -> None:
    p = _write(tmp_path, "cut.pb", (DATA / "query.pb").read_bytes()[:4000])
    env = {**os.environ, "SLIM_CACHE_DIR": str(tmp_path / "cache")}
    run = subprocess.run(
        [sys.executable, "-m", "slim", "report", "//x:y", "--graph", str(p)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "cut.pb:byte " in lines[0]
    assert "expected" in lines[0]
    assert run.stdout == ""


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    path = HYPOTHESIS_DIR / "arbitrary.pb"
    path.write_bytes(data)
    for loader in (bazel_proto.load_query_result, bazel_proto.load_streamed):
        assert loads_or_refuses(loader, path)


def test_rule_inputs_stay_implicit_when_every_attribute_is_skipped(tmp_path: Path) -> None:
    """Only irrelevant attributes: the reader drops their values, yet rule_input labels
    must still be typed IMPLICIT (attributes exist), exactly as the JSON reader does."""
    attr = _ld(1, "visibility") + _vi(2, 5) + _ld(6, "//visibility:public")
    rule = _ld(1, "//x:t") + _ld(2, "toolchain") + _ld(4, attr) + _ld(5, "//x:dep")
    p = _write(tmp_path, "t.pbs", _varint(len(_target(rule))) + _target(rule))
    g = load_graph([p], "bazel-streamed-proto")
    assert [(g.labels[e.dep], e.kind) for e in g.out_edges(g.ids["//x:t"])] == [
        ("//x:dep", EdgeKind.IMPLICIT)
    ]
