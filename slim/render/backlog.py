"""The cleanup backlog as Markdown, CSV, JSON (`slim.cleanup/2`) and a buildozer file."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TextIO

from slim.model.backlog import Backlog, Item
from slim.model.findings import Saving
from slim.model.jsontypes import JSON
from slim.render._format import cpu_hours, seconds, totals_phrase
from slim.render.csv import figure_cells, write_rows
from slim.render.json import (
    fix_to_dict,
    location_to_dict,
    quarter_to_dict,
    saving_to_dict,
    wall_to_dict,
)
from slim.render.markdown import escape

SCHEMA = "slim.cleanup/2"
#: Removed targets listed per backlog item in backlog.json (all are counted).
MAX_LABELS_SHOWN = 100


def since_line(b: Backlog) -> str:
    if b.previous is None:
        return f"first run for this scope: {len(b.items)} open items"
    new = sum(1 for i in b.items if i.status == "new")
    still = len(b.items) - new
    return f"since run {b.previous}: {new} new, {len(b.fixed)} fixed, {still} still open"


def trend_line(b: Backlog) -> str:
    return "trend of removable targets: " + " → ".join(f"run {p.run}: {p.targets}" for p in b.trend)


def _share(it: Item) -> str:
    s = it.saving
    return (
        f"{seconds(s.seconds)}, {s.targets_removed} target{'' if s.targets_removed == 1 else 's'}"
        f" ({it.alone.targets_removed} alone), {s.bytes:,} B"
    )


def _per_quarter(it: Item) -> str:
    q = it.saving.quarter
    if q is None:
        return "–"
    return (
        f"{cpu_hours(q.cpu_hours)} ({q.rebuilds:.1f} rebuilds, {q.commits} commits; "
        f"miss {q.miss_ratio:.2f} {q.miss_source})"
    )


def _wall(it: Item) -> str:
    w = it.alone.wall
    if w is None or not w.measured:
        return "–"
    where = "critical path" if w.critical else "off critical path"
    took = f"{w.seconds / 60:.1f} min" if abs(w.seconds) >= 60 else seconds(w.seconds)
    return f"{took} at -j{w.jobs} ({where})"


def _basis_lines(b: Backlog) -> list[str]:
    """What ranks the items and the basis of each figure (every output says it)."""
    q = b.total.quarter
    lines = [
        "",
        "Ranked by " + ("CPU-hours per quarter" if q is not None else "CPU seconds per build"),
    ]
    if q is not None:
        lines[-1] += f" ({escape(q.basis)})"
    else:
        lines[-1] += f" (no history: {escape(b.history_note or 'none given')})"
    lines[-1] += (
        "; wall clock is each cut alone, minutes of a clean build of its root an engineer "
        "waits for, where the timings give a schedule."
    )
    return lines


def render_markdown(b: Backlog, out: TextIO) -> None:
    c = b.counts
    lines = [
        f"# slim cleanup backlog ({escape(b.scope)})",
        "",
        f"{b.roots} binaries analyzed · {len(b.items)} items · saving of every cut at once: "
        f"{escape(totals_phrase(b.total))} · {c['suppressed']} suppressed · {c['kept']} kept "
        f"on evidence · {c['not_checked']} checks not run (evidence missing)",
        "",
        f"{escape(since_line(b))}; {escape(trend_line(b))}",
        "",
        "| Run | Removable targets | Bytes | Build seconds | Per quarter | Wall seconds |",
        "|---|---|---|---|---|---|",
        *(
            f"| {p.run} | {p.targets} | {p.bytes:,} | {p.seconds:.1f} | "
            f"{'–' if p.quarter_cpu_hours is None else cpu_hours(p.quarter_cpu_hours)} | "
            f"{'–' if p.wall_seconds is None else f'{p.wall_seconds:.1f}'} |"
            for p in b.trend
        ),
        *_basis_lines(b),
    ]
    if b.owners_source:
        lines += ["", f"Owners from {escape(b.owners_source)}."]
    for owner, items in b.by_owner():
        total = sum(i.saving.seconds for i in items)
        lines += ["", f"## {escape(owner)} ({len(items)} items, {seconds(total)})", ""]
        lines += [
            "| Rank | Status | Code | Edge | Per quarter | Wall per build | CPU per build "
            "| Roots |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for it in items:
            edge = f"{escape(it.target)} → {escape(it.dep)}"
            lines.append(
                f"| {it.rank} | {it.status} | {it.code} {escape(it.name)} | {edge} "
                f"| {_per_quarter(it)} | {_wall(it)} | {_share(it)} | {len(it.roots)} |"
            )
        commands = [x.command for it in items for x in it.fixes[:1] if x.runnable]
        edits = [x.command for it in items for x in it.fixes if not x.runnable]
        if commands:
            lines += ["", "```sh", *commands, "```"]
        if edits:
            lines += ["", *(f"- {escape(e)}" for e in edits)]
    if b.fixed:
        lines += ["", f"## Fixed since run {b.previous} ({len(b.fixed)})", ""]
        lines += [f"- {d.code} {escape(d.target)} → {escape(d.dep)}" for d in b.fixed]
    out.write("\n".join(lines) + "\n")


CSV_COLUMNS = (
    "rank",
    "owner",
    "status",
    "code",
    "name",
    "target",
    "dep",
    "seconds",
    "targets_removed",
    "bytes",
    "basis",
    "wall_seconds",
    "jobs",
    "critical_path",
    "wall_basis",
    "quarter_cpu_hours",
    "rebuilds_per_quarter",
    "miss_ratio",
    "quarter_basis",
    "roots",
    "confidence",
    "location",
    "fix",
)


def _cells(it: Item) -> list[str]:
    """The wall figures of the cut alone, the quarterly ones of its share."""
    return figure_cells(it.alone)[:4] + figure_cells(it.saving)[4:]


def render_csv(b: Backlog, out: TextIO) -> None:
    rows = []
    for owner, items in b.by_owner():
        for it in items:
            s = it.saving
            fix = it.fixes[0].command if it.fixes else ""
            rows.append(
                [
                    it.rank,
                    owner,
                    it.status,
                    it.code,
                    it.name,
                    it.target,
                    it.dep,
                    f"{s.seconds:.3f}",
                    s.targets_removed,
                    s.bytes,
                    s.basis,
                    *_cells(it),
                    len(it.roots),
                    it.confidence,
                    "" if it.location is None else str(it.location),
                    fix,
                ]
            )
    write_rows(out, CSV_COLUMNS, rows)


def _capped(s: Saving) -> dict[str, JSON]:
    """A saving as JSON with at most MAX_LABELS_SHOWN removed labels (all are counted)."""
    d = saving_to_dict(s) or {}
    d["removed"] = list(s.removed[:MAX_LABELS_SHOWN])
    return d


def _item(it: Item) -> dict[str, JSON]:
    shown = list(it.saving.removed[:MAX_LABELS_SHOWN])
    return {
        "key": it.key,
        "rank": it.rank,
        "status": it.status,
        "owner": it.owner,
        "code": it.code,
        "name": it.name,
        "target": it.target,
        "dep": it.dep,
        "verdict": it.verdict,
        "confidence": it.confidence,
        "message": it.message,
        "roots": list(it.roots),
        "location": location_to_dict(it.location),
        "fixes": [fix_to_dict(x) for x in it.fixes],
        "saving": _capped(it.saving),
        "removed_shown": f"{len(shown)} of {it.saving.targets_removed}",
        "alone": {
            "seconds": round(it.alone.seconds, 3),
            "targets_removed": it.alone.targets_removed,
            "bytes": it.alone.bytes,
            "wall": wall_to_dict(it.alone.wall),
            "quarter": quarter_to_dict(it.alone.quarter),
        },
    }


def to_json(b: Backlog) -> dict[str, JSON]:
    return {
        "schema": SCHEMA,
        "run": b.run,
        "scope": b.scope,
        "roots": b.roots,
        "counts": dict(sorted(b.counts.items())),
        "total": _capped(b.total),
        "since": None
        if b.previous is None
        else {
            "run": b.previous,
            "new": [i.key for i in b.items if i.status == "new"],
            "open": [i.key for i in b.items if i.status == "open"],
            "fixed": [d.key for d in b.fixed],
        },
        "trend": [
            {
                "run": p.run,
                "targets": p.targets,
                "bytes": p.bytes,
                "seconds": p.seconds,
                "quarter_cpu_hours": p.quarter_cpu_hours,
                "wall_seconds": p.wall_seconds,
            }
            for p in b.trend
        ],
        "ranked_by": "quarter_cpu_hours" if b.total.quarter is not None else "seconds",
        "history_note": b.history_note,
        "owners": [
            {
                "owner": o,
                "items": [i.key for i in its],
                "seconds": round(sum(i.saving.seconds for i in its), 3),
                "quarter_cpu_seconds": round(
                    sum(i.saving.quarter.cpu_seconds for i in its if i.saving.quarter), 3
                ),
            }
            for o, its in b.by_owner()
        ],
        "items": [_item(it) for it in b.items],
    }


def render_json(b: Backlog, out: TextIO) -> None:
    json.dump(to_json(b), out, indent=2, sort_keys=True, ensure_ascii=False)
    out.write("\n")


def render_buildozer(b: Backlog, out: TextIO) -> None:
    """Every runnable fix, by owner, as `buildozer -f` lines (replacements included)."""
    lines = ["# slim cleanup: buildozer -f this-file (from the repository root)"]
    for owner, items in b.by_owner():
        cuts = [(it, x) for it in items for x in it.fixes[:1] if x.runnable]
        if not cuts:
            continue
        lines.append(f"# owner: {owner}")
        for it, x in cuts:
            lines.append(f"# rank {it.rank}: {it.code} {it.name}, {_share(it)}")
            lines.append(x.batch)
    out.write("\n".join(lines) + "\n")


OUTPUTS: dict[str, Callable[[Backlog, TextIO], None]] = {
    "backlog.md": render_markdown,
    "backlog.csv": render_csv,
    "backlog.json": render_json,
    "backlog.buildozer": render_buildozer,
}
