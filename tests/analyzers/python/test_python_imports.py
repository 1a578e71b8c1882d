"""SLIM001 verdicts on an in-memory graph over a real source tree and real trace formats."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from slim_analyzers.python import SPEC
from slim_analyzers.python._details import CoverageDetails

from slim.analysis.engine import analyze, same_evidence
from slim.ingest.python.importtime import load as load_importtime
from slim.model.context import AnalysisContext
from slim.model.facts import Facts, InputFile
from slim.model.findings import Finding
from slim.model.graph import BuildGraph, EdgeKind, GraphBuilder, Location
from slim.model.options import RootOptions

DATA = Path(__file__).parents[2] / "data"

SOURCES = {
    "py/apps/server.py": (
        "import os\n"
        "from typing import TYPE_CHECKING\n"
        "import py.used.core\n"
        "from py.ns.a import thing\n"
        "from py.reexport import helper\n"
        "import py.impl.helper\n"
        "import yaml\n"
        "import importlib\n"
        "PLUGIN = importlib.import_module('py.plugins.fast')\n"
        "try:\n"
        "    import py.optional_lib.speedups\n"
        "except ImportError:\n"
        "    pass\n"
        "if TYPE_CHECKING:\n"
        "    from py.typed_lib import Model\n"
        "\n"
        "def main():\n"
        "    import py.lazy_lib.heavy\n"
        "    return py.lazy_lib.heavy.run()\n"
    ),
    "py/used/core.py": "VALUE = 1\n",
    "py/unused_lib/__init__.py": "import json\n",
    "py/lazy_lib/heavy.py": "def run():\n    return 1\n",
    "py/optional_lib/speedups.py": "X = 1\n",
    "py/plugins/fast.py": "X = 1\n",
    "py/impl/helper.py": "def helper():\n    return 1\n",
    "py/reexport/__init__.py": "from py.impl.helper import helper\n",
    "py/typed_lib/__init__.py": "class Model: ...\n",
    "py/ns/a/__init__.py": "thing = 1\n",
    "py/ns/b/__init__.py": "other = 2\n",
    "py/testutil/fixtures.py": "X = 1\n",
    "py/data/config.json": "{}\n",
    "py/broken/bad.py": "def f(:\n",
    "py/transitive/mod.py": "import py.shared.util\n",
    "py/shared/util.py": "U = 1\n",
    "py/middle/mid.py": "X = 1\n",
}

TRACE = """\
import time: self [us] | cumulative | imported package
import time:        10 |         10 |   py.used.core
import time:        10 |         10 | py.used
import time:        10 |         10 |     py.ns.a
import time:        10 |         10 |   py.ns
import time:        10 |         10 | py
import time:        10 |         10 |     py.impl.helper
import time:        10 |         10 |   py.impl
import time:        10 |         10 | py.reexport
import time:        10 |         10 | yaml
import time:        10 |         10 | py.plugins.fast
import time:        10 |         10 | py.optional_lib.speedups
"""


@dataclass
class Setup:
    graph: BuildGraph
    ws: Path
    trace: Path

    def run(self, *, trace: bool = True, source: bool = True) -> list[Finding]:
        facts = Facts()
        if trace:
            facts.add(load_importtime(self.trace))
            facts.inputs.append(InputFile("trace", str(self.trace), "python-importtime"))
        opts = RootOptions(workspace=self.ws if source else None)
        roots = same_evidence([self.graph.ids["//py/apps:server"]], facts, opts)
        rep = analyze(self.graph, roots, specs=[SPEC])
        return list(rep.findings)


def edge(findings: list[Finding], dep: str, target: str = "//py/apps:server") -> Finding | None:
    hits = [f for f in findings if f.dep == dep and f.target == target]
    assert len(hits) <= 1, hits
    return hits[0] if hits else None


def _lib(b: GraphBuilder, label: str, srcs: list[str], **attrs: object) -> int:
    pkg = label.split(":")[0]
    files = [f"{pkg}:{s}" for s in srcs]
    for f in files:
        b.add_file(f)
    return b.add_target(
        label,
        "py_library",
        location=Location(f"{pkg[2:]}/BUILD", 1),
        srcs=files,
        attrs=dict(attrs),  # type: ignore[arg-type]
    )


#: The rule the edges' locations point at (line 10 names the deps; no select()).
SERVER_BUILD = """\
py_binary(
    name = "server",
    srcs = ["server.py"],
    data = ["//py/data:files"],
    # the libraries below, none in a select()
    deps = [
        "//py/fwd",
        "//py/reexport",
        "//py/broken",
        "//py/used", "//py/unused_lib", "//py/lazy_lib", "//py/optional_lib",
        "//py/plugins", "//py/typed_lib", "//py/ns:a", "//py/ns:b",
    ],
)
"""


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    ws = tmp_path / "ws"
    for rel, text in SOURCES.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (ws / "py" / "apps" / "BUILD").write_text(SERVER_BUILD)
    site = ws / "site-packages"
    shutil.copytree(
        DATA / "python" / "dist-info" / "slim_demo_dist-0.1.0.dist-info",
        site / "slim_demo_dist-0.1.0.dist-info",
    )
    yaml_info = site / "PyYAML-6.0.1.dist-info"
    yaml_info.mkdir()
    (yaml_info / "RECORD").write_text(
        "_yaml/__init__.py,sha256=x,1402\nyaml/__init__.py,sha256=y,12311\n"
        "yaml/_yaml.cpython-311-x86_64-linux-gnu.so,sha256=z,2339720\n"
        "PyYAML-6.0.1.dist-info/RECORD,,\n"
    )
    # the loaded third-party code is read too: importtime cannot see its importlib loads
    (site / "yaml").mkdir()
    (site / "yaml" / "__init__.py").write_text("from .error import *\n__version__ = '6.0.1'\n")
    trace = tmp_path / "server.importtime.txt"
    trace.write_text(TRACE)
    b = GraphBuilder()
    server = b.add_target(
        "//py/apps:server",
        "py_binary",
        location=Location("py/apps/BUILD", 1),
        srcs=["//py/apps:server.py"],
    )
    b.add_file("//py/apps:server.py")
    libs = {
        "used": _lib(b, "//py/used:used", ["core.py"]),
        "unused": _lib(b, "//py/unused_lib:unused_lib", ["__init__.py"]),
        "lazy": _lib(b, "//py/lazy_lib:lazy_lib", ["heavy.py"]),
        "optional": _lib(b, "//py/optional_lib:optional_lib", ["speedups.py"]),
        "plugins": _lib(b, "//py/plugins:plugins", ["fast.py"]),
        "impl": _lib(b, "//py/impl:impl", ["helper.py"]),
        "typed": _lib(b, "//py/typed_lib:typed_lib", ["__init__.py"]),
        "ns_a": _lib(b, "//py/ns:a", ["a/__init__.py"]),
        "ns_b": _lib(b, "//py/ns:b", ["b/__init__.py"]),
        "testutil": _lib(b, "//py/testutil:testutil", ["fixtures.py"], testonly=True),
        "broken": _lib(b, "//py/broken:broken", ["bad.py"]),
    }
    # re-export: py.reexport's __init__ re-exports a name of //py/impl
    reexport = _lib(b, "//py/reexport:reexport", ["__init__.py"])
    b.add_edge(reexport, libs["impl"], EdgeKind.DEPS)
    # forwarding library: no sources of its own, server imports py.impl through it
    fwd = b.add_target("//py/fwd:fwd", "py_library")
    b.add_edge(fwd, libs["impl"], EdgeKind.DEPS)
    b.add_edge(server, fwd, EdgeKind.DEPS)
    data = b.add_target("//py/data:files", "filegroup", srcs=["//py/data:config.json"])
    yaml = b.intern("@pypi//pyyaml:pkg")
    demo = b.intern("@pypi//slim_demo_dist:pkg")
    unknown = b.intern("@pypi//not_installed:pkg")
    for name in ("used", "unused", "lazy", "optional", "plugins", "typed", "ns_a", "ns_b"):
        b.add_edge(server, libs[name], EdgeKind.DEPS, Location("py/apps/BUILD", 10))
    b.add_edge(server, libs["testutil"], EdgeKind.DEPS)
    b.add_edge(server, libs["broken"], EdgeKind.DEPS)
    b.add_edge(server, reexport, EdgeKind.DEPS)
    b.add_edge(server, data, EdgeKind.DATA)
    b.add_edge(server, yaml, EdgeKind.DEPS)
    b.add_edge(server, demo, EdgeKind.DEPS)
    b.add_edge(server, unknown, EdgeKind.DEPS)
    # transitive reliance: //py/transitive imports py.shared but only gets it via //py/middle
    trans = _lib(b, "//py/transitive:transitive", ["mod.py"])
    shared = _lib(b, "//py/shared:shared", ["util.py"])
    middle = _lib(b, "//py/middle:middle", ["mid.py"])
    b.add_edge(server, trans, EdgeKind.DEPS)
    b.add_edge(server, middle, EdgeKind.DEPS)
    b.add_edge(middle, shared, EdgeKind.DEPS)
    return Setup(b.build(), ws, trace)


def test_unused_lib_is_dead_with_evidence_and_location(setup: Setup) -> None:
    f = edge(setup.run(), "//py/unused_lib:unused_lib")
    assert f is not None
    assert (f.code, f.verdict, f.removable, f.confidence.value) == ("SLIM001", "dead", True, "high")
    assert str(f.location) == "py/apps/BUILD:10"
    assert f.attribute == "deps"
    assert f.root == "//py/apps:server"
    details = " ".join(e.detail for e in f.evidence)
    assert "py.unused_lib" in details
    assert any(e.source == str(setup.trace) for e in f.evidence)
    assert f.saving is not None
    assert f.saving.bytes == len(SOURCES["py/unused_lib/__init__.py"])
    assert f.fix is not None
    assert "remove deps //py/unused_lib:unused_lib" in f.fix.command


def test_lazy_import_is_runtime_unused_not_removable(setup: Setup) -> None:
    f = edge(setup.run(), "//py/lazy_lib:lazy_lib")
    assert f is not None
    assert (f.verdict, f.removable) == ("runtime-unused", False)
    assert "runtime_deps" in f.message
    lines = [(e.source, e.line) for e in f.evidence if e.line is not None]
    assert ("py/apps/server.py", 18) in lines


def test_typing_only_import_is_runtime_unused(setup: Setup) -> None:
    f = edge(setup.run(), "//py/typed_lib:typed_lib")
    assert f is not None
    assert (f.verdict, f.removable, f.confidence.value) == ("runtime-unused", False, "high")
    assert "TYPE_CHECKING" in f.message


@pytest.mark.parametrize(
    "dep",
    [
        "//py/used:used",
        "//py/optional_lib:optional_lib",  # optional, and seen in the trace
        "//py/plugins:plugins",  # importlib literal
        "//py/reexport:reexport",  # used through names it re-exports
        "//py/fwd:fwd",  # forwarding library without sources, used via what it forwards
        "//py/ns:a",  # PEP 420 namespace package part
        "@pypi//pyyaml:pkg",  # import name yaml != distribution PyYAML
    ],
)
def test_used_deps_are_not_findings(setup: Setup, dep: str) -> None:
    assert edge(setup.run(), dep) is None


def test_traps_are_never_removable_without_traces(setup: Setup) -> None:
    findings = setup.run(trace=False)
    removable = {f.dep for f in findings if f.removable}
    assert removable == {
        "//py/unused_lib:unused_lib",
        "//py/ns:b",
        "@pypi//slim_demo_dist:pkg",
        "//py/broken:broken",  # broken sources are B's, server's own are complete
        "//py/transitive:transitive",
    }
    optional = edge(findings, "//py/optional_lib:optional_lib")
    assert optional is not None
    assert (optional.verdict, optional.removable) == ("runtime-unused", False)
    assert "optional extra" in optional.message
    dead = edge(findings, "//py/unused_lib:unused_lib")
    assert dead is not None
    assert dead.confidence.value == "medium"


def test_namespace_sibling_is_dead_but_not_the_used_part(setup: Setup) -> None:
    findings = setup.run()
    b = edge(findings, "//py/ns:b")
    assert b is not None
    assert b.verdict == "dead"
    assert edge(findings, "//py/ns:a") is None


def test_dist_name_differs_from_import_names(setup: Setup) -> None:
    f = edge(setup.run(), "@pypi//slim_demo_dist:pkg")
    assert f is not None
    assert f.verdict == "dead"
    looked = next(e.detail for e in f.evidence if e.source == "ownership")
    assert "slimdemo" in looked
    assert "slim_helper" in looked
    assert "slimns.part" in looked
    assert "RECORD" in looked


def test_test_only_and_data_edges_are_never_findings(setup: Setup) -> None:
    findings = setup.run()
    assert edge(findings, "//py/testutil:testutil") is None
    assert edge(findings, "//py/data:files") is None
    (cov,) = [f for f in findings if f.code == "SLIM903"]
    assert isinstance(cov.details, CoverageDetails)
    assert cov.details.test_only_edges == 1
    assert cov.details.data_edges == 1


def test_unknown_ownership_is_said(setup: Setup) -> None:
    f = edge(setup.run(), "@pypi//not_installed:pkg")
    assert f is not None
    assert (f.code, f.removable) == ("SLIM001", True) or f.code == "SLIM901"
    assert "guessed" in f.message or f.code == "SLIM901"


def test_syntax_error_makes_evidence_incomplete(setup: Setup) -> None:
    findings = setup.run()
    (bad,) = [f for f in findings if f.code == "SLIM902"]
    assert bad.target == "//py/broken:broken"
    (ev,) = bad.evidence
    assert ev.source == "py/broken/bad.py"
    assert ev.line == 1
    assert "syntax" in ev.detail


def test_transitive_reliance_is_not_removable(setup: Setup) -> None:
    f = edge(setup.run(), "//py/middle:middle")
    assert f is not None
    assert (f.verdict, f.removable) == ("used-transitively", False)
    assert "//py/transitive:transitive" in f.message


def test_trace_only_is_never_removable(setup: Setup) -> None:
    findings = setup.run(source=False)
    assert not [f for f in findings if f.removable]
    f = edge(findings, "//py/unused_lib:unused_lib")
    assert f is not None
    assert (f.verdict, f.confidence.value) == ("unused-in-traces", "low")
    assert edge(findings, "//py/lazy_lib:lazy_lib") is not None


def test_no_evidence_gives_slim900(setup: Setup) -> None:
    findings = setup.run(trace=False, source=False)
    assert [f.code for f in findings] == ["SLIM900"]


def test_coverage_share(setup: Setup) -> None:
    (cov,) = [f for f in setup.run() if f.code == "SLIM903"]
    d = cov.details
    assert isinstance(d, CoverageDetails)
    assert 0 < d.traced_modules < d.packaged_modules
    assert 0 < d.traced_bytes < d.packaged_bytes


def test_analyze_is_deterministic(setup: Setup) -> None:
    assert setup.run() == setup.run()


def test_direct_context_call(setup: Setup) -> None:
    ctx = AnalysisContext(
        graph=setup.graph,
        root=setup.graph.ids["//py/apps:server"],
        facts=Facts(),
        options=RootOptions(workspace=setup.ws),
    )
    out = list(SPEC.factory().analyze(ctx))
    assert all(f.code != "SLIM903" for f in out)


REPO = Path(__file__).parents[3]
MONOREPO = REPO / "sample_graphs" / "monorepo"


def test_monorepo_server_end_to_end() -> None:
    """`slim report //py/apps:server` from the repo root (slim.toml names every input)."""
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "slim", "report", "//py/apps:server", "--format", "json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    rep = json.loads(proc.stdout)
    py = [f for f in rep["findings"] if f["code"] in ("SLIM001", "SLIM901", "SLIM902")]
    verdicts = {f["dep"]: (f["verdict"], f["removable"]) for f in py}
    assert verdicts["//py/unused_lib:unused_lib"] == ("dead", True)
    assert verdicts["//py/lazy_lib:lazy_lib"] == ("runtime-unused", False)
    removable = {(f["target"], f["dep"]) for f in py if f["removable"]}
    assert removable == {("//py/apps:server", "//py/unused_lib:unused_lib")}
    dead = next(f for f in py if f["dep"] == "//py/unused_lib:unused_lib")
    assert dead["location"] == {"path": "py/apps/BUILD", "line": 1, "offset": None}
    assert dead["confidence"] == "high"
    sources = {e["source"] for e in dead["evidence"]}
    assert any(s.endswith("traces/server.importtime.txt") for s in sources)
    assert "ownership" in sources
    lazy = next(f for f in py if f["dep"] == "//py/lazy_lib:lazy_lib")
    assert ("py/apps/server.py", 25) in {(e["source"], e["line"]) for e in lazy["evidence"]}
    # traps: optional, importlib literal (absent from -X importtime), re-export, namespace
    # package, data and test-only deps are no finding at all
    for trap in (
        "//py/optional_lib:optional_lib",
        "//py/plugins:plugins",
        "//py/reexport:reexport",
        "//py/core_impl:core_impl",
        "//py/nsext:nsext",
        "//py/config:model_config",
        "//py/testutil:testutil",
        "//py:py",
    ):
        assert trap not in verdicts, trap
    (cov,) = [f for f in rep["findings"] if f["code"] == "SLIM903"]
    assert 0 < cov["details"]["traced_modules"] < cov["details"]["packaged_modules"]


def test_monorepo_trainer_vendored_imports_attr() -> None:
    """`imports = ["src"]` makes `tinyhelper` a top-level module of //py/vendored:tinyhelper."""
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "slim", "report", "//py/apps:trainer", "--format", "json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    rep = json.loads(proc.stdout)
    assert not [f for f in rep["findings"] if f["code"] == "SLIM001"]
    (cov,) = [f for f in rep["findings"] if f["code"] == "SLIM903"]
    assert cov["details"]["traced_modules"] >= 1


