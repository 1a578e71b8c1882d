"""The buildozer output run by the real buildozer on real BUILD and BUCK files."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from slim.app.apply import apply_cuts, cuts_of
from slim.model.facts import Facts
from slim.model.findings import Confidence, Finding
from slim.model.report import Report
from slim.plan import plan_report
from slim.plan.fixes import write
from slim.render.buildozer import render
from tests.plan._graphs import graph

BUILDOZER = shutil.which("buildozer")
pytestmark = pytest.mark.skipif(
    BUILDOZER is None,
    reason="buildozer not installed: `npm install -g @bazel/buildozer` (see .ci/)",
)

LIB_BUILD = """\
py_library(
    name = "lib",
    srcs = ["lib.py"],
    deps = [
        "//x:y",
        "//x:z",
        ":keep",
    ],
)

py_library(
    name = "keep",
    srcs = ["keep.py"],
)
"""


def _report(cell: str = "") -> Report:
    g = graph(
        [
            (f"{cell}//a:lib", "py_library", ("a/lib.py",)),
            (f"{cell}//a:keep", "py_library", ("a/keep.py",)),
            (f"{cell}//x:y", "py_library", ("x/y.py",)),
            (f"{cell}//x:z", "py_library", ("x/z.py",)),
        ],
        [(f"{cell}//a:lib", f"{cell}//x:y"), (f"{cell}//a:lib", f"{cell}//x:z")],
    )
    findings = [
        Finding(
            "SLIM001",
            "unused-python-dep",
            f"{cell}//a:lib",
            f"{cell}//x:y",
            "dead",
            "m",
            Confidence.HIGH,
            True,
            root=f"{cell}//a:lib",
            attribute="deps",
        ),
        Finding(
            "SLIM001",
            "unused-python-dep",
            f"{cell}//a:lib",
            f"{cell}//x:z",
            "runtime-unused",
            "m",
            Confidence.MEDIUM,
            True,
            root=f"{cell}//a:lib",
            attribute="deps",
        ),
    ]
    plan = plan_report(g, [0], findings, Facts())
    return Report.create(
        roots=[],
        inputs=[],
        evidence=[],
        findings=plan.findings,
        rules=[],
        proposals=plan.proposals,
        savings=plan.savings,
    )


def _tree(tmp_path: Path, build_name: str, marker: str) -> Path:
    (tmp_path / marker).write_text("")
    for pkg in ("a", "x"):
        (tmp_path / pkg).mkdir()
    (tmp_path / "a" / build_name).write_text(LIB_BUILD)
    (tmp_path / "x" / build_name).write_text('py_library(name = "y")\n\npy_library(name = "z")\n')
    return tmp_path


def _run_file(root: Path, text: str) -> subprocess.CompletedProcess[str]:
    cmds = root / "cuts.buildozer"
    cmds.write_text(text)
    return subprocess.run(
        [str(BUILDOZER), "-f", str(cmds)], cwd=root, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    ("build_name", "marker", "cell"),
    [
        ("BUILD", "WORKSPACE", ""),
        ("BUILD.bazel", "MODULE.bazel", ""),
        ("BUCK", ".buckconfig", "root"),
    ],
)
def test_command_file_applies_once_then_reports_no_change(
    tmp_path: Path, build_name: str, marker: str, cell: str
) -> None:
    root = _tree(tmp_path, build_name, marker)
    out = io.StringIO()
    render(_report(cell), out)
    text = out.getvalue()
    assert "remove deps //x:y|//a:lib" in text
    assert "move deps runtime_deps //x:z|//a:lib" in text
    first = _run_file(root, text)
    assert first.returncode == 0, first.stderr
    build = (root / "a" / build_name).read_text()
    assert "//x:y" not in build
    assert 'runtime_deps = ["//x:z"]' in build
    assert '":keep"' in build
    second = _run_file(root, text)
    assert second.returncode == 3, second.stderr  # buildozer: success, nothing changed


def test_each_fix_command_runs_in_a_shell(tmp_path: Path) -> None:
    root = _tree(tmp_path, "BUILD", "WORKSPACE")
    rep = _report()
    for f in rep.findings:
        assert f.fix is not None
        cmd = f.fix.command.replace("buildozer ", f"{BUILDOZER} ", 1)
        proc = subprocess.run(
            cmd, shell=True, cwd=root, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stderr
    assert "//x:y" not in (root / "a" / "BUILD").read_text()


def test_slim_apply_dry_run_then_write(tmp_path: Path) -> None:
    root = _tree(tmp_path, "BUILD", "WORKSPACE")
    before = (root / "a" / "BUILD").read_text()
    g = graph(
        [("//a:lib", "py_library", ("a/lib.py",)), ("//x:y", "py_library", ())],
        [("//a:lib", "//x:y")],
    )
    f = Finding(
        "SLIM001",
        "unused-python-dep",
        "//a:lib",
        "//x:y",
        "dead",
        "m",
        Confidence.HIGH,
        True,
        root="//a:lib",
        attribute="deps",
    )
    planned = plan_report(g, [0], [f], Facts()).findings
    cuts = cuts_of(planned, lambda a: write(g, a))
    dry = apply_cuts(cuts, root, write=False)
    assert "remove deps //x:y|//a:lib" in "\n".join(dry.lines)
    assert (root / "a" / "BUILD").read_text() == before
    done = apply_cuts(cuts, root, write=True, buildozer=BUILDOZER)
    assert done.changed == 1
    assert "//x:y" not in (root / "a" / "BUILD").read_text()
    again = apply_cuts(cuts, root, write=True, buildozer=BUILDOZER)
    assert again.lines == ["buildozer: nothing to change (already applied?)"]
