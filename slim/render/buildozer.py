"""buildozer command file (`buildozer -f FILE`): `command|label` lines grouped by BUILD file.

Valid for BUILD and BUCK files alike (buildozer finds either); Buck2 cell prefixes
(`root//a:b`) are written as `//a:b`, which buildozer resolves from the repository
root. Each command is preceded by a comment with the rule code, confidence and saving.
CMake fixes have no buildozer form: they are listed as comments (file:line to edit).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TextIO

from slim.model.findings import Finding
from slim.model.labels import label_package
from slim.model.report import Report

HEADER = "# slim: run from the repository root with `buildozer -f THIS_FILE`"


def buildozer_label(label: str) -> str:
    """`root//a:b` -> `//a:b` (buildozer knows no Buck2 cells); other labels unchanged."""
    cut = label.find("//")
    if cut > 0 and not label.startswith("@"):
        return label[cut:]
    return label


def command_line(f: Finding) -> str | None:
    """The `command|label` line of a finding's buildozer fix, None when it has none."""
    if f.fix is None or f.fix.kind != "buildozer" or not f.dep:
        return None
    import shlex

    words = shlex.split(f.fix.command)
    if len(words) != 3 or words[0] != "buildozer":
        return None
    verb = words[1].split()
    verb = [*verb[:-1], buildozer_label(verb[-1])]
    return f"{' '.join(verb)}|{buildozer_label(words[2])}"


def _comment(f: Finding) -> str:
    parts = [f"# {f.code} {f.name}", f"confidence={f.confidence.value}"]
    if f.root:
        parts.append(f"root={f.root}")
    if f.saving is not None:
        s = f.saving
        parts.append(
            f"saving={s.compile_seconds:.1f}s compile+{s.link_seconds:.1f}s link, "
            f"{s.targets_removed} targets ({s.basis})"
        )
    return " ".join(parts)


def render(report: Report, out: TextIO) -> None:
    by_file: dict[str, dict[str, list[str]]] = defaultdict(dict)
    cmake: list[str] = []
    for f in report.findings:
        if not f.removable or not f.dep or f.fix is None:
            continue
        if f.fix.kind == "cmake":
            cmake.append(f"# {f.fix.command}  [{f.code}, confidence={f.confidence.value}]")
            continue
        line = command_line(f)
        if line is None:
            continue
        pkg = label_package(buildozer_label(f.target)).lstrip("/")
        build_file = f"{pkg}/BUILD" if pkg else "BUILD"
        entry = by_file[build_file].setdefault(line, [])
        entry.append(_comment(f))
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
