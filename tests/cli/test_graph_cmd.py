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
