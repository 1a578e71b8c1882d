"""What cutting edges saves: the targets that leave the build, and their cost.

For one root, the targets it stops building once its cut edges are gone (reachable
before, not after) and their compile seconds, plus an estimate of the root's link-time
change. Over several roots the global figure counts a target only when no root still
needs it after every cut, so per-root figures may overlap while the global one does not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from slim.model.findings import Saving, WallSaving
from slim.model.graph import BUILD_KINDS, BuildGraph, EdgeKind, unique_sorted
from slim.plan.costs import CODE_MEASURED, DEFAULT, MEASURED, CostModel, is_linked

if TYPE_CHECKING:
    from numpy.typing import NDArray

Edge = tuple[int, int]
_Key = tuple[tuple[int, ...], tuple[Edge, ...], tuple[Edge, ...]]
"""A `delta` request: (roots, cut edges, added edges), each sorted."""


@dataclass(frozen=True)
class SavingsPlan:
    """Per-root and global savings, and the targets behind each figure."""

    per_root: dict[int, Saving]
    removed_per_root: dict[int, tuple[int, ...]]
    global_saving: Saving
    removed_global: tuple[int, ...]


class Reach:
    """Reachability over one graph with some edges cut, without copying the graph.

    Each search is a numpy breadth-first search over the graph's own (memory-mapped)
    CSR arrays that touches only the edges it follows, so a report on a million-target
    graph costs its root's closure, not a whole-graph matrix.
    """

    def __init__(self, graph: BuildGraph, kinds: frozenset[EdgeKind] = BUILD_KINDS) -> None:
        self.graph = graph
        self.kinds = kinds
        self.n = len(graph)
        self._uncut: dict[tuple[int, ...], NDArray[np.bool_]] = {}
        self._removed: dict[_Key, tuple[NDArray[np.int64], NDArray[np.int64]]] = {}

    def _search(
        self, roots: Sequence[int], cut: Sequence[Edge], added: Sequence[Edge] = ()
    ) -> NDArray[np.bool_]:
        """What `roots` reach with `cut` gone (every kind of a cut pair) and `added` edges
        present."""
        n = self.n
        keys = unique_sorted(np.array([a * n + b for a, b in cut], dtype=np.int64))
        seen = self.graph.reach_mask(roots, self.kinds, cut=keys)
        while True:
            todo = [w for x, w in added if seen[x] and not seen[w]]
            if not todo:
                return seen
            self.graph.reach_mask(todo, self.kinds, cut=keys, seen=seen)

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
        return self.delta(roots, cut)[0]

    def prefetch(self, requests: Iterable[tuple[Sequence[int], Sequence[Edge]]]) -> None:
        """Compute the `delta` of many (roots, cut) requests (no added edges) in shared
        searches, up to 63 at a time beside their uncut variants: a root's closure is
        walked about once for all its findings instead of once per finding."""
        keys: list[_Key] = []
        for roots, cut in requests:
            want: _Key = (tuple(sorted(set(roots))), tuple(sorted(set(cut))), ())
            if want not in self._removed and want not in keys and want[1]:
                keys.append(want)
        while keys:
            batch: list[_Key] = []
            plain: list[tuple[int, ...]] = []
            while keys and len(batch) + 1 + len(plain) + (keys[0][0] not in plain) <= 64:
                key = keys.pop(0)
                batch.append(key)
                if key[0] not in plain:
                    plain.append(key[0])
            self._fill(batch, plain)

    def _fill(self, batch: list[_Key], plain: list[tuple[int, ...]]) -> None:
        n = self.n
        variants = [(list(r), np.zeros(0, dtype=np.int64)) for r in plain]
        for roots, cut, _ in batch:
            keys = unique_sorted(np.array([a * n + b for a, b in cut], dtype=np.int64))
            variants.append((list(roots), keys))
        bits = self.graph.reach_masks(variants, self.kinds)
        uncut = {}
        for j, roots in enumerate(plain):
            uncut[roots] = (bits & np.uint64(1 << j)) != 0
            self._uncut.setdefault(roots, uncut[roots])
        for j, key in enumerate(batch, len(plain)):
            before = uncut[key[0]]
            after = (bits & np.uint64(1 << j)) != 0
            self._removed[key] = (
                np.flatnonzero(before & ~after).astype(np.int64),
                np.flatnonzero(after & ~before).astype(np.int64),
            )

    def delta(
        self, roots: Sequence[int], cut: Sequence[Edge], added: Sequence[Edge] = ()
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(targets that leave, targets that join) the build of `roots` once `cut` is gone
        and `added` edges (a replacement's) are in, each sorted (cached)."""
        key = (tuple(sorted(set(roots))), tuple(sorted(set(cut))), tuple(sorted(set(added))))
        hit = self._removed.get(key)
        if hit is None:
            before = self.reach_mask(key[0])
            live = [(a, b) for a, b in key[1] if before[a]]
            if live or key[2]:
                after = self._search(key[0], live, key[2])
                hit = (
                    np.flatnonzero(before & ~after).astype(np.int64),
                    np.flatnonzero(after & ~before).astype(np.int64),
                )
            else:
                hit = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
            self._removed[key] = hit
        return hit


