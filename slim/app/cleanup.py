"""`slim cleanup`: every binary in scope analyzed, cuts ranked by global saving, per owner.

Per-root work runs in forked worker processes that share the parent's loaded graph
(copy-on-write, numpy arrays never copied), or on a Dask cluster (`--scheduler`), where
each worker loads the graph once from the same exports. Every finished root is committed
to an SQLite database at once, so an interrupted run (Ctrl-C, a killed worker) loses
nothing and a rerun resumes; the next run compares with the previous one (new, fixed,
still open) and shows the trend of the total removable saving.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import heapq
import json
import os
import re
import sqlite3
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from slim import __version__
from slim.analysis.suppress import Keep
from slim.errors import ConfigError, SlimError, UsageError
from slim.model.context import Options
from slim.model.labels import label_package, package_path

if TYPE_CHECKING:
    from slim.model.facts import Facts
    from slim.model.graph import BuildGraph
    from slim.model.plugin import AnalyzerSpec

SCHEMA = "slim.app.cleanup/1"
STALE_CODE = "SLIM990"
UNOWNED = "(unowned)"
#: Removed targets listed per backlog item in backlog.json (all are counted).
MAX_LABELS_SHOWN = 100
Progress = Callable[[int, int], None]


# -- the per-root job ---------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """Everything a worker needs to analyze one root, by value (picklable, no graph)."""

    graph_paths: tuple[str, ...]
    graph_format: str | None
    use_cache: bool
    evidence: tuple[tuple[str, tuple[str, ...]], ...] = ()
    options: Options = field(default_factory=Options)
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    keep: tuple[Keep, ...] = ()
    analyzers: tuple[str, ...] = ()

    def fingerprint(self, graph_key: str, roots: Sequence[str]) -> str:
        h = hashlib.sha256(f"{__version__}|{graph_key}".encode())
        stamps = []
        for _, paths in self.evidence:
            for p in paths:
                try:
                    st = Path(p).stat()
                    stamps.append(f"{p}:{st.st_size}:{st.st_mtime_ns}")
                except OSError:
                    stamps.append(p)
        parts = [
            repr(self.evidence),
            repr(stamps),
            repr(self.options),
            repr(self.select),
            repr(self.ignore),
            repr(self.keep),
            repr(self.analyzers),
            "\n".join(roots),
        ]
        for part in parts:
            h.update(b"\0" + part.encode())
        return h.hexdigest()[:32]


@dataclass
class _State:
    job: Job
    graph: BuildGraph
    facts: Facts
    specs: list[AnalyzerSpec]
    csr: Any = None
    lock: threading.Lock = field(default_factory=threading.Lock)


_STATE: _State | None = None


def load_facts(evidence: Iterable[tuple[str, Sequence[str]]]) -> Facts:
    """Evidence files read into facts (same order and dedup as `slim report`)."""
    from slim.ingest import load_evidence
    from slim.model.facts import Facts, InputFile

    facts = Facts()
    for kind, paths in evidence:
        for p in paths:
            fmt, loaded = load_evidence(Path(p), kind)
            facts.extend(loaded)
            facts.inputs.append(InputFile(kind, Path(p).as_posix(), fmt.name))
    return facts


def install(job: Job, graph: BuildGraph, facts: Facts | None = None) -> None:
    """Make `graph` the worker state; forked children inherit it without a copy."""
    global _STATE
    from slim.analysis.registry import discover
    from slim.model.graph import BUILD_KINDS

    csr = graph.csr(BUILD_KINDS).astype("float64")
    # scipy's traversals convert int8 adjacency to float64 on every call; hand the graph
    # its float64 copy once, so no per-root conversion and forked workers share it.
    graph._csr[BUILD_KINDS] = csr.copy()
    specs = [load_spec(ref) for ref in job.analyzers] if job.analyzers else discover()
    _STATE = _State(job, graph, facts or load_facts(job.evidence), specs, csr)
    from slim.analysis.suppress import BuildFiles, _commented_targets

    _commented_targets(graph, BuildFiles(job.options.workspace))


def load_spec(ref: str) -> AnalyzerSpec:
    """An `AnalyzerSpec` named `module:ATTR` (entry-point syntax), for a chosen analyzer set."""
    import importlib

    from slim.model.plugin import AnalyzerSpec

    module, _, attr = ref.partition(":")
    spec = getattr(importlib.import_module(module), attr or "SPEC", None)
    if not isinstance(spec, AnalyzerSpec):
        raise ConfigError(f"{ref}: expected an AnalyzerSpec, found {type(spec).__name__}")
    return spec


def _state(job: Job) -> _State:
    if _STATE is None or _STATE.job != job:
        from slim.infra.cache import load_graph_cached

        graph = load_graph_cached(
            [Path(p) for p in job.graph_paths], job.graph_format, use_cache=job.use_cache
        )
        install(job, graph)
        gc.collect()
        gc.freeze()
    assert _STATE is not None
    return _STATE


def _removed_by_cut(st: _State, root: int, before: Any, a: int, b: int) -> list[int]:
    """Targets `root` no longer builds once the edge a -> b alone is cut."""
    import numpy as np
    from scipy.sparse.csgraph import breadth_first_order

    m = st.csr
    lo, hi = int(m.indptr[a]), int(m.indptr[a + 1])
    pos = lo + np.flatnonzero(m.indices[lo:hi] == b)
    if len(pos) == 0:
        return []
    with st.lock:
        saved = m.indices[pos].copy()
        m.indices[pos] = a
        try:
            after = breadth_first_order(m, root, directed=True, return_predecessors=False)
        finally:
            m.indices[pos] = saved
    return [int(x) for x in np.setdiff1d(before, after).tolist()]


def analyze_root(job: Job, label: str) -> dict[str, Any]:
    """One root's findings as JSON-able dicts, each removable edge with what its cut saves."""
    from scipy.sparse.csgraph import breadth_first_order

    from slim.analysis.engine import analyze
    from slim.render.json import finding_to_dict

    t0 = time.perf_counter()
    st = _state(job)
    g = st.graph
    root = g.lookup(label)
    if root is None:
        raise UsageError(f"target {label} is not in the graph")
    rep = analyze(
        g,
        [root],
        st.facts,
        job.options,
        select=job.select,
        ignore=job.ignore,
        specs=st.specs,
        keep=job.keep,
    )
    before = None
    findings = []
    for f in rep.findings:
        d = finding_to_dict(f)
        a, b = g.lookup(f.target), g.lookup(f.dep) if f.dep else None
        if f.removable and a is not None and b is not None:
            if before is None:
                before = breadth_first_order(st.csr, root, directed=True, return_predecessors=False)
            d["removed_ids"] = _removed_by_cut(st, root, before, a, b)
        findings.append(d)
    summary = rep.roots[0] if rep.roots else None
    return {
        "root": g.labels[root],
        "closure": 0 if summary is None else summary.targets,
        "findings": findings,
        "suppressed": [finding_to_dict(f) for f in rep.suppressed],
        "elapsed": round(time.perf_counter() - t0, 6),
    }


