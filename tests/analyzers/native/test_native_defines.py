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

The two `cc_test`s are linked as Bazel links tests, dynamically, against the libraries'
`_solib_k8/` symlinks (`liblib_Slibplain.so` is `//lib:plain`'s): read as nobody's,
`dyn_plain_test -> plain` was removable of high confidence although the test calls
`plain_fn` (the cut does not link: `undefined reference to 'plain_fn'`).

`//lib:hdr` and `//lib:hdr2` are libraries of headers alone, which Bazel compiles only in
their dependants: their dependants' depfiles say what the headers include.
"""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analyzers.native._bazel_includes import SearchPaths
from slim.app.session import Request, Session
from slim.infra.config import Config
from slim.ingest import load_graph
from slim.model import ownership

from ._cmake_project import report

DATA = Path(__file__).resolve().parents[2] / "data"
OUT = DATA / "bazel_defines"
SRC = DATA / "src" / "native_defines"
BIN = "bazel-out/k8-fastbuild/bin"
GRAPHS = ("cquery.jsonproto.json", "query.pb")


def _verdicts(
    graph: str, app: str, select: str = "SLIM002", *, scan: bool = True, depfiles: bool = True
) -> dict[tuple[str, str], dict[str, object]]:
    libs = [*(OUT / BIN / "lib").rglob("*.o"), *(OUT / BIN / "_solib_k8").glob("*.so")]
    args = [f"//app:{app}", "--graph", graph, "--linkmap", f"maps/{app}.map"]
    args += ["--compile", "bazel-out"] if depfiles else []
    args += ["--binary", f"{BIN}/app/{app}"]
    args += [a for o in sorted(libs) for a in ("--binary", str(o.relative_to(OUT)))]
    args += ["--workspace", str(SRC)] if scan else []
    args += ["--select", select]
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


@pytest.mark.parametrize("graph", GRAPHS)
def test_a_test_linked_against_the_solib_symlink_uses_its_library(graph: str) -> None:
    assert _verdicts(graph, "dyn_plain_test", "SLIM002,SLIM004") == {}
    (found,) = _verdicts(graph, "dyn_test", "SLIM002").values()
    assert (found["target"], found["dep"], found["verdict"]) == (
        "//lib:wrap",
        "//lib:cfg",
        "usage-requirements",
    )
    (needed,) = _verdicts(graph, "dyn_test", "SLIM004").values()
    assert (needed["target"], needed["dep"], needed["removable"]) == (
        "//lib:wrap",
        "//lib:cfg",
        False,
    )


def test_a_shared_library_nobody_owns_blocks_every_removal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A shared library of the build tree the link resolves symbols from, owned by no
    target (here: the `_solib_k8/` rule switched off, as for a layout slim does not know),
    is an input of unknown ownership: nothing of the root is proposed, and the message
    names it."""
    monkeypatch.setattr(ownership, "_solib_owner", lambda _path: None)
    libs = [*(OUT / BIN / "lib").rglob("*.o"), *(OUT / BIN / "_solib_k8").glob("*.so")]
    req = Request(
        graphs=(OUT / "cquery.jsonproto.json",),
        use_cache=False,
        evidence={
            "linkmap": (OUT / "maps" / "dyn_plain_test.map",),
            "binary": (OUT / BIN / "app" / "dyn_plain_test", *sorted(libs)),
            "compile": (OUT / "bazel-out",),
        },
        workspace=SRC,
        select=("SLIM002",),
    )
    s = Session(req, config=Config())
    (f,) = s.report(s.select_roots(["//app:dyn_plain_test"])).findings
    assert (f.dep, f.removable) == ("//lib:plain", False)
    assert "bazel-out/k8-fastbuild/bin/_solib_k8/liblib_Slibplain.so" in f.message


@pytest.mark.parametrize("scan", [True, False])
def test_a_library_of_headers_is_judged_by_its_dependants_compiles(scan: bool) -> None:
    """`hdr.h` includes util.h (the cut: `undeclared inclusion(s) in rule
    '//app:app_hdr': 'lib/util.h'`); `hdr2.h` uses nothing of //lib:plain (the cut builds).
    Without a workspace to scan, `hdr2 -> plain` waited for a compile of //lib:hdr2 that
    Bazel never runs."""
    (kept,) = _verdicts(GRAPHS[0], "app_hdr", scan=scan).values()
    assert (kept["target"], kept["dep"], kept["verdict"], kept["confidence"]) == (
        "//lib:hdr",
        "//lib:util",
        "header-only-use",
        "high",
    )
    assert "app/hdr_main.c includes lib/util.h (depfile)" in str(kept["message"])
    (dead,) = _verdicts(GRAPHS[0], "app_hdr2", scan=scan).values()
    assert (dead["target"], dead["dep"], dead["verdict"], dead["removable"]) == (
        "//lib:hdr2",
        "//lib:plain",
        "unreferenced",
        True,
    )


def test_an_unflattened_select_of_defines_gives_every_branch() -> None:
    """`--proto:flatten_selects=false` keeps the select() as a selector (real Bazel 4.2.3
    output): every branch's values are read."""
    g = load_graph([OUT / "query.noflatten.pb"])
    assert g.target(g.ids["//lib:sel"]).attrs["defines"] == ("SEL_MODE=2", "SEL_MODE=1")


#: (binary, dep, the header it includes through an include path Bazel makes)
THROUGH_PATHS = [
    ("app_vinc", "//lib:vinc", "lib/vinc/include/vinc/v.h"),  # strip_include_prefix
    ("app_inc", "//lib:inc", "lib/inc/i.h"),  # includes
    ("app_pfx", "//lib:pfx", "lib/pfxdir/p.h"),  # include_prefix
]


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("depfiles", [True, False])
@pytest.mark.parametrize(("app", "dep", "header"), THROUGH_PATHS)
def test_a_header_found_through_an_include_path_bazel_makes_is_a_use(
    graph: str, depfiles: bool, app: str, dep: str, header: str
) -> None:
    """`#include <vinc/v.h>` (a `_virtual_includes` tree), `<i.h>` (`includes`), `"ext/p.h"`
    (`include_prefix`): with only a static scan, the first two were read as system headers,
    so the edge was removable of high confidence; each cut fails with `fatal error: vinc/
    v.h: No such file or directory` (and `i.h`, `ext/p.h`) in Bazel 4.2.3."""
    (found,) = _verdicts(graph, app, depfiles=depfiles).values()
    assert (found["dep"], found["verdict"], found["removable"], found["confidence"]) == (
        dep,
        "header-only-use",
        False,
        "high" if depfiles else "medium",
    )
    how = "depfile" if depfiles else "static #include scan"
    assert f"app/{app.removeprefix('app_')}_main.c includes {header} ({how})" in str(
        found["message"]
    )


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("depfiles", [True, False])
def test_a_header_forced_in_by_copts_is_a_use(graph: str, depfiles: bool) -> None:
    """`copts = ["-include", "i.h"]` and no `#include`: with only a static scan the edge
    was removable of high confidence; the cut fails with `<command-line>: fatal error: i.h:
    No such file or directory`."""
    (found,) = _verdicts(graph, "app_forced", depfiles=depfiles).values()
    assert (found["dep"], found["verdict"], found["removable"]) == (
        "//lib:inc",
        "header-only-use",
        False,
    )


@pytest.mark.parametrize("depfiles", [True, False])
def test_deps_whose_headers_nothing_includes_stay_removable(depfiles: bool) -> None:
    """The control: //app:app_nouse builds and runs with all three edges cut."""
    found = _verdicts(GRAPHS[0], "app_nouse", depfiles=depfiles)
    assert {k[1]: (f["verdict"], f["removable"]) for k, f in found.items()} == {
        dep: ("unreferenced", True) for _, dep, _ in THROUGH_PATHS
    }


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("depfiles", [True, False])
def test_a_library_whose_files_come_in_filegroups_is_judged(graph: str, depfiles: bool) -> None:
    """`//lib:fgl` lists its source and its header through filegroups (a nested one for
    the header, under `strip_include_prefix`). Read as a library without code, its edges
    were skipped without a word: `app_fg`, which uses nothing of it, got no finding. Its
    files are the filegroups' now: `app_fg`'s edge is removable, `app_fgh`'s (the
    header's macro) is kept."""
    dead = _verdicts(graph, "app_fg", depfiles=depfiles)
    assert {k: (f["verdict"], f["removable"]) for k, f in dead.items()} == {
        ("//app:app_fg", "//lib:fgl"): ("unreferenced", True)
    }
    (kept,) = _verdicts(graph, "app_fgh", depfiles=depfiles).values()
    assert (kept["dep"], kept["verdict"], kept["removable"]) == (
        "//lib:fgl",
        "header-only-use",
        False,
    )
    assert "app/fgh_main.c includes lib/fgl/include/fgl/fg.h" in str(kept["message"])


def test_truth_of_the_filegroup_library_s_edges(tmp_path: Path) -> None:
    """`app_fg` links without `//lib:fgl`; `app_fgh` does not compile without its header
    (Bazel 4.2.3: `fatal error: fgl/fg.h: No such file or directory`)."""
    inc = f"-I{SRC / 'lib/fgl/include'}"
    assert _compiles("app/fgh_main.c", tmp_path, inc).returncode == 0
    cut = _compiles("app/fgh_main.c", tmp_path)
    assert cut.returncode != 0
    assert "fgl/fg.h: No such file or directory" in cut.stderr
    exe = tmp_path / "app_fg"
    link = ["gcc", str(SRC / "app/fg_main.c"), "-o", str(exe)]
    assert subprocess.run(link, capture_output=True, check=False).returncode == 0
    assert subprocess.run([str(exe)], check=False).returncode == 0


@pytest.mark.parametrize(
    ("graph", "scan", "removable", "why"),
    [
        ("query.pb", True, False, "is named in a select() (app/BUILD:"),
        ("query.noflatten.pb", False, False, "(the export's select() of //app:app_seldep)"),
        ("query.pb", False, True, "Not certain without app/BUILD (pass --workspace)"),
    ],
)
def test_a_dep_named_in_a_select_is_judged_for_every_configuration(
    graph: str, scan: bool, removable: bool, why: str
) -> None:
    """`deps = select({"//lib:opt": ["//lib:optlib"], ...})`: a `bazel query` export
    flattens it into a plain edge, the fastbuild map shows nothing of `optlib`, and the
    edge was removable of high confidence; the `-c opt` build of the cut does not link.
    The BUILD file (or an export keeping selects) shows the select(); without either the
    cut is at most medium, naming the file."""
    (found,) = _verdicts(graph, "app_seldep", scan=scan).values()
    assert (found["dep"], found["removable"], found["confidence"]) == (
        "//lib:optlib",
        removable,
        "medium",
    )
    assert why in str(found["message"])


def test_a_configured_graph_has_no_edge_its_configuration_does_not_take() -> None:
    assert _verdicts("cquery.jsonproto.json", "app_seldep") == {}
    attrs = {
        graph: load_graph([OUT / graph]).attrs
        for graph in ("query.pb", "query.noflatten.pb", "cquery.jsonproto.json")
    }
    seldep = {graph: load_graph([OUT / graph]).lookup("//app:app_seldep") for graph in attrs}
    chosen = {g: attrs[g].get(seldep[g] or 0, {}).get("selected_deps") for g in attrs}
    assert chosen == {
        "query.pb": None,
        "query.noflatten.pb": ("//lib:optlib",),
        "cquery.jsonproto.json": None,
    }


def test_truth_the_optimized_build_of_the_select_cut_does_not_link(tmp_path: Path) -> None:
    exe = str(tmp_path / "app")
    main, lib = str(SRC / "app/seldep.c"), str(SRC / "lib/optlib.c")
    with_dep = subprocess.run(["gcc", "-DUSE_OPT", main, lib, "-o", exe], check=False)
    assert with_dep.returncode == 0
    assert subprocess.run([exe], check=False).returncode == 0
    cut = subprocess.run(
        ["gcc", "-DUSE_OPT", main, "-o", exe], capture_output=True, text=True, check=False
    )
    assert cut.returncode != 0
    assert re.search(r"undefined reference to .optlib_fn", cut.stderr), cut.stderr


def test_an_include_path_the_graph_does_not_show_leaves_the_compile_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An angled include that resolves nowhere is a system header only when no header of
    the binary's closure could be it: `<i.h>` with the `includes` directory unseen (an
    export without it, a Buck2 `header_namespace`) may be `lib/inc/i.h`, so the edge to
    //lib:inc is unknown; the edge to //lib:plain, which lists no such header, stays
    removable (its cut builds and runs)."""
    loaded = importlib.import_module("slim_analyzers.native._compile_use")  # (the plugin's)
    monkeypatch.setattr(loaded, "search_paths", lambda _g, _t: SearchPaths())
    libs = sorted((OUT / BIN / "lib").rglob("*.o"))
    req = Request(
        graphs=(OUT / "cquery.jsonproto.json",),
        use_cache=False,
        evidence={
            "linkmap": (OUT / "maps" / "app_incplain.map",),
            "binary": (OUT / BIN / "app" / "app_incplain", *libs),
        },
        workspace=SRC,
        select=("SLIM002",),
    )
    s = Session(req, config=Config())
    found = {f.dep: f for f in s.report(s.select_roots(["//app:app_incplain"])).findings}
    inc, plain = found["//lib:inc"], found["//lib:plain"]
    assert (inc.verdict, inc.removable) == ("unreferenced", False)
    assert (
        "app/incplain_main.c:1: #include <i.h>, which may be lib/inc/i.h through an include "
        "path the graph does not show" in inc.message
    )
    assert (plain.verdict, plain.removable) == ("unreferenced", True)


@pytest.mark.parametrize("graph", [*GRAPHS, "query.noflatten.pb"])
def test_the_graph_keeps_each_library_s_include_paths(graph: str) -> None:
    g = load_graph([OUT / graph])
    kept = {
        g.labels[i]: {
            k: v
            for k, v in g.target(i).attrs.items()
            if k in ("includes", "strip_include_prefix", "include_prefix")
        }
        for i in range(len(g.labels))
    }
    assert {k: v for k, v in kept.items() if v} == {
        "//lib:vinc": {"strip_include_prefix": "vinc/include"},
        "//lib:inc": {"includes": ("inc",)},
        "//lib:pfx": {"strip_include_prefix": "pfxdir", "include_prefix": "ext"},
        "//lib:fgl": {"strip_include_prefix": "fgl/include"},
    }


@pytest.mark.parametrize("graph", GRAPHS)
def test_a_library_a_dep_s_linkopts_put_on_the_link_keeps_the_edge(graph: str) -> None:
    """//lib:zwrap's `linkopts = ["-lz"]`: //app:app_z calls zlibVersion and nothing else
    gives it -lz. No map ties libz to a target, so the link's use of it is unknown; the
    edge was removable of high confidence, and the cut does not link (`undefined reference
    to 'zlibVersion'`)."""
    (found,) = _verdicts(graph, "app_z").values()
    assert (found["dep"], found["verdict"], found["removable"]) == (
        "//lib:zwrap",
        "unreferenced",
        False,
    )
    assert "the cut also takes //lib:zwrap (it links -lz) out of //app:app_z's closure" in str(
        found["message"]
    )


@pytest.mark.parametrize("graph", GRAPHS)
def test_an_unused_shared_library_whose_target_links_a_system_library_is_kept(
    graph: str,
) -> None:
    """//app:dyn_z_test resolves nothing from _solib_k8/liblib_Slibzwrap.so, but its link's
    -lz comes from //lib:zwrap's `linkopts`: SLIM004 said `unused`, removable of high
    confidence, and the cut does not link (`undefined reference to 'zlibVersion'`)."""
    (found,) = _verdicts(graph, "dyn_z_test", "SLIM004").values()
    assert (found["dep"], found["verdict"], found["removable"]) == ("//lib:zwrap", "unused", False)
    assert "the cut also takes //lib:zwrap (it links -lz)" in str(found["message"])
