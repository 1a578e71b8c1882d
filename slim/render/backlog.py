"""The cleanup backlog as Markdown, CSV, JSON (`slim.cleanup/2`) and a buildozer file."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TextIO

from slim.model.backlog import Backlog, Item
from slim.model.findings import Saving
from slim.model.jsontypes import JSON
from slim.render._format import saving_phrase, seconds
from slim.render.csv import write_rows
from slim.render.json import fix_to_dict, location_to_dict, saving_to_dict
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


def render_markdown(b: Backlog, out: TextIO) -> None:
    c = b.counts
    lines = [
        f"# slim cleanup backlog ({escape(b.scope)})",
        "",
        f"{b.roots} binaries analyzed · {len(b.items)} items · saving of every cut at once: "
        f"{escape(saving_phrase(b.total))} · {c['suppressed']} suppressed · {c['kept']} kept "
        f"on evidence · {c['not_checked']} checks not run (evidence missing)",
        "",
        f"{escape(since_line(b))}; {escape(trend_line(b))}",
        "",
        "| Run | Removable targets | Bytes | Build seconds |",
        "|---|---|---|---|",
        *(f"| {p.run} | {p.targets} | {p.bytes:,} | {p.seconds:.1f} |" for p in b.trend),
    ]
    if b.owners_source:
        lines += ["", f"Owners from {escape(b.owners_source)}."]
    for owner, items in b.by_owner():
        total = sum(i.saving.seconds for i in items)
        lines += ["", f"## {escape(owner)} ({len(items)} items, {seconds(total)})", ""]
        lines += ["| Rank | Status | Code | Edge | Saving | Roots |", "|---|---|---|---|---|---|"]
        for it in items:
            edge = f"{escape(it.target)} → {escape(it.dep)}"
            lines.append(
                f"| {it.rank} | {it.status} | {it.code} {escape(it.name)} | {edge} "
                f"| {_share(it)} | {len(it.roots)} |"
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
    "roots",
    "confidence",
    "location",
    "fix",
)


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
            {"run": p.run, "targets": p.targets, "bytes": p.bytes, "seconds": p.seconds}
            for p in b.trend
        ],
        "owners": [
            {
                "owner": o,
                "items": [i.key for i in its],
                "seconds": round(sum(i.saving.seconds for i in its), 3),
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