# -- scope ----------------------------------------------------------------------------------
def is_binary(kind: str) -> bool:
    k = kind.lower()
    return (k.endswith("_binary") or k in ("executable", "binary")) and "test" not in k


def select_roots(graph: BuildGraph, patterns: Sequence[str]) -> list[str]:
    """Binaries matching `//...`, `//pkg/...`, or exact labels (kept even if not binaries)."""
    out: set[str] = set()
    binaries: list[str] | None = None
    for pat in patterns:
        if pat.endswith("..."):
            prefix = pat[: -len("...")].rstrip("/")
            if binaries is None:
                binaries = [
                    lab
                    for lab, kind in zip(graph.labels, graph.kinds, strict=True)
                    if is_binary(kind)
                ]
            if prefix in ("", "/", "//"):
                out.update(binaries)
            else:
                out.update(
                    b
                    for b in binaries
                    if label_package(b) == prefix or label_package(b).startswith(prefix + "/")
                )
        else:
            i = graph.lookup(pat)
            if i is None:
                raise UsageError(f"target {pat} is not in the graph")
            out.add(graph.labels[i])
    if not out:
        raise UsageError(f"no binary matches {' '.join(patterns)} in the graph")
    return sorted(out)


# -- owners ---------------------------------------------------------------------------------
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A CODEOWNERS (gitignore-style) pattern as a regex over repo-relative file paths."""
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    body = pattern.strip("/")
    rx = ""
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            rx += "(?:.*/)?"
            i += 3
        elif body.startswith("**", i):
            rx += ".*"
            i += 2
        elif body[i] == "*":
            rx += "[^/]*"
            i += 1
        elif body[i] == "?":
            rx += "[^/]"
            i += 1
        else:
            rx += re.escape(body[i])
            i += 1
    head = "^" if anchored else "^(?:.*/)?"
    return re.compile(f"{head}{rx}(?:/.*)?$")


@dataclass
class Owners:
    """Who owns a target: its owners attribute/tag, the config table, or CODEOWNERS."""

    rules: list[tuple[re.Pattern[str], tuple[str, ...]]] = field(default_factory=list)
    prefixes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    source: str = ""

    @staticmethod
    def load(raw: Mapping[str, Any], config_path: Path | None, workspace: Path | None) -> Owners:
        base = config_path.parent if config_path is not None else Path.cwd()
        value = raw.get("owners")
        out = Owners()
        if isinstance(value, dict):
            for prefix, who in value.items():
                names = (who,) if isinstance(who, str) else who
                if not isinstance(names, list | tuple) or not all(
                    isinstance(n, str) for n in names
                ):
                    raise ConfigError(f"{config_path}: owners.{prefix}: expected names")
                out.prefixes[prefix.rstrip("/") or "//"] = tuple(names)
            out.source = f"{config_path}: owners"
            return out
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{config_path}: owners: expected a CODEOWNERS path or a table")
        candidates = [base / value] if isinstance(value, str) else []
        for root in dict.fromkeys([base, *([workspace] if workspace else [])]):
            candidates += [root / "CODEOWNERS", root / ".github/CODEOWNERS"]
            candidates += [root / "docs/CODEOWNERS"]
        for c in candidates:
            if c.is_file():
                out.rules = parse_codeowners(c.read_text(encoding="utf-8", errors="replace"))
                out.source = c.name if c.parent == base else str(c)
                return out
        if isinstance(value, str):
            raise ConfigError(f"{config_path}: owners: expected a CODEOWNERS file at {value}")
        return out

    def of(self, graph: BuildGraph, label: str) -> str:
        i = graph.lookup(label)
        if i is not None:
            attr = graph.attrs.get(i, {}).get("owners")
            if isinstance(attr, str) and attr:
                return attr
            if isinstance(attr, tuple) and attr:
                return " ".join(attr)
            for t in graph.tags.get(i, ()):
                for pre in ("owner:", "owners:", "owner=", "team:"):
                    if t.startswith(pre) and t[len(pre) :]:
                        return t[len(pre) :]
        pkg = label_package(label)
        best = ""
        for prefix in self.prefixes:
            if (pkg == prefix or pkg.startswith(prefix + "/") or prefix == "//") and len(
                prefix
            ) > len(best):
                best = prefix
        if best:
            return " ".join(self.prefixes[best])
        path = package_path(label)
        build = f"{path}/BUILD" if path else "BUILD"
        who: tuple[str, ...] = ()
        for rx, names in self.rules:
            if rx.match(build):
                who = names
        return " ".join(who) or UNOWNED


def parse_codeowners(text: str) -> list[tuple[re.Pattern[str], tuple[str, ...]]]:
    rules = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        pattern, *names = line.split()
        rules.append((_glob_regex(pattern), tuple(names)))
    return rules


# -- the database ---------------------------------------------------------------------------
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


def _start_run(db: sqlite3.Connection, fingerprint: str, scope: str, n: int, fresh: bool) -> int:
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


def _done_roots(db: sqlite3.Connection, run: int) -> set[str]:
    return {r[0] for r in db.execute("SELECT root FROM root_results WHERE run=?", (run,))}


def _save_root(db: sqlite3.Connection, run: int, result: Mapping[str, Any]) -> None:
    with db:
        db.execute(
            "INSERT OR REPLACE INTO root_results(run, root, result, elapsed) VALUES (?, ?, ?, ?)",
            (run, result["root"], json.dumps(result, sort_keys=True), result["elapsed"]),
        )


# -- running --------------------------------------------------------------------------------
def _run_pool(
    job: Job, todo: Sequence[str], jobs: int, save: Callable[[dict[str, Any]], None]
) -> None:
    """Fork `jobs` workers sharing the installed graph; a dead worker's roots are retried."""
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
            ctx = mp.get_context("fork")
            pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
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


