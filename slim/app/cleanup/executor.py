"""Per-root work for `slim cleanup`: each root through the one pipeline, on forked workers
that share the parent's loaded graph (copy-on-write) or on a Dask cluster.

A worker runs exactly what `slim report ROOT` runs (the session's analysis and plan) and
returns the root's findings as `slim.report/2` JSON, each removable one with what its cut
alone saves for that root.
"""

from __future__ import annotations

import gc
import hashlib
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slim import __version__
from slim.app.cleanup import store
from slim.app.session import Request, Session
from slim.errors import ConfigError, SlimError, UsageError
from slim.infra.malloc import keep_large_blocks

if TYPE_CHECKING:
    import sqlite3

    from slim.model.plugin import AnalyzerSpec

Progress = Callable[[int, int], None]
Result = dict[str, Any]


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to analyze one root, by value (picklable, no graph)."""

    request: Request
    analyzers: tuple[str, ...] = ()
    """`module:ATTR` references to analyzer specs; empty: the registered ones."""

    def fingerprint(self, graph_key: str, roots: Sequence[str], evidence: Sequence[Path]) -> str:
        """What makes two runs the same run (resume only into the same one)."""
        h = hashlib.sha256(f"{__version__}|{graph_key}".encode())
        stamps = []
        for p in evidence:
            try:
                st = p.stat()
                stamps.append(f"{p}:{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                stamps.append(str(p))
        for part in (repr(self), repr(stamps), "\n".join(roots)):
            h.update(b"\0" + part.encode())
        return h.hexdigest()[:32]


@dataclass
class _State:
    job: Job
    session: Session
    specs: list[AnalyzerSpec] | None


_STATE: _State | None = None


def load_spec(ref: str) -> AnalyzerSpec:
    """An `AnalyzerSpec` named `module:ATTR` (entry-point syntax), for a chosen analyzer set."""
    import importlib

    from slim.model.plugin import AnalyzerSpec

    module, _, attr = ref.partition(":")
    spec = getattr(importlib.import_module(module), attr or "SPEC", None)
    if not isinstance(spec, AnalyzerSpec):
        raise ConfigError(f"{ref}: expected an AnalyzerSpec, found {type(spec).__name__}")
    return spec


def install(job: Job, session: Session) -> None:
    """Make `session` the worker state; forked children inherit it without a copy."""
    global _STATE
    specs = [load_spec(ref) for ref in job.analyzers] if job.analyzers else None
    session.specs = specs
    _STATE = _State(job, session, specs)


def _state(job: Job) -> _State:
    if _STATE is None or _STATE.job != job:
        install(job, Session(job.request))
        gc.collect()
        gc.freeze()
    assert _STATE is not None
    return _STATE


def analyze_root(job: Job, label: str) -> Result:
    """One root's planned findings as JSON, as `slim report ROOT` computes them."""
    from slim.render.json import finding_to_dict

    t0 = time.perf_counter()
    session = _state(job).session
    (root,) = session.root_ids([label])
    rep = session.report([root])
    return {
        "root": session.graph.labels[root],
        "closure": rep.roots[0].targets if rep.roots else 0,
        "findings": [finding_to_dict(f) for f in rep.findings],
        "suppressed": [finding_to_dict(f) for f in rep.suppressed],
        "elapsed": round(time.perf_counter() - t0, 6),
    }


def _run_pool(job: Job, todo: Sequence[str], jobs: int, save: Callable[[Result], None]) -> None:
    """Fork `jobs` workers sharing the installed session; a dead worker's roots are retried."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    pending = list(todo)
    attempts = 0
    gc.collect()
    gc.freeze()
    try:
        while pending:
            attempts += 1
            pool = ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("fork"))
            futures = {pool.submit(analyze_root, job, r): r for r in pending}
            try:
                not_done = set(futures)
                while not_done:
                    done, not_done = wait(not_done, return_when=FIRST_COMPLETED)
                    for fut in done:
                        try:
                            res = fut.result()
                        except BrokenProcessPool:
                            continue
                        save(res)
                        pending.remove(futures[fut])
            except BaseException:
                _stop(pool)
                raise
            pool.shutdown(wait=True)
            if pending and attempts >= 3:
                raise SlimError(
                    f"worker processes died 3 times; {len(pending)} roots left "
                    f"(first: {pending[0]}); finished results are saved, rerun to resume"
                )
    finally:
        gc.unfreeze()


def _stop(pool: Any) -> None:
    """Stop a pool now (Ctrl-C, an error): running roots are dropped, finished ones are saved."""
    for proc in list(getattr(pool, "_processes", {}).values()):
        proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _remote(job: Job, labels: Sequence[str]) -> list[Result]:
    """A batch of roots on a Dask worker (started by its nanny with a malloc environment
    that makes large arrays slow: see `slim.infra.malloc`)."""
    global _TUNED
    if not _TUNED:
        _TUNED = True
        keep_large_blocks()
    return [analyze_root(job, lab) for lab in labels]


_TUNED = False


def _run_dask(
    job: Job,
    todo: Sequence[str],
    address: str,
    save: Callable[[Result], None],
    connect_timeout: str = "20s",
) -> None:
    """The same per-root work on a Dask distributed scheduler, in small batches."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise UsageError(
            "--scheduler needs Dask distributed: pip install 'slim-depgraph[distributed]'"
        ) from None
    try:
        client = Client(address, timeout=connect_timeout)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as exc:
        raise UsageError(
            f"--scheduler {address}: cannot connect to a Dask scheduler: {exc}"
        ) from None
    with client:
        workers = max(1, sum(client.nthreads().values()))  # type: ignore[no-untyped-call]
        size = max(1, min(16, len(todo) // (workers * 4) or 1))
        batches = [list(todo[i : i + size]) for i in range(0, len(todo), size)]
        futures = [client.submit(_remote, job, b, pure=False) for b in batches]
        try:
            for fut in as_completed(futures):  # type: ignore[no-untyped-call]
                for res in fut.result():
                    save(res)
        except BaseException:
            client.cancel(futures)  # type: ignore[no-untyped-call]
            raise


@dataclass
class RunStats:
    """How a run went (printed to stderr; not part of the deterministic outputs)."""

    run: int
    roots: int
    resumed: int
    analyzed: int
    seconds: float
    median_root_seconds: float


def run_cleanup(
    db: sqlite3.Connection,
    job: Job,
    session: Session,
    fingerprint: str,
    roots: Sequence[str],
    scope: str,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    fresh: bool = False,
    progress: Progress | None = None,
) -> RunStats:
    """Analyze every root not yet done in the current run, committing each as it finishes."""
    t0 = time.perf_counter()
    run = store.start_run(db, fingerprint, scope, len(roots), fresh)
    done = store.done_roots(db, run)
    todo = [r for r in roots if r not in done]
    finished = len(roots) - len(todo)
    if progress:
        progress(finished, len(roots))

    def save(res: Result) -> None:
        nonlocal finished
        store.save_root(db, run, res)
        finished += 1
        if progress:
            progress(finished, len(roots))

    if todo:
        if scheduler:
            _run_dask(job, todo, scheduler, save)
        else:
            install(job, session)
            if jobs > 1 and len(todo) > 1:
                _run_pool(job, todo, min(jobs, len(todo)), save)
            else:
                for r in todo:
                    save(analyze_root(job, r))
    times = store.elapsed(db, run)
    return RunStats(
        run=run,
        roots=len(roots),
        resumed=len(done),
        analyzed=len(todo),
        seconds=time.perf_counter() - t0,
        median_root_seconds=statistics.median(times) if times else 0.0,
    )
