"""The cleanup database (SQLite): runs, each finished root's result, each run's items.

Every finished root is committed at once, so an interrupted run loses nothing and a
rerun resumes; complete runs are kept for the "since run N" diff and the trend.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from slim.errors import SlimError
from slim.model.backlog import TrendPoint

_DDL = """
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL, scope TEXT NOT NULL,
  roots INTEGER NOT NULL, status TEXT NOT NULL, items INTEGER, total_targets INTEGER,
  total_bytes INTEGER, total_seconds REAL, started REAL, finished REAL);
CREATE TABLE IF NOT EXISTS root_results(
  run INTEGER NOT NULL, root TEXT NOT NULL, result TEXT NOT NULL, elapsed REAL NOT NULL,
  PRIMARY KEY(run, root));
CREATE TABLE IF NOT EXISTS items(
  run INTEGER NOT NULL, key TEXT NOT NULL, item TEXT NOT NULL, PRIMARY KEY(run, key));
CREATE TABLE IF NOT EXISTS run_figures(
  run INTEGER PRIMARY KEY, quarter_cpu_hours REAL, wall_seconds REAL, total TEXT NOT NULL);
"""


def default_db(config_path: Path | None) -> Path:
    """`.slim-cache/cleanup.sqlite` next to the config, else slim's cache directory."""
    if config_path is not None:
        return config_path.parent / ".slim-cache" / "cleanup.sqlite"
    from slim.infra.cache import cache_dir

    return cache_dir() / "cleanup.sqlite"


def open_db(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite3.connect(path, timeout=30)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_DDL)
    except sqlite3.DatabaseError as exc:
        raise SlimError(f"{path}: expected a slim cleanup database, found {exc}") from None
    return db


def start_run(db: sqlite3.Connection, fingerprint: str, scope: str, n: int, fresh: bool) -> int:
    row = db.execute(
        "SELECT id FROM runs WHERE status='running' AND fingerprint=? ORDER BY id DESC LIMIT 1",
        (fingerprint,),
    ).fetchone()
    if row is not None and not fresh:
        return int(row[0])
    with db:
        cur = db.execute(
            "INSERT INTO runs(fingerprint, scope, roots, status, started) "
            "VALUES (?, ?, ?, 'running', ?)",
            (fingerprint, scope, n, time.time()),
        )
    assert cur.lastrowid is not None
    return int(cur.lastrowid)


def done_roots(db: sqlite3.Connection, run: int) -> set[str]:
    return {r[0] for r in db.execute("SELECT root FROM root_results WHERE run=?", (run,))}


def save_root(db: sqlite3.Connection, run: int, result: Mapping[str, Any]) -> None:
    with db:
        db.execute(
            "INSERT OR REPLACE INTO root_results(run, root, result, elapsed) VALUES (?, ?, ?, ?)",
            (run, result["root"], json.dumps(result, sort_keys=True), result["elapsed"]),
        )


def results(db: sqlite3.Connection, run: int) -> Iterator[dict[str, Any]]:
    """The run's root results, by root."""
    rows = db.execute("SELECT result FROM root_results WHERE run=? ORDER BY root", (run,))
    for (text,) in rows:
        yield json.loads(text)


def elapsed(db: sqlite3.Connection, run: int) -> list[float]:
    return [r[0] for r in db.execute("SELECT elapsed FROM root_results WHERE run=?", (run,))]


def run_info(db: sqlite3.Connection, run: int) -> tuple[str, int]:
    row = db.execute("SELECT scope, roots FROM runs WHERE id=?", (run,)).fetchone()
    return str(row[0]), int(row[1])


def previous_run(db: sqlite3.Connection, scope: str, run: int) -> int | None:
    row = db.execute(
        "SELECT id FROM runs WHERE status='complete' AND scope=? AND id<? ORDER BY id DESC LIMIT 1",
        (scope, run),
    ).fetchone()
    return None if row is None else int(row[0])


def items_of(db: sqlite3.Connection, run: int) -> dict[str, dict[str, Any]]:
    return {
        k: json.loads(v) for k, v in db.execute("SELECT key, item FROM items WHERE run=?", (run,))
    }


def complete(
    db: sqlite3.Connection,
    run: int,
    items: Mapping[str, Mapping[str, Any]],
    point: TrendPoint,
    total: Mapping[str, Any] | None = None,
) -> None:
    """Store the run's items and totals (each figure with its basis) and mark it complete."""
    with db:
        db.execute(
            "INSERT OR REPLACE INTO run_figures(run, quarter_cpu_hours, wall_seconds, total) "
            "VALUES (?, ?, ?, ?)",
            (
                run,
                point.quarter_cpu_hours,
                point.wall_seconds,
                json.dumps(total or {}, sort_keys=True),
            ),
        )
        db.execute("DELETE FROM items WHERE run=?", (run,))
        db.executemany(
            "INSERT INTO items(run, key, item) VALUES (?, ?, ?)",
            [(run, k, json.dumps(v, sort_keys=True)) for k, v in items.items()],
        )
        db.execute(
            "UPDATE runs SET status='complete', items=?, total_targets=?, total_bytes=?, "
            "total_seconds=?, finished=? WHERE id=?",
            (len(items), point.targets, point.bytes, point.seconds, time.time(), run),
        )


def trend(db: sqlite3.Connection, scope: str, run: int) -> tuple[TrendPoint, ...]:
    rows = db.execute(
        "SELECT r.id, r.total_targets, r.total_bytes, r.total_seconds, f.quarter_cpu_hours, "
        "f.wall_seconds FROM runs r LEFT JOIN run_figures f ON f.run = r.id "
        "WHERE r.status='complete' AND r.scope=? AND r.id<=? ORDER BY r.id",
        (scope, run),
    )
    return tuple(
        TrendPoint(
            int(r[0]),
            int(r[1]),
            int(r[2]),
            float(r[3]),
            None if r[4] is None else float(r[4]),
            None if r[5] is None else float(r[5]),
        )
        for r in rows
    )
