"""Bazel `query`/`cquery --output=graph`: DOT with one quoted label per node.

Factored nodes (the default) join several labels with a literal two-character `\\n`; they
are split back into one node per label, every edge of the merged node repeated for each.
`--graph:node_limit` cuts merged ids with `...and N more items`: the graph is then
incomplete and a note says so. cquery ids end in ` (config)` (` (null)` for source files):
the configuration is split off and kept as data. DOT has no attribute names, so every edge
is `EdgeKind.UNTYPED`, and no rule kinds, so described nodes get kind `rule`.

Source files are not targets: a label whose name ends in a source-file extension
(`SOURCE_EXTENSIONS`) and that has no outgoing edge is read as a file (`add_file`). Rules
have outgoing edges to their inputs (a generated file to its generating rule), so only
an input-less rule named like a source file (rare) would be misread.
"""

from __future__ import annotations

import re
from pathlib import Path

from slim.ingest.graph.dot import DotEdge, DotNode, graph_name, parse_file
from slim.model.graph import EdgeKind, GraphBuilder
from slim.model.labels import label_name, normalize_label, split_configuration

_EXTENSIONS = """
    c cc cpp cxx c++ cu cuh h hh hpp hxx h++ inc inl ipp tcc def s asm m mm swift
    py pyi pyx pxd java kt scala go rs proto fbs thrift js jsx ts tsx
    sh bash bat cmd ps1 bzl cmake txt md rst json yaml yml toml ini cfg xml tpl lds ld
"""
SOURCE_EXTENSIONS = frozenset(_EXTENSIONS.split())
_MORE = re.compile(r"(?:\\n)?\.\.\.and (\d+) more items$")


def sniff(head: bytes, path: Path) -> bool:
    body = head.lstrip()
    for prefix in (b"INFO:", b"WARNING:", b"Loading:", b"Analyzing:", b"DEBUG:", b"Computing"):
        while body.startswith(prefix):
            cut = body.find(b"\n")
            body = body[cut + 1 :].lstrip() if cut >= 0 else b""
    return graph_name(body) == "mygraph"


def is_source_label(label: str) -> bool:
    name = label_name(label)
    dot = name.rfind(".")
    return dot > 0 and name[dot + 1 :].lower() in SOURCE_EXTENSIONS


def split_node_id(node_id: str) -> tuple[list[tuple[str, str | None]], int]:
    """The (label, configuration) pairs a (factored) node id stands for, and how many more
    the node limit cut off."""
    more = 0
    m = _MORE.search(node_id)
    if m is not None:
        more = int(m.group(1))
        node_id = node_id[: m.start()]
    out = []
    for part in node_id.split("\\n"):
        part = part.strip()
        if part:
            label, config = split_configuration(part)
            out.append((normalize_label(label), config))
    return out, more


def load(path: Path, builder: GraphBuilder) -> None:
    """Read a Bazel DOT graph into `builder` (see the module docstring for the model)."""
    described: set[str] = set()
    srcs: list[str] = []
    dsts: list[str] = []
    undirected = False
    for st in parse_file(path, skip_logs=True):
        if isinstance(st, DotEdge):
            srcs.append(st.src)
            dsts.append(st.dst)
        elif isinstance(st, DotNode):
            described.add(st.id)
        elif not st.directed:
            undirected = True
    if undirected:
        builder.notes.append(f"{path.name}: an undirected graph; edges read as directed")
    node_ids = sorted(described.union(srcs, dsts))
    truncated = 0
    expanded: dict[str, list[tuple[str, str | None]]] = {}
    for node_id in node_ids:
        parts, more = split_node_id(node_id)
        expanded[node_id] = parts
        truncated += more
    has_out = {label for src in set(srcs) for label, _ in expanded[src]}
    ids: dict[str, int] = {}
    of_node: dict[str, list[int]] = {}
    for node_id in node_ids:
        mine: list[int] = []
        of_node[node_id] = mine
        for label, config in expanded[node_id]:
            i = ids.get(label)
            if i is None:
                if label not in has_out and is_source_label(label):
                    i = builder.add_file(label)
                elif node_id in described:
                    i = builder.add_target(label, "rule")
                else:
                    i = builder.intern(label)
                ids[label] = i
            mine.append(i)
            if config is not None:
                builder.add_configuration(i, config)
    if any(config is not None for parts in expanded.values() for _, config in parts):
        builder.notes.append(
            "bazel cquery graph: configured targets merged per label (configurations kept as data)"
        )
    add_edge = builder.add_edge
    untyped = EdgeKind.UNTYPED
    for src, dst in zip(srcs, dsts, strict=True):
        targets = of_node[dst]
        for a in of_node[src]:
            for b in targets:
                add_edge(a, b, untyped)
    builder.notes.append("bazel graph (DOT): no attribute names, edges are untyped; no rule kinds")
    if truncated:
        builder.notes.append(
            f"bazel graph (DOT) {path.name}: incomplete, --graph:node_limit cut {truncated} "
            "labels from merged nodes (re-run with --graph:node_limit=-1 or --nograph:factored)"
        )
