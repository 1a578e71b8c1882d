"""Buck2 `uquery`/`cquery --output-format dot|dot_compact`: `digraph result_graph`.

`dot` names nodes by their label; `dot_compact` uses numeric ids and `label=`. Requested
attributes arrive as `buck_<name>` node attributes in Starlark display form: `buck_type`
(the rule kind), `buck_labels` (tags) and `buck_base_module` are kept. cquery labels end in
` (cfg)`: the configuration is split off and kept as data. Edges have no attribute names
(`EdgeKind.UNTYPED`). Buck2 query DOT lists targets only, never source files.
"""

from __future__ import annotations

import ast
from pathlib import Path

from slim.ingest.graph.dot import DotEdge, DotNode, graph_name, parse_file
from slim.model.graph import AttrValue, EdgeKind, GraphBuilder
from slim.model.labels import normalize_label, split_configuration


def sniff(head: bytes, path: Path) -> bool:
    return graph_name(head) == "result_graph"


def _starlark_strings(text: str) -> tuple[str, ...] | None:
    """`["a", "b"]` (a display-form string list) as a tuple; None if it is anything else."""
    if len(text) > 65536:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _kind(buck_type: str) -> str:
    """`prelude//rules.bzl:cxx_library` or `cxx_library` -> `cxx_library`."""
    return buck_type.strip('"').rsplit(":", 1)[-1]


def load(path: Path, builder: GraphBuilder) -> None:
    """Read Buck2 query DOT into `builder`."""
    labels: dict[str, tuple[str, str | None]] = {}
    nodes: list[DotNode] = []
    edges: list[tuple[str, str]] = []
    for st in parse_file(path):
        if isinstance(st, DotNode):
            nodes.append(st)
            labels[st.id] = split_configuration(st.attrs.get("label", st.id))
        elif isinstance(st, DotEdge):
            edges.append((st.src, st.dst))

    def label_of(node_id: str) -> str:
        lab = labels.get(node_id)
        return normalize_label(lab[0] if lab else split_configuration(node_id)[0])

    for n in nodes:
        attrs: dict[str, AttrValue] = {}
        tags: tuple[str, ...] = ()
        kind = _kind(n.attrs["buck_type"]) if "buck_type" in n.attrs else "rule"
        if "buck_labels" in n.attrs:
            tags = _starlark_strings(n.attrs["buck_labels"]) or ()
        base = n.attrs.get("buck_base_module")
        if base is not None:
            value = base.strip('"')
            if value and value != "None":
                attrs["base_module"] = value
        i = builder.add_target(label_of(n.id), kind, tags=tags, attrs=attrs)
        config = labels[n.id][1]
        if config is not None:
            builder.add_configuration(i, config)
    for src, dst in edges:
        builder.add_edge(
            builder.intern(label_of(src)), builder.intern(label_of(dst)), EdgeKind.UNTYPED
        )
    builder.notes.append("buck2 query DOT: no attribute names, edges are untyped")
    if not any("buck_type" in n.attrs for n in nodes):
        builder.notes.append(
            "buck2 query DOT without buck_type: rule kinds unknown "
            "(add --output-attribute buck.type)"
        )
