"""`slim report`: the planned report of some roots, rendered, and whether it fails the gate."""

from __future__ import annotations

import io

from slim.errors import UsageError
from slim.model.report import Report

REPORT_FORMATS = ("text", "json", "markdown", "sarif", "buildozer", "dot", "csv")
FAIL_LEVELS = {"high": 3, "medium": 2, "low": 1}


def render(report: Report, fmt: str) -> str:
    from slim.render import get_renderer

    buf = io.StringIO()
    get_renderer(fmt)(report, buf)
    return buf.getvalue()


def fails(report: Report, fail_on: str | None) -> bool:
    """Whether a removable finding reaches `fail_on`: a confidence level (or more), `any`,
    or a list of rule codes."""
    if not fail_on:
        return False
    removable = report.removable
    level = fail_on.strip().lower()
    if level in FAIL_LEVELS:
        return any(f.confidence.rank >= FAIL_LEVELS[level] for f in removable)
    if level == "any":
        return bool(removable)
    codes = {c.strip().upper() for c in fail_on.split(",") if c.strip()}
    if not codes:
        raise UsageError(f"--fail-on {fail_on!r}: expected high, medium, low, any or rule codes")
    return any(f.code in codes for f in removable)
