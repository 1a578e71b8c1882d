"""Small hand-made graphs and timing facts shared by the planner tests."""

from __future__ import annotations

from collections.abc import Iterable

from slim.model.facts import Facts
from slim.model.graph import BuildGraph, EdgeKind, GraphBuilder, Location
from slim.model.timing import TimedAction, TimingSet


def graph(
    targets: Iterable[tuple[str, str, tuple[str, ...]]],
    edges: Iterable[tuple[str, str]],
    fmt: str = "bazel-jsonproto",
) -> BuildGraph:
    b = GraphBuilder()
    for label, kind, srcs in targets:
        pkg = label[2:].split(":")[0]
        b.add_target(label, kind, srcs=srcs, location=Location(f"{pkg}/BUILD", 1))
    for a, d in edges:
        b.add_edge(b.intern(a), b.intern(d), EdgeKind.DEPS)
    b.formats.append(fmt)
    return b.build()


def timings(*items: tuple[str, str, float], source: str = "t.json") -> Facts:
    """Facts with one timing set: (label, mnemonic, seconds) per action."""
    facts = Facts()
    actions = tuple(
        TimedAction(start=0.0, end=secs, label=lab, mnemonic=mn) for lab, mn, secs in items
    )
    facts.add(TimingSet(source=source, format="test", actions=actions))
    return facts
