"""Cuts proposed together: each removable edge is judged with every other edge in place,
so two cuts can each hold alone and not together (two dead edges to libraries that both
bring a third the program uses take it away when both go).

Per root, in report order, a cut (a `Remove`, or the edge a `Replace` repoints) stays
proposed only when, with the cuts proposed before it, nothing leaves the root's closure
that no cut takes alone; the others are kept, naming the cuts they conflict with. The
check is on the graph alone: anything more that leaves keeps the cut, used or not.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from slim.model.actions import Remove, Replace
from slim.model.findings import Finding
from slim.model.graph import BUILD_KINDS, BuildGraph
from slim.plan.prune import action_of


def _cut(graph: BuildGraph, f: Finding) -> tuple[int, int] | None:
    """The edge a removable finding's action takes out, as ids (None: it takes none)."""
    action = action_of(f) if f.removable else None
    if not isinstance(action, Remove | Replace):
        return None
    a, n = graph.lookup(action.target), graph.lookup(action.dep)
    return None if a is None or n is None else (a, n)


def jointly(graph: BuildGraph, findings: Sequence[Finding]) -> list[Finding]:
    """`findings` with each root's removable cuts that do not hold together kept."""
    by_root: dict[str, list[tuple[int, tuple[int, int]]]] = defaultdict(list)
    for k, f in enumerate(findings):
        cut = _cut(graph, f)
        if cut is not None:
            by_root[f.root].append((k, cut))
    out = list(findings)
    for root, cuts in by_root.items():
        r = graph.lookup(root)
        if r is None or len({c for _, c in cuts}) < 2:
            continue
        for k, (others, extra) in _conflicts(graph, r, cuts).items():
            out[k] = _kept(graph, out[k], others, extra)
    return out


def _conflicts(
    graph: BuildGraph, root: int, cuts: list[tuple[int, tuple[int, int]]]
) -> dict[int, tuple[list[tuple[int, int]], list[int]]]:
    """finding index -> (the cuts taken before it, what more they take with it) of each
    cut that does not hold with those before it."""
    whole = graph.closure([root], BUILD_KINDS)
    taken: list[tuple[int, int]] = []
    alone: set[int] = set()
    out: dict[int, tuple[list[tuple[int, int]], list[int]]] = {}
    for k, cut in cuts:
        if cut in taken:
            continue
        mine = _lost(graph, root, whole, [cut])
        both = _lost(graph, root, whole, [*taken, cut])
        extra = sorted(both - alone - mine)
        if extra:
            out[k] = (list(taken), extra)
        else:
            taken.append(cut)
            alone |= mine
    return out


def _lost(graph: BuildGraph, root: int, whole: np.ndarray, cuts: list[tuple[int, int]]) -> set[int]:
    left = graph.closure_without(root, cuts, BUILD_KINDS)
    return set(np.setdiff1d(whole, left, assume_unique=True).tolist())


def _kept(
    graph: BuildGraph, f: Finding, others: list[tuple[int, int]], extra: list[int]
) -> Finding:
    labels = graph.labels
    shown = ", ".join(f"{labels[a]} -> {labels[b]}" for a, b in others[:3])
    more = f" and {len(others) - 3} more" if len(others) > 3 else ""
    took = ", ".join(sorted(labels[x] for x in extra)[:3])
    why = (
        f"alone the cut holds, but with {shown}{more} (proposed too) it also takes {took} "
        f"out of {f.root}'s closure: make one of the cuts, then run slim again"
    )
    return f.kept(why)
