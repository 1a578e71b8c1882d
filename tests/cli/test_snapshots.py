"""Snapshots of the whole CLI output on the bundled sample (as deptry does), and the
check that report, Markdown, review and cleanup agree on the saving they show.

`pytest --update-goldens` rewrites the snapshots; a change to one is reviewed like code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.golden import update_goldens

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"
ROOT = "//serving:cpu_server"
ALL_ROOTS = ("//py/apps:server", "//py/apps:trainer", ROOT, "//training:gpu_trainer")


def slim(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SLIM_CACHE_DIR": str(cache), "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [sys.executable, "-m", "slim", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


def _check(name: str, text: str, request: pytest.FixtureRequest) -> None:
    path = GOLDEN / name
    if update_goldens(request):
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} missing: run pytest --update-goldens"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("text", "report.txt"),
        ("json", "report.json"),
        ("markdown", "report.md"),
        ("sarif", "report.sarif"),
        ("buildozer", "report.buildozer"),
    ],
)
def test_report_snapshot(
    fmt: str, name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    proc = slim("report", ROOT, "--format", fmt, cache=tmp_path)
    assert proc.returncode == 1, proc.stderr
    _check(name, proc.stdout, request)


def test_review_snapshot(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    proc = slim("review", ROOT, "--format", "markdown", cache=tmp_path)
    assert proc.returncode == 1, proc.stderr
    _check("review.md", proc.stdout, request)


def test_cleanup_snapshot(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    out = tmp_path / "out"
    proc = slim(
        "cleanup", "//...", "--db", str(tmp_path / "db.sqlite"), "--out-dir", str(out),
        cache=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for name in ("backlog.md", "backlog.json", "backlog.buildozer", "backlog.csv"):
        _check(name, (out / name).read_text(encoding="utf-8"), request)


def test_report_markdown_review_and_cleanup_agree_on_the_saving(tmp_path: Path) -> None:
    """One planner: the global saving of every cut over the same roots is one figure."""
    rep = slim("report", *ALL_ROOTS, "--format", "json", cache=tmp_path)
    assert rep.returncode == 1, rep.stderr
    total = json.loads(rep.stdout)["savings"]["total"]
    assert total["targets_removed"] > 0
    findings = json.loads(rep.stdout)["findings"]
    removable = {f"{f['code']}|{f['target']}|{f['dep']}" for f in findings if f["removable"]}

    md = slim("report", *ALL_ROOTS, "--format", "markdown", cache=tmp_path)
    assert f"{total['compile_seconds']:.1f} s compile" in md.stdout.splitlines()[1]
    assert f"{total['bytes']:,} bytes, {total['targets_removed']} targets" in md.stdout

    out = tmp_path / "out"
    db = str(tmp_path / "db.sqlite")
    clean = slim("cleanup", *ALL_ROOTS, "--db", db, "--out-dir", str(out), cache=tmp_path)
    assert clean.returncode == 0, clean.stderr
    backlog = json.loads((out / "backlog.json").read_text())
    assert {i["key"] for i in backlog["items"]} == removable
    for key in ("compile_seconds", "link_seconds", "bytes", "targets_removed", "removed"):
        assert backlog["total"][key] == total[key], key
    shares = sum(i["saving"]["compile_seconds"] for i in backlog["items"])
    assert shares == pytest.approx(total["compile_seconds"], abs=0.01)

    one = slim("report", ROOT, "--format", "json", cache=tmp_path)
    review = slim("review", ROOT, "--format", "json", cache=tmp_path)
    new = [f for f in json.loads(review.stdout)["findings"] if f["removable"]]
    assert [f["review"] for f in new] == ["new"]
    assert json.loads(review.stdout)["savings"]["total"]["removed"] == new[0]["saving"]["removed"]
    assert json.loads(one.stdout)["savings"]["total"]["targets_removed"] > 0
