"""CMake `--graphviz` on the CMake 3.25.1 and 4.4.5 samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import detect, load_graph
from slim.model.graph import EdgeKind
from tests.ingest._canonical import check_golden

DATA = Path(__file__).parents[2] / "data" / "cmake"
VERSIONS = ["cmake-3.25.1", "cmake-4.4.5"]


@pytest.mark.parametrize("version", VERSIONS)
def test_golden_directory(version: str, request: pytest.FixtureRequest) -> None:
    d = DATA / version / "graphviz"
    assert detect(d, "graph").name == "cmake-graphviz"
    check_golden(load_graph([d]), d, request)


@pytest.mark.parametrize("version", VERSIONS)
def test_main_file_equals_directory(version: str) -> None:
    d = DATA / version / "graphviz"
    a, b = load_graph([d]), load_graph([d / "deps.dot"])
    assert a.labels == b.labels
    assert a.edge_dst.tolist() == b.edge_dst.tolist()


def test_model_kinds_visibility_and_legend() -> None:
    g = load_graph([DATA / "cmake-4.4.5" / "graphviz" / "deps.dot"])
    kinds = dict(zip(g.labels, g.kinds, strict=True))
    assert kinds == {
        "//:app": "executable",
        "//:iface": "interface_library",
        "//:objs": "object_library",
        "//:util": "shared_library",
        "//:Threads__Threads": "interface_library",
        "//:core": "static_library",
    }  # no legendNode*: the legend cluster is skipped
    util, core = g.lookup("//:util"), g.lookup("//:core")
    assert util is not None
    assert core is not None
    assert g.edge_kinds(util, core) == [EdgeKind.DEPS]  # PRIVATE still links
    assert g.attrs[util]["link_visibility"] == ("//:Threads__Threads PUBLIC", "//:core PRIVATE")
    assert g.attrs[g.lookup("//:Threads__Threads") or 0]["cmake_name"] == "Threads::Threads"


def test_per_target_file_read_when_given_directly() -> None:
    g = load_graph([DATA / "cmake-4.4.5" / "graphviz" / "deps.dot.util"])
    assert sorted(g.labels) == ["//:Threads__Threads", "//:core", "//:util"]
    assert detect(DATA / "cmake-4.4.5" / "graphviz" / "deps.dot.util", "graph").name == (
        "cmake-graphviz"
    )


def test_interface_edges_and_external_libraries(tmp_path: Path) -> None:
    p = tmp_path / "deps.dot"
    p.write_text(
        'digraph "x" {\n'
        '    "node0" [ label = "a", shape = octagon ];\n'
        '    "node1" [ label = "z", shape = septagon ];\n'
        '    "node0" -> "node1" [ style = dashed ] // a -> z\n'
        "}\n",
        encoding="utf-8",
    )
    g = load_graph([p])
    a, z = g.lookup("//:a"), g.lookup("//:z")
    assert a is not None
    assert z is not None
    assert g.edge_kinds(a, z) == [EdgeKind.EXPORTS]
    assert g.kinds[z] == ""
    assert g.attrs[z]["external"] is True
    assert g.attrs[a]["link_visibility"] == ("//:z INTERFACE",)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "expected a DOT graph"),
        (
            b'digraph "x" {\n    "node0" [ label = "app, shape = egg ];\n',
            ':2: expected a closing `"`',
        ),
        (b'digraph "x" {\n    "node0" [ label = "app", shape = egg ];\n', ":2: expected `}`"),
        (b"\x7fELF\x02\x01\x01\x00\x00\x00", ":1: expected text, found a NUL byte at column 8"),
        (b"cmake_minimum_required(VERSION 3.16)\n", ":1: expected `digraph` or `graph`"),
        (b'digraph "x" {\n "node0" -> "node1" // a -> b\n}\n', ":2: expected a node statement"),
    ],
    ids=["empty", "unterminated-string", "truncated", "binary", "wrong-format", "dangling-edge"],
)
def test_bad_input(tmp_path: Path, content: bytes, expected: str) -> None:
    p = tmp_path / "deps.dot"
    p.write_bytes(content)
    with pytest.raises(InputError, match=expected) as exc:
        load_graph([p], "cmake-graphviz")
    assert "\n" not in str(exc.value)


def test_directory_without_graphviz_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(InputError, match="CMake --graphviz files"):
        load_graph([tmp_path], "cmake-graphviz")
