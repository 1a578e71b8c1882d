"""`slim apply`: make the proposed cuts in the source tree, only when asked (`--write`).

The default is a dry run that prints what would change. With `--write`, buildozer runs
the command file (BUILD/BUCK edits) and CMake cuts edit the `target_link_libraries`
line the file API backtrace names (both, when a repository builds with Bazel and CMake
and the graph came from both). buildozer exit 3 means "nothing to change". Every edit
is planned first (buildozer on a scratch copy, CMake edits in memory); only when all of
them can be made are the files replaced, all together: never a half-edited tree.
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
from slim.infra.atomic import write_all_atomic, write_atomic
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


def resolve(root: Path, location: str) -> Path:
    p = Path(location)
    return p if p.is_absolute() else root / p


def edit_cmake_text(text: str, fix: Fix) -> tuple[str, str]:
    """`text` (a CMakeLists.txt) with the dep removed from (or, for a replacement, renamed
    in) the `target_link_libraries` statement at the fix's line, and a one-line
    description; raises UsageError when the statement does not name it as an argument of
    its own (a variable, a generator expression, only a comment)."""
    loc, a = fix.location, fix.action
    if loc is None or loc.line is None:
        raise UsageError(f"{a.target} -> {a.dep}: no CMakeLists.txt line to edit is known")
    dep = label_name(a.dep)
    new_name = label_name(a.with_dep) if isinstance(a, Replace) else ""
    lines = text.splitlines(keepends=True)
    start = loc.line - 1
    if start >= len(lines):
        raise UsageError(f"{loc}: line beyond the end of the file")
    call = _Call()
    for i in range(start, min(len(lines), start + 200)):
        args = call.arguments(lines[i])
        hit = next(((b, e) for b, e, arg in args if arg in (dep, f'"{dep}"')), None)
        if hit is not None:
            _cut_argument(lines, i, *hit, new_name)
            done = f"replaced {dep} with {new_name}" if new_name else f"removed {dep}"
            return "".join(lines), f"{loc.path}:{i + 1}: {done}"
        if call.ended:
            break
    found = lines[start].strip()
    raise UsageError(f"{loc}: expected {dep} in target_link_libraries, found {found!r}")


def _cut_argument(lines: list[str], i: int, begin: int, end: int, new_name: str) -> None:
    """Line `i` with its characters [begin, end) replaced by `new_name`, spaces tidied; a
    line left with only the closing parenthesis joins the line before it, unless that
    one ends in a comment."""
    new = lines[i][:begin] + new_name + lines[i][end:]
    body = new.rstrip("\r\n")
    eol = new[len(body) :]
    body = re.sub(r"(?<=\S)[ \t]{2,}", " ", body).replace("( ", "(").replace(" )", ")")
    lines[i] = "" if not body.strip() else body + eol
    if body.strip() == ")" and i > 0 and lines[i - 1].strip():
        prev = lines[i - 1].rstrip("\r\n")
        if "#" in prev:
            lines[i] = ")" + eol
        else:
            lines[i - 1] = prev + ")" + lines[i - 1][len(prev) :]
            lines[i] = ""


class _Call:
    """Reads a CMake command call line by line: the arguments after its first (the target
    a `target_link_libraries` call is about), up to its closing parenthesis."""

    def __init__(self) -> None:
        self.depth = 0
        self.opened = False
        self.target_seen = False

    @property
    def ended(self) -> bool:
        return self.opened and self.depth <= 0

    def arguments(self, line: str) -> list[tuple[int, int, str]]:
        """(start, end, text) of each argument of the call on `line`, up to its closing
        parenthesis or a comment. Quoted arguments keep their quotes; a bracket argument
        or comment ends the reading (no argument after it is offered for an edit)."""
        out: list[tuple[int, int, str]] = []
        k, n = 0, len(line)
        while k < n and not self.ended:
            ch = line[k]
            if ch in " \t\r\n":
                k += 1
            elif ch == "#" or line.startswith(("[[", "[="), k):
                break
            elif ch in "()":
                self.depth += 1 if ch == "(" else -1
                self.opened = True
                k += 1
            else:
                end = _argument_end(line, k)
                if self.opened and self.target_seen:
                    out.append((k, end, line[k:end]))
                self.target_seen = self.target_seen or self.opened
                k = end
        return out


def _argument_end(line: str, k: int) -> int:
    """Where the argument starting at `k` ends: after its closing quote, or at the first
    space, parenthesis, comment or quote of an unquoted one."""
    n = len(line)
    if line[k] == '"':
        end = k + 1
        while end < n and line[end] != '"':
            end += 2 if line[end] == "\\" else 1
        return min(end + 1, n)
    end = k
    while end < n and line[end] not in ' \t\r\n()#"':
        end += 1
    return end


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None


def edit_cmake(root: Path, fix: Fix) -> str:
    """`edit_cmake_text` on the file the fix names, written in place (atomically)."""
    assert fix.location is not None
    path = resolve(root, fix.location.path)
    text, done = edit_cmake_text(_read(path).decode("utf-8", "surrogateescape"), fix)
    write_atomic(path, text.encode("utf-8", "surrogateescape"))
    return done


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


#: Files that mark a workspace root, and BUILD file names buildozer may edit.
WORKSPACE_MARKERS = ("WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel", "REPO.bazel", ".buckconfig")
BUILD_FILES = ("BUILD", "BUILD.bazel", "BUCK", "TARGETS")


@dataclass
class Plan:
    """Every edit `apply --write` will make, computed before any file is touched: the new
    contents per file, the original contents they were planned from, and what to say."""

    new: dict[Path, bytes] = field(default_factory=dict)
    old: dict[Path, bytes] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    changed: int = 0

    def text(self, path: Path) -> str:
        """A file's planned contents so far (several edits of one file stack up)."""
        if path not in self.new:
            self.old[path] = self.new[path] = _read(path)
        return self.new[path].decode("utf-8", "surrogateescape")

    def put(self, path: Path, text: str) -> None:
        self.new[path] = text.encode("utf-8", "surrogateescape")