def _run_serial(job: Job, todo: Sequence[str], save: Callable[[dict[str, Any]], None]) -> None:
    for r in todo:
        save(analyze_root(job, r))


def _remote(job: Job, labels: Sequence[str]) -> list[dict[str, Any]]:
    return [analyze_root(job, lab) for lab in labels]


def _run_dask(
    job: Job,
    todo: Sequence[str],
    address: str,
    save: Callable[[dict[str, Any]], None],
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
    graph: BuildGraph,
    graph_key: str,
    roots: Sequence[str],
    scope: str,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    fresh: bool = False,
    progress: Progress | None = None,
    facts: Facts | None = None,
) -> RunStats:
    """Analyze every root not yet done in the current run, committing each as it finishes."""
    t0 = time.perf_counter()
    run = _start_run(db, job.fingerprint(graph_key, roots), scope, len(roots), fresh)
    done = _done_roots(db, run)
    todo = [r for r in roots if r not in done]
    finished = len(roots) - len(todo)
    if progress:
        progress(finished, len(roots))

    def save(res: dict[str, Any]) -> None:
        nonlocal finished
        _save_root(db, run, res)
        finished += 1
        if progress:
            progress(finished, len(roots))

    if todo:
        if scheduler:
            _run_dask(job, todo, scheduler, save)
        else:
            install(job, graph, facts)
            if jobs > 1 and len(todo) > 1:
                _run_pool(job, todo, min(jobs, len(todo)), save)
            else:
                _run_serial(job, todo, save)
    elapsed = [r[0] for r in db.execute("SELECT elapsed FROM root_results WHERE run=?", (run,))]
    return RunStats(
        run=run,
        roots=len(roots),
        resumed=len(done),
        analyzed=len(todo),
        seconds=time.perf_counter() - t0,
        median_root_seconds=statistics.median(elapsed) if elapsed else 0.0,
    )


