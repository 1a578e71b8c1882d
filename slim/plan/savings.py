"""What cutting edges saves: the targets that leave the build, and their cost.

For one root, the targets it stops building once its cut edges are gone (reachable
before, not after) and their compile seconds, plus an estimate of the root's link-time
change. Over several roots the global figure counts a target only when no root still
needs it after every cut, so per-root figures may overlap while the global one does not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from slim.model.findings import Saving
from slim.model.graph import BUILD_KINDS, BuildGraph, EdgeKind
from slim.plan.costs import CODE_MEASURED, DEFAULT, MEASURED, CostModel, is_linked

if TYPE_CHECKING:
    from numpy.typing import NDArray

Edge = tuple[int, int]


@dataclass(frozen=True)
class SavingsPlan:
    """Per-root and global savings, and the targets behind each figure."""

    per_root: dict[int, Saving]
    removed_per_root: dict[int, tuple[int, ...]]
    global_saving: Saving
    removed_global: tuple[int, ...]


class Reach:
    """Reachability over one graph with some edges cut, without copying the graph.

    scipy's C breadth-first search runs on a float64 copy of the adjacency made once
    (its own dtype, so no per-call conversion). A cut edge is masked by pointing it,
    for the duration of one search, back at its source (a self-loop the search ignores),
    then restored; the search never reorders the arrays it is given.
    """

    def __init__(self, graph: BuildGraph, kinds: frozenset[EdgeKind] = BUILD_KINDS) -> None:
        from scipy.sparse import csr_matrix

        self.graph = graph
        self.matrix = csr_matrix(graph.csr(kinds), dtype=np.float64, copy=True)
        self.n = self.matrix.shape[0]
        self._uncut: dict[tuple[int, ...], NDArray[np.bool_]] = {}
        self._removed: dict[tuple[tuple[int, ...], tuple[Edge, ...]], NDArray[np.int64]] = {}

    def _search(self, roots: Sequence[int], cut: Sequence[Edge]) -> NDArray[np.bool_]:
        from scipy.sparse.csgraph import breadth_first_order

        m = self.matrix
        pos: list[int] = []
        src: list[int] = []
        for a, b in cut:
            lo, hi = int(m.indptr[a]), int(m.indptr[a + 1])
            for p in np.flatnonzero(m.indices[lo:hi] == b).tolist():
                pos.append(lo + p)
                src.append(a)
        where = np.asarray(pos, dtype=np.int64)
        saved = m.indices[where].copy()
        m.indices[where] = np.asarray(src, dtype=m.indices.dtype)
        try:
            seen = np.zeros(self.n, dtype=bool)
            for r in roots:
                if not seen[r]:
                    seen[breadth_first_order(m, r, directed=True, return_predecessors=False)] = True
        finally:
            m.indices[where] = saved
        return seen

    def reach_mask(self, roots: Sequence[int]) -> NDArray[np.bool_]:
        """What `roots` reach with nothing cut (cached)."""
        key = tuple(roots)
        hit = self._uncut.get(key)
        if hit is None:
            hit = self._uncut[key] = self._search(key, ())
        return hit

    def closure(self, roots: Iterable[int], cut: Sequence[Edge] = ()) -> NDArray[np.int64]:
        """Ids reachable from `roots` once `cut` edges are gone, sorted."""
        key = tuple(roots)
        mask = self.reach_mask(key) if not cut else self._search(key, cut)
        return np.flatnonzero(mask).astype(np.int64)

    def removed(self, roots: Sequence[int], cut: Sequence[Edge]) -> NDArray[np.int64]:
        """Targets `roots` reach now but no longer once `cut` is gone, sorted (cached)."""
        key = (tuple(sorted(set(roots))), tuple(sorted(set(cut))))
        hit = self._removed.get(key)
        if hit is None:
            before = self.reach_mask(key[0])
            live = [(a, b) for a, b in key[1] if before[a]]
            if live:
                after = self._search(key[0], live)
                hit = np.flatnonzero(before & ~after).astype(np.int64)
            else:
                hit = np.zeros(0, dtype=np.int64)
            self._removed[key] = hit
        return hit


def price(
    model: CostModel,
    removed: Iterable[int] | NDArray[np.int64],
    root: int | None = None,
    linked_before: int = 0,
) -> Saving:
    """The saving of removing `removed` from a build (link change of `root` if given)."""
    ids = np.asarray(removed if isinstance(removed, np.ndarray) else list(removed), np.int64)
    comp, _, codes = model.arrays(ids)
    compile_s = float(comp.sum())
    contributing = codes[(comp > 0) | (codes != CODE_MEASURED)]
    if len(contributing):
        basis = model.basis_text(int(contributing.min()))
    else:
        basis = MEASURED if model.measured else DEFAULT
    link_s = 0.0
    if root is not None and len(ids) and linked_before:
        rc = model.cost(root)
        if rc.link_seconds > 0:
            link_s = rc.link_seconds * min(1.0, _code_count(model, ids) / linked_before)
            link_basis = model.link_basis if rc.basis == MEASURED else rc.basis
            if link_basis != basis:
                basis = f"{basis}; link {link_basis}"
    size = 0
    if root is not None:
        kept = model.linked_bytes.get(root)
        if kept:
            size = sum(kept.get(t, 0) for t in ids.tolist())
    return Saving(
        compile_seconds=compile_s,
        link_seconds=link_s,
        bytes=size,
        targets_removed=len(ids),
        basis=basis,
    )


def _linked_count(model: CostModel, reach: Reach, root: int) -> int:
    """How many real targets a linked root's closure holds (0 for a root that links none)."""
    if not is_linked(model.graph.kinds[root]):
        return 0
    return int((model.code_mask & reach.reach_mask([root])).sum())


