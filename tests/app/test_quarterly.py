"""Savings per quarter on the sample monorepo with a real git history made in the test:
the cleanup ranking follows how often the removed library changes, every output says the
basis of each figure, the SQLite history keeps each run's figures, and the review bot
prices a newly added dead edge at the current change rate."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from slim.cli import cli
from tests._git import init, touch

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_graphs" / "monorepo"
ROOT = "//serving:cpu_server"
LEGACY = "SLIM002|//serving:cpu_server|//native/legacy_io:legacy_io"
CUDA = "SLIM003|//serving:model_runner|//kernels:cuda_kernels"
LEGACY_SRC, CUDA_SRC = "native/legacy_io/legacy_io.cc", "kernels/cuda_kernels.cu"
END = dt.date(2026, 3, 31)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _workspace(tmp_path: Path, weekly: str, yearly: str, name: str = "ws") -> Path:
    """A copy of the sample whose history edits `weekly` every week of the last quarter
    and `yearly` once, a year before the newest commit."""
    ws = tmp_path / name
    shutil.copytree(SAMPLE, ws, ignore=shutil.ignore_patterns("exports", "traces", "__pycache__"))
    init(ws, "2025-01-02")
    touch(ws, [yearly], (END - dt.timedelta(days=364)).isoformat(), "yearly")
    for week in range(12, -1, -1):
        touch(ws, [weekly], (END - dt.timedelta(weeks=week)).isoformat(), "weekly")
    return ws


def _cleanup(tmp_path: Path, ws: Path, *extra: str) -> dict:
    out = tmp_path / f"out-{ws.name}"
    args = ["cleanup", ROOT, "--workspace", str(ws), "--db", str(tmp_path / "db.sqlite")]
    res = CliRunner().invoke(
        cli, [*args, "--out-dir", str(out), *extra], standalone_mode=False, catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "backlog.json").read_text())
    doc["_csv"] = list(csv.DictReader(io.StringIO((out / "backlog.csv").read_text())))
    doc["_md"] = (out / "backlog.md").read_text()
    return doc


def _order(doc: dict) -> list[str]:
    return [i["key"] for i in doc["items"]]


def test_ranking_follows_how_often_the_removed_library_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    per_build = _cleanup(
        tmp_path, _workspace(tmp_path, LEGACY_SRC, CUDA_SRC, "nohist"), "--history-days", "0"
    )
    assert _order(per_build) == [CUDA, LEGACY]  # 9.6 s of CPU per build against 2.5 s
    assert per_build["ranked_by"] == "seconds"
    assert "history_days" not in per_build["history_note"]  # said on the command line
    assert per_build["history_note"] == "--history-days 0"

    weekly = _cleanup(
        tmp_path, _workspace(tmp_path, LEGACY_SRC, CUDA_SRC, "weekly"), "--history-days", "90"
    )
    yearly = _cleanup(
        tmp_path, _workspace(tmp_path, CUDA_SRC, LEGACY_SRC, "yearly"), "--history-days", "90"
    )
    # legacy_io edited every week: 13 rebuilds a quarter outweigh the CUDA compile that
    # no commit of the quarter touches; edited once a year, it goes back to second.
    assert _order(weekly) == [LEGACY, CUDA]
    assert _order(yearly) == [CUDA, LEGACY]
    assert weekly["ranked_by"] == yearly["ranked_by"] == "quarter_cpu_hours"

    item = {i["key"]: i for i in weekly["items"]}
    q = item[LEGACY]["saving"]["quarter"]
    assert q["commits"] == 13
    assert q["rebuilds"] == pytest.approx(13.0)
    assert q["miss_ratio"] == 1.0
    per_build_cpu = item[LEGACY]["saving"]["compile_seconds"]
    assert q["cpu_seconds"] == pytest.approx(per_build_cpu * 13, rel=1e-3)
    assert "assumed" in q["basis"]["miss_ratio"]
    assert "13 of 13 commits in 90 days to 2026-03-31 (newest commit)" in q["basis"]["rebuilds"]
    assert item[CUDA]["saving"]["quarter"]["cpu_seconds"] == 0.0
    # The shares add up to the total, in every output.
    shares = sum(i["saving"]["quarter"]["cpu_seconds"] for i in weekly["items"])
    assert shares == pytest.approx(weekly["total"]["quarter"]["cpu_seconds"], abs=0.01)
    rows = {f"{r['code']}|{r['target']}|{r['dep']}": r for r in weekly["_csv"]}
    assert float(rows[LEGACY]["quarter_cpu_hours"]) == pytest.approx(q["cpu_hours"], abs=1e-4)
    assert "assumed" in rows[LEGACY]["quarter_basis"]
    assert rows[CUDA]["critical_path"] == "yes"
    assert rows[LEGACY]["critical_path"] == "no"
    assert "Ranked by CPU-hours per quarter (measured: " in weekly["_md"]
    assert f"per quarter: {weekly['total']['quarter']['cpu_hours']:.4f} CPU-h" in weekly["_md"]


def test_store_keeps_each_runs_figures_for_the_trend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    ws = _workspace(tmp_path, LEGACY_SRC, CUDA_SRC)
    first = _cleanup(tmp_path, ws, "--history-days", "90", "--fresh")
    touch(ws, [LEGACY_SRC], (END + dt.timedelta(days=1)).isoformat(), "one more")
    second = _cleanup(tmp_path, ws, "--history-days", "90", "--fresh")
    trend = second["trend"]
    assert [t["run"] for t in trend] == [1, 2]
    assert trend[0]["quarter_cpu_hours"] == pytest.approx(
        first["total"]["quarter"]["cpu_hours"], abs=1e-4
    )
    assert trend[1]["quarter_cpu_hours"] > trend[0]["quarter_cpu_hours"]
    db = sqlite3.connect(tmp_path / "db.sqlite")
    try:
        rows = db.execute("SELECT run, total FROM run_figures ORDER BY run").fetchall()
        item = json.loads(
            db.execute("SELECT item FROM items WHERE run=2 AND key=?", (LEGACY,)).fetchone()[0]
        )
    finally:
        db.close()
    totals = [json.loads(t) for _, t in rows]
    assert [r for r, _ in rows] == [1, 2]
    assert totals[1]["quarter"]["basis"]["rebuilds"].startswith("measured: ")
    assert item["saving"]["quarter"]["commits"] == 14


def test_review_says_what_a_new_dead_edge_costs_per_quarter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    ws = _workspace(tmp_path, "native/old_codec/old_codec.cc", CUDA_SRC)
    res = CliRunner().invoke(
        cli,
        ["review", ROOT, "--format", "markdown", "--workspace", str(ws), "--history-days", "90"],
        standalone_mode=False,
        catch_exceptions=False,
    )
    text = res.output.replace("\\", "")
    assert "What the new dead edges will cost:" in text
    (line,) = [
        x for x in text.splitlines() if x.startswith("- //serving:cpu_server → //native/old_codec")
    ]
    assert "CPU-h per quarter at the current change rate (13.0 rebuilds" in line
    assert "measured: 13 of 13 commits in 90 days to 2026-03-31 (newest commit)" in line
    js = CliRunner().invoke(
        cli,
        ["review", ROOT, "--format", "json", "--workspace", str(ws), "--history-days", "90"],
        standalone_mode=False,
        catch_exceptions=False,
    )
    (new,) = [f for f in json.loads(js.output)["findings"] if f["removable"]]
    q = new["saving"]["quarter"]
    assert f"{q['cpu_hours']:.4f} CPU-h per quarter" in line
    assert "wall saved (clean build, -j3): not measured" in line
    assert q["cpu_seconds"] == pytest.approx(new["saving"]["compile_seconds"] * 13, rel=1e-3)


def test_sccache_stats_weight_the_quarterly_saving_by_the_miss_ratio(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two clean builds through sccache hit half the C/C++ compiles: a rebuild of
    legacy_io costs CPU half the time, and the basis says it was measured."""
    monkeypatch.chdir(REPO)
    ws = _workspace(tmp_path, LEGACY_SRC, CUDA_SRC)
    stats = REPO / "tests" / "data" / "sccache" / "stats.two-clean-builds.json"
    log = SAMPLE / "exports" / "cmake" / "ninja_log.txt"

    def legacy(*timings: Path) -> dict:
        args = ["report", ROOT, "--format", "json", "--workspace", str(ws), "--history-days", "90"]
        for t in timings:
            args += ["--timings", str(t)]
        res = CliRunner().invoke(cli, args, standalone_mode=False, catch_exceptions=False)
        (f,) = [
            f
            for f in json.loads(res.output)["findings"]
            if f["dep"] == "//native/legacy_io:legacy_io"
        ]
        return f["saving"]["quarter"]

    assumed, measured = legacy(log), legacy(log, stats)
    assert assumed["miss_ratio"] == 1.0
    assert measured["miss_ratio"] == 0.5
    assert measured["cpu_seconds"] == pytest.approx(assumed["cpu_seconds"] / 2, abs=0.002)
    assert "measured (sccache stats per language" in measured["basis"]["miss_ratio"]
    assert "assumed" in assumed["basis"]["miss_ratio"]


