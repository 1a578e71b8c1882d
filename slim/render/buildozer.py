"""buildozer command file (`buildozer -f FILE`): one `command|label` line per cut edge."""

from __future__ import annotations

from typing import TextIO

from slim.model.report import Report


def render(report: Report, out: TextIO) -> None:
    lines = ["# slim: buildozer -f this-file (from the repository root)"]
    for f in report.findings:
        if not f.removable or not f.dep or f.fix is None or f.fix.kind != "buildozer":
            continue
        attr = f.attribute if f.attribute and not f.attribute.startswith("deps (") else "deps"
        lines.append(f"# {f.code} {f.name} conf={f.confidence.value} root={f.root}")
        lines.append(f"remove {attr} {f.dep}|{f.target}")
    out.write("\n".join(lines) + "\n")
