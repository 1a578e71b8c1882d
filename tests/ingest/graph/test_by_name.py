"""The streamed reader's name-typed decoding (`_ByName`) gives the rules the plain decoder
gives, and accepts or rejects a line the same way whatever it learned before."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest.graph import bazel_jsonproto as bj
from slim.model.canonical import graph_to_canonical
from slim.model.graph import GraphBuilder
from tests.ingest.graph.test_streamed_rule import _LABELS, _attribute


def _line(k: int, attrs: list[dict[str, object]], rule_input: list[str]) -> bytes:
    rule: dict[str, object] = {"name": f"//p:r{k}", "ruleClass": "cc_library"}
    rule["location"] = f"p/BUILD:{k}:1"
    rule |= {"attribute": attrs, "ruleInput": [x for x in rule_input if x.startswith("//")]}
    return json.dumps({"type": "RULE", "rule": rule}).encode()


def _graph(rules: list[bj.Rule | None]) -> dict[str, object]:
    b = GraphBuilder()
    for r in rules:
        assert r is not None
        bj._streamed_rule(b, r)
    return graph_to_canonical(b.build())


def _primed(lines: list[bytes]) -> bj._ByName:
    """A decoder that has learned every attribute name of `lines`, its types built."""
    d = bj._ByName()
    for line in lines:
        rule = bj._RAW_TARGET.decode(line).rule
        if rule is not None:
            d._learn(rule.attribute)
    if d._types:
        d._decode = d._decoder()
    return d


_RULES = st.lists(st.tuples(st.lists(_attribute(), max_size=6), _LABELS), min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(_RULES, st.integers(0, 5))
def test_learned_types_give_the_rules_of_the_plain_decoder(
    rules: list[tuple[list[dict[str, object]], list[str]]], learned: int
) -> None:
    lines = [_line(k, attrs, ri) for k, (attrs, ri) in enumerate(rules)]
    d = _primed(lines[:learned])  # the other lines' names are new to it: plain, then learned
    got = [d.decode(line).rule for line in lines]
    want = [bj._TARGET.decode(line).rule for line in lines]
    assert all(r is not None for r in got)
    assert _graph(got) == _graph(want)


def test_a_learned_line_is_decoded_by_the_name_types() -> None:
    line = _line(1, [{"name": "deps", "type": "LABEL_LIST", "stringListValue": ["//a:b"]},
                     {"name": "visibility", "type": "STRING_LIST",
                      "stringListValue": ["//visibility:public"]}], ["//a:b"])  # fmt: skip
    d = bj._ByName()
    first = d.decode(line)
    assert type(first) is bj.Target  # nothing learned yet: the plain decoder
    for _ in range(2 * len(d._types)):
        d.decode(line)
    t = d.decode(line)
    assert type(t).__name__ == "NamedTarget"
    assert t.rule is not None
    deps, visibility = t.rule.attribute
    assert (deps.name, deps.code, deps.string_list_value) == ("deps", bj._ANY, ["//a:b"])
    assert (visibility.name, visibility.code) == ("visibility", bj._SKIP)
    assert not hasattr(visibility, "string_list_value")  # skipped, never made


@pytest.mark.parametrize(
    ("value", "true"),
    [
        ({"booleanValue": True}, True),
        ({"booleanValue": False, "intValue": 1}, False),
        ({"booleanValue": None, "intValue": 1}, True),
        ({"booleanValue": None, "stringValue": "false"}, False),
        ({"intValue": 1}, True),
        ({"stringValue": "true"}, True),
        ({}, False),
    ],
)
def test_a_kept_boolean_is_read_alike_by_the_learned_types(
    value: dict[str, object], true: bool
) -> None:
    """A false `booleanValue` is passed over unread, any other goes to `_truth` as the
    plain decoder's would (a left-out or null one: the other fields decide)."""
    line = _line(1, [{"name": "testonly", "type": "BOOLEAN", **value}], [])
    d = _primed([_line(2, [{"name": "testonly", "type": "BOOLEAN", "booleanValue": False}], [])])
    got, want = d.decode(line).rule, bj._TARGET.decode(line).rule
    assert type(got).__name__ == "NamedRule" or value.get("booleanValue", 0) is None
    graph = _graph([got])
    assert graph == _graph([want])
    assert ("testonly" in str(graph)) is true


_BAD_VALUES = [
    ({"name": "visibility", "type": "STRING_LIST", "stringListValue": 5}, None),
    ({"name": "generator_name", "type": "STRING", "stringValue": ["x"]}, None),
    ({"name": "tags", "type": "STRING_LIST", "stringValue": 7}, None),
    ({"name": "tags", "type": "STRING_LIST", "stringListValue": "a"}, "stringListValue"),
    ({"name": "testonly", "type": "BOOLEAN", "booleanValue": "yes"}, "booleanValue"),
    ({"name": "deps", "type": 3, "stringListValue": ["//a:b"]}, "type"),
    ({"name": 4, "type": "STRING"}, "name"),
]


