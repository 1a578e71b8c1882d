"""Terminal report: the closure, what evidence was given, and the findings by edge."""

from __future__ import annotations

from typing import TextIO

from slim.model.findings import Finding
from slim.model.report import Report
from slim.render._format import edge, proposal_phrase, saving_phrase, where


def _finding_lines(f: Finding) -> list[str]:
    flag = "removable" if f.removable else "keep"
    head = f"  {f.code} {f.name}  {edge(f)}  [{f.verdict}, {f.confidence.value}, {flag}]"
    lines = [head, f"      {f.message}"]
    if f.details is not None:
        lines.extend(f"      {x}" for x in f.details.text_lines())
    if f.location is not None:
        lines.append(f"      declared at {f.dep_location or f.location}")
    lines.extend(f"      evidence: {where(e)}: {e.detail}" for e in f.evidence)
    if f.saving is not None:
        lines.append(f"      saving: {saving_phrase(f.saving)}")
    if f.fix is not None:
        lines.append(f"      fix: {f.fix.command}")
    return lines


def render(report: Report, out: TextIO) -> None:
    lines: list[str] = []
    for r in report.roots:
        lines.append(f"{r.label} ({r.kind or 'unknown kind'})")
        lines.append(
            f"  closure: {r.targets} targets, {r.edges} edges; {len(r.direct_deps)} direct deps"
        )
        if r.edges_by_attribute:
            attrs = ", ".join(f"{k} {v}" for k, v in r.edges_by_attribute)
            lines.append(f"  edges by attribute: {attrs}")
    lines.append("")
    lines.append("evidence:")
    for e in report.evidence:
        mark = "given  " if e.given else "MISSING"
        files = f": {', '.join(e.files)}" if e.files else ""
        note = f" ({e.note})" if e.note else ""
        lines.append(f"  {mark} {e.kind:8} {e.description}{files}{note}")
    lines.append("")
    if report.findings:
        removable = len(report.removable)
        lines.append(f"findings: {len(report.findings)} ({removable} removable)")
        for f in report.findings:
            lines.extend(_finding_lines(f))
    else:
        lines.append("findings: none")
    total = report.savings.total
    if total.targets_removed or total.seconds or total.bytes:
        lines.append("")
        lines.append(f"saving of every removable cut at once: {saving_phrase(total)}")
    if report.proposals:
        lines.append("")
        lines.append("proposals:")
        for p in report.proposals:
            lines.append(f"  {p.target}: {proposal_phrase(p)}")
            lines.extend(f"    {x.command}" for x in p.fixes)
    if report.suppressed:
        lines.append("")
        lines.append(f"suppressed: {len(report.suppressed)} (kept on purpose)")
        for f in report.suppressed:
            why = f.suppression
            reason, by = (why.reason, why.by) if why is not None else ("", "")
            lines.append(f"  {f.code} {edge(f)}: {reason} ({by})")
    for n in report.notes:
        lines.append(f"note: {n}")
    out.write("\n".join(lines) + "\n")
