"""`slim apply`: make the proposed cuts in the source tree, only when asked (`--write`).

The default is a dry run that prints what would change. With `--write`, buildozer runs
the command file (BUILD/BUCK edits) and CMake cuts edit the `target_link_libraries`
line the file API backtrace names (both, when a repository builds with Bazel and CMake
and the graph came from both). buildozer exit 3 means "nothing to change".
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from slim.errors import UsageError
from slim.plan.prune import Cut

BUILDOZER_NO_CHANGES = 3


@dataclass
class ApplyResult:
    """What `apply` did (or would do) and the lines to show the user."""

    lines: list[str] = field(default_factory=list)
    changed: int = 0
    failed: int = 0


def command_file(cuts: Sequence[Cut]) -> str:
    """The `buildozer -f` text for the buildozer cuts, grouped by package."""
    from slim.render.buildozer import HEADER, buildozer_label

    lines = [HEADER]
    for c in sorted(cuts, key=lambda c: (c.target, c.dep)):
        if c.tool != "buildozer":
            continue
        verb = c.buildozer.rsplit(" ", 1)
        lines.append(f"# {c.code} confidence={c.confidence} root={c.root}")
        lines.append(f"{verb[0]} {buildozer_label(verb[1])}|{buildozer_label(c.target)}")
    return "\n".join(lines) + "\n"


def _token(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w${{}}/.:-]){re.escape(name)}(?![\w/.:-])")


def resolve(root: Path, location: str) -> Path:
    p = Path(location)
    return p if p.is_absolute() else root / p


def edit_cmake(root: Path, cut: Cut) -> str:
    """Remove the dep from the `target_link_libraries` statement at the cut's line.

    Returns a one-line description; raises UsageError when the line does not hold it.
    """
    if cut.location is None or cut.location.line is None:
        raise UsageError(f"{cut.target} -> {cut.dep}: no CMakeLists.txt line to edit is known")
    path = resolve(root, cut.location.path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    lines = text.splitlines(keepends=True)
    pattern = _token(cut.cmake_dep)
    start = cut.location.line - 1
    for i in range(start, min(len(lines), start + 200)):
        new, n = pattern.subn("", lines[i], count=1)
        if n:
            body = new.rstrip("\r\n")
            eol = new[len(body) :]
            body = re.sub(r"(?<=\S)[ \t]{2,}", " ", body).replace("( ", "(").replace(" )", ")")
            lines[i] = "" if not body.strip() else body + eol
            if body.strip() == ")" and i > 0 and lines[i - 1].strip():
                prev = lines[i - 1].rstrip("\r\n")
                lines[i - 1] = prev + ")" + lines[i - 1][len(prev) :]
                lines[i] = ""
            path.write_text("".join(lines), encoding="utf-8")
            return f"{cut.location.path}:{i + 1}: removed {cut.cmake_dep}"
        if ")" in lines[i] and i > start:
            break
    raise UsageError(
        f"{cut.location}: expected {cut.cmake_dep} in target_link_libraries, found "
        f"{lines[start].strip()!r}"
        if start < len(lines)
        else f"{cut.location}: line beyond the end of the file"
    )


def shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    try:
        rel = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return str(path)
    return rel.as_posix() or "."


def find_buildozer(explicit: str | None = None) -> str | None:
    return explicit or shutil.which("buildozer")


def run_buildozer(root: Path, text: str, buildozer: str) -> tuple[int, str]:
    """Run `buildozer -f` on a command file from `root`; (exit code, its output)."""
    with tempfile.NamedTemporaryFile("w", suffix=".buildozer", delete=False) as tmp:
        tmp.write(text)
        name = tmp.name
    try:
        proc = subprocess.run(
            [buildozer, "-f", name],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        Path(name).unlink(missing_ok=True)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def apply_cuts(
    cuts: Sequence[Cut], root: Path, *, write: bool, buildozer: str | None = None
) -> ApplyResult:
    """Apply (or, by default, describe) every cut under `root`."""
    res = ApplyResult()
    bz = [c for c in cuts if c.tool == "buildozer"]
    cm = [x for x in (c.as_cmake() for c in cuts) if x is not None]
    if not cuts:
        res.lines.append("nothing to apply: no removable findings")
        return res
    if not write:
        res.lines.append("dry run (pass --write to change files):")
        if bz:
            res.lines.append(f"$ buildozer -f - <<'EOF'  # from {shown(root)}")
            res.lines.extend(command_file(bz).rstrip("\n").splitlines())
            res.lines.append("EOF")
        for c in cm:
            res.lines.append(c.command())
        return res
    if bz:
        exe = find_buildozer(buildozer)
        if exe is None:
            raise UsageError(
                "buildozer is not on PATH (install it: npm install -g @bazel/buildozer), "
                "or pass --buildozer PATH"
            )
        code, output = run_buildozer(root, command_file(bz), exe)
        if code == 0:
            res.changed += len(bz)
            res.lines.append(f"buildozer: applied {len(bz)} command(s)")
        elif code == BUILDOZER_NO_CHANGES:
            res.lines.append("buildozer: nothing to change (already applied?)")
        else:
            res.failed += len(bz)
            res.lines.append(f"buildozer failed (exit {code}): {output.splitlines()[-1:]}")
    for c in cm:
        if c.action != "remove":
            res.lines.append(c.command())
            continue
        res.lines.append(edit_cmake(root, c))
        res.changed += 1
    return res