def _ids(x: Iterable[int] | NDArray[np.int64]) -> NDArray[np.int64]:
    return np.asarray(x if isinstance(x, np.ndarray) else list(x), np.int64)


def _compile(model: CostModel, ids: NDArray[np.int64]) -> tuple[float, str]:
    """Compile seconds of `ids` and the weakest basis among the figures that count."""
    comp, _, codes = model.arrays(ids)
    contributing = codes[(comp > 0) | (codes != CODE_MEASURED)]
    if len(contributing):
        basis = model.basis_text(int(contributing.min()))
    else:
        basis = MEASURED if model.measured else DEFAULT
    return float(comp.sum()), basis


def price(
    model: CostModel,
    removed: Iterable[int] | NDArray[np.int64],
    root: int | None = None,
    linked_before: int = 0,
    added: Iterable[int] | NDArray[np.int64] = (),
) -> Saving:
    """The saving of removing `removed` from a build (and building `added` instead), with
    the link change of `root` if given; seconds rounded to the log's millisecond."""
    ids, new = _ids(removed), _ids(added)
    compile_s, basis = _compile(model, ids)
    if model.actions and len(ids) and not (model.arrays(ids)[2] == CODE_MEASURED).any():
        shown = ", ".join(model.graph.labels[i] for i in ids.tolist()[:3])
        more = f" and {len(ids) - 3} more" if len(ids) > 3 else ""
        basis = f"not measured (the timings cover no action of {shown}{more}); {basis}"
    if len(new):
        compile_s -= _compile(model, new)[0]
    link_s, link_basis = 0.0, ""
    if root is not None and len(ids) and linked_before:
        rc = model.cost(root)
        if rc.link_seconds > 0:
            net = _code_count(model, ids) - _code_count(model, new)
            link_s = rc.link_seconds * max(0.0, min(1.0, net / linked_before))
            link_basis = model.link_basis if rc.basis == MEASURED else rc.basis
    size, size_basis = 0, ""
    if root is not None:
        kept = model.linked_bytes.get(root)
        if kept:
            size = sum(kept.get(t, 0) for t in ids.tolist())
            size_basis = "bytes of their sections in this link"
    labels = model.graph.labels
    from slim.plan.quarter import quarter

    return Saving(
        quarter=quarter(model, ids.tolist(), new.tolist()),
        compile_seconds=round(compile_s, 3),
        link_seconds=round(link_s, 3),
        bytes=size,
        removed=tuple(sorted(label_list(labels, ids))),
        compile_basis=basis,
        link_basis=link_basis,
        bytes_basis=size_basis,
        added=tuple(sorted(label_list(labels, new))),
    )


def label_list(labels: Sequence[str], ids: NDArray[np.int64]) -> list[str]:
    """The labels of `ids`, in bulk when the graph's labels are a column."""
    many = getattr(labels, "many", None)
    if many is not None:
        out: list[str] = many(ids)
        return out
    return [labels[i] for i in ids.tolist()]


def _linked_count(model: CostModel, reach: Reach, root: int) -> int:
    """How many real targets a linked root's closure holds (0 for a root that links none)."""
    if not is_linked(model.graph.kinds[root]):
        return 0
    return _code_count(model, reach.closure([root]))


