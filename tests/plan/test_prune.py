"""Pruning: actions, new dep lists, buildozer vs CMake fixes, downgrades, replacements, totals."""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

import pytest

from slim.ingest import load_graph
from slim.model.actions import Move, Remove, Replace
from slim.model.facts import Facts
from slim.model.findings import Confidence, Finding
from slim.model.graph import BuildGraph
from slim.plan import plan_report
from slim.plan.prune import edge_actions
from tests.plan._graphs import graph, timings

DATA = Path(__file__).parent.parent / "data"


def _finding(target: str, dep: str, verdict: str = "dead", root: str = "//a:bin") -> Finding:
    return Finding(
        "SLIM001",
        "unused-python-dep",
        target,
        dep,
        verdict,
        "m",
        Confidence.HIGH,
        True,
        root=root,
        attribute="deps",
    )


def _g() -> BuildGraph:
    return graph(
        [
            ("//a:bin", "py_binary", ("a/bin.py",)),
            ("//a:lib", "py_library", ("a/lib.py",)),
            ("//x:y", "py_library", ("x/y.py",)),
            ("//x:z", "py_library", ("x/z.py",)),
        ],
        [("//a:bin", "//a:lib"), ("//a:lib", "//x:y"), ("//a:lib", "//x:z")],
    )


def test_removal_becomes_a_buildozer_command_and_a_new_dep_list() -> None:
    g = _g()
    plan = plan_report(g, [0], [_finding("//a:lib", "//x:y")], Facts())
    f = plan.findings[0]
    assert f.action == Remove("//a:lib", "//x:y", "deps")
    assert f.fix is not None
    assert f.fix.runnable
    assert f.fix.command == "buildozer 'remove deps //x:y' //a:lib"
    assert shlex.split(f.fix.command) == ["buildozer", "remove deps //x:y", "//a:lib"]
    assert f.fix.batch == "remove deps //x:y|//a:lib"
    (p,) = plan.proposals
    assert (p.target, p.remove, p.new_deps) == ("//a:lib", ("//x:y",), ("//x:z",))
    assert p.saving is not None
    assert p.saving.removed == ("//x:y",)
    assert p.saving.basis == "default"  # no timings: python has no compile cost
    assert plan.savings.of("//a:bin") == plan.savings.total
    assert plan.savings.total.removed == ("//x:y",)


def test_runtime_unused_is_a_downgrade_not_a_removal() -> None:
    g = _g()
    f = _finding("//a:lib", "//x:z", "runtime-unused")
    plan = plan_report(g, [0], [dataclasses.replace(f, removable=False)], Facts())
    assert plan.findings[0].action == Move("//a:lib", "//x:z", "deps", "runtime_deps")
    fix = plan.findings[0].fix
    assert fix is not None
    assert fix.command == "buildozer 'move deps runtime_deps //x:z' //a:lib"
    assert not fix.safe
    assert plan.proposals == []


def test_cmake_graph_gets_the_target_link_libraries_line() -> None:
    reply = DATA / "cmake" / "cmake-4.4.5" / "reply"
    g = load_graph([reply])
    app, core = g.lookup("//:app"), g.lookup("//:core")
    assert app is not None
    assert core is not None
    loc = g.edge_location(app, core)
    f = _finding("//:app", "//:core", root="//:app")
    plan = plan_report(g, [app], [f], Facts())
    fix = plan.findings[0].fix
    assert fix is not None
    assert fix.kind == "cmake"
    assert not fix.runnable
    assert fix.command == f"{loc}: in target_link_libraries(app …) remove core"
    assert fix.location == loc
    assert str(loc).startswith("CMakeLists.txt:")
    assert edge_actions(plan.findings) == [Remove("//:app", "//:core")]


