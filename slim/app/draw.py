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

#: The drawn graph: each node's successors.
Picture = dict[str, set[str]]

AUTO_COLLAPSE_NODES = 200
#: Beyond this many nodes (after collapsing by package) a picture is unreadable and
#: Graphviz runs for minutes: refuse, with the depth that fits.
MAX_DRAW_NODES = 2000


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


def _depth_that_fits(graph: BuildGraph, root: int, limit: int) -> int:
    d = 0
    while d < 64:
        n = len(_levels(graph, root, d + 1))
        if n > limit or n == len(_levels(graph, root, d)):
            return d
        d += 1
    return d


@dataclass(frozen=True)
class _Names:
    """How targets are named in the picture: their label, or `pkg:*` when collapsed."""

    graph: BuildGraph
    root: int
    collapse: bool

    def __call__(self, i: int) -> str:
        lab = self.graph.labels[i]
        if self.collapse and i != self.root:
            return label_package(lab) + ":*"
        return lab

    def edge(self, a: str, b: str) -> tuple[str, str] | None:
        """The picture's edge for the labels `a -> b` (None when one is not in the graph)."""
        x, y = self.graph.lookup(a), self.graph.lookup(b)
        if x is not None and y is not None:
            return self(x), self(y)
        return None


def _refuse_too_many(names: _Names, nodes: list[int], shown: set[str]) -> None:
    """A picture of more than MAX_DRAW_NODES nodes is refused, with the depth that fits."""
    if len(shown) <= MAX_DRAW_NODES:
        return
    graph, root = names.graph, names.root
    fits = _depth_that_fits(graph, root, MAX_DRAW_NODES)
    hint = (
        f"use --depth {fits}"
        if fits >= 1
        else "even its direct deps are too many: draw one of them, or ask `slim why`"
    )
    raise UsageError(
        f"{graph.labels[root]}: {len(nodes)} targets ({len(shown)} nodes) are too many to draw "
        f"readably (limit {MAX_DRAW_NODES} nodes): {hint}"
        + ("" if names.collapse else " (or --collapse-packages)")
    )


def _picture_graph(names: _Names, nodes: list[int]) -> tuple[Picture, dict[str, int]]:
    """The drawn graph (collapsed nodes merged) and how many targets each node stands for."""
    graph = names.graph
    g: Picture = {}
    counts: dict[str, int] = {}
    keep = set(nodes)
    for i in nodes:
        n = names(i)
        counts[n] = counts.get(n, 0) + 1
        succ = g.setdefault(n, set())
        for e in graph.out_edges(i, BUILD_KINDS):
            if e.dep in keep:
                m = names(e.dep)
                if m != n:
                    succ.add(m)
                    g.setdefault(m, set())
    return g, counts


def is_acyclic(g: Picture) -> bool:
    """Whether the picture has no cycle (Kahn's algorithm)."""
    indegree = dict.fromkeys(g, 0)
    for succ in g.values():
        for m in succ:
            indegree[m] += 1
    ready = [n for n, d in indegree.items() if d == 0]
    seen = 0
    while ready:
        n = ready.pop()
        seen += 1
        for m in g[n]:
            indegree[m] -= 1
            if indegree[m] == 0:
                ready.append(m)
    return seen == len(g)


def transitive_reduction(g: Picture) -> Picture:
    """The edges of a DAG no longer path implies (every node kept)."""
    below: dict[str, set[str]] = {}

    def descendants(v: str) -> set[str]:
        hit = below.get(v)
        if hit is None:
            hit, stack = set(), list(g[v])
            while stack:
                x = stack.pop()
                if x not in hit:
                    hit.add(x)
                    stack.extend(g[x])
            below[v] = hit
        return hit

    out: Picture = {}
    for n, succ in g.items():
        direct = set(succ)
        for m in succ:
            if m in direct:
                direct -= descendants(m)
        out[n] = direct
    return out


def _edge_count(g: Picture) -> int:
    return sum(len(s) for s in g.values())


def _marked(
    names: _Names, dead: Iterable[tuple[str, str]], kept: Iterable[tuple[str, str, str]]
) -> tuple[set[tuple[str, str]], dict[tuple[str, str], str]]:
    """The picture's dead edges, and its kept ones with the verdict (dead wins)."""
    dead_named = {ne for a, b in dead if (ne := names.edge(a, b)) is not None}
    kept_named: dict[tuple[str, str], str] = {}
    for a, b, verdict in kept:
        ke = names.edge(a, b)
        if ke is not None and ke not in dead_named:
            kept_named.setdefault(ke, verdict)
    return dead_named, kept_named


def _body(
    reduced: Picture,
    counts: dict[str, int],
    root_label: str,
    dead: set[tuple[str, str]],
    kept: dict[tuple[str, str], str],
) -> list[str]:
    """The node and edge lines, sorted."""
    lines = []
    for n in sorted(reduced):
        attrs = []
        if counts.get(n, 1) > 1:
            attrs.append(f"label={_quote(f'{n} ({counts[n]} targets)')}")
        if n == root_label:
            attrs.append("style=bold")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        lines.append(f"  {_quote(n)}{suffix};")
    for a, b in sorted((a, b) for a, succ in reduced.items() for b in succ):
        style = ""
        if (a, b) in dead:
            style = ' [color=red, style=dashed, penwidth=2, label="dead"]'
        elif (a, b) in kept:
            style = f" [color=orange, style=dotted, label={_quote(kept[(a, b)])}]"
        lines.append(f"  {_quote(a)} -> {_quote(b)}{style};")
    return lines


