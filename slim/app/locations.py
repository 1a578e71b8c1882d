"""Locations that resolve: paths of an export made elsewhere mapped into the workspace,
and the workspace's place in its repository (for code-scanning URIs)."""

from __future__ import annotations

import dataclasses
import functools
import subprocess
from pathlib import Path, PurePosixPath

from slim.model.findings import Finding
from slim.model.graph import Location


class Localizer:
    """Maps an absolute path that does not exist here to the longest tail of it that does
    exist under the workspace (`/src/mlinfra/serving/BUILD` -> `serving/BUILD`)."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    @functools.lru_cache(maxsize=4096)  # noqa: B019  (one Localizer per report)
    def path(self, path: str) -> str:
        p = PurePosixPath(path)
        if not p.is_absolute() or Path(path).exists():
            return path
        parts = p.parts[1:]
        for i in range(len(parts)):
            tail = PurePosixPath(*parts[i:])
            if (self.workspace / tail).is_file():
                return tail.as_posix()
        return path

    def location(self, loc: Location | None) -> Location | None:
        if loc is None:
            return None
        mapped = self.path(loc.path)
        return loc if mapped == loc.path else dataclasses.replace(loc, path=mapped)

    def finding(self, f: Finding) -> Finding:
        loc, dep = self.location(f.location), self.location(f.dep_location)
        if loc is f.location and dep is f.dep_location:
            return f
        return dataclasses.replace(f, location=loc, dep_location=dep)


def repository_root(start: Path) -> Path | None:
    """The git work tree holding `start`, if any."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(start), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip() else None


def source_root(workspace: Path, repo_root: Path | None = None) -> str:
    """The workspace relative to the repository root (`--repo-root`, else git's), or ""."""
    root = repo_root or repository_root(workspace)
    if root is None:
        return ""
    try:
        rel = workspace.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return ""
    return "" if rel == "." else rel
