"""`slim cleanup`: every binary in scope through the one pipeline, cuts ranked by saving.

Per-root work runs on forked workers or a Dask cluster (`executor`), each finished root
is committed to SQLite (`store`) so an interrupted run resumes, and the backlog is priced
with the planner over all roots at once (`backlog`), so its total is the one `slim report`
gives for the same roots.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from slim.app.cleanup import store
from slim.app.cleanup.backlog import build, item_record, total_record, with_history
from slim.app.cleanup.executor import Job, Progress, RunStats, run_cleanup
from slim.app.cleanup.owners import Owners, parse_codeowners
from slim.app.cleanup.scope import is_binary, select_roots
from slim.app.session import Session
from slim.model.backlog import Backlog, TrendPoint
from slim.render.backlog import since_line, trend_line

__all__ = [
    "Backlog",
    "Job",
    "Owners",
    "RunStats",
    "cpu_count",
    "is_binary",
    "iter_outputs",
    "parse_codeowners",
    "run",
    "select_roots",
    "since_line",
    "trend_line",
]


def run(
    session: Session,
    patterns: Sequence[str],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    db_path: Path | None = None,
    fresh: bool = False,
    progress: Progress | None = None,
    analyzers: tuple[str, ...] = (),
) -> tuple[Backlog, RunStats]:
    """Analyze every root of `patterns` (default: the config's roots, else `//...`), resume
    an interrupted run, and rank the backlog."""
    from slim.analysis.engine import union_facts
    from slim.infra.cache import cache_key

    scope = list(patterns) or list(session.config.roots) or ["//..."]
    graph = session.graph
    roots = select_roots(graph, scope)
    ids = session.root_ids(roots)
    session.roots = ids
    job = Job(session.request, analyzers)
    inputs = session.root_inputs(ids)
    evidence = sorted({Path(i.path) for r in inputs for i in r.facts.inputs})
    key = job.fingerprint(cache_key(session.graph_paths, session.graph_format), roots, evidence)
    db = store.open_db(db_path or store.default_db(session.config.path))
    try:
        stats = run_cleanup(
            db,
            job,
            session,
            key,
            roots,
            " ".join(scope),
            jobs=jobs,
            scheduler=scheduler,
            fresh=fresh,
            progress=progress,
        )
        workspace = next((r.options.workspace for r in inputs if r.options.workspace), None)
        owners = Owners.load(session.config.raw, session.config.path, workspace)
        scope_text, n_roots = store.run_info(db, stats.run)
        backlog = build(
            graph,
            union_facts(inputs),
            store.results(db, stats.run),
            owners,
            run=stats.run,
            scope=scope_text,
            roots=n_roots,
        )
        previous = store.previous_run(db, scope_text, stats.run)
        before = store.items_of(db, previous) if previous is not None else {}
        t = backlog.total
        point = TrendPoint(
            stats.run,
            t.targets_removed,
            t.bytes,
            round(t.seconds, 3),
            None if t.quarter is None else round(t.quarter.cpu_hours, 4),
            None if t.wall is None else t.wall.seconds,
        )
        records = {it.key: item_record(it) for it in backlog.items}
        store.complete(db, stats.run, records, point, total_record(backlog))
        backlog = with_history(backlog, previous, before, store.trend(db, scope_text, stats.run))
    finally:
        db.close()
    return backlog, stats


def iter_outputs(b: Backlog) -> Iterator[tuple[str, str]]:
    """`backlog.md`, `.csv`, `.json` and `.buildozer`, rendered."""
    import io

    from slim.render.backlog import OUTPUTS

    for name, fn in OUTPUTS.items():
        buf = io.StringIO()
        fn(b, buf)
        yield name, buf.getvalue()


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1
