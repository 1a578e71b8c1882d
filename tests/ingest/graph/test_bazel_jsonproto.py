"""Bazel (streamed_)jsonproto and cquery jsonproto: goldens, every layout Bazel has written
(NDJSON with log lines or CRLF, `{..}{..}`, `[..][..]`, cquery `configurations[]`)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import load_graph
from slim.ingest.graph import bazel_jsonproto
from slim.model.canonical import graph_to_canonical
from slim.model.graph import EdgeKind
from tests.golden import golden_mismatch, loads_or_refuses, update_goldens

DATA = Path(__file__).parents[2] / "data" / "bazel"
NDJSON = DATA / "query.streamed_jsonproto.ndjson"
UPDATE = update_goldens()
HYPOTHESIS_DIR = Path(tempfile.mkdtemp(prefix="slim-jsonproto-"))


def _canon(path: Path, fmt: str | None = None) -> dict[str, Any]:
    c = graph_to_canonical(load_graph([path], fmt))
    c.pop("formats")
    return c


def _lines() -> list[str]:
    return NDJSON.read_text().splitlines()


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    return p


@pytest.mark.parametrize("sample", ["cquery.jsonproto.json", "query.streamed_jsonproto.ndjson"])
def test_golden(sample: str) -> None:
    g = load_graph([DATA / sample])
    msg = golden_mismatch(graph_to_canonical(g), DATA / f"{sample}.expected.json", UPDATE)
    assert msg is None, msg


def test_cquery_sample() -> None:
    g = load_graph([DATA / "cquery.jsonproto.json"])
    assert g.formats == ("bazel-cquery-jsonproto",)
    util = g.ids["//lib:util"]
    assert [(g.labels[e.dep], e.kind) for e in g.out_edges(util)] == [("//lib:core", EdgeKind.DEPS)]
    assert g.configurations[util] == (
        "f5527a63a4773d9b4b1610a7539d7f704d66ef0ec083a237f84c700208babeed",
    )
    # --noimplicit_deps: `$def_parser`, `:cc_toolchain` keep values but are not rule inputs.
    assert not [lab for lab in g.labels if lab.startswith("@bazel_tools")]
    assert "//lib:util.cc" not in g.ids


def test_streamed_fixture_matches_the_proto_it_was_transcribed_from() -> None:
    g = load_graph([NDJSON])
    assert g.formats == ("bazel-streamed-jsonproto",)
    assert _canon(NDJSON) == _canon(DATA / "query.streamed.pb")


def test_log_lines_and_crlf(tmp_path: Path) -> None:
    lines = _lines()
    text = (
        "INFO: Invocation ID: 5\r\nLoading: 3 packages loaded\r\n"
        + "\r\n".join([*lines[:5], "WARNING: a warning in the middle", *lines[5:]])
        + "\r\n"
    )
    p = _write(tmp_path, "mixed.ndjson", text.encode())
    assert load_graph([p]).formats == ("bazel-streamed-jsonproto",)
    assert _canon(p) == _canon(NDJSON)


def test_objects_back_to_back_pretty_printed(tmp_path: Path) -> None:
    text = "".join(json.dumps(json.loads(line), indent=2) for line in _lines())
    p = _write(tmp_path, "b2b.json", text)
    assert _canon(p, "bazel-jsonproto") == _canon(NDJSON)


def test_array_batches(tmp_path: Path) -> None:
    objs = [json.loads(line) for line in _lines()]
    text = json.dumps(objs[:6], indent=2) + json.dumps(objs[6:], indent=2) + "\n"
    p = _write(tmp_path, "batches.json", text)
    assert load_graph([p]).formats == ("bazel-jsonproto",)
    assert _canon(p) == _canon(NDJSON)


def test_newer_cquery_configuration_ids(tmp_path: Path) -> None:
    doc = json.loads((DATA / "cquery.jsonproto.json").read_text())
    checksum = doc["results"][0]["configuration"]["checksum"]
    for r in doc["results"]:
        conf = r.pop("configuration")
        if conf["checksum"] != "null":
            r["configurationId"] = 1
    doc = {"configurations": [{"id": 1, "mnemonic": "k8-fastbuild", "checksum": checksum}], **doc}
    p = _write(tmp_path, "new.json", json.dumps(doc))
    assert load_graph([p]).formats == ("bazel-cquery-jsonproto",)
    assert _canon(p) == _canon(DATA / "cquery.jsonproto.json")


def test_select_condition_keys_are_not_edges(tmp_path: Path) -> None:
    target = {
        "type": "RULE",
        "rule": {
            "name": "//x:lib",
            "ruleClass": "cc_library",
            "attribute": [
                {
                    "name": "deps",
                    "type": "SELECTOR_LIST",
                    "selectorList": {
                        "type": "LABEL_LIST",
                        "elements": [
                            {
                                "entries": [
                                    {
                                        "label": "//conditions:default",
                                        "isDefaultValue": True,
                                        "stringListValue": ["//x:a"],
                                    },
                                    {"label": "//cfg:linux", "stringListValue": [":b"]},
                                ]
                            }
                        ],
                    },
                },
                {
                    "name": "copts",
                    "type": "SELECTOR_LIST",
                    "selectorList": {
                        "type": "STRING_LIST",
                        "elements": [
                            {"entries": [{"label": "//cfg:linux", "stringListValue": ["-O2"]}]}
                        ],
                    },
                },
                {
                    "name": "data",
                    "type": "LABEL_KEYED_STRING_DICT",
                    "labelKeyedStringDictValue": [{"key": "//x:d", "value": "v"}],
                },
            ],
        },
    }
    p = _write(tmp_path, "sel.ndjson", json.dumps(target) + "\n")
    g = load_graph([p])
    edges = sorted((g.labels[e.dep], e.kind) for e in g.out_edges(g.ids["//x:lib"]))
    assert edges == [("//x:a", EdgeKind.DEPS), ("//x:b", EdgeKind.DEPS), ("//x:d", EdgeKind.DATA)]
    # each is named in one branch only: a dep of some configurations
    assert g.attrs[g.ids["//x:lib"]]["selected_deps"] == ("//x:a", "//x:b")


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_a_py_binary_s_main_label_is_kept(tmp_path: Path, separators: tuple[str, str]) -> None:
    """`main = "tool_main.py"` (a LABEL, no edge kind): where the script runs from."""
    target = {
        "type": "RULE",
        "rule": {
            "name": "//app:tool",
            "ruleClass": "py_binary",
            "attribute": [
                {"name": "main", "type": "LABEL", "stringValue": "//app:tool_main.py"},
                {"name": "srcs", "type": "LABEL_LIST", "stringListValue": ["//app:tool_main.py"]},
            ],
        },
    }
    p = _write(tmp_path, "main.ndjson", json.dumps(target, separators=separators) + "\n")
    g = load_graph([p])
    assert g.attrs[g.ids["//app:tool"]]["main"] == "//app:tool_main.py"
    assert bazel_jsonproto.attribute_matters("main", "LABEL")  # the proto reader keeps it too


@pytest.mark.parametrize(
    ("fmt", "data", "match"),
    [
        ("bazel-streamed-jsonproto", b"", "at least one JSON Target line"),
        (
            "bazel-streamed-jsonproto",
            b'{"type":"RULE","rule":{"name":"//a"\n',
            r":1: expected a JSON",
        ),
        ("bazel-streamed-jsonproto", b'{"type":"RULE"}\nhello\n', r":2: expected a JSON Target"),
        ("bazel-jsonproto", b"", "empty file"),
        ("bazel-jsonproto", b'{"type": "RULE", "rule": {"name": 3}}', "expected a Target message"),
        ("bazel-cquery-jsonproto", b'{"results": []}', "at least one cquery result"),
        ("bazel-cquery-jsonproto", b'{"results": [{"target": {"type": "RULE"', "valid JSON"),
    ],
)
def test_bad_input(tmp_path: Path, fmt: str, data: bytes, match: str) -> None:
    with pytest.raises(InputError, match=match):
        load_graph([_write(tmp_path, "bad.json", data)], fmt)


def test_truncated_wrong_format_and_garbage(tmp_path: Path) -> None:
    text = NDJSON.read_text()
    cut = _write(tmp_path, "cut.ndjson", text[: len(text) // 2])
    with pytest.raises(InputError, match=r"cut\.ndjson:\d+: expected a JSON Target"):
        load_graph([cut])
    garbage = _write(tmp_path, "g.json", random.Random(5).randbytes(3000))
    for fmt in ("bazel-streamed-jsonproto", "bazel-jsonproto", "bazel-cquery-jsonproto"):
        with pytest.raises(InputError):
            load_graph([garbage], fmt)
        with pytest.raises(InputError):
            load_graph([DATA / "query.xml"], fmt)
    deep = _write(tmp_path, "deep.json", '{"type": "RULE", "rule": ' + "[" * 100_000)
    with pytest.raises(InputError, match="nested at most"):
        load_graph([deep], "bazel-jsonproto")


@settings(deadline=None, max_examples=100)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    path = HYPOTHESIS_DIR / "arbitrary.json"
    path.write_bytes(b'{"type":"RULE","rule":' + data)
    for loader in (
        bazel_jsonproto.load_streamed,
        bazel_jsonproto.load_query,
        bazel_jsonproto.load_cquery,
    ):
        assert loads_or_refuses(loader, path)


def test_a_location_with_a_superscript_digit_is_no_line_number(tmp_path: Path) -> None:
    """`²` is a digit to `str.isdigit` but not to `int`: it is no line number (the last
    field is, as in `C:/x/BUILD:7`), instead of a traceback."""
    from slim.ingest import load_graph

    path = tmp_path / "g.ndjson"
    rule = {"name": "//a:a", "ruleClass": "cc_library", "location": "a/BUILD:²:1"}
    path.write_text(json.dumps({"type": "RULE", "rule": rule}) + "\n")
    g = load_graph([path])
    loc = g.locations[g.labels.index("//a:a")]
    assert (loc.path, loc.line) == ("a/BUILD:²", 1)


def test_defines_are_kept_with_every_branch_of_an_unflattened_select(tmp_path: Path) -> None:
    """`--proto:flatten_selects=false` leaves a select() of `defines` as a selector: every
    branch's values are kept (which one applies depends on the configuration)."""
    selector = {
        "type": "STRING_LIST",
        "elements": [
            {"entries": [
                {"label": "//:opt", "stringListValue": ["MODE=2"]},
                {"label": "//conditions:default", "stringListValue": ["MODE=1", "MODE=2"]},
            ]},
            {"entries": [{"label": "//conditions:default", "stringListValue": ["EXTRA"]}]},
        ],
    }  # fmt: skip
    lines = [
        {"type": "RULE", "rule": {"name": "//l:sel", "ruleClass": "cc_library", "attribute": [
            {"name": "defines", "type": "STRING_LIST", "selectorList": selector}]}},
        {"type": "RULE", "rule": {"name": "//l:flat", "ruleClass": "cc_library", "attribute": [
            {"name": "defines", "type": "STRING_LIST", "stringListValue": ["A=1"]},
            {"name": "local_defines", "type": "STRING_LIST", "stringListValue": ["B"]}]}},
    ]  # fmt: skip
    path = tmp_path / "q.ndjson"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    g = load_graph([path])
    assert g.target(g.ids["//l:sel"]).attrs == {"defines": ("MODE=2", "MODE=1", "EXTRA")}
    assert g.target(g.ids["//l:flat"]).attrs == {"defines": ("A=1",)}
