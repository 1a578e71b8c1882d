"""What each target costs to build: measured from timings, estimated, or a default.

Timed actions are attributed to targets (a label in the action, else the owner of its
output or compiled source). Targets no timing covers get an estimate from a linear model
fit on the measured ones (seconds per source file and per source byte, per rule family
and language; CUDA separately, it is by far the slowest); with nothing measured, the
documented `DEFAULT_SECONDS_PER_SOURCE` apply. Actions that map to no target are counted.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from slim.model.facts import Facts
from slim.model.graph import BuildGraph
from slim.model.history import ChangeHistory
from slim.model.ownership import Ownership
from slim.model.timing import (
    ARCHIVE,
    COMPILE,
    CUDA,
    HIT,
    LINK,
    MISS,
    OTHER,
    ArtifactOwners,
    CacheStats,
    TimedAction,
    TimingSet,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from slim.plan.quarter import Rebuilds
    from slim.plan.schedule import Scheduler, Timeline

MEASURED, DEFAULT = "measured", "default"
#: Basis codes of the cost arrays (weakest first).
CODE_DEFAULT, CODE_ESTIMATED, CODE_MEASURED = 0, 1, 2
#: Seconds per source file when nothing is measured (a cold -O2 build on one core).
DEFAULT_SECONDS_PER_SOURCE: dict[str, float] = {
    "c": 0.5,
    "c++": 2.0,
    "cuda": 20.0,
    "objc": 2.0,
    "rust": 5.0,
    "java": 0.5,
    "go": 0.3,
    "python": 0.0,
    "other": 0.0,
}
#: Link seconds for a binary or shared library when nothing is measured.
DEFAULT_LINK_SECONDS = 1.0
MIN_FIT_TARGETS = 1
_LANG_BY_EXT = {
    ".c": "c",
    ".cc": "c++",
    ".cpp": "c++",
    ".cxx": "c++",
    ".c++": "c++",
    ".C": "c++",
    ".cu": "cuda",
    ".m": "objc",
    ".mm": "objc",
    ".rs": "rust",
    ".java": "java",
    ".kt": "java",
    ".go": "go",
    ".py": "python",
}
_LINKED_KIND_WORDS = ("binary", "executable", "shared", "_test", "module_library", "cc_test")


def weaker_basis(a: str, b: str) -> str:
    """The less certain of two bases (default < estimated < measured)."""

    def rank(x: str) -> int:
        return 2 if x == MEASURED else 0 if x == DEFAULT else 1

    return a if rank(a) <= rank(b) else b


@dataclass(frozen=True, slots=True)
class TargetCost:
    """Seconds to compile (every non-link action) and to link one target, and their basis."""

    compile_seconds: float
    link_seconds: float
    basis: str
    actions: int = 0


def language_of(srcs: tuple[str, ...]) -> str:
    """The dominant compiled language of a target's sources (`cuda` wins when present)."""
    return _language_and_count(srcs)[0]


def _language_and_count(srcs: tuple[str, ...]) -> tuple[str, int]:
    counts: dict[str, int] = {}
    get = _LANG_BY_EXT.get
    for s in srcs:
        dot = s.rfind(".")
        if dot < 0:
            continue
        ext = s[dot:]
        lang = get(ext) or get(ext.lower())
        if lang:
            counts[lang] = counts.get(lang, 0) + 1
    if len(counts) == 1:
        return next(iter(counts.items()))
    if not counts:
        return "other", 0
    if "cuda" in counts:
        return "cuda", counts["cuda"]
    lang = max(sorted(counts), key=lambda k: counts[k])
    return lang, counts[lang]


def family_of(kind: str) -> str:
    """Rule family: `cc`, `py`, `cuda`, … from a rule kind (`cc_library`, `STATIC_LIBRARY`)."""
    k = kind.lower()
    if not k:
        return "external"
    if "cuda" in k:
        return "cuda"
    if k.endswith(("_library", "_binary", "_test")) and "_" in k:
        return k.split("_", 1)[0]
    return "cmake" if k.isupper() or k in ("static_library", "shared_library") else k


