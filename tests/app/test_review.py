"""`slim review`: only what the change introduced or touched, with deltas; exit 1 on --fail-on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from slim.analysis.engine import Analysis, RootInput, run_analyzers, same_evidence
from slim.app.review import review, revisions_from_config
from slim.cli import cli
from slim.errors import ConfigError, UsageError
from slim.model.facts import Facts
from slim.model.graph import BuildGraph
from tests.tagged_dead import SPEC, build, write_streamed_jsonproto

UNUSED = ("unused",)
BASE = {
    "//app:server": ["//lib:a", "//lib:old_dead"],
    "//app:cpu": ["//lib:a"],
    "//lib:a": ["//lib:b"],
}
HEAD = {
    "//app:server": ["//lib:a", "//lib:old_dead", "//lib:new_dead"],
    "//app:cpu": ["//lib:a", "//gpu:kern"],
    "//lib:a": ["//lib:b", "//lib:c"],
}
TAGS = {
    "//lib:old_dead": UNUSED,
    "//lib:new_dead": UNUSED,
    "//app:cpu": ("cpu-only",),
}
KINDS = {"//gpu:kern": "cuda_library"}
BINARIES = ("//app:server", "//app:cpu")


def _side(graph: BuildGraph, ids: list[int]) -> tuple[list[RootInput], Analysis]:
    roots = same_evidence(ids, Facts())
    return roots, run_analyzers(graph, roots, specs=[SPEC])


def _graphs() -> tuple[BuildGraph, BuildGraph]:
    base = build(BASE, binaries=BINARIES, tags=TAGS, kinds=KINDS)
    head = build(HEAD, binaries=BINARIES, tags=TAGS, kinds=KINDS)
    return base, head


def test_only_introduced_findings() -> None:
    base, head = _graphs()
    rep = review(base, head, ["//app:server"], _side)
    assert [(f.code, f.target, f.dep) for f in rep.findings] == [
        ("SLIM080", "//app:server", "//lib:new_dead")
    ]
    assert rep.findings[0].review == "new"
    assert rep.review is not None
    assert rep.review.introduced == 1
    assert rep.review.fixed == ()
    assert [(d.root, d.targets) for d in rep.review.deltas] == [("//app:server", 2)]
    assert [p.remove for p in rep.proposals] == [("//lib:new_dead",)]
    assert any("closure 4 -> 6 targets (+2)" in n for n in rep.notes)


def test_newly_gpu_carrying_cpu_only_binary() -> None:
    base, head = _graphs()
    rep = review(base, head, ["//app:cpu"], _side)
    assert [(f.code, f.dep) for f in rep.findings] == [("SLIM003", "//gpu:kern")]
    assert "//app:cpu: CPU-only binary newly carries GPU kernels" in rep.notes


def test_fixed_and_unchanged_are_not_reported() -> None:
    base, head = _graphs()
    rep = review(head, base, ["//app:server"], _side)
    assert rep.findings == ()
    assert rep.review is not None
    assert len(rep.review.fixed) == 1
    assert any(
        n.startswith("fixed by this change: SLIM080 //app:server -> //lib:new_dead")
        for n in rep.notes
    )
    same = review(base, base, ["//app:server"], _side)
    assert same.findings == ()
    assert same.review is not None
    assert same.review.introduced == 0


def test_new_binary_is_all_introduced() -> None:
    base, head = _graphs()
    head2 = build(
        {**HEAD, "//app:new": ["//lib:new_dead"]},
        binaries=(*BINARIES, "//app:new"),
        tags=TAGS,
        kinds=KINDS,
    )
    rep = review(base, head2, ["//app:new"], _side)
    assert [f.dep for f in rep.findings] == ["//lib:new_dead"]
    assert "//app:new: new binary (2 targets)" in rep.notes
    with pytest.raises(UsageError, match="not in the head graph"):
        review(base, head, ["//app:nope"], _side)


def _write(tmp_path: Path) -> tuple[Path, Path]:
    b, h = tmp_path / "base.ndjson", tmp_path / "head.ndjson"
    write_streamed_jsonproto(b, BASE, binaries=BINARIES, tags=TAGS, kinds=KINDS)
    write_streamed_jsonproto(h, HEAD, binaries=BINARIES, tags=TAGS, kinds=KINDS)
    return b, h


@pytest.fixture
def tagged_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI discovers analyzers by entry point; here it finds the test analyzer only."""
    monkeypatch.setattr("slim.analysis.engine.discover", lambda *_: [SPEC])
    monkeypatch.setattr("slim.analysis.registry.discover", lambda *_: [SPEC])


@pytest.mark.usefixtures("tagged_registry")
def test_cli_review_markdown_and_fail_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b, h = _write(tmp_path)
    for pkg in ("app", "lib", "gpu"):  # the rules' files, read for select()s: there are none
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "BUILD").write_text("# the rules of the generated export\n")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    args = ["review", "//app:server", "--base-graph", str(b), "--head-graph", str(h)]
    res = runner.invoke(cli, [*args, "--config", str(tmp_path / "none.toml")])
    assert res.exit_code != 0  # a named config must exist
    (tmp_path / "slim.toml").write_text("")
    args += ["--config", str(tmp_path / "slim.toml")]
    res = runner.invoke(cli, args, standalone_mode=False)
    assert res.exception is None, res.output
    assert res.return_value == 1, "a new removable edge: exit 1, as a linter"
    assert runner.invoke(cli, [*args, "--exit-zero"], standalone_mode=False).return_value == 0
    md = res.output
    assert md.startswith("<!-- slim://app:server -->\n")
    assert "//lib:new\\_dead" in md
    assert "old\\_dead" not in md
    res = runner.invoke(
        cli, [*args, "--fail-on", "high", "--format", "json"], standalone_mode=False
    )
    assert res.return_value == 1
    doc = json.loads(res.output)
    assert [f["dep"] for f in doc["findings"]] == ["//lib:new_dead"]


