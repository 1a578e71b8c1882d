from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from slim.app.draw import DrawOptions, to_dot
from slim.model.graph import EdgeKind, GraphBuilder

CQUERY = Path(__file__).parents[1] / "data" / "bazel" / "cquery.jsonproto.json"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "slim", *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=tempfile.gettempdir(),
    )


def test_dot_output_needs_no_graphviz(tmp_path: Path) -> None:
    out = tmp_path / "g.dot"
    proc = run("graph", "//py:tool", "--graph", str(CQUERY), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith("digraph slim {")
    assert '"//py:tool" -> "//py:mypkg";' in text


def test_svg_through_graphviz(tmp_path: Path) -> None:
    if shutil.which("dot") is None:
        pytest.skip("graphviz `dot` not installed (apt-get install graphviz)")
    out = tmp_path / "g.svg"
    proc = run("graph", "//py:tool", "--graph", str(CQUERY), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "<svg" in out.read_text()


def test_missing_dot_program_is_named(tmp_path: Path) -> None:
    env = dict(os.environ, PATH=str(tmp_path))
    out = tmp_path / "g.png"
    proc = run("graph", "//py:tool", "--graph", str(CQUERY), "-o", str(out), env=env)
    assert proc.returncode == 2
    assert "Graphviz `dot` program" in proc.stderr
    assert not out.exists()


def _wide_graph(n: int) -> tuple[GraphBuilder, int]:
    b = GraphBuilder()
    root = b.add_target("//app:bin", "cc_binary")
    for i in range(n):
        lib = b.add_target(f"//lib/p{i % 10}:l{i}", "cc_library")
        b.add_edge(root, lib, EdgeKind.DEPS)
        if i:
            b.add_edge(lib, b.intern(f"//lib/p{(i - 1) % 10}:l{i - 1}"), EdgeKind.DEPS)
    return b, root


def test_thousands_of_deps_collapse_by_package_and_reduce() -> None:
    b, root = _wide_graph(3000)
    g = b.build()
    dot = to_dot(g, root)
    assert dot.count("->") < 200
    assert '"//lib/p3:*"' in dot
    assert "(300 targets)" in dot


def test_transitive_reduction_keeps_dead_edges_visible() -> None:
    b, root = _wide_graph(5)
    g = b.build()
    dot = to_dot(g, root, dead=[("//app:bin", "//lib/p0:l0")], options=DrawOptions(collapse=False))
    # //app:bin -> //lib/p0:l0 is implied by the chain, yet the dead edge stays, highlighted.
    assert '"//app:bin" -> "//lib/p0:l0" [color=red' in dot
    assert '"//app:bin" -> "//lib/p1:l1";' not in dot


def test_depth_limit_says_what_is_hidden() -> None:
    b, root = _wide_graph(5)
    g = b.build()
    dot = to_dot(g, root, options=DrawOptions(depth=0))
    assert "5 deeper targets not shown" in dot


def test_without_output_dot_goes_to_stdout() -> None:
    proc = run("graph", "//py:tool", "--graph", str(CQUERY))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("digraph slim {")
    assert '"//py:tool" -> "//py:mypkg";' in proc.stdout


def _wide(n_pkgs: int, per_pkg: int) -> tuple[object, int]:
    b = GraphBuilder()
    root = b.add_target("//app:bin", "cc_binary")
    for p in range(n_pkgs):
        for t in range(per_pkg):
            i = b.add_target(f"//lib{p}:t{t}", "cc_library")
            b.add_edge(root, i, EdgeKind.DEPS)
    return b.build(), root


def test_large_closure_is_collapsed_and_says_so() -> None:
    g, root = _wide(30, 10)
    dot = to_dot(g, root)  # type: ignore[arg-type]
    assert '"//lib7:*" [label="//lib7:* (10 targets)"];' in dot
    assert "301 targets collapsed into 31 packages (--no-collapse-packages" in dot
    assert "subgraph cluster_legend" in dot


def test_too_large_to_draw_is_refused_with_the_depth_that_fits() -> None:
    from slim.errors import UsageError

    g, root = _wide(2500, 1)
    with pytest.raises(UsageError, match=r"2501 targets .* too many to draw .* `slim why`"):
        to_dot(g, root)  # type: ignore[arg-type]
    b = GraphBuilder()
    top = b.add_target("//app:bin", "cc_binary")
    mids = [b.add_target(f"//m{k}:m", "cc_library") for k in range(5)]
    for k, m in enumerate(mids):
        b.add_edge(top, m, EdgeKind.DEPS)
        for t in range(600):
            b.add_edge(m, b.add_target(f"//leaf{k}_{t}:l", "cc_library"), EdgeKind.DEPS)
    with pytest.raises(UsageError, match=r"3006 targets .* use --depth 1$"):
        to_dot(b.build(), top)


def test_kept_and_dead_edges_are_marked_and_reduction_is_said() -> None:
    b = GraphBuilder()
    a = b.add_target("//a:a", "cc_binary")
    x = b.add_target("//x:x", "cc_library")
    y = b.add_target("//y:y", "cc_library")
    b.add_edge(a, x, EdgeKind.DEPS)
    b.add_edge(x, y, EdgeKind.DEPS)
    b.add_edge(a, y, EdgeKind.DEPS)
    g = b.build()
    dot = to_dot(g, a, dead=[], kept=[("//a:a", "//x:x", "runtime-unused")])
    assert '"//a:a" -> "//x:x" [color=orange, style=dotted, label="runtime-unused"];' in dot
    assert "transitive reduction hid 1 direct edges" in dot
    assert '"//a:a" -> "//y:y"' not in dot


REPO = Path(__file__).resolve().parents[2]


def _draw_loading(args: list[str], cwd: Path) -> tuple[str, bool]:
    """The DOT text of `slim graph ARGS`, and whether it loaded the analysis engine."""
    code = (
        "import sys; from slim.cli.main import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "print('slim.analysis.engine' in sys.modules, file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd
    )
    return proc.stdout, proc.stderr.strip().splitlines()[-1] == "True"


def test_a_graph_alone_is_drawn_without_a_report(tmp_path: Path) -> None:
    """No analyzer runs on a graph alone, so no report is made to mark edges."""
    dot, engine = _draw_loading(
        ["graph", "//py:tool", "--graph", str(CQUERY), "--no-cache"], tmp_path
    )
    assert '"//py:tool"' in dot
    assert "color=red" not in dot
    assert not engine


def test_a_configured_keep_or_given_evidence_still_marks_edges(tmp_path: Path) -> None:
    dot, engine = _draw_loading(["graph", "//serving:cpu_server", "--no-cache"], REPO)
    assert engine
    assert '"//serving:cpu_server" -> "//native/legacy_io:legacy_io" [color=red' in dot
    (tmp_path / "slim.toml").write_text(
        '[[keep]]\ntarget = "//py:tool"\ndep = "//py:mypkg"\nreason = "plugin"\n'
    )
    dot, engine = _draw_loading(
        ["graph", "//py:tool", "--graph", str(CQUERY), "--no-cache"], tmp_path
    )
    assert engine
    assert '"//py:tool" -> "//py:mypkg" [color=orange, style=dotted, label="stale"]' in dot