def test_cut_keeps_what_another_path_still_brings(tmp_path: Path) -> None:
    """server -> x -> shared and server -> y -> shared: x is dead, shared stays (via y),
    so y's import of shared does not block the cut; x's own dep on shared is reported as
    redundant (y imports shared and keeps it: cutting x -> shared saves nothing)."""
    ws = tmp_path / "ws"
    files = {
        "app/main.py": "import y.mod\n",
        "x/mod.py": "X = 1\n",
        "y/mod.py": "import shared.util\n",
        "shared/util.py": "U = 1\n",
    }
    for rel, text in files.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    b = GraphBuilder()
    b.add_file("//app:main.py")
    server = b.add_target("//app:server", "py_binary", srcs=["//app:main.py"])
    x = _lib(b, "//x:x", ["mod.py"])
    y = _lib(b, "//y:y", ["mod.py"])
    shared = _lib(b, "//shared:shared", ["util.py"])
    for a, d in ((server, x), (server, y), (x, shared), (y, shared)):
        b.add_edge(a, d, EdgeKind.DEPS)
    g = b.build()
    roots = same_evidence([g.ids["//app:server"]], Facts(), RootOptions(workspace=ws))
    rep = analyze(g, roots, specs=[SPEC])
    verdicts = {(f.target, f.dep): (f.verdict, f.removable) for f in rep.findings}
    assert verdicts[("//app:server", "//x:x")] == ("dead", True)
    assert verdicts[("//x:x", "//shared:shared")] == ("redundant-direct-dep", False)
    assert ("//app:server", "//y:y") not in verdicts
    assert ("//y:y", "//shared:shared") not in verdicts
    dead = next(f for f in rep.findings if f.dep == "//x:x")
    assert dead.saving is not None
    assert dead.saving.targets_removed == 1  # only x leaves; shared stays through y
