"""CMake `--graphviz=deps.dot`: link dependencies between CMake targets as DOT.

Nodes are `"nodeN" [label="<target>", shape=<type>]` (ids are not stable, the label is the
name); the shape gives the kind (`SHAPE_KINDS`; septagon, an unknown or external library,
becomes an external node). Edge style gives the `target_link_libraries` visibility:
solid PUBLIC, dotted PRIVATE (both link: `EdgeKind.DEPS`), dashed INTERFACE (only
consumers link it: `EdgeKind.EXPORTS`); it is kept per target in attr `link_visibility`.
The `clusterLegend` subgraph is skipped. The graphviz output knows no directories, so every
target is `//:<name>` (see `slim.ingest.graph.cmake_fileapi.cmake_label`): merged with a file API
reply this matches only for targets of the top-level directory. Given a directory, the main
files are read and CMake's per-target files (`deps.dot.<target>[.dependers]`) are skipped;
given directly, a per-target file is read like any other.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from slim.errors import InputError
from slim.ingest._io import read_head
from slim.ingest.graph.cmake_fileapi import cmake_label
from slim.ingest.graph.dot import DotEdge, DotGraph, DotNode, graph_name, parse_file
from slim.model.graph import AttrValue, EdgeKind, GraphBuilder

SHAPE_KINDS = {
    "egg": "executable",
    "octagon": "static_library",
    "doubleoctagon": "shared_library",
    "tripleoctagon": "module_library",
    "pentagon": "interface_library",
    "hexagon": "object_library",
    "septagon": "",
    "box": "custom",
}
MAX_DIR_ENTRIES = 1000
STYLE_VISIBILITY = {"solid": "PUBLIC", "dotted": "PRIVATE", "dashed": "INTERFACE"}
_CMAKE_NODE = re.compile(rb'"node\d+" \[ label = "[^\n]*", shape = \w+ \]')
_EDGE_COMMENT = re.compile(rb'^\s*"node\d+" -> "node\d+".*// .+ -> ', re.M)


def _sniff_file(head: bytes) -> bool:
    if graph_name(head) is None:
        return False
    return (
        b"subgraph clusterLegend" in head
        or _CMAKE_NODE.search(head) is not None
        or _EDGE_COMMENT.search(head) is not None
    )


def main_files(directory: Path) -> list[Path]:
    """The graphviz files in `directory` that are not CMake's per-target extras."""
    entries = list(itertools.islice(directory.iterdir(), MAX_DIR_ENTRIES))
    files = sorted(p for p in entries if p.is_file() and not p.name.endswith(".json"))
    names = {p.name for p in files}
    out = []
    for p in files:
        parts = p.name.split(".")
        if any(".".join(parts[:k]) in names for k in range(1, len(parts))):
            continue
        if _sniff_file(read_head(p)):
            out.append(p)
    return out


def sniff(head: bytes, path: Path) -> bool:
    if path.is_dir():
        return bool(main_files(path))
    return _sniff_file(head)


def load(path: Path, builder: GraphBuilder) -> None:
    """Read one graphviz file, or every main graphviz file of a directory."""
    if path.is_dir():
        files = main_files(path)
        if not files:
            raise InputError(str(path), "a directory with CMake --graphviz files", "none")
        for f in files:
            _load_file(f, builder)
    else:
        _load_file(path, builder)
    builder.notes.append(
        "cmake graphviz: no directories (targets named //:<name>), no custom-target or "
        "add_dependencies edges, no sources"
    )


def _load_file(path: Path, builder: GraphBuilder) -> None:
    names: dict[str, str] = {}
    edges: list[tuple[str, str, str, int]] = []
    for st in parse_file(path):
        if isinstance(st, DotGraph) or any(s.startswith("clusterLegend") for s in st.scope):
            continue
        if isinstance(st, DotNode):
            name = st.attrs.get("label", st.id)
            names[st.id] = name
            shape = st.attrs.get("shape", "")
            kind = SHAPE_KINDS.get(shape)
            attrs: dict[str, AttrValue] = {"cmake_name": name}
            if kind is None:
                attrs["graphviz_shape"] = shape
                kind = "unknown_library"
            elif not kind:
                attrs["external"] = True
            builder.add_target(cmake_label("", name), kind, attrs=attrs)
        elif isinstance(st, DotEdge):
            style = st.attrs.get("style", "solid")
            if style == "invis":
                continue
            edges.append((st.src, st.dst, style, st.line))
    visibility: dict[str, list[str]] = {}
    for src, dst, style, line in edges:
        for end in (src, dst):
            if end not in names:
                raise InputError(
                    str(path), f"a node statement for edge end {end!r}", "none", line=line
                )
        a = cmake_label("", names[src])
        b = cmake_label("", names[dst])
        vis = STYLE_VISIBILITY.get(style, style.upper())
        ekind = EdgeKind.EXPORTS if vis == "INTERFACE" else EdgeKind.DEPS
        builder.add_edge(builder.intern(a), builder.intern(b), ekind)
        visibility.setdefault(a, []).append(f"{b} {vis}")
    for a, items in visibility.items():
        builder.set_attr(builder.intern(a), "link_visibility", tuple(sorted(set(items))))