@pytest.mark.usefixtures("tagged_registry")
def test_cli_review_config_revisions(tmp_path: Path) -> None:
    _write(tmp_path)
    (tmp_path / "slim.toml").write_text(
        'roots = ["//app:server"]\n'
        '[revisions.main]\ngraph = "base.ndjson"\n'
        '[revisions.change]\ngraph = ["head.ndjson"]\n'
    )
    runner = CliRunner()
    cfg = ["--config", str(tmp_path / "slim.toml")]
    res = runner.invoke(
        cli,
        ["review", "--base", "main", "--head", "change", "--format", "json", *cfg],
        standalone_mode=False,
    )
    assert res.exception is None, res.output
    assert [f["dep"] for f in json.loads(res.output)["findings"]] == ["//lib:new_dead"]
    res = runner.invoke(
        cli, ["review", "--base", "nope", "--head", "change", *cfg], standalone_mode=False
    )
    assert isinstance(res.exception, UsageError)
    assert "main" in str(res.exception)


def test_bad_revisions_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="expected a graph"):
        revisions_from_config({"revisions": {"a": {"trace": "t"}}}, tmp_path / "slim.toml")
    with pytest.raises(ConfigError, match="unknown key 'grph'"):
        revisions_from_config({"revisions": {"a": {"grph": "t"}}}, tmp_path / "slim.toml")
    with pytest.raises(ConfigError, match="expected a table"):
        revisions_from_config({"revisions": "x"}, None)


MONOREPO = Path(__file__).resolve().parents[2] / "sample_graphs" / "monorepo"


def test_monorepo_review_reports_only_the_introduced_dead_edge(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if not (MONOREPO / "exports" / "review" / "head.linkmaps" / "cpu_server.bfd.map").is_file():
        pytest.skip("sample_graphs/monorepo/exports/review not generated")
    monkeypatch.chdir(MONOREPO)
    (tmp_path / "slim.toml").write_text("")
    args = ["review", "//serving:cpu_server", "--config", str(tmp_path / "slim.toml")]
    args += ["--base-graph", "exports/review/base.query.xml"]
    args += ["--head-graph", "exports/review/head.query.xml", "--workspace", "."]
    # The head's own link (binary, map, archives, old_codec's included), for both sides.
    args += ["--binary", "exports/review/head.bin/serving/cpu_server"]
    args += ["--linkmap", "exports/review/head.linkmaps/cpu_server.bfd.map"]
    for a in sorted((MONOREPO / "exports").glob("**/*.a")):
        args += ["--binary", a.relative_to(MONOREPO).as_posix()]
    args += ["--trace", "traces/server.importtime.txt"]
    runner = CliRunner()
    res = runner.invoke(cli, [*args, "--format", "json", "--fail-on", "any"], standalone_mode=False)
    assert res.exception is None, res.output
    assert res.return_value == 1
    doc = json.loads(res.output)
    assert [(f["code"], f["target"], f["dep"]) for f in doc["findings"]] == [
        ("SLIM002", "//serving:cpu_server", "//native/old_codec:old_codec")
    ]
    assert doc["findings"][0]["review"] == "new"
    assert doc["review"]["introduced"] == 1
    assert [(d["root"], d["targets"]) for d in doc["review"]["deltas"]] == [
        ("//serving:cpu_server", 1)
    ]
    res = runner.invoke(cli, [*args, "--fail-on", "SLIM001"], standalone_mode=False)
    assert res.return_value == 0
    md = res.output
    assert md.startswith("<!-- slim://serving:cpu_server -->")
    assert "old\\_codec" in md
    assert "legacy\\_io" not in md


def test_monorepo_review_from_config_revisions(monkeypatch: pytest.MonkeyPatch) -> None:
    config = MONOREPO.parent.parent / "slim.toml"
    if not config.is_file() or "[revisions.head]" not in config.read_text():
        pytest.skip("the repository's slim.toml with the sample revisions is not there")
    monkeypatch.chdir(config.parent)
    runner = CliRunner()
    res = runner.invoke(
        cli,
        ["review", "--config", "slim.toml", "--format", "json", "--fail-on", "any"],
        standalone_mode=False,
    )
    assert res.exception is None, res.output
    assert res.return_value == 1
    doc = json.loads(res.output)
    assert [(f["code"], f["dep"]) for f in doc["findings"]] == [
        ("SLIM002", "//native/old_codec:old_codec")
    ]
    assert all(not p.startswith("/") for i in doc["inputs"] for p in [i["path"]])
    sarif = runner.invoke(
        cli, ["review", "--config", "slim.toml", "--format", "sarif"], standalone_mode=False
    )
    assert sarif.exception is None, sarif.output
    from tests.render.test_renderers import _validator

    assert not list(_validator().iter_errors(json.loads(sarif.output)))
