"""`slim why SOURCE DEST`: the shortest dependency paths, each edge with its attributes."""

from __future__ import annotations

import itertools

from slim.model.graph import ALL_KINDS, BUILD_KINDS, BuildGraph


def why_lines(graph: BuildGraph, a: int, b: int, *, limit: int, all_kinds: bool) -> list[str]:
    """The paths as text; empty when SOURCE does not depend on DEST."""
    kinds = ALL_KINDS if all_kinds else BUILD_KINDS
    lines = []
    for n, path in enumerate(graph.shortest_paths(a, b, kinds, limit=limit), 1):
        lines.append(f"path {n} ({len(path) - 1} edges):")
        lines.append(f"  {graph.labels[path[0]]}")
        for x, y in itertools.pairwise(path):
            attrs = ",".join(sorted({k.attribute for k in graph.edge_kinds(x, y) if k in kinds}))
            loc = graph.edge_location(x, y)
            where = f"  ({loc})" if loc else ""
            lines.append(f"    --{attrs}--> {graph.labels[y]}{where}")
    return lines