def is_linked(kind: str) -> bool:
    k = kind.lower()
    return any(w in k for w in _LINKED_KIND_WORDS)


@dataclass
class CostModel:
    """Per-target costs of one graph, with how each figure was obtained."""

    graph: BuildGraph
    measured: dict[int, TargetCost] = field(default_factory=dict)
    fits: dict[tuple[str, str], tuple[float, float, int]] = field(default_factory=dict)
    fit_targets: int = 0
    unattributed: int = 0
    unattributed_seconds: float = 0.0
    actions: int = 0
    notes: list[str] = field(default_factory=list)
    source_bytes: dict[int, int] = field(default_factory=dict)
    linked_bytes: dict[int, dict[int, int]] = field(default_factory=dict)
    cache: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Per target, (cache hits, misses) of its actions, where the timings record them."""
    cache_stats: list[CacheStats] = field(default_factory=list)
    timeline: Timeline | None = None
    """The schedule of the largest timed build given (ninja log, Bazel profile)."""
    timeline_actions: int = 0
    rebuilds: Rebuilds | None = None
    """Per-target rebuild counts from the workspace's history (None: no history given)."""
    _scheduler: Scheduler | None = None
    _cache: dict[int, TargetCost] = field(default_factory=dict)
    _kinds: dict[str, tuple[str, bool]] = field(default_factory=dict)
    _arrays: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int8]] | None = None

    @property
    def estimate_basis(self) -> str:
        return f"estimated (model, fit on {self.fit_targets} targets)"

    @property
    def link_basis(self) -> str:
        """Link-time change: the root's link time scaled by the share of its inputs cut."""
        fit = self.fits.get(("link", "*"))
        return f"estimated (model, fit on {fit[2] if fit else 0} targets)"

    @property
    def scheduler(self) -> Scheduler | None:
        """Re-schedules clean builds from the timeline (None without one)."""
        if self._scheduler is None and self.timeline is not None:
            from slim.plan.schedule import Scheduler

            self._scheduler = Scheduler(self.graph, self.timeline)
        return self._scheduler

    def cost(self, target: int) -> TargetCost:
        hit = self.measured.get(target)
        if hit is not None:
            return hit
        hit = self._cache.get(target)
        if hit is None:
            hit = self._estimate(target)
            self._cache[target] = hit
        return hit

    def basis_text(self, code: int) -> str:
        return (DEFAULT, self.estimate_basis, MEASURED)[code]

    def arrays(
        self, ids: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int8]]:
        """Compile seconds, link seconds and basis codes of `ids` (computed once each)."""
        if self._arrays is None:
            n = len(self.graph)
            self._arrays = (np.zeros(n), np.zeros(n), np.full(n, -1, dtype=np.int8))
        comp, link, basis = self._arrays
        missing = ids[basis[ids] < 0]
        if len(missing):
            self._fill(missing.tolist(), comp, link, basis)
        return comp[ids], link[ids], basis[ids]

    def _fill(
        self,
        missing: list[int],
        comp: NDArray[np.float64],
        link: NDArray[np.float64],
        basis: NDArray[np.int8],
    ) -> None:
        """Costs of many targets at once (the planner's hot loop: one dict probe each)."""
        codes = {DEFAULT: CODE_DEFAULT, MEASURED: CODE_MEASURED}
        kinds, measured = self.graph.kinds, self.measured
        lang_get = _LANG_BY_EXT.get
        by_key: dict[tuple[str, str, int], TargetCost] = {}
        for t, srcs in zip(missing, self._srcs_of(missing), strict=True):
            c = measured.get(t)
            if c is None:
                if srcs is not None and len(srcs) == 1 and not self.source_bytes:
                    src = srcs[0]
                    lang = lang_get(src[src.rfind(".") :]) or "other"
                    key = (kinds[t], lang, 1 if lang != "other" else 0)
                    c = by_key.get(key)
                    if c is None:
                        c = by_key[key] = self._estimate(t)
                else:
                    c = self.cost(t)
            comp[t], link[t] = c.compile_seconds, c.link_seconds
            basis[t] = codes.get(c.basis, CODE_ESTIMATED)

    def _srcs_of(self, ids: list[int]) -> list[tuple[str, ...] | None]:
        """The sources of each of `ids`, in bulk when the graph's are a column."""
        srcs = self.graph.srcs
        get_many = getattr(srcs, "get_many", None)
        if get_many is not None:
            out: list[tuple[str, ...] | None] = get_many(np.asarray(ids, dtype=np.int64))
            return out
        return [srcs.get(t) for t in ids]

    def _kind(self, kind: str) -> tuple[str, bool]:
        hit = self._kinds.get(kind)
        if hit is None:
            hit = self._kinds[kind] = (family_of(kind), is_linked(kind))
        return hit

    def _estimate(self, target: int) -> TargetCost:
        g = self.graph
        kind = g.kinds[target]
        srcs = g.srcs.get(target, ())
        if not srcs and not kind:
            return TargetCost(0.0, 0.0, DEFAULT)
        lang, n = _language_and_count(srcs)
        family, linked = self._kind(kind)
        link = 0.0
        fit = self.fits.get((family, lang)) or self.fits.get(("*", lang))
        if fit is not None and n:
            per_src, per_byte, _ = fit
            size = self.source_bytes.get(target, 0)
            seconds = per_src * n + per_byte * size
            link_fit = self.fits.get(("link", "*"))
            if linked:
                link = link_fit[0] if link_fit is not None else DEFAULT_LINK_SECONDS
            return TargetCost(seconds, link, self.estimate_basis)
        seconds = DEFAULT_SECONDS_PER_SOURCE.get(lang, 0.0) * n
        if linked:
            link = DEFAULT_LINK_SECONDS
        return TargetCost(seconds, link, DEFAULT)


