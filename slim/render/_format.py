"""Phrases every text renderer shares: savings, evidence locations, edges."""

from __future__ import annotations

from slim.model.actions import Move, Remove, Replace
from slim.model.findings import Evidence, Finding, QuarterSaving, Saving, WallSaving
from slim.model.report import Proposal, SavingsSummary


def seconds(s: float) -> str:
    return f"{s:.1f} s"


def saving_phrase(s: Saving) -> str:
    """`2.5 s compile, 0.0 s link, 0 bytes, 1 target (measured; …)`."""
    n = s.targets_removed
    return (
        f"{seconds(s.compile_seconds)} compile, {seconds(s.link_seconds)} link, "
        f"{s.bytes:,} bytes, {n} target{'' if n == 1 else 's'} ({s.basis})"
    )


def cpu_hours(h: float) -> str:
    """`0.52 CPU-h`, small figures with enough digits to be told from zero."""
    return f"{h:.2f} CPU-h" if h >= 0.1 or h == 0 else f"{h:.4f} CPU-h"


def wall_phrase(w: WallSaving) -> str:
    """`wall saved (clean build, -j3): 3.0 s, on the critical path (7.4 s -> 4.4 s)`."""
    if not w.measured:
        return f"wall saved (clean build, -j{w.jobs}): not measured (no action in the timeline)"
    path = "on the critical path" if w.critical else "off the critical path"
    return (
        f"wall saved (clean build, -j{w.jobs}): {seconds(w.seconds)}, {path} "
        f"({seconds(w.before)} -> {seconds(w.after)})"
    )


def quarter_phrase(q: QuarterSaving) -> str:
    """`per quarter: 0.52 CPU-h (4.3 rebuilds avoided, miss ratio 1.00)`."""
    return (
        f"per quarter: {cpu_hours(q.cpu_hours)} ({q.rebuilds:.1f} rebuilds avoided, "
        f"miss ratio {q.miss_ratio:.2f} {q.miss_source})"
    )


def figure_lines(s: Saving, savings: SavingsSummary | None = None) -> list[str]:
    """The wall-clock and quarterly figures of a saving, each with its basis; or why a
    figure is missing."""
    lines = []
    if s.wall is not None:
        lines.append(f"{wall_phrase(s.wall)} [{s.wall.basis}]")
    if s.quarter is not None:
        lines.append(f"{quarter_phrase(s.quarter)} [{s.quarter.basis}]")
    elif savings is not None and savings.history_note:
        lines.append(f"per quarter: not known ({savings.history_note}): per-build figures only")
    return lines


def totals_phrase(s: Saving) -> str:
    """The per-build saving, then wall clock and per quarter where known (every summary)."""
    out = saving_phrase(s)
    if s.wall is not None:
        out += f"; {wall_phrase(s.wall)}"
    if s.quarter is not None:
        out += f"; {quarter_phrase(s.quarter)}"
    return out


def where(e: Evidence) -> str:
    """`file:line`, `file:byte N` or `file`."""
    if e.line is not None:
        return f"{e.source}:{e.line}"
    if e.offset is not None:
        return f"{e.source}:byte {e.offset}"
    return e.source


def edge(f: Finding) -> str:
    return f"{f.target} -> {f.dep}" if f.dep else f.target


def proposal_phrase(p: Proposal) -> str:
    """`remove //a, //b; replace //c with //d` (what the proposal's fixes do)."""
    verbs: dict[str, list[str]] = {}
    for x in p.fixes:
        a = x.action
        if isinstance(a, Replace):
            verbs.setdefault("replace", []).append(f"{a.dep} with {a.with_dep}")
        elif isinstance(a, Move):
            verbs.setdefault("move", []).append(f"{a.dep} to {a.to_attr}")
        elif isinstance(a, Remove):
            verbs.setdefault("remove", []).append(a.dep)
    return "; ".join(f"{v} {', '.join(dict.fromkeys(items))}" for v, items in verbs.items())
