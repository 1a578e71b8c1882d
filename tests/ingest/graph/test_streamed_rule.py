"""The streamed reader's inline rule path feeds the builder exactly as `add_rule` does, on
the real exports and on random attribute lists of every value shape."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from slim.ingest.graph import bazel_jsonproto as bj
from slim.model.canonical import graph_to_canonical
from slim.model.graph import GraphBuilder

DATA = Path(__file__).parents[2] / "data" / "bazel"


def _both(rules: list[bj.Rule]) -> tuple[dict[str, object], dict[str, object]]:
    ref, fast = GraphBuilder(), GraphBuilder()
    for r in rules:
        bj.add_rule(ref, r)
        bj._streamed_rule(fast, r)
    a, b = ref.build(), fast.build()
    assert list(a.labels) == list(b.labels)
    return graph_to_canonical(a), graph_to_canonical(b)


def _real_rules() -> list[bj.Rule]:
    rules = []
    for line in (DATA / "query.streamed_jsonproto.ndjson").read_bytes().splitlines():
        if line.startswith(b"{"):
            t = bj._TARGET.decode(line)
            if t.rule is not None:
                rules.append(t.rule)
    cq = json.loads((DATA / "cquery.jsonproto.json").read_text())
    for res in cq["results"]:
        t = bj._TARGET.decode(json.dumps(res["target"]).encode())
        if t.rule is not None:
            rules.append(t.rule)
    return rules


def test_real_exports_give_the_same_graph() -> None:
    rules = _real_rules()
    assert len(rules) > 5
    ref, fast = _both(rules)
    assert ref == fast


_NAMES = st.sampled_from(
    ["deps", "srcs", "hdrs", "data", "tags", "copts", "$implicit", ":tool", "testonly",
     "alwayslink", "main", "visibility", "toolchains", "actual", "name", "compatible_with",
     "linkopts", "includes", "linkstatic", "base_module", "runtime_deps", "imports",
     "defines"]
)  # fmt: skip
_TYPES = st.sampled_from(
    ["LABEL_LIST", "LABEL", "STRING_LIST", "STRING", "BOOLEAN", "INTEGER", "OUTPUT",
     "SELECTOR_LIST", "LABEL_LIST_DICT", "LABEL_DICT_UNARY", "LABEL_KEYED_STRING_DICT"]
)  # fmt: skip
_LABELS = st.lists(
    st.sampled_from(["//a:x", "//b:y", ":z", "//c:w.cc", "@r//d:v", "@//a:x", "@@//e", "//f"]),
    max_size=3,
)


@st.composite
def _attribute(draw: st.DrawFn) -> dict[str, object]:
    typ = draw(st.one_of(st.just("LABEL_LIST"), _TYPES))
    a: dict[str, object] = {"name": draw(_NAMES), "type": typ}
    if draw(st.booleans()):
        a["stringListValue"] = draw(_LABELS)
    if draw(st.booleans()):
        a["stringValue"] = draw(st.sampled_from(["//a:x", "true", "", "0"]))
    if draw(st.booleans()):
        a["booleanValue"] = draw(st.sampled_from([True, False, None]))
    if draw(st.booleans()):
        a["intValue"] = draw(st.integers(0, 1))
    if draw(st.booleans()):
        a["selectorList"] = {
            "type": draw(_TYPES),
            "elements": [{"entries": [{"label": ":c", "stringListValue": draw(_LABELS)}]}],
        }
    if draw(st.booleans()):
        a["labelListDictValue"] = [{"key": "k", "value": draw(_LABELS)}]
    if draw(st.booleans()):
        a["labelKeyedStringDictValue"] = [{"key": "//k:k", "value": "v"}]
    return a


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(_attribute(), max_size=6), _LABELS, st.booleans()), min_size=1,
        max_size=4,
    )
)  # fmt: skip
def test_random_rules_give_the_same_graph(
    rules: list[tuple[list[dict[str, object]], list[str], bool]],
) -> None:
    decoded = []
    for k, (attrs, rule_input, located) in enumerate(rules):
        rule: dict[str, object] = {"name": f"//p:r{k}", "ruleClass": "cc_library"}
        rule["attribute"] = attrs
        rule["ruleInput"] = [x for x in rule_input if x.startswith("//")]
        if located:
            rule["location"] = f"p/BUILD:{k + 1}:3"
        line = json.dumps({"type": "RULE", "rule": rule}).encode()
        t = bj._TARGET.decode(line)
        assert t.rule is not None
        decoded.append(t.rule)
    ref, fast = _both(decoded)
    assert ref == fast


_SPELLINGS = st.sampled_from(["//p:{}", "@//p:{}", "@@//p:{}", "//p/{}"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["RULE", "SOURCE_FILE"]), _SPELLINGS, st.sampled_from("abc"), _LABELS
        ),
        min_size=1,
        max_size=8,
    )
)
def test_streamed_lines_give_the_graph_of_add_target_whatever_the_spelling(
    targets: list[tuple[str, str, str, list[str]]],
) -> None:
    """Rule names and source files as a tool may print them (`@//p:a`, `//p/a`): the
    streamed reader's lines (a canonical name taken as is, a source file's left to the
    queue to normalize) give the builder what `add_target` gives for each line."""
    lines = []
    for kind, spelling, name, srcs in targets:
        label = spelling.format(name)
        if kind == "SOURCE_FILE":
            lines.append({"type": kind, "sourceFile": {"name": label}})
        else:
            attr = {"name": "srcs", "type": "LABEL_LIST", "stringListValue": srcs}
            lines.append({"type": kind, "rule": {"name": label, "attribute": [attr]}})
    raw = [json.dumps(x).encode() for x in lines]
    ref, fast = GraphBuilder(), GraphBuilder()
    for line in raw:
        bj.add_target(ref, bj._TARGET.decode(line))
    bj.streamed_lines(fast, 1, raw, "q.ndjson")
    a, b = ref.build(), fast.build()
    assert list(a.labels) == list(b.labels)
    assert graph_to_canonical(a) == graph_to_canonical(b)
