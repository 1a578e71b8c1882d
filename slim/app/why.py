"""`slim why SOURCE DEST`: the shortest dependency paths, each edge with its attributes.

With a cached whole graph the answer is read from its arrays without numpy (a warm `why`
costs little more than python's startup); otherwise, or when that search hands over, the
session's graph answers.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from slim.model.edges import ALL_KINDS, BUILD_KINDS, EdgeKind, Location

if TYPE_CHECKING:
    from slim.app.session import Session


class _Labels(Protocol):
    def __getitem__(self, i: int, /) -> str: ...


class PathGraph(Protocol):
    """What the answer is written from: `BuildGraph`, or the cache's numpy-free view."""

    @property
    def labels(self) -> _Labels: ...

    def edge_kinds(self, target: int, dep: int) -> list[EdgeKind]: ...

    def edge_location(self, target: int, dep: int) -> Location | None: ...


@dataclass(frozen=True)
class WhyAnswer:
    lines: list[str]
    """The paths as text; empty when SOURCE does not depend on DEST."""
    source: str
    dest: str


def why(session: Session, source: str, dest: str, *, limit: int, all_kinds: bool) -> WhyAnswer:
    kinds = ALL_KINDS if all_kinds else BUILD_KINDS
    found = session.cached_view([source, dest])
    if found is not None:
        view, (a, b) = found
        try:
            paths = view.shortest_paths(a, b, kinds, limit=limit)
            if paths is not None:
                return WhyAnswer(why_lines(view, paths, kinds), view.labels[a], view.labels[b])
        except (IndexError, ValueError):
            pass  # values outside the entry's columns: the numpy route checks and rebuilds it
    a, b = session.root_ids([source, dest])
    g = session.graph
    paths = g.shortest_paths(a, b, kinds, limit=limit)
    return WhyAnswer(why_lines(g, paths, kinds), g.labels[a], g.labels[b])


def why_lines(
    graph: PathGraph, paths: Sequence[Sequence[int]], kinds: Collection[EdgeKind]
) -> list[str]:
    """`paths` as text, each edge with its attributes and where it is declared."""
    lines = []
    for n, path in enumerate(paths, 1):
        lines.append(f"path {n} ({len(path) - 1} edges):")
        lines.append(f"  {graph.labels[path[0]]}")
        for x, y in itertools.pairwise(path):
            attrs = ",".join(sorted({k.attribute for k in graph.edge_kinds(x, y) if k in kinds}))
            loc = graph.edge_location(x, y)
            where = f"  ({loc})" if loc else ""
            lines.append(f"    --{attrs}--> {graph.labels[y]}{where}")
    return lines
