"""Cuts proposed together: two dead edges to libraries that both bring a used one hold
alone and not together, so one is kept; each root is judged on its own."""

from __future__ import annotations

from slim.model.actions import Move
from slim.model.findings import Confidence, Finding
from slim.model.graph import BuildGraph, EdgeKind, GraphBuilder
from slim.plan.joint import jointly


def _graph() -> BuildGraph:
    """//app:bin -> {//lib:a, //lib:b} -> //lib:core; //app:bin -> //lib:c (alone);
    //app:bin2 -> //lib:a, //lib:b too."""
    b = GraphBuilder()
    ids = {
        name: b.add_target(name, kind)
        for name, kind in (
            ("//app:bin", "cc_binary"),
            ("//app:bin2", "cc_binary"),
            ("//lib:a", "cc_library"),
            ("//lib:b", "cc_library"),
            ("//lib:c", "cc_library"),
            ("//lib:core", "cc_library"),
        )
    }
    for src, dep in (
        ("//app:bin", "//lib:a"),
        ("//app:bin", "//lib:b"),
        ("//app:bin", "//lib:c"),
        ("//app:bin2", "//lib:a"),
        ("//app:bin2", "//lib:b"),
        ("//lib:a", "//lib:core"),
        ("//lib:b", "//lib:core"),
    ):
        b.add_edge(ids[src], ids[dep], EdgeKind.DEPS)
    return b.build()


def _dead(root: str, dep: str, *, removable: bool = True) -> Finding:
    return Finding(
        "SLIM002",
        "unreferenced-native-dep",
        root,
        dep,
        "unreferenced",
        "dead.",
        Confidence.HIGH,
        removable,
        root=root,
        attribute="deps",
    )


def test_of_two_cuts_that_take_a_shared_dep_together_the_second_is_kept() -> None:
    found = [_dead("//app:bin", "//lib:a"), _dead("//app:bin", "//lib:b")]
    first, second = jointly(_graph(), found)
    assert first == found[0]
    assert not second.removable
    assert second.confidence is Confidence.MEDIUM
    assert second.kept_because == (
        "alone the cut holds, but with //app:bin -> //lib:a (proposed too) it also takes "
        "//lib:core out of //app:bin's closure: make one of the cuts, then run slim again"
    )
    assert second.message == f"dead. Not removable: {second.kept_because}."


def test_cuts_that_hold_together_stay_proposed() -> None:
    found = [_dead("//app:bin", "//lib:a"), _dead("//app:bin", "//lib:c")]
    assert jointly(_graph(), found) == found


def test_each_root_is_judged_on_its_own_cuts() -> None:
    found = [_dead("//app:bin", "//lib:a"), _dead("//app:bin2", "//lib:b")]
    assert jointly(_graph(), found) == found


def test_kept_findings_and_moves_take_nothing_out() -> None:
    kept = _dead("//app:bin", "//lib:a", removable=False)
    move = Finding(
        "SLIM001",
        "unused-python-dep",
        "//app:bin",
        "//lib:a",
        "runtime-unused",
        "m",
        Confidence.HIGH,
        True,
        root="//app:bin",
        action=Move("//app:bin", "//lib:a", "deps", "runtime_deps"),
    )
    found = [kept, move, _dead("//app:bin", "//lib:b")]
    assert jointly(_graph(), found) == found
