"""Buck2 query JSON and targets JSON, on fixtures built from buck2's own test goldens."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import load_graph
from slim.ingest.graph import buck2_json
from slim.model.canonical import graph_to_canonical
from slim.model.graph import EdgeKind, GraphBuilder
from tests.golden import golden_mismatch, loads_or_refuses, update_goldens

DATA = Path(__file__).parents[2] / "data" / "buck2"
UPDATE = update_goldens()
HYPOTHESIS_DIR = Path(tempfile.mkdtemp(prefix="slim-buck2-"))
FIXTURES = {
    "cquery_attributes.json": "buck2-query-json",
    "cquery_labels.json": "buck2-query-json",
    "multi_query_universe.json": "buck2-query-json",
    "uquery_select.json": "buck2-query-json",
    "targets_keep_going.json": "buck2-targets-json",
    "ctargets_json_report.json": "buck2-targets-json",
    "targets.jsonl": "buck2-targets-json",
}


def _edges(g: Any, label: str) -> list[tuple[str, EdgeKind]]:
    return sorted((g.labels[e.dep], e.kind) for e in g.out_edges(g.ids[label]))


@pytest.mark.parametrize(("name", "fmt"), sorted(FIXTURES.items()))
def test_golden(name: str, fmt: str) -> None:
    g = load_graph([DATA / name])
    assert g.formats == (fmt,)
    msg = golden_mismatch(graph_to_canonical(g), DATA / f"{name}.expected.json", UPDATE)
    assert msg is None, msg


def test_cquery_attributes_split_configured_labels() -> None:
    g = load_graph([DATA / "cquery_attributes.json"])
    t = g.target(g.ids["root//bin:the_binary"])
    assert t.kind == "_foo_binary"
    assert str(t.location) == "bin/TARGETS.fixture"
    assert t.srcs == ("root//bin:TARGETS.fixture",)
    assert g.configurations[t.id] == ("root//platforms:platform1#<HASH>",)
    assert _edges(g, "root//bin:the_binary") == [
        (dep, EdgeKind.UNTYPED)
        for dep in sorted(
            [
                "root//:data",
                "root//lib:lib1",
                "root//lib:lib2",
                "root//lib:lib3",
                "root//:foo_toolchain",
                "root//:bin",
            ]
        )
    ]
    assert not [lab for lab in g.labels if " (" in lab]


def test_select_branches_are_a_union_and_condition_keys_are_not_deps() -> None:
    g = load_graph([DATA / "uquery_select.json"])
    assert _edges(g, "root//py:app") == [
        ("prelude//toolchains:python", EdgeKind.UNTYPED),
        ("root//py:linux_only", EdgeKind.DEPS),
        ("root//py:mac_only", EdgeKind.DEPS),
        ("root//py:mypkg", EdgeKind.DEPS),
    ]
    assert "root//os:linux" not in g.ids
    mypkg = g.target(g.ids["root//py:mypkg"])
    assert mypkg.attrs == {"base_module": "mypkg"}
    assert mypkg.srcs.count("root//py:src/mypkg/__init__.py") == 1
    assert ("root//third_party:six", EdgeKind.EXPORTS) in _edges(g, "root//py:mypkg")
    assert g.target(g.ids["root//py:app"]).tags == ("app", "py")


def test_label_arrays_give_nodes_and_a_note() -> None:
    g = load_graph([DATA / "multi_query_universe.json"])
    assert g.edge_count == 0
    assert buck2_json.NODES_ONLY_NOTE in g.notes
    assert g.configurations[g.ids["root//:common-dep"]] == (
        "root//:p-linux#<HASH>",
        "root//:p-macos#<HASH>",
    )


def test_targets_with_errors_and_incompatible_entries_are_reported() -> None:
    g = load_graph([DATA / "targets_keep_going.json"])
    assert g.labels == ["root//a:target1", "root//d:exists"]
    assert g.kinds == ["stub", "stub"]
    assert sum("root//b failed to load" in n for n in g.notes) == 1
    assert sum("root//nonexistent_package failed" in n for n in g.notes) == 1
    report = load_graph([DATA / "ctargets_json_report.json"])
    assert report.labels == ["root//a:target1", "root//a:target2"]
    assert any("root//a:macos_only (incompatible)" in n for n in report.notes)


def test_json_lines_with_log_lines_and_crlf(tmp_path: Path) -> None:
    body = (DATA / "targets.jsonl").read_bytes().replace(b"\n", b"\r\n")
    p = tmp_path / "t.jsonl"
    p.write_bytes(b"INFO: buck2 daemon started\r\n" + body)
    g = load_graph([p])
    assert _edges(g, "root//a:target1") == [("root//a:target2", EdgeKind.UNTYPED)]


def test_entries_without_any_label_are_refused() -> None:
    with pytest.raises(InputError, match=r"expected at least one target with buck\.target"):
        load_graph([DATA / "ctargets_with_attributes.json"])


@pytest.mark.parametrize(
    ("fmt", "text", "match"),
    [
        ("buck2-query-json", "", "empty file"),
        ("buck2-query-json", '{"root//a:b": {"buck.deps": [', "expected valid JSON"),
        ("buck2-query-json", '{"not a label": {}}', "expected a target label as key"),
        ("buck2-query-json", '["root//a:b", 3]', "expected a target label, found number 3"),
        ("buck2-query-json", '"root//a:b"', "expected a JSON object"),
        ("buck2-query-json", '{"root//a:b": 7}', "attributes .an object. or labels"),
        ("buck2-targets-json", "[1]", "expected a target object"),
        ("buck2-targets-json", "[]", "at least one target"),
        ("buck2-targets-json", '[{"buck.target": "oops"}]', "a target label in buck.target"),
    ],
)
def test_bad_input(tmp_path: Path, fmt: str, text: str, match: str) -> None:
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(InputError, match=match):
        load_graph([p], fmt)


def test_wrong_format_truncated_and_garbage(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_graph([DATA / "targets_keep_going.json"], "buck2-query-json")
    text = (DATA / "cquery_attributes.json").read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match=r"cut\.json:\d+: expected valid JSON"):
        load_graph([cut])
    garbage = tmp_path / "g.json"
    garbage.write_bytes(bytes(range(255, -1, -1)) * 4)
    for fmt in ("buck2-query-json", "buck2-targets-json"):
        with pytest.raises(InputError):
            load_graph([garbage], fmt)


def test_sniffers_do_not_overlap() -> None:
    for name, fmt in FIXTURES.items():
        head = (DATA / name).read_bytes()[:8192]
        assert buck2_json.sniff_query(head, Path(name)) is (fmt == "buck2-query-json"), name
        assert buck2_json.sniff_targets(head, Path(name)) is (fmt == "buck2-targets-json"), name
    assert not buck2_json.sniff_query(b'{"results": []}', Path("x"))
    assert not buck2_json.sniff_targets(b'{"results": []}', Path("x"))


@settings(deadline=None, max_examples=100)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.sampled_from(
            ["root//a:b", "root//a:c (root//p:q#1)", "root//a/f.py", "DEFAULT", "selector"]
        ),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(["__type", "entries", "items", "deps", "srcs"]), inner
            )
        ),
        max_leaves=20,
    )
)
def test_arbitrary_attribute_values_load_or_are_refused(value: Any) -> None:
    """Label strings in any nesting load; any other leaf is a one-line refusal."""
    path = HYPOTHESIS_DIR / "arbitrary.json"
    path.write_text(json.dumps({"root//x:y": {"deps": value, "srcs": value, "buck.deps": value}}))
    assert loads_or_refuses(buck2_json.load_query, path)


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        ({"deps": 7}, '"deps" of root//x:y: labels (strings, lists, select()), found number 7'),
        ({"deps": ["root//a:b", 3.5]}, '"deps" of root//x:y: labels'),
        ({"exported_deps": {"__type": "selector", "entries": {"DEFAULT": [True]}}}, "boolean true"),
        ({"buck.deps": [1]}, '"buck.deps" of root//x:y: labels'),
        ({"labels": "x", "srcs": [None, 5]}, '"srcs" of root//x:y: labels'),
        ({"buck.type": ["cxx_library"]}, '"buck.type" of root//x:y: a string'),
        ({"buck.target_configuration": 1}, '"buck.target_configuration" of root//x:y: a string'),
        ({"base_module": 5}, '"base_module" of root//x:y: a string'),
    ],
)
def test_a_field_of_the_wrong_type_is_refused(
    tmp_path: Path, attrs: dict[str, object], expected: str
) -> None:
    """The issue's case: `"deps": 7` gave a target without edges and exit 0."""
    path = tmp_path / "q.json"
    path.write_text(json.dumps({"root//x:y": {"buck.type": "cxx_library", **attrs}}, indent=1))
    with pytest.raises(InputError) as exc:
        buck2_json.load_query(path, GraphBuilder())
    assert str(exc.value).startswith(f"{path}:1: expected ")
    assert expected in str(exc.value)


