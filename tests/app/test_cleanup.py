"""`slim cleanup`: global ranking, owners, SQLite resume and diff, pool and Dask execution."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from slim.app import cleanup as cu
from slim.app.cleanup import executor, store
from slim.app.session import Request, Session
from slim.cli import cli
from slim.errors import UsageError
from slim.infra.config import Config, load_config
from slim.ingest import load_graph
from slim.model.graph import BuildGraph
from tests.tagged_dead import REF, SPEC, write_streamed_jsonproto

UNUSED = ("unused",)
EDGES = {
    "//app:a": ["//lib:common", "//lib:shared_dead", "//lib:a_dead"],
    "//app:b": ["//lib:common", "//lib:shared_dead"],
    "//app:c": ["//lib:c_dead"],
    "//lib:shared_dead": ["//lib:big1", "//lib:big2", "//lib:big3"],
    "//lib:a_dead": ["//lib:big4"],
    "//tests:t": ["//lib:a_dead"],
}
TAGS = {
    "//lib:shared_dead": UNUSED,
    "//lib:a_dead": UNUSED,
    "//lib:c_dead": UNUSED,
    "//app:c": ("owner:@team-c",),
}
BINARIES = ("//app:a", "//app:b", "//app:c")
KINDS = {"//tests:t": "cc_test"}
CODEOWNERS = "# comment\n*  @everyone\n/app/ @team-app\n"


def _setup(tmp_path: Path, edges: dict[str, list[str]] = EDGES) -> tuple[Path, BuildGraph]:
    g = tmp_path / "graph.ndjson"
    write_streamed_jsonproto(g, edges, binaries=BINARIES, tags=TAGS, kinds=KINDS)
    (tmp_path / "CODEOWNERS").write_text(CODEOWNERS)
    return g, load_graph([g], None)


def _session(tmp_path: Path, graph_path: Path, keep: str = "") -> Session:
    config = tmp_path / "slim.toml"
    if keep:
        config.write_text(keep)
    cfg = load_config(config) if keep else Config(path=config)
    return Session(Request(graphs=(graph_path,)), cfg)


def _run(
    tmp_path: Path,
    db_path: Path,
    graph_path: Path,
    graph: BuildGraph | None = None,
    *,
    analyzers: tuple[str, ...] = (REF,),
    keep: str = "",
    **kw: Any,
) -> tuple[cu.RunStats, cu.Backlog]:
    session = _session(tmp_path, graph_path, keep)
    backlog, stats = cu.run(session, ["//..."], db_path=db_path, analyzers=analyzers, **kw)
    return stats, backlog


def _summary(b: cu.Backlog) -> list[tuple[int, str, str, str, int, str]]:
    return [(i.rank, i.target, i.dep, i.owner, i.saving.targets_removed, i.status) for i in b.items]


# Each item's share of the total, priced in order of the cut alone: the second of the two
# cuts of //lib:shared_dead removes it (and what only it brings); the first removes nothing
# while //app:a still links it. The shares add up to the 7 targets of every cut at once.
EXPECTED = [
    (1, "//app:a", "//lib:shared_dead", "@team-app", 4, "new"),
    (2, "//app:a", "//lib:a_dead", "@team-app", 2, "new"),
    (3, "//app:c", "//lib:c_dead", "@team-c", 1, "new"),
    (4, "//app:b", "//lib:shared_dead", "@team-app", 0, "new"),
]


def test_scope_selects_binaries_not_tests(tmp_path: Path) -> None:
    _, g = _setup(tmp_path)
    assert cu.select_roots(g, ["//..."]) == list(BINARIES)
    assert cu.select_roots(g, ["//app/..."]) == list(BINARIES)
    assert cu.select_roots(g, ["//lib:common"]) == ["//lib:common"]
    with pytest.raises(UsageError, match="no binary matches"):
        cu.select_roots(g, ["//nothing/..."])
    with pytest.raises(UsageError, match="not in the graph"):
        cu.select_roots(g, ["//app:zzz"])


def test_ranked_globally_counting_shared_targets_once(tmp_path: Path) -> None:
    gp, g = _setup(tmp_path)
    stats, b = _run(tmp_path, tmp_path / "db.sqlite", gp, g, jobs=1)
    assert (stats.roots, stats.analyzed, stats.resumed) == (3, 3, 0)
    assert _summary(b) == EXPECTED
    assert b.total.targets_removed == 7
    assert sum(i.saving.targets_removed for i in b.items) == 7
    by_key = {i.key: i for i in b.items}
    assert by_key["SLIM080|//app:a|//lib:shared_dead"].saving.removed == (
        "//lib:big1",
        "//lib:big2",
        "//lib:big3",
        "//lib:shared_dead",
    )
    assert [o for o, _ in b.by_owner()] == ["@team-app", "@team-c"]
    assert b.previous is None
    assert [p.targets for p in b.trend] == [7]


def test_cuts_that_hold_only_alone_are_not_both_ranked(tmp_path: Path) -> None:
    """//app:a's two dead deps both bring //lib:big1, whose use nobody judged: cutting
    both would take it away, so the second cut (in report order) is no item for //app:a."""
    gp, g = _setup(tmp_path, {**EDGES, "//lib:a_dead": ["//lib:big1"]})
    _, b = _run(tmp_path, tmp_path / "db.sqlite", gp, g, jobs=1)
    assert [(i.target, i.dep) for i in b.items if i.target == "//app:a"] == [
        ("//app:a", "//lib:a_dead")
    ]
    assert ("//app:b", "//lib:shared_dead") in [(i.target, i.dep) for i in b.items]


