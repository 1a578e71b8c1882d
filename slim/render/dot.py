"""The report as a Graphviz DOT graph: roots, their direct deps, finding edges highlighted.

Removable edges are red, kept findings orange, suppressed ones grey and dashed; every
finding edge is labelled with its rule code.
"""

from __future__ import annotations

from typing import TextIO

from slim.model.findings import Finding
from slim.model.report import Report


def quote(text: str) -> str:
    """A DOT double-quoted string (backslashes, quotes and newlines escaped)."""
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{body}"'


def _style(f: Finding, suppressed: bool) -> str:
    if suppressed:
        return 'color="gray50", fontcolor="gray50", style="dashed"'
    if f.removable:
        return 'color="red", fontcolor="red", penwidth=2'
    return 'color="orange", fontcolor="orange"'


def render(report: Report, out: TextIO) -> None:
    lines = [
        "digraph slim {",
        '  graph [rankdir=LR, charset="UTF-8"];',
        '  node [shape=box, fontname="Helvetica"];',
    ]
    roots = {r.label for r in report.roots}
    nodes: set[str] = set(roots)
    edges: dict[tuple[str, str], list[str]] = {}
    for r in report.roots:
        for d in r.direct_deps:
            nodes.add(d)
            edges.setdefault((r.label, d), [])
    found = [(f, False) for f in report.findings] + [(f, True) for f in report.suppressed]
    flagged: dict[tuple[str, str], list[tuple[Finding, bool]]] = {}
    for f, sup in found:
        if f.dep and f.target:
            nodes.update((f.target, f.dep))
            flagged.setdefault((f.target, f.dep), []).append((f, sup))
    for n in sorted(nodes):
        attrs = ", shape=doubleoctagon, style=bold" if n in roots else ""
        lines.append(f"  {quote(n)} [label={quote(n)}{attrs}];")
    for a, b in sorted(set(edges) - set(flagged)):
        lines.append(f'  {quote(a)} -> {quote(b)} [color="gray70"];')
    for (a, b), fs in sorted(flagged.items()):
        fs.sort(key=lambda x: (x[1], x[0].sort_key))
        f, sup = fs[0]
        label = ",".join(dict.fromkeys(g.code for g, _ in fs))
        lines.append(f"  {quote(a)} -> {quote(b)} [label={quote(label)}, {_style(f, sup)}];")
    lines.append("}")
    out.write("\n".join(lines) + "\n")