def test_private_attributes_may_hold_other_values() -> None:
    """`--output-all-attributes` gives Buck2's own `_…` attributes, booleans included."""
    path = HYPOTHESIS_DIR / "private.json"
    path.write_text(
        json.dumps({"root//x:y": {"_build_only_native_code": False, "_tc": "root//t:c"}})
    )
    b = GraphBuilder()
    buck2_json.load_query(path, b)
    g = b.build()
    assert g.labels[g.edge_dst[0]] == "root//t:c"


@settings(deadline=None, max_examples=100)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    path = HYPOTHESIS_DIR / "arbitrary.bin"
    path.write_bytes(b'{"root//x:y": ' + data)
    for loader in (buck2_json.load_query, buck2_json.load_targets):
        assert loads_or_refuses(loader, path)


def test_exported_preprocessor_flags_are_kept_with_every_select_branch(tmp_path: Path) -> None:
    """What a Buck2 target hands its dependants' compiles (`exported_*preprocessor_flags`,
    select() branches and language keys flattened); its own `preprocessor_flags` are not."""
    doc = {
        "root//l:cfg": {
            "buck.type": "prelude//rules.bzl:cxx_library",
            "exported_preprocessor_flags": {
                "__type": "selector",
                "entries": {"root//os:linux": ["-DON_LINUX"], "DEFAULT": ["-DMODE=1"]},
            },
            "exported_lang_preprocessor_flags": {"cxx": ["-DCXX_ONLY"]},
            "preprocessor_flags": ["-DLOCAL"],
        },
        "root//l:plain": {"buck.type": "prelude//rules.bzl:cxx_library",
                          "exported_preprocessor_flags": []},
    }  # fmt: skip
    path = tmp_path / "cquery.json"
    path.write_text(json.dumps(doc))
    g = load_graph([path])
    assert g.target(g.ids["root//l:cfg"]).attrs == {
        "exported_preprocessor_flags": ("-DON_LINUX", "-DMODE=1"),
        "exported_lang_preprocessor_flags": ("-DCXX_ONLY",),
    }
    assert g.target(g.ids["root//l:plain"]).attrs == {}