def test_pool_matches_serial_and_outputs_are_deterministic(tmp_path: Path) -> None:
    gp, g = _setup(tmp_path)
    _, serial = _run(tmp_path, tmp_path / "s.sqlite", gp, g, jobs=1)
    _, pooled = _run(tmp_path, tmp_path / "p.sqlite", gp, g, jobs=2)
    assert _summary(serial) == _summary(pooled)
    assert dict(cu.iter_outputs(serial)) == dict(cu.iter_outputs(pooled))
    out = dict(cu.iter_outputs(pooled))
    assert set(out) == {"backlog.md", "backlog.csv", "backlog.json", "backlog.buildozer"}
    assert "## @team-app (3 items, " in out["backlog.md"]
    assert out["backlog.buildozer"].splitlines()[1:4] == [
        "# owner: @team-app",
        "# rank 1: SLIM080 tagged-unused, 0.0 s, 4 targets (4 alone), 0 B",
        "remove deps //lib:shared_dead|//app:a",
    ]
    assert out["backlog.csv"].splitlines()[1].startswith("1,@team-app,new,SLIM080,")
    doc = json.loads(out["backlog.json"])
    assert doc["total"]["targets_removed"] == 7
    assert sum(i["saving"]["targets_removed"] for i in doc["items"]) == 7
    assert doc["since"] is None


def test_second_run_reports_new_fixed_open_and_trend(tmp_path: Path) -> None:
    gp, g = _setup(tmp_path)
    db = tmp_path / "db.sqlite"
    _run(tmp_path, db, gp, g, jobs=1)
    edges = {**EDGES, "//app:c": ["//lib:c_dead2"], "//app:b": ["//lib:common"]}
    gp2 = tmp_path / "v2" / "graph.ndjson"
    gp2.parent.mkdir()
    write_streamed_jsonproto(
        gp2, edges, binaries=BINARIES, tags={**TAGS, "//lib:c_dead2": UNUSED}, kinds=KINDS
    )
    g2 = load_graph([gp2], None)
    _, b = _run(tmp_path, db, gp2, g2, jobs=1)
    assert b.previous == 1
    status = {i.key: i.status for i in b.items}
    assert status == {
        "SLIM080|//app:a|//lib:a_dead": "open",
        "SLIM080|//app:a|//lib:shared_dead": "open",
        "SLIM080|//app:c|//lib:c_dead2": "new",
    }
    assert sorted(d.key for d in b.fixed) == [
        "SLIM080|//app:b|//lib:shared_dead",
        "SLIM080|//app:c|//lib:c_dead",
    ]
    assert cu.since_line(b) == "since run 1: 1 new, 2 fixed, 2 still open"
    # Run 2: cutting //app:a -> //lib:shared_dead and -> //lib:a_dead together also frees
    # //lib:big1, which neither cut frees alone: the total is every cut at once.
    assert [(p.run, p.targets) for p in b.trend] == [(1, 7), (2, 7)]
    md = dict(cu.iter_outputs(b))["backlog.md"]
    assert "## Fixed since run 1 (2)" in md


def test_interrupted_run_keeps_results_and_resumes(tmp_path: Path) -> None:
    gp, g = _setup(tmp_path)
    db_path = tmp_path / "db.sqlite"
    seen: list[int] = []

    def interrupt(done: int, total: int) -> None:
        seen.append(done)
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, db_path, gp, g, jobs=1, progress=interrupt)
    with sqlite3.connect(db_path) as con:
        assert con.execute("SELECT status FROM runs").fetchall() == [("running",)]
        assert con.execute("SELECT count(*) FROM root_results").fetchone() == (2,)
    stats, b = _run(tmp_path, db_path, gp, g, jobs=2)
    assert (stats.run, stats.resumed, stats.analyzed) == (1, 2, 1)
    assert _summary(b) == EXPECTED


