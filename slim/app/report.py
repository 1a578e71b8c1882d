"""`slim report`: the planned report of some roots, rendered, and whether it fails the gate."""

from __future__ import annotations

import io

from slim.model.report import Report

REPORT_FORMATS = ("text", "json", "markdown", "sarif", "buildozer", "dot", "csv")
FAIL_LEVELS = {"high": 3, "medium": 2, "low": 1}


def render(report: Report, fmt: str, verbosity: int = 1, statistics: bool = False) -> str:
    """The report in `fmt`; the text output honours `verbosity` and `statistics`."""
    if fmt == "text":
        from slim.render.text import TextOptions, render_text

        return render_text(report, TextOptions(verbosity, statistics))
    from slim.render import get_renderer

    buf = io.StringIO()
    get_renderer(fmt)(report, buf)
    return buf.getvalue()


def fails(report: Report, fail_on: str | None, exit_zero: bool = False) -> bool:
    """Whether the run fails the gate, as a linter's does: any removable finding, unless
    `exit_zero`; `fail_on` (checked by `selectors.check_fail_on`) narrows it to a confidence
    level or more, or to some rule codes."""
    removable = report.removable
    if exit_zero or not removable:
        return False
    if fail_on is None or fail_on == "any":
        return True
    if fail_on in FAIL_LEVELS:
        return any(f.confidence.rank >= FAIL_LEVELS[fail_on] for f in removable)
    prefixes = fail_on.split(",")
    return any(f.code.startswith(tuple(prefixes)) for f in removable)