def _attribute(
    own: Ownership, graph: BuildGraph, owners: dict[str, str], ts: TimingSet
) -> tuple[dict[int, list[tuple[str, TimedAction]]], int, float]:
    """Each action's target and class; the count and seconds of those that have none."""
    per: dict[int, list[tuple[str, TimedAction]]] = defaultdict(list)
    missed = 0
    missed_s = 0.0
    for a in ts.actions:
        t = _owner(own, graph, owners, a)
        if t is None:
            missed += 1
            missed_s += a.duration
            continue
        cls = a.action_class
        # An executable has no telling suffix: its own artifact is what the link wrote.
        if (
            cls == OTHER
            and is_linked(graph.kinds[t])
            and any(graph.artifacts.get(o) == t for o in a.outputs)
        ):
            cls = LINK
        per[t].append((cls, a))
    return per, missed, missed_s


def _owner(own: Ownership, graph: BuildGraph, owners: dict[str, str], a: TimedAction) -> int | None:
    t: int | None = graph.lookup(a.label) if a.label else None
    for out in a.outputs:
        if t is not None:
            break
        lab = owners.get(out)
        t = graph.lookup(lab) if lab else own.artifact_owner(out)
    if t is None and a.source:
        t = own.source_owner(a.source)
    return t


def build_costs(graph: BuildGraph, facts: Facts, workspace: Path | None = None) -> CostModel:
    """Attribute every timing fact to targets and fit the estimate model."""
    model = CostModel(graph)
    own = Ownership.of(graph)
    owners: dict[str, str] = {}
    for ao in facts.of(ArtifactOwners):
        owners.update(dict(ao.owners))
    for ts in facts.of(TimingSet):
        _add_timings(model, own, owners, ts)
    _linked_bytes(model, own, facts)
    if workspace is not None:
        _source_sizes(model, workspace)
    _fit(model)
    model.cache_stats.extend(facts.of(CacheStats))
    histories = facts.of(ChangeHistory)
    if histories:
        from slim.plan.quarter import Rebuilds

        model.rebuilds = Rebuilds.of(graph, histories[0])
    return model


