"""Review comment (GitHub, Phabricator): summary, findings table, evidence, one fix block.

A hidden `<!-- slim:TARGET -->` marker lets a bot update its previous comment. The comment
never exceeds GitHub's 65,536-character limit: findings past the budget are cut with
"… and N more".
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import TextIO

from slim.model.findings import Finding
from slim.model.report import Report
from slim.render._format import (
    cpu_hours,
    quarter_phrase,
    seconds,
    totals_phrase,
    wall_phrase,
    where,
)

#: GitHub's limit on a comment body, in characters.
MAX_CHARS = 65_536
MAX_SUPPRESSED_SHOWN = 100
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>])")


def escape(text: str) -> str:
    """Plain text for a table cell or list item: no Markdown, no HTML, one line."""
    one_line = " ".join(text.split())
    return _MD_SPECIAL.sub(r"\\\1", html.escape(one_line, quote=False))


def marker(report: Report) -> str:
    """The hidden, stable marker a bot searches for (one per set of roots)."""
    roots = ",".join(r.label for r in report.roots) or "report"
    return f"<!-- slim:{roots.replace('--', '-&#45;')} -->"


def _fence(lines: Sequence[str]) -> str:
    longest = max((len(m) for t in lines for m in re.findall(r"`+", t)), default=0)
    return "`" * max(3, longest + 1)


def summary_line(report: Report) -> str:
    """One line: removable edges, and the saving of every removable cut at once (the same
    figure as the text, JSON and cleanup totals)."""
    removable = report.removable
    total = report.savings.total
    edge_word = "edge" if len(removable) == 1 else "edges"
    parts = [f"**{len(removable)} removable {edge_word}** of {len(report.findings)} findings"]
    if removable:
        parts.append(f"saving {escape(totals_phrase(total))}")
    if report.suppressed:
        parts.append(f"{len(report.suppressed)} suppressed")
    return "slim: " + " · ".join(parts)


def _edge(f: Finding) -> str:
    return f"{escape(f.target)} → {escape(f.dep)}" if f.dep else escape(f.target)


def _verdict(f: Finding) -> str:
    flag = "removable" if f.removable else "keep"
    return f"{escape(f.verdict)} ({f.confidence.value}, {flag})"


def _saving_cell(f: Finding) -> str:
    s = f.saving
    if s is None:
        return "–"
    cell = (
        f"CPU {seconds(s.seconds)}, {s.bytes:,} B, "
        f"{s.targets_removed} target{'' if s.targets_removed == 1 else 's'} ({escape(s.basis)})"
    )
    if s.wall is not None:
        cell += f"; {escape(wall_phrase(s.wall))}"
    if s.quarter is not None:
        cell += f"; {escape(quarter_phrase(s.quarter))}"
    return cell


def _cost_lines(report: Report, findings: Sequence[Finding]) -> list[str]:
    """For `slim review`: what each newly added dead edge will cost per quarter at the
    current change rate, with the basis; or why that is not known."""
    new = [f for f in findings if f.review == "new" and f.removable and f.saving is not None]
    if not new:
        return []
    out = ["", "What the new dead edges will cost:", ""]
    for f in new:
        s = f.saving
        assert s is not None
        if s.quarter is not None:
            q = s.quarter
            cost = (
                f"{cpu_hours(q.cpu_hours)} per quarter at the current change rate "
                f"({q.rebuilds:.1f} rebuilds, miss ratio {q.miss_ratio:.2f}; {q.basis})"
            )
        else:
            why = report.savings.history_note or "no history given"
            cost = f"{seconds(s.seconds)} CPU per build; per quarter not known ({why})"
        if s.wall is not None:
            cost += f"; {wall_phrase(s.wall)}"
        out.append(f"- {_edge(f)}: {escape(cost)}")
    return out


def _html(text: str) -> str:
    """Text inside an HTML element (no Markdown is parsed there): HTML-escaped, one line."""
    return html.escape(" ".join(text.split()), quote=False)


def _evidence_block(f: Finding) -> list[str]:
    edge = f"{_html(f.target)} → {_html(f.dep)}" if f.dep else _html(f.target)
    lines = [f"<details><summary>{f.code} {edge}</summary>", ""]
    lines.append(f"- {escape(f.message)}")
    if f.details is not None and f.details.text_lines():
        lines.extend(["", "```text", *f.details.text_lines(), "```", ""])
    if f.location is not None:
        lines.append(f"- declared at {escape(str(f.dep_location or f.location))}")
    lines.extend(f"- evidence: {escape(where(e))}: {escape(e.detail)}" for e in f.evidence)
    if not f.evidence:
        lines.append("- evidence: none recorded")
    lines.extend(["", "</details>"])
    return lines


def _more(n: int) -> list[str]:
    return [f"… and {n} more"] if n else []


def _compose(report: Report, shown: int) -> str:
    findings = report.findings[:shown]
    rest = len(report.findings) - len(findings)
    out = [marker(report), summary_line(report), ""]
    missing = [e.kind for e in report.evidence if not e.given]
    if missing:
        out.append(
            f"Evidence not given: {escape(', '.join(missing))}; checks needing it did not run."
        )
        out.append("")
    if report.findings:
        out.extend(["| Code | Edge | Verdict | Saving |", "|---|---|---|---|"])
        for f in findings:
            out.append(
                f"| {f.code} {escape(f.name)} | {_edge(f)} | {_verdict(f)} | {_saving_cell(f)} |"
            )
        out.extend(_more(rest))
        if report.review is not None:
            out.extend(_cost_lines(report, findings))
        out.append("")
        for f in findings:
            out.extend(_evidence_block(f))
        out.extend(_more(rest))
    else:
        out.append("No findings.")
    fixes = [f.fix for f in findings if f.removable and f.fix is not None]
    commands = sorted({x.command for x in fixes if x.runnable})
    edits = sorted({x.command for x in fixes if not x.runnable})
    if commands:
        fence = _fence(commands)
        out.extend(["", "Apply the removable cuts:", "", f"{fence}sh", *commands, fence])
    if edits:
        out.extend(["", "Edit by hand (or with `slim apply --write`):", ""])
        out.extend(f"- {escape(e)}" for e in edits)
    if commands or edits:
        out.extend(_more(sum(1 for f in report.findings[shown:] if f.fix is not None)))
    if report.suppressed:
        out.extend(["", f"<details><summary>{len(report.suppressed)} suppressed</summary>", ""])
        for f in report.suppressed[:MAX_SUPPRESSED_SHOWN]:
            why = f.suppression
            by, reason = (why.by, why.reason) if why is not None else ("", "")
            out.append(f"- {f.code} {_edge(f)}: kept at {escape(by)} ({escape(reason)})")
        out.extend(_more(max(0, len(report.suppressed) - MAX_SUPPRESSED_SHOWN)))
        out.extend(["", "</details>"])
    return "\n".join(out) + "\n"


def render_text(report: Report, limit: int = MAX_CHARS) -> str:
    """The comment body; as many findings as fit within `limit` characters."""
    full = _compose(report, len(report.findings))
    if len(full) <= limit:
        return full
    lo, hi = 0, len(report.findings)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(_compose(report, mid)) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return _compose(report, lo)


def render(report: Report, out: TextIO) -> None:
    out.write(render_text(report))
