"""Savings per quarter: how often the targets a cut removes are rebuilt, and cache misses.

A target is rebuilt by every commit that touches its sources or the sources of anything
in its closure (a dependency's change rebuilds its dependants). Over the history window
each target's count is scaled to 90 days. A rebuild costs only when the cache misses: the
miss ratio is measured where the timings record cache outcomes (Bazel profile, Buck2
what-ran, sccache stats per language), else assumed 1.0 (ninja has no cache), and the
basis says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from slim.model.findings import QuarterSaving
from slim.model.graph import BUILD_KINDS, BuildGraph
from slim.model.history import ChangeHistory
from slim.model.ownership import Ownership

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from slim.plan.costs import CostModel

#: sccache's language names and the source languages (`slim.plan.costs`) they cover.
SCCACHE_LANGUAGES: dict[str, tuple[str, ...]] = {
    "C/C++": ("c", "c++"),
    "CUDA": ("cuda",),
    "Rust": ("rust",),
    "Objective-C": ("objc",),
}
ASSUMED_MISS = 1.0


@dataclass
class Rebuilds:
    """Per target, the commits of the window that rebuild it (its own or its closure's)."""

    graph: BuildGraph
    history: ChangeHistory
    counts: NDArray[np.int64]
    affected: list[NDArray[np.int64]] = field(default_factory=list)
    """Per commit that touches a target, the ids it rebuilds (sorted)."""

    @staticmethod
    def of(graph: BuildGraph, history: ChangeHistory) -> Rebuilds:
        from scipy.sparse.csgraph import breadth_first_order

        own = Ownership.of(graph)
        reverse = graph.csr(BUILD_KINDS).T.tocsr()
        up: dict[int, NDArray[np.int64]] = {}
        counts = np.zeros(len(graph), dtype=np.int64)
        affected = []
        for c in history.commits:
            touched = {t for f in c.files if (t := own.source_owner(f)) is not None}
            if not touched:
                continue
            mask = np.zeros(len(graph), dtype=bool)
            for t in sorted(touched):
                hit = up.get(t)
                if hit is None:
                    order = breadth_first_order(
                        reverse, t, directed=True, return_predecessors=False
                    )
                    hit = up[t] = np.asarray(order, dtype=np.int64)
                mask[hit] = True
            counts += mask
            affected.append(np.flatnonzero(mask).astype(np.int64))
        return Rebuilds(graph, history, counts, affected)

    def commits_rebuilding(self, ids: NDArray[np.int64]) -> int:
        """Commits that rebuild any of `ids` (the rebuilds of the root a cut avoids)."""
        if not len(ids):
            return 0
        mask = np.zeros(len(self.graph), dtype=bool)
        mask[ids] = True
        return sum(1 for a in self.affected if mask[a].any())


def miss_ratio(model: CostModel, t: int) -> tuple[float, str]:
    """(miss ratio, where from) of one target: its own actions' cache outcomes, else the
    compiler cache's stats for its language, else assumed."""
    hm = model.cache.get(t)
    if hm is not None and hm[0] + hm[1]:
        return hm[1] / (hm[0] + hm[1]), "actions"
    from slim.plan.costs import language_of

    lang = language_of(model.graph.srcs.get(t, ()))
    hits = misses = 0
    for cs in model.cache_stats:
        for name, h, m in cs.by_language:
            if lang in SCCACHE_LANGUAGES.get(name, ()):
                hits, misses = hits + h, misses + m
    if hits + misses:
        return misses / (hits + misses), "sccache"
    return ASSUMED_MISS, "assumed"


def _miss_basis(model: CostModel, ratio: float, sources: dict[str, int], n: int) -> str:
    measured = n - sources.get("assumed", 0)
    if not measured:
        return f"miss ratio {ratio:.2f} assumed (the timings record no cache outcomes)"
    where = []
    if sources.get("actions"):
        where.append("the timings' cache outcomes")
    if sources.get("sccache"):
        files = ", ".join(sorted({cs.source for cs in model.cache_stats}))
        where.append(f"sccache stats per language ({files})")
    part = "" if measured == n else f" for {measured} of {n} targets, 1.0 assumed for the rest"
    return f"miss ratio {ratio:.2f} measured ({' and '.join(where)}){part}"


def quarter(
    model: CostModel, removed: Sequence[int], added: Sequence[int] = ()
) -> QuarterSaving | None:
    """The quarterly CPU saving of removing `removed` (and building `added`), None without
    history."""
    rb = model.rebuilds
    if rb is None:
        return None
    ids = np.asarray(list(removed), dtype=np.int64)
    new = np.asarray(list(added), dtype=np.int64)
    scale = rb.history.scale
    comp = model.arrays(np.concatenate([ids, new]))[0] if len(ids) + len(new) else np.zeros(0)
    cpu = weight = 0.0
    sources: dict[str, int] = {}
    for k, t in enumerate([*ids.tolist(), *new.tolist()]):
        sign = 1.0 if k < len(ids) else -1.0
        miss, src = miss_ratio(model, t)
        sources[src] = sources.get(src, 0) + 1
        work = float(comp[k]) * float(rb.counts[t]) * scale
        cpu += sign * work * miss
        weight += sign * work
    ratio = cpu / weight if weight > 0 else _plain_ratio(model, ids)
    commits = rb.commits_rebuilding(ids)
    who = _who(model.graph, ids)
    return QuarterSaving(
        cpu_seconds=round(cpu, 3),
        rebuilds=round(commits * scale, 2),
        commits=commits,
        miss_ratio=round(ratio, 4),
        rebuilds_basis=(
            f"measured: {commits} of {rb.history.phrase} touch the sources of {who} or of "
            f"{'its' if len(ids) == 1 else 'their'} closure, scaled ×{scale:.2f} to 90 days"
        ),
        miss_basis=_miss_basis(model, ratio, sources, len(ids) + len(new)),
        miss_source=_miss_source(sources),
    )


def _miss_source(sources: dict[str, int]) -> str:
    assumed = sources.get("assumed", 0)
    if not assumed:
        return "measured" if sources else "assumed"
    return "assumed" if assumed == sum(sources.values()) else "partly measured"


def _plain_ratio(model: CostModel, ids: NDArray[np.int64]) -> float:
    if not len(ids):
        return ASSUMED_MISS
    return float(np.mean([miss_ratio(model, t)[0] for t in ids.tolist()]))


def _who(graph: BuildGraph, ids: NDArray[np.int64]) -> str:
    labels = sorted(graph.labels[i] for i in ids.tolist())
    if not labels:
        return "no target"
    more = f" and {len(labels) - 2} more" if len(labels) > 2 else ""
    return ", ".join(labels[:2]) + more
