"""CSV for spreadsheets and trackers: one row per finding (report) or backlog item (cleanup)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from typing import TextIO

from slim.model.findings import Finding, Saving
from slim.model.report import Report

REPORT_COLUMNS = (
    "code",
    "name",
    "root",
    "target",
    "dep",
    "verdict",
    "confidence",
    "removable",
    "suppressed",
    "compile_seconds",
    "link_seconds",
    "bytes",
    "targets_removed",
    "basis",
    "wall_seconds",
    "jobs",
    "critical_path",
    "wall_basis",
    "quarter_cpu_hours",
    "rebuilds_per_quarter",
    "miss_ratio",
    "quarter_basis",
    "location",
    "fix",
    "message",
)


def _row(f: Finding, suppressed: bool) -> list[str]:
    s = f.saving
    reason = f.suppression.reason if suppressed and f.suppression is not None else ""
    return [
        f.code,
        f.name,
        f.root,
        f.target,
        f.dep,
        f.verdict,
        f.confidence.value,
        "yes" if f.removable else "no",
        reason or ("yes" if suppressed else ""),
        "" if s is None else f"{s.compile_seconds:.3f}",
        "" if s is None else f"{s.link_seconds:.3f}",
        "" if s is None else str(s.bytes),
        "" if s is None else str(s.targets_removed),
        "" if s is None else s.basis,
        *figure_cells(s),
        "" if f.location is None else str(f.dep_location or f.location),
        "" if f.fix is None else f.fix.command,
        f.message,
    ]


def figure_cells(s: Saving | None) -> list[str]:
    """wall_seconds, jobs, critical_path, wall_basis, quarter_cpu_hours,
    rebuilds_per_quarter, miss_ratio, quarter_basis (empty where not known)."""
    w = s.wall if s is not None else None
    q = s.quarter if s is not None else None
    wall = ["", "", "", ""]
    if w is not None:
        wall = [f"{w.seconds:.3f}", str(w.jobs), "yes" if w.critical else "no", w.basis]
    quarter = ["", "", "", ""]
    if q is not None:
        quarter = [f"{q.cpu_hours:.4f}", f"{q.rebuilds:.2f}", f"{q.miss_ratio:.4f}", q.basis]
    return wall + quarter


def write_rows(out: TextIO, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """RFC 4180 quoting with `\\n` line ends (byte-stable across platforms)."""
    w = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow(header)
    w.writerows(rows)


def write_dicts(out: TextIO, header: Sequence[str], rows: Iterable[Mapping[str, object]]) -> None:
    write_rows(out, header, ([r.get(c, "") for c in header] for r in rows))


def render(report: Report, out: TextIO) -> None:
    rows = [_row(f, False) for f in report.findings]
    rows += [_row(f, True) for f in report.suppressed]
    write_rows(out, REPORT_COLUMNS, rows)
