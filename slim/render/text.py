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
    lines.extend(_device_code_table(f))
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


def _device_code_table(f: Finding) -> list[str]:
    """Per-architecture and per-target device-code bytes of GPU findings (SLIM003/005)."""
    if f.code not in ("SLIM003", "SLIM005"):
        return []
    status = {k: str(v) for k, v in f.data if k.startswith("arch_status[")}
    rows = sorted(
        (
            (k[6:-1], int(v), status.get(f"arch_status[{k[6:-1]}]", ""))
            for k, v in f.data
            if k.startswith("bytes[")
        ),
        key=lambda r: (int("0" + "".join(c for c in r[0] if c.isdigit())), r[0][:1] == "c"),
    )
    rows += [(k[13:-1], int(v), "target") for k, v in f.data if k.startswith("target_bytes[")]
    if not rows:
        return []
    width = max(len("arch"), *(len(r[0]) for r in rows))
    out = [f"      {'arch':<{width}}  {'bytes':>10}  status"]
    out += [f"      {n:<{width}}  {b:>10,}  {st}".rstrip() for n, b, st in rows]
    return out


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
    if report.suppressed:
        lines.append("")
        lines.append(f"suppressed: {len(report.suppressed)} (kept on purpose)")
        for f in report.suppressed:
            why = dict(f.data)
            lines.append(
                f"  {f.code} {f.target} -> {f.dep}: {why.get('suppression_reason', '')} "
                f"({why.get('suppressed_by', '')})"
            )
    for n in report.notes:
        lines.append(f"note: {n}")
    out.write("\n".join(lines) + "\n")
