"""The workspace's git history: `git log --name-only` over a window of days.

One `git log -z --relative --name-only` call lists, per commit, the files it changed under
the workspace (paths relative to it; NUL-separated, so any file name survives). The
window ends at the newest commit's date (deterministic: the same history gives the same
window whenever it is read) or at a given date; merges list no files of their own.
git's own parser is used rather than a library: it is there wherever a checkout is, and
it is faster than a Python tree walk (docs/savings.md gives the measurement).
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import time
from pathlib import Path

from slim.errors import InputError
from slim.model.history import ChangeHistory, Commit

DAY = 86_400
#: Bytes of `git log` output read at most (a hostile or huge history stays bounded).
MAX_OUTPUT = 512 << 20
TIMEOUT_S = 300


def _git(ws: Path, *args: str) -> bytes | None:
    """git's output, None when git is missing or fails (not a work tree); its output is read
    in bounded chunks and its run bounded in time (a hostile history cannot exhaust us)."""
    exe = shutil.which("git")
    if exe is None:
        return None
    env = {**os.environ, "LC_ALL": "C"}
    try:
        proc = subprocess.Popen(
            [exe, "-C", str(ws), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return None
    assert proc.stdout is not None
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while chunk := proc.stdout.read(1 << 20):
            size += len(chunk)
            if size > MAX_OUTPUT or time.monotonic() > deadline:
                what = f"more than {MAX_OUTPUT >> 20} MiB" if size > MAX_OUTPUT else "a slower one"
                raise InputError(
                    f"git log of {ws.as_posix()}",
                    f"a history of at most {MAX_OUTPUT >> 20} MiB read within {TIMEOUT_S} s "
                    "(pass a smaller --history-days)",
                    what,
                )
            chunks.append(chunk)
    finally:
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return b"".join(chunks) if proc.returncode == 0 else None


def parse_until(text: str) -> int:
    """The end of day `YYYY-MM-DD` (UTC) as a Unix time: commits of that day count."""
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise InputError("--history-until", "a date YYYY-MM-DD", repr(text)) from None
    start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)
    return int(start.timestamp()) + DAY


def _iso(ts: int) -> str:
    return dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc).date().isoformat()


def parse_log(raw: bytes, since: int, until: int) -> list[Commit]:
    """Commits of `git log -z --name-only --format=%x01%H %ct` output within [since, until)."""
    out = []
    for rec in raw.split(b"\x01")[1:]:
        parts = rec.split(b"\0")
        sha, _, ts_text = parts[0].decode("ascii", "replace").partition(" ")
        try:
            ts = int(ts_text)
        except ValueError:
            continue
        if not since <= ts < until:
            continue
        files = [p.lstrip(b"\n").decode("utf-8", "surrogateescape") for p in parts[1:]]
        out.append(Commit(sha, _iso(ts), tuple(sorted({f for f in files if f}))))
    return out


def read_history(workspace: Path, days: int, until: str | None = None) -> ChangeHistory | None:
    """The last `days` days of `workspace`'s history, None when it is not in a git work tree
    (or git is missing)."""
    head = _git(workspace, "log", "-1", "--format=%ct")
    if not head or not head.strip():
        return None
    end = parse_until(until) if until else int(head.split()[0]) + 1
    start = end - days * DAY
    roots = _git(workspace, "log", "--max-parents=0", "--format=%ct", "HEAD")
    oldest = min((int(x) for x in (roots or b"").split()), default=start)
    raw = _git(
        workspace,
        "log",
        "-z",
        "--relative",
        "--name-only",
        "--no-renames",
        "--format=%x01%H %ct",
        f"--since=@{start}",
        f"--until=@{end}",
        "HEAD",
        "--",
        ".",
    )
    if raw is None:
        return None
    covered = max(0.0, (end - max(start, oldest)) / DAY)
    return ChangeHistory(
        source=f"git log of {workspace.as_posix()}",
        days=days,
        until=_iso(end - 1),
        anchor="given" if until else "newest commit",
        commits=tuple(parse_log(raw, start, end)),
        covered_days=round(min(float(days), covered), 3),
    )
