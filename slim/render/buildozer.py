"""buildozer command file (`buildozer -f FILE`): `command|label` lines grouped by BUILD file.

Valid for BUILD and BUCK files alike (buildozer finds either). Each command is preceded by
a comment with the rule code, confidence and saving. CMake edits have no buildozer form:
they are listed as comments (file:line to edit).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TextIO

from slim.model.findings import Finding
from slim.model.labels import package_path
from slim.model.report import Report
from slim.render._format import saving_phrase

HEADER = "# slim: run from the repository root with `buildozer -f THIS_FILE`"


def _comment(f: Finding) -> str:
    parts = [f"# {f.code} {f.name}", f"confidence={f.confidence.value}"]
    if f.root:
        parts.append(f"root={f.root}")
    if f.saving is not None:
        parts.append(f"saving={saving_phrase(f.saving)}")
    return " ".join(parts)


def render(report: Report, out: TextIO) -> None:
    by_file: dict[str, dict[str, list[str]]] = defaultdict(dict)
    cmake: list[str] = []
    for f in report.findings:
        if not f.removable or f.fix is None:
            continue
        if not f.fix.runnable:
            cmake.append(f"# {f.fix.command}  [{f.code}, confidence={f.confidence.value}]")
            continue
        pkg = package_path(f.fix.action.target)
        build_file = f"{pkg}/BUILD" if pkg else "BUILD"
        by_file[build_file].setdefault(f.fix.batch, []).append(_comment(f))
    lines = [HEADER]
    for build_file in sorted(by_file):
        lines.append("")
        lines.append(f"# --- {build_file} (or BUILD.bazel / BUCK) ---")
        for line, comments in sorted(by_file[build_file].items()):
            lines.extend(sorted(set(comments)))
            lines.append(line)
    if cmake:
        lines.append("")
        lines.append("# CMake edits (not buildozer commands; apply by hand or with `slim apply`):")
        lines.extend(sorted(set(cmake)))
    out.write("\n".join(lines) + "\n")
