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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from slim.errors import UsageError
from slim.model.actions import EdgeAction, Move, Remove, Replace
from slim.model.findings import Finding, Fix
from slim.model.labels import label_name
from slim.plan.fixes import BATCH_HEADER

if TYPE_CHECKING:
    from slim.app.session import Session

BUILDOZER_NO_CHANGES = 3


@dataclass
class ApplyResult:
    """What `apply` did (or would do) and the lines to show the user."""

    lines: list[str] = field(default_factory=list)
    changed: int = 0
    failed: int = 0


@dataclass(frozen=True)
class Cut:
    """One proposed action with every way to apply it (buildozer, the CMake edit)."""

    action: EdgeAction
    fixes: tuple[Fix, ...]
    code: str = ""
    confidence: str = ""
    root: str = ""

    @property
    def target(self) -> str:
        return self.action.target

    @property
    def dep(self) -> str:
        return self.action.dep


def cuts_of(
    findings: Sequence[Finding], write: Callable[[EdgeAction], tuple[Fix, ...]]
) -> list[Cut]:
    """The distinct edge actions of removable findings, with their fixes
    (`write(action) -> tuple[Fix, ...]`, the planner's writer for this graph)."""
    seen: dict[EdgeAction, Cut] = {}
    for f in findings:
        a = f.action
        if f.removable and isinstance(a, Remove | Move | Replace) and a not in seen:
            seen[a] = Cut(a, write(a), f.code, f.confidence.value, f.root)
    return sorted(seen.values(), key=lambda c: (c.target, c.dep, c.action.verb))


def command_file(cuts: Sequence[Cut]) -> str:
    """The `buildozer -f` text for the buildozer fixes of `cuts`."""
    lines = [BATCH_HEADER]
    for c in sorted(cuts, key=lambda c: (c.target, c.dep)):
        for x in c.fixes:
            if x.runnable:
                lines.append(f"# {c.code} confidence={c.confidence} root={c.root}")
                lines.append(x.batch)
    return "\n".join(lines) + "\n"


def _token(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w${{}}/.:-]){re.escape(name)}(?![\w/.:-])")


def resolve(root: Path, location: str) -> Path:
    p = Path(location)
    return p if p.is_absolute() else root / p


def edit_cmake(root: Path, fix: Fix) -> str:
    """Remove the dep from (or, for a replacement, rename it in) the
    `target_link_libraries` statement at the fix's line.

    Returns a one-line description; raises UsageError when the line does not hold it.
    """
    loc, a = fix.location, fix.action
    if loc is None or loc.line is None:
        raise UsageError(f"{a.target} -> {a.dep}: no CMakeLists.txt line to edit is known")
    dep = label_name(a.dep)
    new_name = label_name(a.with_dep) if isinstance(a, Replace) else ""
    path = resolve(root, loc.path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    lines = text.splitlines(keepends=True)
    pattern = _token(dep)
    start = loc.line - 1
    for i in range(start, min(len(lines), start + 200)):
        new, n = pattern.subn(new_name, lines[i], count=1)
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
            done = f"replaced {dep} with {new_name}" if new_name else f"removed {dep}"
            return f"{loc.path}:{i + 1}: {done}"
        if ")" in lines[i] and i > start:
            break
    raise UsageError(
        f"{loc}: expected {dep} in target_link_libraries, found {lines[start].strip()!r}"
        if start < len(lines)
        else f"{loc}: line beyond the end of the file"
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
    bz = [c for c in cuts if any(x.runnable for x in c.fixes)]
    cm = [x for c in cuts for x in c.fixes if x.kind == "cmake"]
    by_hand = [x for c in cuts for x in c.fixes if x.kind == "text"]
    if not cuts:
        res.lines.append("nothing to apply: no removable findings")
        return res
    if not write:
        res.lines.append("dry run (pass --write to change files):")
        if bz:
            res.lines.append(f"$ buildozer -f - <<'EOF'  # from {shown(root)}")
            res.lines.extend(command_file(bz).rstrip("\n").splitlines())
            res.lines.append("EOF")
        res.lines.extend(x.command for x in cm)
        res.lines.extend(f"not applied (by hand): {x.command}" for x in by_hand)
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
    for x in cm:
        if isinstance(x.action, Move):
            res.lines.append(x.command)
            continue
        res.lines.append(edit_cmake(root, x))
        res.changed += 1
    res.lines.extend(f"not applied (by hand): {x.command}" for x in by_hand)
    return res


def session_cuts(session: Session, targets: Sequence[str]) -> tuple[list[Cut], Path]:
    """The cuts the report of `targets` proposes (as `slim report` shows them), and the
    directory to apply them from (the workspace, else the config's directory)."""
    from slim.plan.fixes import write

    ids = session.select_roots(targets)
    rep = session.report(ids)
    graph = session.graph
    cuts = cuts_of(rep.findings, lambda a: write(graph, a))
    label = graph.labels[ids[0]]
    cfg = session.config
    root = session.options_for(label).workspace or (cfg.path.parent if cfg.path else Path.cwd())
    return cuts, root
