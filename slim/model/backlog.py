"""The cleanup backlog: every proposed cut over many roots, ranked by what it saves.

Pure data, rendered by `slim.render.backlog`. Each item's `saving` is its share of the
backlog's total (the same figure `slim report` gives for these roots): items are priced
one after another in rank order, so the shares add up to the total.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from slim.model.actions import Action
from slim.model.findings import Fix, Saving
from slim.model.graph import Location

UNOWNED = "(unowned)"


@dataclass(frozen=True, slots=True)
class Item:
    """One edge to cut (or a stale suppression to delete), across every root that has it."""

    key: str
    code: str
    name: str
    target: str
    dep: str
    verdict: str
    confidence: str
    message: str
    roots: tuple[str, ...]
    action: Action | None = None
    fixes: tuple[Fix, ...] = ()
    location: Location | None = None
    saving: Saving = field(default_factory=Saving)
    """This item's share of the total, in rank order."""
    alone: Saving = field(default_factory=Saving)
    """The cut alone (the best of its roots), as `slim report` shows it."""
    owner: str = UNOWNED
    rank: int = 0
    status: str = "new"


@dataclass(frozen=True, slots=True)
class Fixed:
    """An item of the previous run that is gone now."""

    key: str
    code: str
    target: str
    dep: str


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """One complete run's totals."""

    run: int
    targets: int
    bytes: int
    seconds: float
    quarter_cpu_hours: float | None = None
    """CPU-hours per quarter of every cut at once (None: that run had no history)."""
    wall_seconds: float | None = None
    """Wall-clock seconds of a clean build every cut at once saves (one root only)."""


@dataclass(frozen=True)
class Backlog:
    """The ranked result of one complete run, with what changed since the previous one."""

    run: int
    scope: str
    roots: int
    items: tuple[Item, ...]
    total: Saving
    counts: dict[str, int]
    previous: int | None = None
    fixed: tuple[Fixed, ...] = ()
    trend: tuple[TrendPoint, ...] = ()
    owners_source: str = ""
    history_note: str = ""
    """Why there is no history (the ranking then is per build), else empty."""

    def by_owner(self) -> list[tuple[str, list[Item]]]:
        """Items per owner, the owner with the largest saving first."""
        groups: dict[str, list[Item]] = {}
        for it in self.items:
            groups.setdefault(it.owner, []).append(it)
        return sorted(groups.items(), key=lambda kv: (_weight(kv[1]), kv[0]))


def _weight(items: list[Item]) -> tuple[float, float]:
    """An owner's items, heaviest first: CPU per quarter where known, then per build."""
    q = sum(i.saving.quarter.cpu_seconds for i in items if i.saving.quarter is not None)
    return (-q, -sum(i.saving.seconds for i in items))
