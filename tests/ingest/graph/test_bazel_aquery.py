"""Bazel aquery jsonproto: exec paths from path fragments, output ownership, variants."""

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
from slim.ingest.graph import bazel_aquery
from slim.model.canonical import graph_to_canonical
from slim.model.graph import EdgeKind
from tests.golden import golden_mismatch, loads_or_refuses, update_goldens

DATA = Path(__file__).parents[2] / "data" / "bazel"
UPDATE = update_goldens()
HYPOTHESIS_DIR = Path(tempfile.mkdtemp(prefix="slim-aq-"))
BIN = "bazel-out/k8-fastbuild/bin"


def _write(tmp_path: Path, name: str, doc: Any) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return p


def test_golden() -> None:
    g = load_graph([DATA / "aquery.jsonproto.json"])
    msg = golden_mismatch(
        graph_to_canonical(g), DATA / "aquery.jsonproto.json.expected.json", UPDATE
    )
    assert msg is None, msg


def test_outputs_are_owned_by_their_targets() -> None:
    g = load_graph([DATA / "aquery.jsonproto.json"])
    owner = {p: g.labels[t] for p, t in g.artifacts.items()}
    assert owner[f"{BIN}/app/_objs/app/main.pic.o"] == "//app:app"
    assert owner[f"{BIN}/app/app"] == "//app:app"
    assert owner[f"{BIN}/lib/libutil.a"] == "//lib:util"
    assert owner[f"{BIN}/lib/libcore.so"] == "//lib:core"
    assert owner[f"{BIN}/_solib_k8/liblib_Slibcore.so"] == "//lib:core"
    assert not [p for p in owner if p.endswith((".d", ".params", "MANIFEST"))]
    assert g.edge_count == 0
    assert any("no dependency edges" in n for n in g.notes)
    assert g.target(g.ids["//lib:util"]).attrs == {"compile_actions": 1}
    assert g.kinds[g.ids["//app:app"]] == "cc_binary"


def test_merges_with_a_cquery_export() -> None:
    g = load_graph([DATA / "cquery.jsonproto.json", DATA / "aquery.jsonproto.json"])
    util = g.ids["//lib:util"]
    assert [(g.labels[e.dep], e.kind) for e in g.out_edges(util)] == [("//lib:core", EdgeKind.DEPS)]
    assert g.labels[g.artifacts[f"{BIN}/lib/libcore.a"]] == "//lib:core"
    assert g.formats == ("bazel-cquery-jsonproto", "bazel-aquery-jsonproto")


def test_older_string_id_variant_with_exec_paths(tmp_path: Path) -> None:
    doc = {
        "artifacts": [
            {"id": "1", "execPath": "bazel-out/k8-opt/bin/a/_objs/a/a.o"},
            {"id": "2", "execPath": "bazel-out/k8-opt/bin/a/liba.so.1.2"},
            {"id": "3", "execPath": "bazel-out/k8-opt/bin/a/a.d"},
        ],
        "actions": [
            {"targetId": "7", "mnemonic": "CppCompile", "outputIds": ["1", "3"]},
            {"targetId": "7", "mnemonic": "FileWrite", "outputIds": ["2"]},
            {"mnemonic": "Middleman", "outputIds": ["3"]},
        ],
        "targets": [{"id": "7", "label": "@//a"}],
    }
    g = load_graph([_write(tmp_path, "aq.json", doc)])
    assert {p: g.labels[t] for p, t in g.artifacts.items()} == {
        "bazel-out/k8-opt/bin/a/_objs/a/a.o": "//a:a",
        "bazel-out/k8-opt/bin/a/liba.so.1.2": "//a:a",
    }


