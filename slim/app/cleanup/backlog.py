"""From the roots' stored results to the ranked backlog.

Items are the distinct edge actions of removable findings (and stale suppressions).
They are priced together over every root with the planner (the figure `slim report`
gives for the same roots), ranked by their saving alone, then each is given its share of
the total in that order, so the shares add up to the total.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from slim.app.cleanup.owners import Owners
from slim.model.actions import EdgeAction, Move, Remove, Replace, action_from_json
from slim.model.backlog import Backlog, Fixed, Item, TrendPoint
from slim.model.facts import Facts
from slim.model.findings import QuarterSaving, Saving, WallSaving
from slim.model.graph import BuildGraph, Location
from slim.model.rules import EVIDENCE_MISSING, STALE_SUPPRESSION
from slim.plan.fixes import write
from slim.plan.prune import history_of, rank_actions

_CONF_RANK = {"high": 3, "medium": 2, "low": 1}


def _location(d: Mapping[str, Any] | None) -> Location | None:
    if not d:
        return None
    return Location(str(d["path"]), d.get("line"), d.get("offset"))


def _wall(d: Mapping[str, Any] | None) -> WallSaving | None:
    if not d:
        return None
    return WallSaving(
        seconds=float(d["seconds"]),
        before=float(d["before_seconds"]),
        after=float(d["after_seconds"]),
        jobs=int(d["jobs"]),
        critical=bool(d["critical_path"]),
        basis=str(d["basis"]),
        measured=bool(d.get("measured", True)),
    )


def _quarter(d: Mapping[str, Any] | None) -> QuarterSaving | None:
    if not d:
        return None
    basis = d.get("basis") or {}
    return QuarterSaving(
        cpu_seconds=float(d["cpu_seconds"]),
        rebuilds=float(d["rebuilds"]),
        commits=int(d["commits"]),
        miss_ratio=float(d["miss_ratio"]),
        rebuilds_basis=str(basis.get("rebuilds", "")),
        miss_basis=str(basis.get("miss_ratio", "")),
        miss_source=str(d.get("miss_ratio_source", "assumed")),
    )


def _saving(d: Mapping[str, Any] | None) -> Saving:
    if not d:
        return Saving()
    basis = d.get("basis") or {}
    return Saving(
        wall=_wall(d.get("wall")),
        quarter=_quarter(d.get("quarter")),
        compile_seconds=float(d["compile_seconds"]),
        link_seconds=float(d["link_seconds"]),
        bytes=int(d["bytes"]),
        removed=tuple(d.get("removed", ())),
        compile_basis=str(basis.get("compile", "")),
        link_basis=str(basis.get("link", "")),
        bytes_basis=str(basis.get("bytes", "")),
        added=tuple(d.get("added", ())),
    )


def _better(a: Saving, b: Saving) -> Saving:
    """The larger of two roots' savings of one cut; bytes add up (each binary shrinks)."""
    best = a if (a.rank_key, a.targets_removed) >= (b.rank_key, b.targets_removed) else b
    return dataclasses.replace(best, bytes=a.bytes + b.bytes)


def collect(results: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Item], dict[str, int]]:
    """Items keyed `code|target|dep` over every root, and the counts of what was not kept."""
    items: dict[str, Item] = {}
    counts = {"findings": 0, "kept": 0, "not_checked": 0, "suppressed": 0}
    used: set[str] = set()
    stale: list[dict[str, Any]] = []
    for res in results:
        counts["suppressed"] += len(res["suppressed"])
        used.update(f["suppression"]["by"] for f in res["suppressed"] if f.get("suppression"))
        for f in res["findings"]:
            counts["findings"] += 1
            if f["code"] == EVIDENCE_MISSING.code:
                counts["not_checked"] += 1
            elif f["code"] == STALE_SUPPRESSION.code:
                stale.append(f)
            elif not (f["removable"] and f["dep"] and f["action"]):
                counts["kept"] += 1
            else:
                _add(items, f)
    for f in stale:
        loc = _location(f["location"])
        if loc is None or f"{loc.path}:{loc.line}" not in used:
            _add(items, f)
    return items, counts