# -- the backlog ----------------------------------------------------------------------------
@dataclass
class Item:
    """One edge to cut (or a stale suppression to delete), across every root that has it."""

    key: str
    code: str
    name: str
    target: str
    dep: str
    verdict: str
    confidence: str
    message: str
    fix: str
    location: str
    attribute: str = "deps"
    roots: list[str] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    removed_labels: list[str] = field(default_factory=list)
    bytes: int = 0
    seconds: float = 0.0
    basis: str = ""
    owner: str = UNOWNED
    rank: int = 0
    saving_targets: int = 0
    status: str = "new"

    def as_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["removed"] = len(self.removed)
        d["standalone_targets"] = len(self.removed)
        del d["removed_labels"]
        return d


_CONF_RANK = {"high": 3, "medium": 2, "low": 1}


def _dep_location(f: Mapping[str, Any]) -> str:
    """`file:line` of the dep's own line when slim found it, else of the rule."""
    loc = str(f["location"] or "")
    line = (f.get("data") or {}).get("dep_line")
    if loc and isinstance(line, int) and not isinstance(line, bool):
        return f"{loc.rsplit(':', 1)[0] if loc.rsplit(':', 1)[-1].isdigit() else loc}:{line}"
    return loc


def _items_from(results: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Item], dict[str, int]]:
    items: dict[str, Item] = {}
    counts = {"findings": 0, "kept": 0, "not_checked": 0, "suppressed": 0}
    used: set[str] = set()
    stale_at: dict[str, str] = {}
    for res in results:
        counts["suppressed"] += len(res["suppressed"])
        used.update(str(f["data"].get("suppressed_by", "")) for f in res["suppressed"])
        for f in res["findings"]:
            if f["code"] == STALE_CODE:
                stale_at[f"{f['code']}|{f['from']}|{f['to']}"] = str(f["location"] or "")
            counts["findings"] += 1
            if f["code"] == "SLIM900":
                counts["not_checked"] += 1
                continue
            if not (f["removable"] and f["to"]) and f["code"] != STALE_CODE:
                counts["kept"] += 1
                continue
            key = f"{f['code']}|{f['from']}|{f['to']}"
            it = items.get(key)
            if it is None:
                it = items[key] = Item(
                    key=key,
                    code=f["code"],
                    name=f["kind"],
                    target=f["from"],
                    dep=f["to"],
                    verdict=f["verdict"],
                    confidence=f["confidence"],
                    message=f["message"],
                    fix=f["fix"] or "",
                    location=_dep_location(f),
                    attribute=f["attribute"]
                    if f["attribute"] and "(" not in f["attribute"]
                    else "deps",
                )
            if _CONF_RANK.get(f["confidence"], 0) < _CONF_RANK.get(it.confidence, 0):
                it.confidence = f["confidence"]
            if f["root"] and f["root"] not in it.roots:
                it.roots.append(f["root"])
            it.removed = sorted(set(it.removed) | set(f.get("removed_ids", [])))
            s = f.get("saving") or {}
            it.bytes = max(it.bytes, int(s.get("bytes", 0)))
            it.seconds = max(
                it.seconds, float(s.get("compile_seconds", 0.0)) + s.get("link_seconds", 0.0)
            )
            if s.get("basis") and s["basis"] not in it.basis.split(", "):
                it.basis = ", ".join(sorted(filter(None, [*it.basis.split(", "), s["basis"]])))
    for key, where in stale_at.items():
        if where in used:  # used from another root: not stale for the whole scope
            del items[key]
    for it in items.values():
        it.roots.sort()
    return items, counts


