"""Draw a target's dependency graph readably: depth limit, package collapsing, reduction.

Dead edges (removable findings) are drawn red and dashed. The result is DOT text; the
CLI hands it to graphviz for SVG/PNG.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from slim.errors import UsageError
from slim.model.graph import BUILD_KINDS, BuildGraph
from slim.model.labels import label_package

if TYPE_CHECKING:
    from slim.app.session import Session

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


DRAW_SUFFIXES = ("svg", "png", "dot", "gv", "pdf")


def draw(session: Session, target: str, out: Path, options: DrawOptions) -> bytes:
    """The picture of `target`'s graph for `out` (its suffix picks DOT, SVG, PNG or PDF);
    dead edges are marked when evidence was given."""
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in DRAW_SUFFIXES:
        raise UsageError(f"-o {out}: expected a .svg, .png, .pdf or .dot file")
    (root,) = session.select_roots([target])
    dead: list[tuple[str, str]] = []
    label = session.graph.labels[root]
    if session.facts_for(label).inputs or session.options_for(label).workspace:
        rep = session.report([root])
        dead = [(f.target, f.dep) for f in rep.findings if f.removable and f.dep]
    dot = to_dot(session.graph, root, dead, options)
    if suffix in ("dot", "gv"):
        return dot.encode("utf-8")
    import shutil

    if shutil.which("dot") is None:
        raise UsageError(
            f"-o {out}: drawing {suffix.upper()} needs the Graphviz `dot` program, which is "
            "not on PATH (install graphviz, e.g. `apt-get install graphviz`), or write .dot"
        )
    import graphviz

    data: bytes = graphviz.Source(dot).pipe(format=suffix)
    return data