def test_exported_linker_flags_are_kept(tmp_path: Path) -> None:
    """`exported_linker_flags` reach every dependant's link (`-lz`: a library no map ties
    to the target); its own `linker_flags` do not."""
    doc = {
        "root//l:zwrap": {
            "buck.type": "prelude//rules.bzl:cxx_library",
            "exported_linker_flags": {
                "__type": "selector",
                "entries": {"root//os:linux": ["-lz"], "DEFAULT": ["-lzlib"]},
            },
            "exported_post_linker_flags": ["-lm"],
            "linker_flags": ["-Wl,--as-needed"],
        },
    }
    path = tmp_path / "cquery.json"
    path.write_text(json.dumps(doc))
    g = load_graph([path])
    assert g.target(g.ids["root//l:zwrap"]).attrs == {
        "exported_linker_flags": ("-lz", "-lzlib"),
        "exported_post_linker_flags": ("-lm",),
    }


@pytest.mark.parametrize("asked", [True, False])
def test_an_export_without_the_flag_attributes_says_its_flags_are_unseen(
    tmp_path: Path, asked: bool
) -> None:
    """Buck2 prints an attribute only when `--output-attribute` asked for it (then on every
    target of a rule that has it, `[]` when empty): an export where no target shows
    `exported_*preprocessor_flags` cannot tell that an edge hands over none. The closure
    route decides as the whole parse does."""
    from slim.ingest.graph import buck2_scan

    flags: dict[str, list[str]] = {"exported_preprocessor_flags": []} if asked else {}
    doc = {
        "root//app:app": {"buck.type": "prelude//rules.bzl:cxx_binary",
                          "deps": ["root//l:plain"]},
        "root//l:plain": {"buck.type": "prelude//rules.bzl:cxx_library", **flags},
    }  # fmt: skip
    path = tmp_path / "cquery.json"
    path.write_text(json.dumps(doc, indent=2))  # as buck2 prints it
    unseen = () if asked else ("buck2-query-json",)
    assert load_graph([path]).flags_unseen == unseen
    closure = buck2_scan.load_closure(path, ["root//app:app"])
    assert closure is not None
    assert closure.flags_unseen == unseen