def rank(items: Mapping[str, Item]) -> list[Item]:
    """Greedy by marginal saving: a target removed by several cuts counts once, for the first."""
    covered: set[int] = set()
    heap = [
        (-len(it.removed), -len(it.removed), -it.bytes, -it.seconds, it.key)
        for it in items.values()
    ]
    heapq.heapify(heap)
    out: list[Item] = []
    while heap:
        neg, alone, nb, ns, key = heapq.heappop(heap)
        it = items[key]
        gain = len(set(it.removed) - covered)
        if gain != -neg:
            heapq.heappush(heap, (-gain, alone, nb, ns, key))
            continue
        covered.update(it.removed)
        it.saving_targets = gain
        it.rank = len(out) + 1
        out.append(it)
    return out


@dataclass
class Backlog:
    """The ranked result of one complete run, with what changed since the previous one."""

    run: int
    scope: str
    roots: int
    items: list[Item]
    counts: dict[str, int]
    previous: int | None
    fixed: list[dict[str, Any]]
    trend: list[tuple[int, int, int, float]]
    owners_source: str

    @property
    def total_targets(self) -> int:
        return sum(i.saving_targets for i in self.items)

    @property
    def total_bytes(self) -> int:
        return sum(i.bytes for i in self.items)

    @property
    def total_seconds(self) -> float:
        return round(sum(i.seconds for i in self.items), 3)

    def by_owner(self) -> list[tuple[str, list[Item]]]:
        groups: dict[str, list[Item]] = {}
        for it in self.items:
            groups.setdefault(it.owner, []).append(it)
        return sorted(groups.items(), key=lambda kv: (-sum(i.saving_targets for i in kv[1]), kv[0]))