def test_figures_reconcile_across_outputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One model, every output: the per-cut wall and quarterly figures in JSON, SARIF and
    CSV are the same numbers, and the totals of the report, its text and Markdown
    summaries and the cleanup backlog are one figure."""
    monkeypatch.chdir(REPO)
    ws = _workspace(tmp_path, LEGACY_SRC, CUDA_SRC)
    common = [ROOT, "--workspace", str(ws), "--history-days", "90"]

    def run(fmt: str) -> str:
        res = CliRunner().invoke(
            cli, ["report", *common, "--format", fmt], standalone_mode=False, catch_exceptions=False
        )
        return res.output

    rep = json.loads(run("json"))
    sarif = json.loads(run("sarif"))
    rows = list(csv.DictReader(io.StringIO(run("csv"))))
    text, md = run("text"), run("markdown").replace("\\", "")
    by_key = {
        (r["ruleId"], r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]): r
        for r in sarif["runs"][0]["results"]
    }
    for f in rep["findings"]:
        if not f["removable"]:
            continue
        s = f["saving"]
        assert s["wall"] is not None
        assert s["quarter"] is not None
        props = by_key[(f["code"], f"{f['target']} -> {f['dep']}")]["properties"]["saving"]
        assert props["wall"] == s["wall"]
        assert props["quarter"] == s["quarter"]
        (row,) = [
            r
            for r in rows
            if (r["code"], r["target"], r["dep"]) == (f["code"], f["target"], f["dep"])
        ]
        assert float(row["wall_seconds"]) == s["wall"]["seconds"]
        assert float(row["quarter_cpu_hours"]) == pytest.approx(s["quarter"]["cpu_hours"], abs=1e-4)
        assert row["critical_path"] == ("yes" if s["wall"]["critical_path"] else "no")
    total = rep["savings"]["total"]
    (per_root,) = rep["savings"]["per_root"]
    assert total["wall"] == per_root["saving"]["wall"]
    wall = f"wall saved (clean build, -j{total['wall']['jobs']}): {total['wall']['seconds']:.1f} s"
    quarter = f"per quarter: {total['quarter']['cpu_hours']:.4f} CPU-h"
    summary = text.strip().splitlines()[-1]
    assert wall in summary
    assert quarter in summary
    assert wall in md.splitlines()[1]
    assert quarter in md.splitlines()[1]
    backlog = _cleanup(tmp_path, ws, "--history-days", "90")
    assert backlog["total"]["quarter"] == total["quarter"]
    assert backlog["total"]["wall"] == total["wall"]
    alone = {i["key"]: i["alone"] for i in backlog["items"]}
    for f in rep["findings"]:
        if f["removable"]:
            assert alone[f"{f['code']}|{f['target']}|{f['dep']}"]["wall"] == f["saving"]["wall"]
