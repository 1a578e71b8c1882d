"""`slim verify`: prove proposed cuts by building without them, in a scratch copy.

The source tree is copied (or checked out as a git worktree) into a temporary
directory; the user's build (and test) command runs there untouched first (a baseline),
then with every cut at once, and, when that breaks, with each cut alone, so the report
says which cuts held and which broke. The user's tree is never modified; the scratch
copy is removed afterwards.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from slim.app.apply import Cut, apply_cuts, shown
from slim.errors import UsageError

DEFAULT_EXCLUDES = (".git", "build", "_build", "bazel-*", "buck-out", "cmake-build-*", ".slim-*")
TAIL_LINES = 12


@dataclass(frozen=True)
class Outcome:
    """One cut (or all together) and whether the build still passed without it."""

    cuts: tuple[Cut, ...]
    held: bool
    step: str = ""
    tail: str = ""


@dataclass
class VerifyReport:
    baseline_ok: bool
    together: Outcome | None = None
    single: list[Outcome] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @property
    def held(self) -> list[Cut]:
        if self.together is not None and self.together.held:
            return list(self.together.cuts)
        return [o.cuts[0] for o in self.single if o.held]

    @property
    def broke(self) -> list[Cut]:
        if self.together is not None and self.together.held:
            return []
        return [o.cuts[0] for o in self.single if not o.held]


def _ignore(patterns: Sequence[str]) -> Callable[[str, list[str]], set[str]]:
    def ignore(_dir: str, names: list[str]) -> set[str]:
        return {n for n in names if any(fnmatch.fnmatch(n, p) for p in patterns)}

    return ignore


def _run(cmd: str, cwd: Path, timeout: float | None) -> tuple[int, str]:
    try:
        proc = subprocess.run(
            cmd,
            shell=True,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, "PWD": str(cwd)},
        )
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout}s"
    out = (proc.stdout + proc.stderr).strip().splitlines()
    return proc.returncode, "\n".join(out[-TAIL_LINES:])


class Scratch:
    """A throwaway copy of the tree: `copy` (default) or a detached `git worktree`."""

    def __init__(self, source: Path, mode: str, excludes: Sequence[str]) -> None:
        self.source = source
        self.mode = mode
        self.excludes = tuple(excludes)
        self.tmp = Path(tempfile.mkdtemp(prefix="slim-verify-"))
        self.path = self.tmp / "tree"

    def __enter__(self) -> Scratch:
        if self.mode == "worktree":
            proc = subprocess.run(
                ["git", "-C", str(self.source), "worktree", "add", "--detach", str(self.path)],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                shutil.rmtree(self.tmp, ignore_errors=True)
                raise UsageError(f"git worktree add failed: {proc.stderr.strip()}")
        else:
            shutil.copytree(self.source, self.path, symlinks=True, ignore=_ignore(self.excludes))
        self._pristine = self._snapshot()
        return self

    def _snapshot(self) -> dict[Path, bytes]:
        snap: dict[Path, bytes] = {}
        for pattern in ("BUILD", "BUILD.bazel", "BUCK", "CMakeLists.txt", "*.cmake"):
            for p in self.path.rglob(pattern):
                if p.is_file() and not any(part in self.excludes for part in p.parts):
                    snap[p] = p.read_bytes()
        return snap

    def restore(self) -> None:
        """Put every build file back as it was copied (between trials)."""
        for p, data in self._pristine.items():
            if not p.exists() or p.read_bytes() != data:
                p.write_bytes(data)

    def __exit__(self, *exc: object) -> None:
        if self.mode == "worktree":
            subprocess.run(
                ["git", "-C", str(self.source), "worktree", "remove", "--force", str(self.path)],
                capture_output=True,
                check=False,
            )
        shutil.rmtree(self.tmp, ignore_errors=True)


def _trial(
    scratch: Scratch,
    cuts: Sequence[Cut],
    build_cmd: str,
    test_cmd: str | None,
    timeout: float | None,
    buildozer: str | None,
) -> Outcome:
    scratch.restore()
    try:
        res = apply_cuts(cuts, scratch.path, write=True, buildozer=buildozer)
    except UsageError as exc:
        return Outcome(tuple(cuts), False, "could not apply", str(exc))
    if res.failed or not res.changed:
        return Outcome(tuple(cuts), False, "could not apply", "\n".join(res.lines))
    code, tail = _run(build_cmd, scratch.path, timeout)
    if code != 0:
        return Outcome(tuple(cuts), False, f"build exit {code}", tail)
    if test_cmd:
        code, tail = _run(test_cmd, scratch.path, timeout)
        if code != 0:
            return Outcome(tuple(cuts), False, f"test exit {code}", tail)
    return Outcome(tuple(cuts), True)


def _edge(c: Cut) -> str:
    verb = {"move": "downgrade", "replace": "repoint"}.get(c.action.verb, "cut")
    return f"{verb} {c.target} -> {c.dep}"


_SHELL_WORDS = frozenset(
    {"cd", "true", "false", "exit", "test", "[", "export", "set", "source", ".", "env", "if"}
)


def require_tools(cuts: Sequence[Cut], build_cmd: str, buildozer: str | None) -> None:
    """The programs the run needs exist, before any build: a missing one is a usage error
    (exit 2), never a long baseline build followed by "a cut broke"."""
    import shlex

    try:
        words = shlex.split(build_cmd)
    except ValueError as exc:
        raise UsageError(f"--build-cmd {build_cmd!r}: {exc}") from None
    first = next((w for w in words if "=" not in w), "")
    if first and first not in _SHELL_WORDS and "/" not in first and shutil.which(first) is None:
        raise UsageError(f"--build-cmd: {first} is not on PATH")
    if "/" in first and not Path(first).exists() and not first.startswith("./"):
        raise UsageError(f"--build-cmd: {first} does not exist")
    if any(x.runnable for c in cuts for x in c.fixes):
        from slim.app.apply import find_buildozer

        exe = find_buildozer(buildozer)
        if exe is None or (buildozer is not None and not Path(buildozer).exists()):
            raise UsageError(
                "buildozer is not on PATH (install it: npm install -g @bazel/buildozer), "
                "or pass --buildozer PATH"
            )


def verify(
    cuts: Sequence[Cut],
    source: Path,
    build_cmd: str,
    test_cmd: str | None = None,
    *,
    mode: str = "copy",
    excludes: Sequence[str] = DEFAULT_EXCLUDES,
    timeout: float | None = None,
    buildozer: str | None = None,
) -> VerifyReport:
    """Build `source` (a scratch copy of it) with and without the cuts; say what held."""
    if not source.is_dir():
        raise UsageError(f"--workspace {source}: expected a directory")
    require_tools(cuts, build_cmd, buildozer)
    cuts = sorted(cuts, key=lambda c: (c.target, c.dep))
    with Scratch(source, mode, excludes) as scratch:
        rep = VerifyReport(baseline_ok=False)
        code, tail = _run(build_cmd, scratch.path, timeout)
        if test_cmd and code == 0:
            code, tail = _run(test_cmd, scratch.path, timeout)
        rep.baseline_ok = code == 0
        if not rep.baseline_ok:
            rep.lines.append(f"baseline build FAILED (exit {code}) before any cut; nothing proven")
            rep.lines.extend(f"  | {t}" for t in tail.splitlines())
            return rep
        rep.lines.append(f"baseline: `{build_cmd}` passes in a scratch copy")
        if not cuts:
            rep.lines.append("no cuts to verify")
            return rep
        rep.together = _trial(scratch, cuts, build_cmd, test_cmd, timeout, buildozer)
        if rep.together.held:
            rep.lines.append(f"all {len(cuts)} cut(s) together: build passes")
            rep.lines.extend(f"  held   {_edge(c)}" for c in cuts)
        else:
            rep.lines.append(
                f"all {len(cuts)} cut(s) together: {rep.together.step}; trying each alone"
            )
            for c in cuts:
                o = _trial(scratch, [c], build_cmd, test_cmd, timeout, buildozer)
                rep.single.append(o)
                if o.held:
                    rep.lines.append(f"  held   {_edge(c)}")
                else:
                    rep.lines.append(f"  BROKE  {_edge(c)} ({o.step})")
                    rep.lines.extend(f"    | {t}" for t in o.tail.splitlines())
        scratch.restore()
    rep.lines.append(f"{shown(source)} was not modified; the scratch copy is removed")
    return rep