def finish(db: sqlite3.Connection, run: int, graph: BuildGraph, owners: Owners) -> Backlog:
    """Rank the run's items, diff against the previous complete run of the same scope."""
    row = db.execute("SELECT scope, roots FROM runs WHERE id=?", (run,)).fetchone()
    scope, n_roots = str(row[0]), int(row[1])
    results = (
        json.loads(r[0])
        for r in db.execute("SELECT result FROM root_results WHERE run=? ORDER BY root", (run,))
    )
    items, counts = _items_from(results)
    ranked = rank(items)
    for it in ranked:
        it.owner = owners.of(graph, it.target)
        it.removed_labels = sorted(graph.labels[i] for i in it.removed)[:MAX_LABELS_SHOWN]
    prev_row = db.execute(
        "SELECT id FROM runs WHERE status='complete' AND scope=? AND id<? ORDER BY id DESC LIMIT 1",
        (scope, run),
    ).fetchone()
    previous = None if prev_row is None else int(prev_row[0])
    fixed: list[dict[str, Any]] = []
    if previous is not None:
        before = {
            k: json.loads(v)
            for k, v in db.execute("SELECT key, item FROM items WHERE run=?", (previous,))
        }
        for it in ranked:
            it.status = "open" if it.key in before else "new"
        fixed = [before[k] for k in sorted(set(before) - set(items))]
    backlog = Backlog(run, scope, n_roots, ranked, counts, previous, fixed, [], owners.source)
    with db:
        db.execute("DELETE FROM items WHERE run=?", (run,))
        db.executemany(
            "INSERT INTO items(run, key, item) VALUES (?, ?, ?)",
            [(run, it.key, json.dumps(it.as_dict(), sort_keys=True)) for it in ranked],
        )
        db.execute(
            "UPDATE runs SET status='complete', items=?, total_targets=?, total_bytes=?, "
            "total_seconds=?, finished=? WHERE id=?",
            (
                len(ranked),
                backlog.total_targets,
                backlog.total_bytes,
                backlog.total_seconds,
                time.time(),
                run,
            ),
        )
    backlog.trend = [
        (int(r[0]), int(r[1]), int(r[2]), float(r[3]))
        for r in db.execute(
            "SELECT id, total_targets, total_bytes, total_seconds FROM runs "
            "WHERE status='complete' AND scope=? AND id<=? ORDER BY id",
            (scope, run),
        )
    ]
    return backlog


# -- rendering the backlog ------------------------------------------------------------------
def _md(text: str) -> str:
    from slim.render.markdown import escape

    return escape(text)


def since_line(b: Backlog) -> str:
    if b.previous is None:
        return f"first run for this scope: {len(b.items)} open items"
    new = sum(1 for i in b.items if i.status == "new")
    still = len(b.items) - new
    return f"since run {b.previous}: {new} new, {len(b.fixed)} fixed, {still} still open"


def trend_line(b: Backlog) -> str:
    return "trend of removable targets: " + " → ".join(f"run {r}: {t}" for r, t, _, _ in b.trend)


def render_markdown(b: Backlog, out: TextIO) -> None:
    lines = [
        f"# slim cleanup backlog ({_md(b.scope)})",
        "",
        f"{b.roots} binaries analyzed · {len(b.items)} items · removable: {b.total_targets} "
        f"targets (each counted once), {b.total_bytes:,} bytes, {b.total_seconds:.1f} s build "
        f"time · {b.counts['suppressed']} suppressed · {b.counts['kept']} kept on evidence · "
        f"{b.counts['not_checked']} checks not run (evidence missing)",
        "",
        f"{_md(since_line(b))}; {_md(trend_line(b))}",
        "",
        "| Run | Removable targets | Bytes | Build seconds |",
        "|---|---|---|---|",
        *(f"| {r} | {t} | {by:,} | {s:.1f} |" for r, t, by, s in b.trend),
    ]
    if b.owners_source:
        lines += ["", f"Owners from {_md(b.owners_source)}."]
    for owner, items in b.by_owner():
        total = sum(i.saving_targets for i in items)
        lines += ["", f"## {_md(owner)} ({len(items)} items, {total} targets)", ""]
        lines += ["| Rank | Status | Code | Edge | Saving | Roots |", "|---|---|---|---|---|---|"]
        for it in items:
            edge = f"{_md(it.target)} → {_md(it.dep)}"
            saving = (
                f"{it.saving_targets} targets ({len(it.removed)} alone), {it.bytes:,} B, "
                f"{it.seconds:.1f} s"
            )
            lines.append(
                f"| {it.rank} | {it.status} | {it.code} {_md(it.name)} | {edge} | {saving} "
                f"| {len(it.roots)} |"
            )
        fixes = [it.fix for it in items if it.fix]
        if fixes:
            lines += ["", "```sh", *fixes, "```"]
    if b.fixed:
        lines += ["", f"## Fixed since run {b.previous} ({len(b.fixed)})", ""]
        for d in b.fixed:
            lines.append(f"- {d['code']} {_md(d['target'])} → {_md(d['dep'])}")
    out.write("\n".join(lines) + "\n")


