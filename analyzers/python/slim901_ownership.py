"""SLIM901 python-ownership-unknown: edges SLIM001 could not judge because the modules of
a target they lead to are unknown; one finding per such target, listing every edge."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from slim.model.findings import Confidence, Evidence, Finding

from .._findings import on_edge
from ._import_view import ImportView
from ._ownership import short
from .rules import NAME, OWNERSHIP


@dataclass(frozen=True)
class Unjudged:
    """An edge A -> B left unjudged: the modules of the `unknown` targets (B, or what B
    forwards to) are not known. `looked` says which modules were looked for."""

    target: int
    dep: int
    attribute: str
    unknown: tuple[int, ...]
    looked: Evidence


def findings(view: ImportView, edges: Iterable[Unjudged]) -> Iterator[Finding]:
    """One SLIM901 per set of unknown targets, on its first edge, naming all of them."""
    g = view.g
    groups: dict[tuple[int, ...], list[Unjudged]] = {}
    for e in edges:
        groups.setdefault(e.unknown, []).append(e)
    for unknown, group in sorted(groups.items()):
        group.sort(key=lambda e: (g.labels[e.target], g.labels[e.dep]))
        first = group[0]
        why = "; ".join(
            f"{g.labels[u]}: {view.owned[u].unknown or 'provides no Python modules'}"
            for u in unknown
        )
        names = short(g.labels[u] for u in unknown)
        users = short(g.labels[e.target] for e in group)
        ev = [
            Evidence(
                str(loc.path) if (loc := g.edge_location(e.target, e.dep)) else g.labels[e.target],
                f"{g.labels[e.target]} -> {g.labels[e.dep]} ({e.attribute}) not judged",
                line=loc.line if loc else None,
                analyzer=NAME,
            )
            for e in group
        ]
        yield on_edge(
            OWNERSHIP,
            g,
            (first.target, first.dep),
            view.root_label,
            first.attribute,
            "evidence-missing",
            f"cannot tell whether {users} use{'s' if len(group) == 1 else ''} "
            f"{names}: its Python modules are unknown ({why})",
            Confidence.HIGH,
            evidence=(*ev, first.looked),
        )
