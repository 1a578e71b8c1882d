"""Real git histories made in tests: commits touching known files on known dates."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path


def git(repo: Path, *args: str, date: str | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    if date is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{date}T12:00:00+00:00"
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def init(repo: Path, date: str) -> None:
    """A repository whose first commit (everything already in `repo`) is dated `date`."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "import", date=date)


def touch(repo: Path, files: Iterable[str], date: str, message: str = "change") -> None:
    """One commit appending a line to each of `files` (created when missing)."""
    for f in files:
        p = repo / f
        p.parent.mkdir(parents=True, exist_ok=True)
        with p.open("a", encoding="utf-8") as out:
            out.write(f"// {message} {date}\n")
        git(repo, "add", f)
    git(repo, "commit", "-q", "-m", message, date=date)
