"""A session finds the registered analyzers once: checking `--fail-on`, listing rule codes
and running the analyzers share them (each lookup reads every distribution's entry points)."""

from __future__ import annotations

from pathlib import Path

import pytest

import slim.analysis.registry as registry
from slim.app.session import Request, Session
from slim.infra.config import Config
from slim.model.plugin import AnalyzerSpec

EXPORTS = Path(__file__).resolve().parents[2] / "sample_graphs" / "monorepo" / "exports"


def test_registered_analyzers_are_found_once_per_session(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = registry.discover

    def counted(entries: object = None) -> list[AnalyzerSpec]:
        calls.append(1)
        return real(entries)  # type: ignore[arg-type]

    monkeypatch.setattr(registry, "discover", counted)
    req = Request(
        graphs=(EXPORTS / "bazel" / "cquery.jsonproto.json",),
        use_cache=False,
        evidence={"linkmap": (EXPORTS / "linkmaps" / "cpu_server.bfd.map",)},
    )
    s = Session(req, config=Config())
    assert s.fail_on("SLIM002") == "SLIM002"
    assert "SLIM002" in s.rule_codes()
    rep = s.report(s.select_roots(["//serving:cpu_server"]))
    assert any(f.code == "SLIM002" for f in rep.findings)
    assert len(calls) == 1


def test_a_chosen_set_of_analyzers_is_run_without_a_lookup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chosen = [s for s in registry.discover() if "SLIM002" in s.codes]
    monkeypatch.setattr(registry, "discover", lambda *_: pytest.fail("looked up"))
    s = Session(Request(graphs=(EXPORTS / "bazel" / "cquery.jsonproto.json",), use_cache=False))
    s.specs = chosen
    assert s.analyzer_specs() == chosen
    assert "SLIM001" not in s.rule_codes()


def test_no_cache_neither_reads_nor_writes_remembered_entry_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLIM_CACHE_DIR", str(tmp_path))
    graphs = (EXPORTS / "bazel" / "cquery.jsonproto.json",)
    off = Session(Request(graphs=graphs, use_cache=False), config=Config())
    assert "SLIM002" in off.rule_codes()
    assert not (tmp_path / "entry-points").exists()
    on = Session(Request(graphs=graphs), config=Config())
    assert on.rule_codes() == off.rule_codes()
    assert (tmp_path / "entry-points" / "slim.analyzers.json").is_file()