def _code_count(model: CostModel, ids: NDArray[np.int64]) -> int:
    """How many of `ids` are real targets (a kind or sources), not bare external labels."""
    return int(model.graph.described(ids).sum()) if len(ids) else 0


def plan_savings(
    graph: BuildGraph,
    roots: Sequence[int],
    cuts: dict[int, list[Edge]],
    model: CostModel,
    reach: Reach | None = None,
    added: dict[int, list[Edge]] | None = None,
) -> SavingsPlan:
    """Savings of each root's own actions, and of every action at once over all roots
    (a target counts once however many roots stop building it)."""
    reach = reach or Reach(graph)
    added = added or {}
    per_root: dict[int, Saving] = {}
    removed_per_root: dict[int, tuple[int, ...]] = {}
    for r in roots:
        gone, new = reach.delta([r], cuts.get(r, []), added.get(r, []))
        removed_per_root[r] = tuple(gone.tolist())
        per_root[r] = price(model, gone, r, _linked_count(model, reach, r), new)
        per_root[r] = dataclasses.replace(
            per_root[r],
            wall=wall_saving(model, reach, r, cuts.get(r, []), added.get(r, []), gone, new),
        )
    all_cuts = sorted({e for es in cuts.values() for e in es})
    all_added = sorted({e for es in added.values() for e in es})
    gone_u, new_u = reach.delta(list(roots), all_cuts, all_added)
    glob = price(model, gone_u, added=new_u)
    link = [s for s in per_root.values() if s.link_seconds]
    glob = dataclasses.replace(
        glob,
        link_seconds=round(sum(s.link_seconds for s in link), 3),
        link_basis=link[0].link_basis if link else "",
        bytes=sum(s.bytes for s in per_root.values()),
        bytes_basis=next((s.bytes_basis for s in per_root.values() if s.bytes), ""),
        wall=per_root[roots[0]].wall if len(roots) == 1 else None,
    )
    return SavingsPlan(per_root, removed_per_root, glob, tuple(gone_u.tolist()))


def edge_saving(
    graph: BuildGraph,
    root: int,
    cut: Sequence[Edge],
    model: CostModel,
    reach: Reach | None = None,
    added: Sequence[Edge] = (),
) -> Saving:
    """The saving of one action alone for one root (what a finding is worth)."""
    reach = reach or Reach(graph)
    gone, new = reach.delta([root], cut, added)
    s = price(model, gone, root, _linked_count(model, reach, root), new)
    return dataclasses.replace(s, wall=wall_saving(model, reach, root, cut, added, gone, new))


def wall_saving(
    model: CostModel,
    reach: Reach,
    root: int,
    cut: Sequence[Edge],
    added: Sequence[Edge],
    gone: NDArray[np.int64],
    new: NDArray[np.int64],
) -> WallSaving | None:
    """The clean build of `root` re-scheduled without `gone` (and with `new`); None without
    a timeline."""
    sch = model.scheduler
    if sch is None:
        return None
    tl = sch.timeline
    before_ids = reach.closure([root]).tolist()
    before = sch.baseline(before_ids)
    untimed = [t for t in gone.tolist() if t not in tl.tasks]
    changed = len(untimed) < len(gone) or any(t in tl.tasks for t in new.tolist())
    after = before
    if changed:
        after_ids = (set(before_ids) - set(gone.tolist())) | set(new.tolist())
        after = sch.without(after_ids, cut, added)
    on_path = bool(set(gone.tolist()) & set(before.critical))
    basis = f"measured schedule re-played: {tl.source} (run {tl.run}, -j{tl.jobs})"
    if untimed and len(untimed) == len(gone):
        basis = f"not measured (the timeline has no action of the targets that leave); {basis}"
    elif untimed:
        basis += f"; {len(untimed)} of {len(gone)} targets that leave have no action in it"
    return WallSaving(
        seconds=round(before.seconds - after.seconds, 3),
        before=before.seconds,
        after=after.seconds,
        jobs=tl.jobs,
        critical=on_path,
        basis=basis,
        measured=not (untimed and len(untimed) == len(gone)),
    )
