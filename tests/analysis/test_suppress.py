"""Suppressions: BUILD comments and config keep-lists move findings aside, stale ones surface."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.analysis.engine import analyze, same_evidence
from slim.analysis.suppress import _rule_span, keeps_from_config
from slim.errors import ConfigError
from slim.infra.config import load_config
from slim.model.facts import Facts
from slim.model.graph import Location
from slim.model.options import RootOptions
from slim.model.report import Report
from tests.tagged_dead import SPEC, build

BUILD = """\
load("//tools:defs.bzl", "x")

cc_binary(
    name = "server",
    deps = [
        "//lib:a",
        "//lib:dead1",  # slim: keep(loaded via dlopen (plugin))
        ":local_dead",
        "//lib:other_dead",
        "//lib:gone",  # slim: keep(was needed once)
    ],
)

cc_library(name = "local_dead")
"""

CONFIG = """\
keep = [
  { target = "//app:server", dep = "//lib:other_dead", reason = "kept for ABI" },
  { dep = "//lib:nothing", reason = "old entry" },
]
"""


def _run(tmp_path: Path, location_path: str) -> Report:
    ws = tmp_path / "ws"
    (ws / "app").mkdir(parents=True)
    (ws / "app" / "BUILD").write_text(BUILD)
    cfg_path = ws / "slim.toml"
    cfg_path.write_text(CONFIG)
    cfg = load_config(cfg_path)
    unused = ("unused",)
    g = build(
        {"//app:server": ["//lib:a", "//lib:dead1", "//app:local_dead", "//lib:other_dead"]},
        binaries=("//app:server",),
        tags={"//lib:dead1": unused, "//app:local_dead": unused, "//lib:other_dead": unused},
        locations={"//app:server": Location(location_path.format(ws=ws), 3)},
    )
    root = g.lookup("//app:server")
    assert root is not None
    return analyze(
        g,
        same_evidence([root], Facts(), RootOptions(workspace=ws)),
        specs=[SPEC],
        keep=keeps_from_config(cfg.raw, cfg.path),
    )


@pytest.mark.parametrize("location_path", ["app/BUILD", "{ws}/app/BUILD"])
def test_comment_and_config_keeps(tmp_path: Path, location_path: str) -> None:
    rep = _run(tmp_path, location_path)
    live = [(f.code, f.dep) for f in rep.findings if f.code == "SLIM080"]
    assert live == [("SLIM080", "//app:local_dead")]
    kept = {f.dep: f.suppression for f in rep.suppressed}
    assert set(kept) == {"//lib:dead1", "//lib:other_dead"}
    dead1, other = kept["//lib:dead1"], kept["//lib:other_dead"]
    assert dead1 is not None
    assert other is not None
    assert dead1.reason == "loaded via dlopen (plugin)"
    assert dead1.in_source
    assert dead1.by.endswith("app/BUILD:7")
    assert not other.in_source
    assert other.by == "slim.toml:2"
    stale = sorted((f.dep, str(f.location)) for f in rep.findings if f.code == "SLIM990")
    assert [d for d, _ in stale] == ["//lib:gone", "//lib:nothing"]
    assert stale[0][1].endswith("app/BUILD:10")
    assert stale[1][1] == "slim.toml:3"
    assert "SLIM990" in {r.code for r in rep.rules}
    assert [p.remove for p in rep.proposals] == [("//app:local_dead",)]
    live_finding = next(f for f in rep.findings if f.code == "SLIM080")
    assert live_finding.dep_location is not None
    assert live_finding.dep_location.line == 8
    assert live_finding.dep_line_alone


def test_without_build_files_nothing_is_suppressed(tmp_path: Path) -> None:
    g = build(
        {"//app:server": ["//lib:dead1"]},
        binaries=("//app:server",),
        tags={"//lib:dead1": ("unused",)},
        locations={"//app:server": Location("missing/BUILD", 3)},
    )
    rep = analyze(g, same_evidence([0], Facts(), RootOptions(workspace=tmp_path)), specs=[SPEC])
    assert [f.dep for f in rep.findings] == ["//lib:dead1"]
    assert rep.suppressed == ()


def test_comment_on_another_rule_does_not_leak(tmp_path: Path) -> None:
    (tmp_path / "BUILD").write_text(
        'cc_binary(\n    name = "a",\n    deps = ["//lib:x"],\n)\n'
        'cc_library(\n    name = "b",\n    deps = ["//lib:x"],  # slim: keep(b needs it)\n)\n'
    )
    g = build(
        {"//:a": ["//lib:x"], "//:b": ["//lib:x"]},
        binaries=("//:a",),
        tags={"//lib:x": ("unused",)},
        locations={"//:a": Location("BUILD", 1), "//:b": Location("BUILD", 5)},
    )
    a = g.lookup("//:a")
    assert a is not None
    rep = analyze(g, same_evidence([a], Facts(), RootOptions(workspace=tmp_path)), specs=[SPEC])
    assert [(f.target, f.dep) for f in rep.findings] == [("//:a", "//lib:x")]
    assert rep.suppressed == ()


def test_rule_span_stops_at_closing_paren() -> None:
    lines = BUILD.splitlines()
    span = _rule_span(lines, 3)
    assert (span.start, span.stop - 1) == (3, 12)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('keep = "x"', "expected a list of tables"),
        ("keep = [1]", "expected a table"),
        ('keep = [{ dep = "//a:b" }]', "non-empty reason"),
        ('keep = [{ reason = "r" }]', "expected dep"),
        ('keep = [{ dep = "//a:b", reason = "r", why = 1 }]', "unknown key 'why'"),
        ('keep = [{ dep = "//a:b", reason = "r", codes = [1] }]', "codes"),
    ],
)
def test_bad_keep_config(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "slim.toml"
    p.write_text(text + "\n")
    cfg = load_config(p)
    with pytest.raises(ConfigError, match=message):
        keeps_from_config(cfg.raw, cfg.path)


def test_keep_limited_to_codes(tmp_path: Path) -> None:
    p = tmp_path / "slim.toml"
    p.write_text('keep = [{ dep = "//lib:dead1", reason = "r", codes = ["SLIM002"] }]\n')
    cfg = load_config(p)
    g = build(
        {"//app:s": ["//lib:dead1"]}, binaries=("//app:s",), tags={"//lib:dead1": ("unused",)}
    )
    keep = keeps_from_config(cfg.raw, p)
    rep = analyze(g, same_evidence([0], Facts()), specs=[SPEC], keep=keep)
    assert {f.code for f in rep.findings} == {"SLIM080", "SLIM990"}
    assert rep.suppressed == ()


@settings(deadline=None, max_examples=150)
@given(st.text(alphabet=st.sampled_from("()#\"'/:, \nabslimkep[]"), max_size=300))
def test_arbitrary_build_text_never_crashes(text: str) -> None:
    from slim.analysis.suppress import _keeps_in_rule

    lines = text.splitlines() or [""]
    for start in range(1, len(lines) + 1):
        span = _rule_span(lines, start)
        assert span.start == start
        assert span.stop - 1 <= len(lines)
        for k in _keeps_in_rule("//a:b", "a/BUILD", lines, start):
            assert k.line in span
            assert k.in_source
