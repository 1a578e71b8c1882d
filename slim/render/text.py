"""Terminal report: the closure, what evidence was given, and the findings by edge."""

from __future__ import annotations

from typing import TextIO

from slim.model.findings import Finding
from slim.model.report import Report


def _finding_lines(f: Finding) -> list[str]:
    edge = f"{f.target} -> {f.dep}" if f.dep else f.target
    flag = "removable" if f.removable else "keep"
    head = f"  {f.code} {f.name}  {edge}  [{f.verdict}, {f.confidence.value}, {flag}]"
    lines = [head, f"      {f.message}"]
    if f.location is not None:
        lines.append(f"      declared at {f.location}")
    for e in f.evidence:
        where = e.source
        if e.line is not None:
            where += f":{e.line}"
        elif e.offset is not None:
            where += f":byte {e.offset}"
        lines.append(f"      evidence: {where}: {e.detail}")
    if f.saving is not None:
        s = f.saving
        lines.append(
            f"      saving: {s.compile_seconds:.1f}s compile, {s.link_seconds:.1f}s link, "
            f"{s.bytes} bytes, {s.targets_removed} targets ({s.basis})"
        )
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
    if report.proposals:
        lines.append("")
        lines.append("proposals:")
        for p in report.proposals:
            lines.append(f"  {p.target}: remove {', '.join(p.remove)}")
            lines.extend(f"    {c}" for c in p.commands)
    for n in report.notes:
        lines.append(f"note: {n}")
    out.write("\n".join(lines) + "\n")
