"""Remembered entry points: reused while the installed metadata is the same, read again
as soon as a distribution is added, removed or its entry points rewritten."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from slim.analysis.registry import load
from slim.infra.plugins import KEYS_KEPT, cached_entry_points


class Reader:
    def __init__(self, answer: list[tuple[str, str]]) -> None:
        self.answer = answer
        self.calls = 0

    def __call__(self) -> list[tuple[str, str]]:
        self.calls += 1
        return list(self.answer)


def _dist(site: Path, name: str, text: str) -> Path:
    d = site / f"{name}-1.0.dist-info"
    d.mkdir(parents=True, exist_ok=True)
    (d / "entry_points.txt").write_text(text)
    return d


@pytest.fixture
def site(tmp_path: Path) -> Path:
    s = tmp_path / "site"
    _dist(s, "alpha", "[slim.analyzers]\na = alpha:SPEC\n")
    return s


def test_a_second_run_on_the_same_metadata_does_not_read_it(tmp_path: Path, site: Path) -> None:
    read = Reader([("a", "alpha:SPEC")])
    paths = [str(site), str(tmp_path / "missing"), "/usr/lib/python3.zip"]
    first = cached_entry_points("slim.analyzers", tmp_path / "c", read, paths)
    again = cached_entry_points("slim.analyzers", tmp_path / "c", read, paths)
    assert first == again == [("a", "alpha:SPEC")]
    assert read.calls == 1


def test_an_added_removed_or_rewritten_distribution_is_read_again(
    tmp_path: Path, site: Path
) -> None:
    read = Reader([("a", "alpha:SPEC")])
    cache, paths = tmp_path / "c", [str(site)]
    cached_entry_points("g", cache, read, paths)
    beta = _dist(site, "beta", "[console_scripts]\nb = beta:main\n")
    cached_entry_points("g", cache, read, paths)
    assert read.calls == 2
    (beta / "entry_points.txt").write_text("[g]\nb = beta:SPEC\n")
    read.answer = [("a", "alpha:SPEC"), ("b", "beta:SPEC")]
    assert cached_entry_points("g", cache, read, paths) == read.answer
    assert read.calls == 3
    (beta / "entry_points.txt").unlink()
    beta.rmdir()
    read.answer = [("z", "stale:SPEC")]
    assert cached_entry_points("g", cache, read, paths) == [("a", "alpha:SPEC")]
    assert read.calls == 3  # the metadata is the first run's again: its answer holds
    assert cached_entry_points("g", cache, read, [*paths, str(tmp_path)]) == read.answer
    assert read.calls == 4


def test_a_damaged_or_unwritable_cache_only_costs_the_read(tmp_path: Path, site: Path) -> None:
    read = Reader([("a", "alpha:SPEC")])
    cache = tmp_path / "c"
    (cache / "entry-points").mkdir(parents=True)
    for damaged in ("{not json", "[1, 2]", '{"x": [[1, 2]]}'):
        (cache / "entry-points" / "g.json").write_text(damaged)
        assert cached_entry_points("g", cache, read, [str(site)]) == [("a", "alpha:SPEC")]
    blocked = tmp_path / "file"
    blocked.write_text("")
    calls = read.calls
    assert cached_entry_points("g", blocked, read, [str(site)]) == [("a", "alpha:SPEC")]
    assert cached_entry_points("g", blocked, read, [str(site)]) == [("a", "alpha:SPEC")]
    assert read.calls == calls + 2


def test_only_the_latest_stamps_are_kept(tmp_path: Path, site: Path) -> None:
    read = Reader([])
    cache = tmp_path / "c"
    for k in range(KEYS_KEPT + 4):
        cached_entry_points("g", cache, read, [str(site), f"/nowhere/{k}"])
    text = (cache / "entry-points" / "g.json").read_text()
    assert text.count("[]") == KEYS_KEPT
    cached_entry_points("g", cache, read, [str(site), f"/nowhere/{KEYS_KEPT + 3}"])
    assert read.calls == KEYS_KEPT + 4
    cached_entry_points("g", cache, read, [str(site), "/nowhere/0"])
    assert read.calls == KEYS_KEPT + 5


def test_load_finds_the_object_an_entry_point_value_names() -> None:
    assert load("os.path:join") is os.path.join
    assert load("os : path.join [extra]") is os.path.join
    assert load("os") is os


def test_a_plugin_installed_after_a_run_is_found_and_one_removed_is_gone(
    tmp_path: Path,
) -> None:
    """End to end through `slim analyzers`: the remembered list never hides a change."""
    site = tmp_path / "site"
    (site / "myplug").mkdir(parents=True)
    (site / "myplug" / "__init__.py").write_text(
        textwrap.dedent(
            """
            from slim.model.findings import Rule
            from slim.model.plugin import AnalyzerSpec

            RULE = Rule(code="XPL001", name="my-rule", summary="s", help="h")
            SPEC = AnalyzerSpec(name="mine", rules=(RULE,), requires=frozenset(),
                                factory=lambda: None)
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": str(site), "SLIM_CACHE_DIR": str(tmp_path / "cache")}

    def listed() -> str:
        return subprocess.run(
            [sys.executable, "-m", "slim", "analyzers"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=tmp_path,
        ).stdout

    assert "XPL001" not in listed()
    dist = _dist(site, "myplug", "[slim.analyzers]\nmine = myplug:SPEC\n")
    assert "XPL001" in listed()
    assert "XPL001" in listed()
    (dist / "entry_points.txt").unlink()
    dist.rmdir()
    assert "XPL001" not in listed()
