"""SLIM002 on Bazel edges whose only use is the `defines` they hand the dependant.

A `cc_library`'s `defines` reach the compile of every target above it. In
`tests/data/src/native_defines`, `//app:app` uses nothing of `//lib:cfg` but compiles
with its `APP_MODE=2` (`#error` without it); `//app:app_via` gets the same define only
through `//lib:wrap`; `//app:app_sel` gets `SEL_MODE` from a select(). No map or depfile
shows such a use, and `app_via -> wrap` was removable of high confidence: Bazel 4.2.3,
with the edge cut, stops at `#error "APP_MODE is not defined"` (tests/data/bazel_defines/
README.md). `app_free -> plain` is the control: truly dead, and still removable.

The inputs are real Bazel output (cquery jsonproto, query proto, gold maps, depfiles,
objects); the truth is checked here by compiling each source as Bazel does, with and
without the defines the cut takes away.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from slim.ingest import load_graph

from ._cmake_project import report

DATA = Path(__file__).resolve().parents[2] / "data"
OUT = DATA / "bazel_defines"
SRC = DATA / "src" / "native_defines"
BIN = "bazel-out/k8-fastbuild/bin"
GRAPHS = ("cquery.jsonproto.json", "query.pb")


def _verdicts(graph: str, app: str) -> dict[tuple[str, str], dict[str, object]]:
    objects = sorted(str(p.relative_to(OUT)) for p in (OUT / BIN / "lib").rglob("*.o"))
    args = [f"//app:{app}", "--graph", graph, "--linkmap", f"maps/{app}.map"]
    args += ["--compile", "bazel-out", "--binary", f"{BIN}/app/{app}"]
    args += [a for o in objects for a in ("--binary", o)]
    args += ["--workspace", str(SRC), "--select", "SLIM002"]
    return {(str(f["target"]), str(f["dep"])): f for f in report(OUT, *args)}


@pytest.mark.parametrize("graph", GRAPHS)
def test_edges_that_hand_the_compile_defines_are_kept(graph: str) -> None:
    found = {**_verdicts(graph, "app"), **_verdicts(graph, "app_via")}
    found.update(_verdicts(graph, "app_sel"))
    assert {k: (f["verdict"], f["removable"], f["confidence"]) for k, f in found.items()} == {
        ("//app:app", "//lib:cfg"): ("usage-requirements", False, "high"),
        ("//app:app_via", "//lib:wrap"): ("usage-requirements", False, "high"),
        ("//lib:wrap", "//lib:cfg"): ("usage-requirements", False, "high"),
        ("//app:app_sel", "//lib:sel"): ("usage-requirements", False, "high"),
    }
    via = str(found[("//app:app_via", "//lib:wrap")]["message"])
    assert "-DAPP_MODE=2, declared by //lib:cfg (`defines`), which //app:app_via reaches " in via
    assert "only through //lib:wrap" in via
    assert "-DAPP_MODE=2, declared by //lib:cfg (`defines`). Cutting" in str(
        found[("//app:app", "//lib:cfg")]["message"]
    )


def test_a_select_gives_every_branch() -> None:
    """The unconfigured query flattens the select() into both values; cquery resolves it."""
    sel = {
        g: str(_verdicts(g, "app_sel")[("//app:app_sel", "//lib:sel")]["message"]) for g in GRAPHS
    }
    assert "-DSEL_MODE=2, -DSEL_MODE=1, declared by //lib:sel" in sel["query.pb"]
    assert "-DSEL_MODE=1, declared by //lib:sel" in sel["cquery.jsonproto.json"]


@pytest.mark.parametrize("graph", GRAPHS)
def test_a_dead_edge_without_defines_stays_removable(graph: str) -> None:
    (only,) = _verdicts(graph, "app_free").values()
    assert (only["dep"], only["verdict"], only["removable"]) == (
        "//lib:plain",
        "unreferenced",
        True,
    )


@pytest.mark.parametrize("graph", GRAPHS)
def test_the_graph_keeps_each_library_s_defines(graph: str) -> None:
    g = load_graph([OUT / graph])
    defines = {g.labels[i]: g.target(i).attrs.get("defines") for i in range(len(g.labels))}
    assert {k: v for k, v in defines.items() if v} == {
        "//lib:cfg": ("APP_MODE=2",),
        "//lib:sel": ("SEL_MODE=2", "SEL_MODE=1") if graph == "query.pb" else ("SEL_MODE=1",),
    }


def _compiles(source: str, tmp: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    cmd = ["gcc", "-c", str(SRC / source), "-o", str(tmp / "x.o"), *flags]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    ("source", "define", "error"),
    [
        ("app/main.c", "-DAPP_MODE=2", "APP_MODE is not defined"),
        ("app/via.c", "-DAPP_MODE=2", "APP_MODE is not defined"),
        ("app/sel.c", "-DSEL_MODE=1", "SEL_MODE is not defined"),
    ],
)
def test_truth_the_cut_breaks_the_compile(
    source: str, define: str, error: str, tmp_path: Path
) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed (bash .ci/install-system-tools.sh)")
    assert _compiles(source, tmp_path, define).returncode == 0
    cut = _compiles(source, tmp_path)
    assert cut.returncode != 0
    assert error in cut.stderr