@pytest.mark.parametrize(("attr", "read"), _BAD_VALUES)
@pytest.mark.parametrize("learned", [False, True])
def test_a_bad_value_is_an_error_only_where_it_is_read(
    attr: dict[str, object], read: str | None, learned: bool
) -> None:
    line = _line(1, [{"name": "srcs", "type": "LABEL_LIST", "stringListValue": [":a.cc"]}, attr],
                 [])  # fmt: skip
    good = _line(2, [{"name": n, "type": "STRING"} for n in ("visibility", "generator_name",
                     "tags", "testonly", "deps", "srcs")], [])  # fmt: skip
    d = _primed([good]) if learned else bj._ByName()
    if read is None:
        t = d.decode(line)
        assert t.rule is not None
        assert [a.name for a in t.rule.attribute] == ["srcs", attr["name"]]
        return
    with pytest.raises(msgspec.ValidationError) as got:
        d.decode(line)
    with pytest.raises(msgspec.ValidationError) as plain:
        bj._TARGET.decode(line)
    assert str(got.value) == str(plain.value)
    assert read in str(got.value)


def test_a_bad_line_after_learning_names_its_line() -> None:
    ok = _line(1, [{"name": "testonly", "type": "BOOLEAN", "booleanValue": False}], [])
    bad = _line(2, [{"name": "testonly", "type": "BOOLEAN", "booleanValue": "no"}], [])
    lines = [ok] * 200 + [bad]
    with pytest.raises(InputError) as exc:
        bj.streamed_lines(GraphBuilder(), 10, lines, "q.ndjson")
    assert exc.value.line == 210
    assert "booleanValue" in str(exc.value)


def test_names_beyond_the_limit_are_read_by_the_plain_decoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bj._ByName, "MAX_NAMES", 3)
    attrs: list[dict[str, object]] = [
        {"name": f"a{k}_deps", "type": "LABEL_LIST", "stringListValue": [f"//x:{k}"]}
        for k in range(8)
    ]
    line = _line(1, attrs, [])
    d = bj._ByName()
    rules = [d.decode(line).rule for _ in range(50)]
    assert len(d._types) == 3
    assert _graph(rules[-1:]) == _graph([bj._TARGET.decode(line).rule])


def test_lines_that_each_bring_a_name_and_a_bad_unread_value_cost_few_rebuilds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    d = bj._ByName()
    built = []
    decoder = d._decoder
    monkeypatch.setattr(d, "_decoder", lambda: built.append(1) or decoder())
    for k in range(2000):
        line = _line(k, [{"name": f"attr_{k}", "type": "STRING", "stringValue": 5}], [])
        t = d.decode(line)
        assert t.rule is not None
        assert t.rule.attribute[0].name == f"attr_{k}"
    assert len(d._types) == 2000
    assert len(built) <= 12  # rebuilt as misses add up, never once a line


def test_a_label_list_learned_without_other_values_reads_them_once_a_line_has_them() -> None:
    """`deps` first seen as a plain label list is learned as one (a value-less one never
    reaches `_streamed_rule`); a later `deps` given by a select() is not dropped: its line
    goes to the plain decoder, the name is learned whole, and the types rebuilt."""
    listed = _line(1, [{"name": "deps", "type": "LABEL_LIST"},
                       {"name": "srcs", "type": "LABEL_LIST", "stringListValue": ["//p:a.cc"]}],
                   [])  # fmt: skip
    selected = _line(2, [{"name": "deps", "type": "LABEL_LIST", "selectorList": {
        "type": "LABEL_LIST",
        "elements": [{"entries": [{"label": "//conditions:default",
                                   "stringListValue": ["//q:lib"]}]}]}}],
        ["//q:lib"])  # fmt: skip
    d = _primed([listed])
    first = d.decode(listed).rule
    assert first is not None
    assert type(first).__name__ == "NamedRule"
    assert [a.name for a in filter(bj._GATE, first.attribute)] == ["srcs"]
    got = [d.decode(selected).rule for _ in range(2 * len(d._types) + 1)]
    assert d._shapes["deps"] == bj._ANY
    assert type(d.decode(selected).rule).__name__ == "NamedRule"
    assert _graph([first, got[-1]]) == _graph(
        [bj._TARGET.decode(x).rule for x in (listed, selected)]
    )
    assert "//q:lib" in str(_graph(got[-1:]))
