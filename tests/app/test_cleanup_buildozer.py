"""The cleanup backlog's buildozer file, run by the real buildozer: it replays a SLIM003
replacement (not a plain removal) and a removal, and on Buck2 labels it drops the cell
prefix as the report's buildozer file does."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from slim.app.cleanup.backlog import build
from slim.app.cleanup.owners import Owners
from slim.model.actions import Replace
from slim.model.facts import Facts
from slim.model.findings import Confidence, Finding
from slim.model.graph import BuildGraph, EdgeKind, GraphBuilder, Location
from slim.model.report import Report
from slim.plan import plan_report
from slim.render import buildozer as report_buildozer
from slim.render.backlog import render_buildozer
from slim.render.json import finding_to_dict

BUILDOZER = shutil.which("buildozer")
pytestmark = pytest.mark.skipif(
    BUILDOZER is None,
    reason="buildozer not installed: `npm install -g @bazel/buildozer` (see .ci/)",
)

LIB = """\
cc_library(
    name = "lib",
    deps = [
        "//k:cuda",
        "//x:y",
        ":keep",
    ],
)
"""


def _report(cell: str, build_file: str) -> tuple[Report, BuildGraph]:
    b = GraphBuilder()
    for label, pkg in (("a:lib", "a"), ("k:cuda", "k"), ("k:cpu", "k"), ("x:y", "x")):
        b.add_target(f"{cell}//{label}", "cc_library", location=Location(f"{pkg}/{build_file}", 1))
    for dep in ("k:cuda", "x:y"):
        b.add_edge(b.intern(f"{cell}//a:lib"), b.intern(f"{cell}//{dep}"), EdgeKind.DEPS)
    b.formats.append("buck2-json" if cell else "bazel-jsonproto")
    g = b.build()
    lib, cuda, cpu, y = (f"{cell}//{x}" for x in ("a:lib", "k:cuda", "k:cpu", "x:y"))
    findings = [
        Finding(
            "SLIM003",
            "gpu-kernels-in-cpu-binary",
            lib,
            cuda,
            "gpu-code-in-cpu-binary",
            "m",
            Confidence.HIGH,
            True,
            root=lib,
            attribute="deps",
            action=Replace(lib, cuda, cpu, "deps"),
        ),
        Finding(
            "SLIM002",
            "unreferenced-native-dep",
            lib,
            y,
            "unreferenced",
            "m",
            Confidence.HIGH,
            True,
            root=lib,
            attribute="deps",
        ),
    ]
    plan = plan_report(g, [g.ids[lib]], findings, Facts())
    report = Report.create(
        roots=[],
        inputs=[],
        evidence=[],
        findings=plan.findings,
        rules=[],
        proposals=plan.proposals,
        savings=plan.savings,
    )
    return report, g


def _commands(text: str) -> list[str]:
    return sorted(x for x in text.splitlines() if x and not x.startswith("#"))


@pytest.mark.parametrize(
    ("build_file", "marker", "cell"),
    [("BUILD", "WORKSPACE", ""), ("BUCK", ".buckconfig", "root")],
)
def test_cleanup_buildozer_file_replays_replacements_without_cells(
    tmp_path: Path, build_file: str, marker: str, cell: str
) -> None:
    report, g = _report(cell, build_file)
    results = [
        {
            "findings": [finding_to_dict(f) for f in report.findings],
            "suppressed": [],
        }
    ]
    backlog = build(g, Facts(), results, Owners(), run=1, scope="//...", roots=1)
    out = io.StringIO()
    render_buildozer(backlog, out)
    lines = _commands(out.getvalue())
    assert sorted(lines) == [
        "remove deps //x:y|//a:lib",
        "replace deps //k:cuda //k:cpu|//a:lib",
    ]
    same = io.StringIO()
    report_buildozer.render(report, same)
    assert _commands(same.getvalue()) == lines

    (tmp_path / marker).write_text("")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / build_file).write_text(LIB)
    cmds = tmp_path / "backlog.buildozer"
    cmds.write_text(out.getvalue())
    assert BUILDOZER is not None
    run = subprocess.run(
        [BUILDOZER, "-f", str(cmds)], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    edited = (tmp_path / "a" / build_file).read_text()
    assert '"//k:cpu"' in edited
    assert "//k:cuda" not in edited
    assert "//x:y" not in edited
    assert '":keep"' in edited
