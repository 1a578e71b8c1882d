"""Draw a target's dependency graph readably: depth limit, package collapsing, reduction.

Dead edges (removable findings) are drawn red and dashed. The result is DOT text; the
CLI hands it to graphviz for SVG/PNG.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from slim.model.graph import BUILD_KINDS, BuildGraph
from slim.model.labels import label_package

AUTO_COLLAPSE_NODES = 200


@dataclass(frozen=True)
class DrawOptions:
    depth: int | None = None
    collapse: bool | None = None
    reduce: bool = True


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _levels(graph: BuildGraph, root: int, depth: int | None) -> dict[int, int]:
    level = {root: 0}
    frontier = [root]
    d = 0
    while frontier and (depth is None or d < depth):
        d += 1
        nxt = []
        for i in frontier:
            for e in graph.out_edges(i, BUILD_KINDS):
                if e.dep not in level:
                    level[e.dep] = d
                    nxt.append(e.dep)
        frontier = nxt
    return level


def to_dot(
    graph: BuildGraph,
    root: int,
    dead: Iterable[tuple[str, str]] = (),
    options: DrawOptions | None = None,
) -> str:
    """DOT text for `root`'s closure under `options`; `dead` edges are highlighted."""
    import networkx as nx

    opts = options or DrawOptions()
    level = _levels(graph, root, opts.depth)
    nodes = sorted(level)
    collapse = opts.collapse
    if collapse is None:
        collapse = len(nodes) > AUTO_COLLAPSE_NODES
    root_label = graph.labels[root]

    def name(i: int) -> str:
        lab = graph.labels[i]
        if collapse and i != root:
            return label_package(lab) + ":*"
        return lab

    g: nx.DiGraph[str] = nx.DiGraph()
    counts: dict[str, int] = {}
    keep = set(nodes)
    for i in nodes:
        n = name(i)
        counts[n] = counts.get(n, 0) + 1
        g.add_node(n)
        for e in graph.out_edges(i, BUILD_KINDS):
            if e.dep in keep:
                m = name(e.dep)
                if m != n:
                    g.add_edge(n, m)
    dead_edges = {(a, b) for a, b in dead}
    dead_named = {
        (name(graph.ids[a]), name(graph.ids[b]))
        for a, b in dead_edges
        if a in graph.ids and b in graph.ids
    }
    reduced = g
    if opts.reduce and nx.is_directed_acyclic_graph(g):
        reduced = nx.transitive_reduction(g)
        reduced.add_edges_from(e for e in dead_named if g.has_edge(*e))
    lines = ["digraph slim {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica"];']
    for n in sorted(reduced.nodes):
        attrs = []
        if counts.get(n, 1) > 1:
            attrs.append(f"label={_quote(f'{n} ({counts[n]} targets)')}")
        if n == root_label:
            attrs.append("style=bold")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        lines.append(f"  {_quote(n)}{suffix};")
    for a, b in sorted(reduced.edges):
        style = (
            ' [color=red, style=dashed, penwidth=2, label="dead"]' if (a, b) in dead_named else ""
        )
        lines.append(f"  {_quote(a)} -> {_quote(b)}{style};")
    if opts.depth is not None:
        cut = len(graph.closure([root], BUILD_KINDS)) - len(nodes)
        if cut > 0:
            lines.append(
                f"  label={_quote(f'depth {opts.depth}: {cut} deeper targets not shown')};"
            )
    lines.append("}")
    return "\n".join(lines) + "\n"