def test_savings_on_findings_and_unattributed_totals() -> None:
    g = graph(
        [("//a:bin", "cc_binary", ("a/m.cc",)), ("//l:l", "cc_library", ("l/l.cc",))],
        [("//a:bin", "//l:l")],
    )
    facts = timings(("//l:l", "CppCompile", 4.0), ("//gone:t", "CppCompile", 9.0))
    f = _finding("//a:bin", "//l:l")
    plan = plan_report(g, [0], [f], facts)
    s = plan.findings[0].saving
    assert s is not None
    assert s.compile_seconds == pytest.approx(4.0)
    # Compile time is measured; the root's link was not: its change is a model's estimate.
    assert (s.compile_basis, s.link_basis) == ("measured", "estimated (model, fit on 1 targets)")
    assert s.basis == "measured; link estimated (model, fit on 1 targets)"
    assert s.link_seconds > 0
    assert plan.timings is not None
    assert (plan.timings.actions, plan.timings.unattributed) == (2, 1)
    assert plan.savings.total.compile_seconds == pytest.approx(4.0)
    assert any("1 of 2 actions in t.json not attributed" in n for n in plan.notes)


def test_binary_wide_findings_get_no_edge_fix() -> None:
    g = _g()
    f = Finding("SLIM003", "gpu", "//a:bin", "", "x", "m", Confidence.LOW, False, root="//a:bin")
    plan = plan_report(g, [0], [f], Facts())
    assert plan.findings[0].fix is None
    assert plan.findings[0].saving is None


def test_downgrade_saves_no_build_time_and_replacements_are_net() -> None:
    g = graph(
        [
            ("//a:bin", "cc_binary", ("a/m.cc",)),
            ("//k:gpu", "cc_library", ("k/g.cc",)),
            ("//k:cpu", "cc_library", ("k/c.cc",)),
            ("//l:rt", "cc_library", ("l/rt.cc",)),
        ],
        [("//a:bin", "//k:gpu"), ("//a:bin", "//l:rt")],
    )
    facts = timings(("//k:gpu", "CppCompile", 10.0), ("//k:cpu", "CppCompile", 3.0))
    swap = Finding(
        "SLIM003",
        "gpu-kernels-in-cpu-binary",
        "//a:bin",
        "//k:gpu",
        "gpu",
        "m",
        Confidence.HIGH,
        True,
        root="//a:bin",
        attribute="deps",
        action=Replace("//a:bin", "//k:gpu", "//k:cpu"),
    )
    rt = _finding("//a:bin", "//l:rt", "runtime-unused")
    plan = plan_report(g, [0], [swap, rt], facts)
    by_dep = {f.dep: f for f in plan.findings}
    s_swap, s_rt = by_dep["//k:gpu"].saving, by_dep["//l:rt"].saving
    assert s_swap is not None
    assert s_rt is not None
    assert s_swap.compile_seconds == pytest.approx(10.0 - 3.0)
    assert (s_swap.removed, s_swap.added) == (("//k:gpu",), ("//k:cpu",))
    assert "net of 1 target(s) the fix adds" in s_swap.basis
    assert (s_rt.compile_seconds, s_rt.targets_removed) == (0.0, 0)
    assert s_rt.compile_basis.startswith("runtime_deps: still built")
    # The replacement counts in the totals (net); the downgrade removes no target and
    # is listed as kept out, with the reason.
    assert plan.savings.total.compile_seconds == pytest.approx(7.0)
    (out,) = plan.savings.excluded
    assert (out.dep, out.reason) == ("//l:rt", s_rt.compile_basis)
    fix = by_dep["//k:gpu"].fix
    assert fix is not None
    assert fix.command == "buildozer 'replace deps //k:gpu //k:cpu' //a:bin"
    assert [a.verb for a in edge_actions(plan.findings)] == ["replace", "move"]


def test_dropped_archs_are_spelled_as_cmake_lists_them() -> None:
    """CUDA_ARCHITECTURES holds `80` and `90a`, not nvcc's `sm_80`: the CMake text names
    what to delete from that list, the -gencode flags stay nvcc's."""
    from slim.model.actions import DropArchs
    from slim.plan.fixes import cmake_fix

    flags = "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a"
    fix = cmake_fix(DropArchs("//k:cuda_kernels", ("sm_80", "sm_90a"), flags), None)
    assert fix.command == f"remove 80;90a from CUDA_ARCHITECTURES of cuda_kernels ({flags})"