def _notes(
    graph: BuildGraph,
    root: int,
    opts: DrawOptions,
    nodes: list[int],
    collapsed_into: int | None,
    hidden: int,
) -> list[str]:
    """What the picture leaves out: auto-collapsing, the depth limit, reduced edges."""
    notes = []
    if collapsed_into is not None:
        notes.append(
            f"{len(nodes)} targets collapsed into {collapsed_into} packages "
            "(--no-collapse-packages draws every target)"
        )
    if opts.depth is not None:
        cut = len(graph.closure([root], BUILD_KINDS)) - len(nodes)
        if cut > 0:
            notes.append(f"depth {opts.depth}: {cut} deeper targets not shown")
    if hidden > 0:
        notes.append(
            f"transitive reduction hid {hidden} direct edges implied by longer paths (--no-reduce)"
        )
    return notes


def to_dot(
    graph: BuildGraph,
    root: int,
    dead: Iterable[tuple[str, str]] = (),
    options: DrawOptions | None = None,
    kept: Iterable[tuple[str, str, str]] = (),
) -> str:
    """DOT text for `root`'s closure under `options`; `dead` edges (removable findings) and
    `kept` ones (target, dep, verdict of a finding that is not removable) are marked."""
    opts = options or DrawOptions()
    level = _levels(graph, root, opts.depth)
    nodes = sorted(level)
    auto = opts.collapse is None and len(nodes) > AUTO_COLLAPSE_NODES
    names = _Names(graph, root, auto if opts.collapse is None else opts.collapse)
    shown = {names(i) for i in nodes}
    _refuse_too_many(names, nodes, shown)
    g, counts = _picture_graph(names, nodes)
    dead_named, kept_named = _marked(names, dead, kept)
    reduced = g
    if opts.reduce and is_acyclic(g):
        reduced = transitive_reduction(g)
        for a, b in (*dead_named, *kept_named):
            if b in g.get(a, ()):
                reduced[a].add(b)
    hidden = _edge_count(g) - _edge_count(reduced)
    lines = ["digraph slim {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica"];']
    lines += _body(reduced, counts, graph.labels[root], dead_named, kept_named)
    notes = _notes(graph, root, opts, nodes, len(shown) if auto else None, hidden)
    lines.extend(_legend(bool(dead_named), bool(kept_named)))
    if notes:
        lines.append(f"  label={_quote(chr(10).join(notes))};")
        lines.append("  labelloc=b;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _legend(dead: bool, kept: bool) -> list[str]:
    """A small key: the root, and the edge styles the picture uses."""
    rows = ['    "legend root" [label="root target", style=bold];']
    if dead:
        rows.append('    "legend a" [label="A"]; "legend b" [label="B"];')
        rows.append(
            '    "legend a" -> "legend b" [color=red, style=dashed, label="dead: removable"];'
        )
    if kept:
        rows.append('    "legend c" [label="A"]; "legend d" [label="B"];')
        rows.append(
            '    "legend c" -> "legend d" [color=orange, style=dotted, label="finding, kept"];'
        )
    return [
        "  subgraph cluster_legend {",
        '    label="legend"; fontname="Helvetica"; style=dashed;',
        *rows,
        "  }",
    ]


DRAW_SUFFIXES = ("svg", "png", "dot", "gv", "pdf")


def draw(session: Session, target: str, out: Path | None, options: DrawOptions) -> bytes:
    """The picture of `target`'s graph for `out` (its suffix picks DOT, SVG, PNG or PDF;
    None: DOT); findings' edges are marked when some analyzer runs on the evidence given
    (with the graph alone, none does: no report is made)."""
    suffix = out.suffix.lower().lstrip(".") if out is not None else "dot"
    if suffix not in DRAW_SUFFIXES:
        raise UsageError(f"-o {out}: expected a .svg, .png, .pdf or .dot file")
    (root,) = session.select_roots([target])
    dead: list[tuple[str, str]] = []
    kept: list[tuple[str, str, str]] = []
    label = session.graph.labels[root]
    if session.analyzes(label):
        rep = session.report([root])
        dead = [(f.target, f.dep) for f in rep.findings if f.removable and f.dep]
        kept = [(f.target, f.dep, f.verdict) for f in rep.findings if not f.removable and f.dep]
    with session.progress.step(f"laying out the graph of {label}"):
        dot = to_dot(session.graph, root, dead, options, kept)
    if suffix in ("dot", "gv"):
        return dot.encode("utf-8", "backslashreplace")
    import shutil

    if shutil.which("dot") is None:
        raise UsageError(
            f"-o {out}: drawing {suffix.upper()} needs the Graphviz `dot` program, which is "
            "not on PATH (install graphviz, e.g. `apt-get install graphviz`), or write .dot"
        )
    import graphviz

    with session.progress.step(f"drawing {suffix.upper()} with Graphviz"):
        data: bytes = graphviz.Source(dot).pipe(format=suffix)
    return data