CSV_COLUMNS = (
    "rank",
    "owner",
    "status",
    "code",
    "name",
    "target",
    "dep",
    "saving_targets",
    "bytes",
    "seconds",
    "basis",
    "roots",
    "confidence",
    "location",
    "fix",
)


def render_csv(b: Backlog, out: TextIO) -> None:
    from slim.render.csv import write_rows

    rows = []
    for owner, items in b.by_owner():
        for it in items:
            d = it.as_dict()
            d["owner"] = owner
            d["roots"] = len(it.roots)
            d["seconds"] = f"{it.seconds:.3f}"
            rows.append([d[c] for c in CSV_COLUMNS])
    write_rows(out, CSV_COLUMNS, rows)


def to_json(b: Backlog) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "run": b.run,
        "scope": b.scope,
        "roots": b.roots,
        "counts": dict(sorted(b.counts.items())),
        "totals": {
            "items": len(b.items),
            "targets": b.total_targets,
            "bytes": b.total_bytes,
            "seconds": b.total_seconds,
        },
        "since": None
        if b.previous is None
        else {
            "run": b.previous,
            "new": [i.key for i in b.items if i.status == "new"],
            "open": [i.key for i in b.items if i.status == "open"],
            "fixed": [d["key"] for d in b.fixed],
        },
        "trend": [{"run": r, "targets": t, "bytes": by, "seconds": s} for r, t, by, s in b.trend],
        "owners": [
            {
                "owner": o,
                "items": [i.key for i in its],
                "targets": sum(i.saving_targets for i in its),
            }
            for o, its in b.by_owner()
        ],
        "items": [
            it.as_dict()
            | {
                "roots": it.roots,
                "removed_targets": it.removed_labels,
                "removed_targets_shown": f"{len(it.removed_labels)} of {len(it.removed)}",
            }
            for it in b.items
        ],
    }


def render_json(b: Backlog, out: TextIO) -> None:
    json.dump(to_json(b), out, indent=2, sort_keys=True, ensure_ascii=False)
    out.write("\n")


def render_buildozer(b: Backlog, out: TextIO) -> None:
    lines = ["# slim cleanup: buildozer -f this-file (from the repository root)"]
    for owner, items in b.by_owner():
        cuts = [it for it in items if it.fix.startswith("buildozer ") and it.code != STALE_CODE]
        if not cuts:
            continue
        lines.append(f"# owner: {owner}")
        for it in cuts:
            lines.append(f"# rank {it.rank}: {it.code} {it.name}, {it.saving_targets} targets")
            lines.append(f"remove {it.attribute} {it.dep}|{it.target}")
    out.write("\n".join(lines) + "\n")


OUTPUTS: dict[str, Callable[[Backlog, TextIO], None]] = {
    "backlog.md": render_markdown,
    "backlog.csv": render_csv,
    "backlog.json": render_json,
    "backlog.buildozer": render_buildozer,
}


def iter_outputs(b: Backlog) -> Iterator[tuple[str, str]]:
    import io

    for name, fn in OUTPUTS.items():
        buf = io.StringIO()
        fn(b, buf)
        yield name, buf.getvalue()


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1