def _add_timings(model: CostModel, own: Ownership, owners: dict[str, str], ts: TimingSet) -> None:
    """One timing set: measured costs per target, cache outcomes, the schedule to replay."""
    per, missed, missed_s = _attribute(own, model.graph, owners, ts)
    model.actions += len(ts.actions)
    model.unattributed += missed
    model.unattributed_seconds += missed_s
    if missed:
        model.notes.append(
            f"{missed} of {len(ts.actions)} actions in {ts.source} not attributed "
            f"to any target ({missed_s:.3f}s): timings of a different build?"
        )
    for t, items in per.items():
        comp = sum(a.duration for c, a in items if c in (COMPILE, CUDA, ARCHIVE, OTHER))
        link = sum(a.duration for c, a in items if c == LINK)
        prev = model.measured.get(t)
        if prev is None or comp + link > prev.compile_seconds + prev.link_seconds:
            model.measured[t] = TargetCost(comp, link, MEASURED, len(items))
        hits = sum(1 for _, a in items if a.cache == HIT)
        misses = sum(1 for _, a in items if a.cache == MISS)
        if hits or misses:
            h, m = model.cache.get(t, (0, 0))
            model.cache[t] = (h + hits, m + misses)
    if ts.timeline and (model.timeline is None or len(ts.actions) > model.timeline_actions):
        from slim.plan.schedule import make_timeline

        critical = [a.description for a in ts.critical_path]
        model.timeline = make_timeline(ts.source, per, critical)
        model.timeline_actions = len(ts.actions)


def _source_sizes(model: CostModel, workspace: Path) -> None:
    for t, srcs in model.graph.srcs.items():
        size = 0
        for s in srcs:
            try:
                size += (workspace / _source_path(s)).stat().st_size
            except OSError:
                continue
        model.source_bytes[t] = size


def _fit(model: CostModel) -> None:
    """Fit seconds = a * n_sources + b * bytes per (family, language), through the origin."""
    graph = model.graph
    rows: dict[tuple[str, str], list[tuple[int, int, float]]] = defaultdict(list)
    links: list[float] = []
    fitted: set[int] = set()
    for t, c in model.measured.items():
        srcs = graph.srcs.get(t, ())
        if c.link_seconds > 0:
            links.append(c.link_seconds)
        if not srcs or c.compile_seconds <= 0:
            continue
        fitted.add(t)
        lang, n = _language_and_count(srcs)
        size = model.source_bytes.get(t, 0)
        rows[(family_of(graph.kinds[t]), lang)].append((n, size, c.compile_seconds))
        rows[("*", lang)].append((n, size, c.compile_seconds))
    for key, pts in rows.items():
        if len(pts) < MIN_FIT_TARGETS:
            continue
        x = np.array([[p[0], p[1]] for p in pts], dtype=float)
        y = np.array([p[2] for p in pts], dtype=float)
        if not x[:, 1].any():
            x = x[:, :1]
        coef, *_ = np.linalg.lstsq(x, y, rcond=None)
        per_src = max(float(coef[0]), 0.0)
        per_byte = max(float(coef[1]), 0.0) if len(coef) > 1 else 0.0
        model.fits[key] = (per_src, per_byte, len(pts))
    model.fit_targets = len(fitted)
    if links:
        model.fits[("link", "*")] = (float(np.median(links)), 0.0, len(links))


def _linked_bytes(model: CostModel, own: Ownership, facts: Facts) -> None:
    """Bytes each target's objects occupy in each linked binary (from linker maps)."""
    if not facts.may_hold("slim.model.native"):
        return
    from slim.model.native import LinkMap

    for lm in facts.of(LinkMap):
        root = own.artifact_owner(lm.output) if lm.output else None
        if root is None:
            continue
        per = model.linked_bytes.setdefault(root, {})
        for inp in lm.inputs:
            if not inp.linked or not inp.kept_bytes:
                continue
            t = own.artifact_owner(inp.archive or inp.file)
            if t is not None:
                per[t] = per.get(t, 0) + inp.kept_bytes


def _source_path(src: str) -> str:
    from slim.model.ownership import source_path

    return source_path(src)