def test_deep_shared_fragment_chains_are_walked_once(tmp_path: Path) -> None:
    depth = 5000
    frags = [{"id": 1, "label": "bazel-out"}] + [
        {"id": i, "label": f"d{i}", "parentId": i - 1} for i in range(2, depth + 1)
    ]
    frags += [{"id": depth + k, "label": f"f{k}.o", "parentId": depth} for k in range(1, 2001)]
    arts = [{"id": k, "pathFragmentId": depth + k} for k in range(1, 2001)]
    doc = {
        "artifacts": arts,
        "actions": [{"targetId": 1, "mnemonic": "CppCompile", "outputIds": list(range(1, 2001))}],
        "targets": [{"id": 1, "label": "//deep:x"}],
        "pathFragments": frags,
    }
    g = load_graph([_write(tmp_path, "deep.json", doc)])
    assert len(g.artifacts) == 2000
    some = next(iter(sorted(g.artifacts)))
    assert some.startswith("bazel-out/d2/d3/")
    assert some.count("/") == depth


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        (
            {
                "artifacts": [{"id": 1, "pathFragmentId": 1}],
                "targets": [{"id": 1, "label": "//a"}],
                "actions": [{"targetId": 1, "outputIds": [1]}],
                "pathFragments": [
                    {"id": 1, "label": "a", "parentId": 2},
                    {"id": 2, "label": "b", "parentId": 1},
                ],
            },
            "expected acyclic pathFragments parents",
        ),
        (
            {
                "artifacts": [{"id": 1, "pathFragmentId": 9}],
                "targets": [{"id": 1, "label": "//a"}],
                "actions": [{"targetId": 1, "outputIds": [1]}],
            },
            "no fragment 9",
        ),
        (
            {
                "targets": [{"id": 1, "label": "//a"}],
                "actions": [{"targetId": 1, "outputIds": [4]}],
            },
            "expected an output id listed in `artifacts`",
        ),
        (
            {"actions": [{"targetId": 3, "outputIds": []}]},
            "expected an action whose targetId is in `targets`",
        ),
        ({"artifacts": []}, "expected an aquery action graph with actions"),
        ({"actions": [{"targetId": {"x": 1}}]}, "expected a ActionGraph message"),
    ],
)
def test_inconsistent_graphs(tmp_path: Path, doc: Any, match: str) -> None:
    with pytest.raises(InputError, match=match):
        load_graph([_write(tmp_path, "bad.json", doc)], "bazel-aquery-jsonproto")


def test_truncated_empty_wrong_format_and_garbage(tmp_path: Path) -> None:
    text = (DATA / "aquery.jsonproto.json").read_text()
    cut = _write(tmp_path, "cut.json", text[: len(text) // 2])
    with pytest.raises(InputError, match=r"cut\.json:\d+: expected valid JSON"):
        load_graph([cut])
    with pytest.raises(InputError, match="empty file"):
        load_graph([_write(tmp_path, "e.json", "")], "bazel-aquery-jsonproto")
    with pytest.raises(InputError, match="with actions"):
        load_graph([DATA / "cquery.jsonproto.json"], "bazel-aquery-jsonproto")
    garbage = tmp_path / "g.json"
    garbage.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(InputError):
        load_graph([garbage], "bazel-aquery-jsonproto")


def test_sniff() -> None:
    head = (DATA / "aquery.jsonproto.json").read_bytes()[:8192]
    assert bazel_aquery.sniff(head, Path("a.json"))
    assert bazel_aquery.sniff(b'{\n  "actions": [', Path("a.json"))
    assert not bazel_aquery.sniff(b'{\n  "results": [', Path("a.json"))
    cmake_target = b'{\n\t"artifacts" : \n\t[\n\t\t{\n\t\t\t"path" : "app"\n\t\t}\n\t],'
    assert not bazel_aquery.sniff(cmake_target, Path("target-app-Debug-1.json"))


@pytest.mark.parametrize(
    ("path", "mnemonic", "expected"),
    [
        ("x/a.pic.o", "CppCompile", True),
        ("x/liba.pic.a", "CppLink", True),
        ("x/liba.lo", "CppLink", True),
        ("x/libfoo.so.3", "SolibSymlink", True),
        ("x/app", "CppLink", True),
        ("x/app-2.params", "FileWrite", False),
        ("x/a.pic.d", "CppCompile", False),
        ("x/app", "FileWrite", False),
    ],
)
def test_is_artifact(path: str, mnemonic: str, expected: bool) -> None:
    assert bazel_aquery.is_artifact(path, mnemonic) is expected


@settings(deadline=None, max_examples=100)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    path = HYPOTHESIS_DIR / "arbitrary.json"
    path.write_bytes(b'{"actions":' + data)
    assert loads_or_refuses(bazel_aquery.load, path)
