"""The Python analyzer's workspace reading (slim_analyzers.python._workspace): sources
scanned over processes, missing files as results, installed dist-info metadata."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from slim_analyzers.python._thirdparty import Installed
from slim_analyzers.python._workspace import SourceRequest, read_dist_text, scan_file, scan_files

DATA = Path(__file__).parents[2] / "data"
SRC = DATA / "src" / "python"


def test_missing_file(tmp_path: Path) -> None:
    res = scan_file(SourceRequest(str(tmp_path / "nope.py"), "nope.py", "nope"))
    assert "expected a readable source file" in res.error


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="modulegraph imports `imp` (gone in 3.12)")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_real_sample_package_matches_modulegraph() -> None:
    """modulegraph (bytecode scan) finds the same static edges; slim also finds the
    importlib literal in slimpkg.c, and gives lines and kinds modulegraph does not."""
    from modulegraph import modulegraph as mg

    reqs = [
        SourceRequest(str(SRC / "slimpkg" / f), f"slimpkg/{f}", m, f == "__init__.py")
        for f, m in (
            ("__init__.py", "slimpkg"),
            ("a.py", "slimpkg.a"),
            ("b.py", "slimpkg.b"),
            ("c.py", "slimpkg.c"),
        )
    ]
    ours = {r.module: s for r, s in zip(reqs, scan_files(reqs, workers=1), strict=True)}
    graph = mg.ModuleGraph(path=[str(SRC)])
    graph.import_hook("slimpkg", None)
    for name, res in ours.items():
        node = graph.findNode(name)
        assert node is not None
        theirs = {m.identifier for m in graph.getReferences(node)} - {name, "slimpkg"}
        cands = {c for i in res.imports for c in i.candidates()}
        assert theirs <= cands, name
        for ref in graph.getReferences(node):
            info = graph.edgeData(node, ref)
            mine = [i for i in res.imports if ref.identifier in i.candidates()]
            if info.tryexcept and mine:
                assert all(i.optional for i in mine)
    c = {i.module: i for i in ours["slimpkg.c"].imports}
    assert c["slimpkg.a"].dynamic
    assert c["slimpkg_missing_module"].kind == "optional"
    assert c["slimpkg_missing_module"].line == 4


def test_parallel_equals_serial(tmp_path: Path) -> None:
    reqs = []
    for n in range(300):
        p = tmp_path / f"m{n}.py"
        p.write_text(f"import os\nfrom pkg import m{n + 1}\ndef f():\n    import lazy{n}\n")
        reqs.append(SourceRequest(str(p), p.name, f"pkg.m{n}"))
    assert scan_files(reqs, workers=2) == scan_files(reqs, workers=1)


def test_dist_infos_by_normalized_name() -> None:
    dists = Installed.scan([DATA / "python" / "dist-info"]).dists
    assert set(dists) == {"slim_demo_dist"}
    info = dists["slim_demo_dist"].info
    text = read_dist_text(info, "RECORD")
    assert text is not None
    assert "slimdemo/__init__.py" in text
    assert read_dist_text(info, "entry_points.txt") is None