def test_killed_worker_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gp, g = _setup(tmp_path)
    marker = tmp_path / "killed"
    monkeypatch.setenv("SLIM_TEST_KILL_MARKER", str(marker))
    killer = ("tests.tagged_dead:KILLER",)
    stats, b = _run(tmp_path, tmp_path / "db.sqlite", gp, g, jobs=2, analyzers=killer)
    assert marker.read_text() == "killed"
    assert stats.analyzed == 3
    assert _summary(b) == EXPECTED


def test_dask_local_cluster_matches_pool(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    gp, g = _setup(tmp_path)
    _, pooled = _run(tmp_path, tmp_path / "p.sqlite", gp, g, jobs=2)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        stats, dasked = _run(
            tmp_path, tmp_path / "d.sqlite", gp, g, scheduler=cluster.scheduler_address
        )
    assert stats.analyzed == 3
    assert dict(cu.iter_outputs(dasked)) == dict(cu.iter_outputs(pooled))


def test_codeowners_patterns() -> None:
    rules = cu.parse_codeowners(
        "*.py @py\n/lib/ @lib\ndocs/** @docs\nserving @srv\n/a/*/BUILD @x\n"
    )

    def who(path: str) -> tuple[str, ...]:
        out: tuple[str, ...] = ()
        for rx, names in rules:
            if rx.match(path):
                out = names
        return out

    assert who("lib/x/BUILD") == ("@lib",)
    assert who("docs/a/b/BUILD") == ("@docs",)
    assert who("x/serving/BUILD") == ("@srv",)
    assert who("a/b/BUILD") == ("@x",)
    assert who("a/b/c/BUILD") == ()
    assert who("tool.py") == ("@py",)


def test_owners_from_config_table(tmp_path: Path) -> None:
    _, g = _setup(tmp_path)
    owners = cu.Owners.load(
        {"owners": {"//app": "@apps", "//": ["@root"]}}, tmp_path / "x.toml", None
    )
    assert owners.of(g, "//app:a") == "@apps"
    assert owners.of(g, "//lib:common") == "@root"
    assert owners.of(g, "//app:c") == "@team-c"


@pytest.fixture
def tagged_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI discovers analyzers by entry point; here it finds the test analyzer only."""
    monkeypatch.setattr("slim.analysis.engine.discover", lambda *_: [SPEC])
    monkeypatch.setattr("slim.analysis.registry.discover", lambda *_: [SPEC])


@pytest.mark.usefixtures("tagged_registry")
def test_cli_cleanup_twice(tmp_path: Path) -> None:
    gp, _ = _setup(tmp_path)
    (tmp_path / "slim.toml").write_text(f'graph = "{gp.name}"\nroots = ["//app/..."]\n')
    args = ["cleanup", "--config", str(tmp_path / "slim.toml"), "--out-dir", str(tmp_path / "out")]
    runner = CliRunner()
    res = runner.invoke(cli, [*args, "-j", "2"], standalone_mode=False)
    assert res.exception is None, res.output
    assert (tmp_path / ".slim-cache" / "cleanup.sqlite").is_file()
    first = {p.name: p.read_text() for p in (tmp_path / "out").iterdir()}
    assert "first run for this scope: 4 open items" in first["backlog.md"]
    assert "slim cleanup: run 1: 3 roots (0 resumed)" in res.output
    res = runner.invoke(cli, args, standalone_mode=False)
    assert res.exception is None, res.output
    second = (tmp_path / "out" / "backlog.md").read_text()
    assert "since run 1: 0 new, 0 fixed, 4 still open" in second
    assert "run 1: 7 → run 2: 7" in second


MONOREPO = Path(__file__).resolve().parents[2] / "sample_graphs" / "monorepo"


def _removable_keys(runner: CliRunner, graph: str, roots: list[str], ev: list[str]) -> set[str]:
    """Removable edges as `slim report` sees them, root by root (what cleanup must rank)."""
    keys = set()
    for root in roots:
        res = runner.invoke(
            cli, ["report", root, "--graph", graph, *ev, "--format", "json"], standalone_mode=False
        )
        assert res.exception is None, res.output
        doc = json.loads(res.output)
        keys |= {f"{f['code']}|{f['target']}|{f['dep']}" for f in doc["findings"] if f["removable"]}
    return keys


def test_monorepo_cleanup_then_difference(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if not (MONOREPO / "exports" / "review" / "head.query.xml").is_file():
        pytest.skip("sample_graphs/monorepo exports not generated")
    monkeypatch.chdir(MONOREPO)
    (tmp_path / "slim.toml").write_text("")
    # The sample's git history is slim's own: per-build ranking (--history-days 0).
    ev = ["--config", str(tmp_path / "slim.toml"), "--workspace", ".", "--history-days", "0"]
    ev += [x for b in ("cpu_server", "gpu_trainer") for x in ("--binary", f"exports/bin/{b}")]
    ev += [
        x
        for b in ("cpu_server", "gpu_trainer")
        for x in ("--linkmap", f"exports/linkmaps/{b}.lld.map")
    ]
    for a in sorted((MONOREPO / "exports" / "archives").glob("*/**/*.a")):
        ev += ["--binary", a.relative_to(MONOREPO).as_posix()]
    ev += ["--trace", "traces/server.importtime.txt", "--trace", "traces/trainer.importtime.txt"]
    out = ["--db", str(tmp_path / "db.sqlite"), "--out-dir", str(tmp_path / "out")]
    runner = CliRunner()
    base, head = "exports/review/base.query.xml", "exports/review/head.query.xml"
    res = runner.invoke(
        cli, ["cleanup", "//...", "--graph", base, *ev, *out], standalone_mode=False
    )
    assert res.exception is None, res.output
    first = json.loads((tmp_path / "out" / "backlog.json").read_text())
    roots = [
        "//py/apps:server",
        "//py/apps:trainer",
        "//serving:cpu_server",
        "//training:gpu_trainer",
    ]
    assert first["roots"] == len(roots)
    keys = [i["key"] for i in first["items"]]
    assert set(keys) == _removable_keys(runner, base, roots, ev)
    assert keys, "the sample has removable edges"
    assert [i["rank"] for i in first["items"]] == list(range(1, len(keys) + 1))
    savings = [i["saving"]["compile_seconds"] + i["saving"]["link_seconds"] for i in first["items"]]
    assert savings == sorted(savings, reverse=True)
    batch = (tmp_path / "out" / "backlog.buildozer").read_text()
    assert batch.count("\nremove ") + batch.count("\nreplace ") == len(keys)
    res = runner.invoke(
        cli, ["cleanup", "//...", "--graph", head, *ev, *out], standalone_mode=False
    )
    assert res.exception is None, res.output
    second = json.loads((tmp_path / "out" / "backlog.json").read_text())
    now = _removable_keys(runner, head, roots, ev)
    assert set(second["since"]["new"]) == now - set(keys)
    assert set(second["since"]["fixed"]) == set(keys) - now
    assert set(second["since"]["open"]) == now & set(keys)
    assert [t["run"] for t in second["trend"]] == [1, 2]
    md = (tmp_path / "out" / "backlog.md").read_text()
    assert f"since run 1: {len(now - set(keys))} new, {len(set(keys) - now)} fixed" in md


def test_corrupt_database_is_one_line_error(tmp_path: Path) -> None:
    from slim.errors import SlimError

    bad = tmp_path / "db.sqlite"
    bad.write_bytes(b"\x00garbage, not sqlite" * 100)
    with pytest.raises(SlimError, match="expected a slim cleanup database"):
        store.open_db(bad)


def test_unreachable_scheduler_is_a_usage_error(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    gp, _g = _setup(tmp_path)
    job = executor.Job(Request(graphs=(gp,)), (REF,))
    with pytest.raises(UsageError, match="cannot connect"):
        executor._run_dask(job, ["//app:a"], "tcp://127.0.0.1:9", lambda r: None, "1s")


def test_interrupt_stops_running_workers_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    gp, g = _setup(tmp_path)
    db_path = tmp_path / "db.sqlite"

    def interrupt(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    slow = ("tests.tagged_dead:SLOW",)
    monkeypatch.setenv("SLIM_TEST_SLOW", "1")
    t = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        _run(
            tmp_path,
            db_path,
            gp,
            g,
            jobs=2,
            progress=interrupt,
            analyzers=slow,
        )
    assert time.perf_counter() - t < 30
    with sqlite3.connect(db_path) as con:
        done = {r[0] for r in con.execute("SELECT root FROM root_results")}
    assert done == {"//app:a", "//app:c"}
    monkeypatch.delenv("SLIM_TEST_SLOW")
    stats, b = _run(tmp_path, db_path, gp, g, jobs=2, analyzers=slow)
    assert (stats.resumed, stats.analyzed) == (2, 1)
    assert _summary(b) == EXPECTED


def test_config_keep_used_by_one_root_is_not_stale(tmp_path: Path) -> None:
    gp, g = _setup(tmp_path)
    keep = (
        'keep = [\n  { target = "//app:c", dep = "//lib:c_dead", reason = "needed by a plugin" },\n'
        '  { target = "//app:c", dep = "//lib:gone", reason = "old" },\n]\n'
    )
    _, b = _run(tmp_path, tmp_path / "db.sqlite", gp, g, jobs=1, keep=keep)
    keys = {i.key for i in b.items}
    assert "SLIM080|//app:c|//lib:c_dead" not in keys
    assert "SLIM990|//app:c|//lib:gone" in keys
    assert "SLIM990|//app:c|//lib:c_dead" not in keys
    assert b.counts["suppressed"] == 1
    stale_item = next(i for i in b.items if i.code == "SLIM990")
    assert str(stale_item.location) == "slim.toml:3"