def _build_files(root: Path, cuts: Sequence[Cut]) -> list[Path]:
    """The BUILD/BUCK files of the packages the cuts edit (what buildozer may change)."""
    from slim.plan.fixes import buildozer_label

    out = []
    for pkg in sorted({buildozer_label(c.target).split("//", 1)[1].split(":")[0] for c in cuts}):
        out += [root / pkg / n for n in BUILD_FILES if (root / pkg / n).is_file()]
    return out


def plan_buildozer(plan: Plan, cuts: Sequence[Cut], root: Path, buildozer: str) -> None:
    """Run buildozer on a scratch copy of the BUILD files it may edit; its changes join
    the plan (the real tree is untouched until every edit is known to apply)."""
    files = _build_files(root, cuts)
    with tempfile.TemporaryDirectory(prefix="slim-apply-") as tmp:
        scratch = Path(tmp)
        for marker in WORKSPACE_MARKERS:
            if (root / marker).is_file():
                shutil.copyfile(root / marker, scratch / marker)
        for f in files:
            copy = scratch / f.relative_to(root)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(plan.new.get(f) or _read(f))
        code, output = run_buildozer(scratch, command_file(cuts), buildozer)
        if code not in (0, BUILDOZER_NO_CHANGES):
            last = output.splitlines()[-1] if output else ""
            raise UsageError(f"buildozer failed (exit {code}): {last}; nothing was changed")
        for f in files:
            after = (scratch / f.relative_to(root)).read_bytes()
            if after != (plan.new.get(f) or _read(f)):
                plan.text(f)
                plan.new[f] = after
    if code == BUILDOZER_NO_CHANGES:
        plan.lines.append("buildozer: nothing to change (already applied?)")
    else:
        plan.changed += len(cuts)
        plan.lines.append(f"buildozer: applied {len(cuts)} command(s)")


def plan_cuts(cuts: Sequence[Cut], root: Path, buildozer: str | None) -> Plan:
    """Every edit of `cuts`, planned; any edit that cannot be made is a UsageError raised
    before a file is touched."""
    plan = Plan()
    bz = [c for c in cuts if any(x.runnable for x in c.fixes)]
    if bz:
        exe = find_buildozer(buildozer)
        if exe is None:
            raise UsageError(
                "buildozer is not on PATH (install it: npm install -g @bazel/buildozer), "
                "or pass --buildozer PATH"
            )
        plan_buildozer(plan, bz, root, exe)
    for x in (x for c in cuts for x in c.fixes if x.kind == "cmake"):
        if isinstance(x.action, Move):
            plan.lines.append(x.command)
            continue
        assert x.location is not None
        path = resolve(root, x.location.path)
        try:
            text, done = edit_cmake_text(plan.text(path), x)
        except UsageError as exc:
            raise UsageError(f"{exc}; nothing was changed") from None
        plan.put(path, text)
        plan.lines.append(done)
        plan.changed += 1
    return plan


def commit(plan: Plan) -> None:
    """Write every planned file or none: each must still hold what it was planned from;
    all are staged, then replaced; a failed replace puts the replaced ones back."""
    for path, old in plan.old.items():
        if _read(path) != old:
            raise UsageError(f"{path}: changed while slim planned its edits; nothing was changed")
    write_all_atomic({p: data for p, data in plan.new.items() if data != plan.old[p]}, plan.old)


def _by_hand(cuts: Sequence[Cut]) -> list[str]:
    """Fixes only a person can make (prose), listed after what was applied."""
    return [
        f"not applied (by hand): {x.command}" for c in cuts for x in c.fixes if x.kind == "text"
    ]


def apply_cuts(
    cuts: Sequence[Cut], root: Path, *, write: bool, buildozer: str | None = None
) -> ApplyResult:
    """Apply (or, by default, describe) every cut under `root`: all of them or none."""
    res = ApplyResult()
    if not cuts:
        res.lines.append("nothing to apply: no removable findings")
        return res
    if not write:
        bz = [c for c in cuts if any(x.runnable for x in c.fixes)]
        res.lines.append("dry run (pass --write to change files):")
        if bz:
            res.lines.append(f"$ buildozer -f - <<'EOF'  # from {shown(root)}")
            res.lines.extend(command_file(bz).rstrip("\n").splitlines())
            res.lines.append("EOF")
        res.lines.extend(x.command for c in cuts for x in c.fixes if x.kind == "cmake")
        res.lines.extend(_by_hand(cuts))
        return res
    plan = plan_cuts(cuts, root, buildozer)
    commit(plan)
    res.lines, res.changed = plan.lines, plan.changed
    res.lines.extend(_by_hand(cuts))
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
