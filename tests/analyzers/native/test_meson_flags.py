"""SLIM002 on a meson build read through its ninja graph: the edge hands a definition.

meson's `declare_dependency(link_with: foo, compile_args: ['-DUSE_FOO=1'])` gives `app`
a definition with the library; `app` calls nothing of `foo`. The ninja graph shows no
compile flags, and slim once read that as "none": `app -> libfoo.a` was removable, and
the cut program builds and prints "without foo". `tests/data/src/meson_flags` has the
shape; the truth is checked on the build (meson from PyPI, the system's ninja).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from ._cmake_project import need_tools, report, run

SRC = Path(__file__).resolve().parents[2] / "data" / "src" / "meson_flags"


def _built(src: Path, out: Path) -> None:
    r = run([sys.executable, "-m", "mesonbuild.mesonmain", "setup", str(out), str(src)], src)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(["ninja", "-C", str(out)], src)
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_edge_whose_flags_the_ninja_graph_cannot_show_is_kept(tmp_path: Path) -> None:
    need_tools()
    src, out = tmp_path / "src", tmp_path / "build"
    shutil.copytree(SRC, src)
    _built(src, out)
    graph, deps = tmp_path / "graph.dot", tmp_path / "deps.txt"
    graph.write_text(run(["ninja", "-C", str(out), "-t", "graph"], out).stdout)
    deps.write_text(run(["ninja", "-C", str(out), "-t", "deps"], out).stdout)
    args = ["//app:app", "--graph", str(graph), "--compile", str(deps), "--workspace", str(src)]
    args += ["--linkmap", "app/app.map", "--binary", "app/app", "--binary", "foo/libfoo.a"]
    (f,) = report(out, *args, "--select", "SLIM002", "--config", "/dev/null")
    assert (f["target"], f["dep"], f["verdict"], f["removable"]) == (
        "//app:app",
        "//foo:libfoo.a",
        "unreferenced",
        False,
    )
    assert "the graph export (ninja-graph) shows no compile flags" in str(f["kept_because"])
    details = f["details"]
    assert isinstance(details, dict)
    assert details["missing_evidence"] == [
        "the compile flags //app:app -> //foo:libfoo.a hands over"
    ]


def test_truth_the_cut_builds_and_changes_what_the_program_does(tmp_path: Path) -> None:
    need_tools()
    for cut in (False, True):
        src = tmp_path / f"src-{cut}"
        shutil.copytree(SRC, src)
        if cut:
            lists = src / "app" / "meson.build"
            lists.write_text(lists.read_text().replace("dependencies: foo_dep,", ""))
        out = tmp_path / f"build-{cut}"
        _built(src, out)
        r = run([str(out / "app" / "app")], out)
        assert (r.returncode, r.stdout) == ((1, "without foo\n") if cut else (0, "with foo\n"))