def _code_count(model: CostModel, ids: NDArray[np.int64]) -> int:
    """How many of `ids` are real targets (a kind or sources), not bare external labels."""
    return int(model.code_mask[ids].sum())


def plan_savings(
    graph: BuildGraph,
    roots: Sequence[int],
    cuts: dict[int, list[Edge]],
    model: CostModel,
    reach: Reach | None = None,
) -> SavingsPlan:
    """Savings of each root's own cuts, and of every cut at once over all roots."""
    reach = reach or Reach(graph)
    per_root: dict[int, Saving] = {}
    removed_per_root: dict[int, tuple[int, ...]] = {}
    for r in roots:
        gone = reach.removed([r], cuts.get(r, []))
        removed_per_root[r] = tuple(gone.tolist())
        linked = _linked_count(model, reach, r)
        per_root[r] = price(model, gone, r, linked)
    all_cuts = sorted({e for es in cuts.values() for e in es})
    gone_u = reach.removed(list(roots), all_cuts)
    link_total = sum(s.link_seconds for s in per_root.values())
    glob = price(model, gone_u)
    glob = Saving(
        glob.compile_seconds,
        glob.link_seconds,
        sum(s.bytes for s in per_root.values()),
        glob.targets_removed,
        glob.basis,
    )
    if link_total:
        glob = Saving(
            glob.compile_seconds,
            link_total,
            glob.bytes,
            glob.targets_removed,
            glob.basis
            if glob.basis == model.link_basis
            else f"{glob.basis}; link {model.link_basis}",
        )
    return SavingsPlan(per_root, removed_per_root, glob, tuple(gone_u.tolist()))


def edge_saving(
    graph: BuildGraph, root: int, edge: Edge, model: CostModel, reach: Reach | None = None
) -> tuple[Saving, tuple[int, ...]]:
    """The saving of cutting one edge alone for one root (what a finding is worth)."""
    reach = reach or Reach(graph)
    gone = reach.removed([root], [edge])
    return price(model, gone, root, _linked_count(model, reach, root)), tuple(gone.tolist())