def _add(items: dict[str, Item], f: Mapping[str, Any]) -> None:
    key = f"{f['code']}|{f['target']}|{f['dep']}"
    alone = _saving(f["saving"])
    it = items.get(key)
    if it is None:
        items[key] = Item(
            key=key,
            code=f["code"],
            name=f["name"],
            target=f["target"],
            dep=f["dep"],
            verdict=f["verdict"],
            confidence=f["confidence"],
            message=f["message"],
            roots=(f["root"],) if f["root"] else (),
            action=action_from_json(f["action"]) if f["action"] else None,
            location=_location(f["dep_location"]) or _location(f["location"]),
            alone=alone,
        )
        return
    worse = min(it.confidence, f["confidence"], key=lambda c: _CONF_RANK.get(c, 0))
    items[key] = dataclasses.replace(
        it,
        confidence=worse,
        roots=tuple(sorted({*it.roots, f["root"]} - {""})),
        alone=_better(it.alone, alone),
    )


def build(
    graph: BuildGraph,
    facts: Facts,
    results: Iterable[Mapping[str, Any]],
    owners: Owners,
    *,
    run: int,
    scope: str,
    roots: int,
) -> Backlog:
    """The ranked backlog of one run's results (no previous-run diff yet)."""
    items, counts = collect(results)
    ordered = sorted(items.values(), key=lambda i: _rank(i.alone, i.key))
    edge = [i for i in ordered if isinstance(i.action, Remove | Move | Replace)]
    by_root: dict[int, list[EdgeAction]] = {}
    for it in edge:
        for r in it.roots:
            rid = graph.lookup(r)
            if rid is not None and isinstance(it.action, Remove | Move | Replace):
                by_root.setdefault(rid, []).append(it.action)
    order = [i.action for i in edge if isinstance(i.action, Remove | Move | Replace)]
    summary, shares = rank_actions(graph, facts, by_root, order)
    share = dict(zip([i.key for i in edge], shares, strict=True))
    out = []
    for it in ordered:
        fixes = write(graph, it.action, True, it.location) if it.action is not None else ()
        s = share.get(it.key, Saving())
        s = dataclasses.replace(s, bytes=it.alone.bytes, bytes_basis=it.alone.bytes_basis)
        out.append(
            dataclasses.replace(it, fixes=fixes, saving=s, owner=owners.of(graph, it.target))
        )
    out.sort(key=lambda i: _rank(i.saving, i.key))
    ranked = tuple(dataclasses.replace(it, rank=n) for n, it in enumerate(out, 1))
    total = dataclasses.replace(summary.total, bytes=sum(i.saving.bytes for i in ranked))
    return Backlog(
        run=run,
        scope=scope,
        roots=roots,
        items=ranked,
        total=total,
        counts=counts,
        owners_source=owners.source,
        history_note=history_of(facts)[1],
    )


def _rank(s: Saving, key: str) -> tuple[float, float, float, int, int, str]:
    """Largest first by `Saving.rank_key`, then targets and bytes."""
    a, b, c = s.rank_key
    return (-a, -b, -c, -s.targets_removed, -s.bytes, key)


def item_record(it: Item) -> dict[str, Any]:
    """What the store keeps of an item: the next run's diff, and its figures for the trend."""
    from slim.render.json import saving_to_dict

    share = saving_to_dict(it.saving) or {}
    share.pop("removed", None)
    alone = saving_to_dict(it.alone) or {}
    alone.pop("removed", None)
    return {
        "key": it.key,
        "code": it.code,
        "target": it.target,
        "dep": it.dep,
        "rank": it.rank,
        "saving": share,
        "alone": alone,
    }


def total_record(b: Backlog) -> dict[str, Any]:
    """The run's total, every figure with its basis (the store keeps it for the trend)."""
    from slim.render.json import saving_to_dict

    d = saving_to_dict(b.total) or {}
    d.pop("removed", None)
    return d


def with_history(
    b: Backlog,
    previous: int | None,
    before: Mapping[str, Mapping[str, Any]],
    trend: tuple[TrendPoint, ...],
) -> Backlog:
    """`b` with each item's status (new or open) and what the previous run had that is gone."""
    if previous is None:
        return dataclasses.replace(b, trend=trend)
    keys = {it.key for it in b.items}
    items = tuple(
        dataclasses.replace(it, status="open" if it.key in before else "new") for it in b.items
    )
    fixed = tuple(
        Fixed(str(d["key"]), str(d["code"]), str(d["target"]), str(d["dep"]))
        for k, d in sorted(before.items())
        if k not in keys
    )
    return dataclasses.replace(b, items=items, previous=previous, fixed=fixed, trend=trend)
