"""Whether the compile flags a cut takes from the dependant can be read off the graph.

Bazel `defines` and Buck2's exported preprocessor flags are attributes of the targets
that leave with the cut; a CMake consumer's usage requirements come from the file API.
An export without them (a ninja graph, Buck2 JSON not asked for them) or a leaving
target that no export describes leaves them unknown, which must never read as "none".
"""

from __future__ import annotations

from analyzers.native._carried_flags import flags_unknown
from slim.model.graph import BuildGraph, EdgeKind, GraphBuilder


def _graph(*, ext_described: bool, unseen: tuple[str, ...] = (), cmake: bool = False) -> BuildGraph:
    b = GraphBuilder()
    attrs = {"cmake_type": "EXECUTABLE"} if cmake else {}
    app = b.add_target("//app:app", "cc_binary", attrs=dict(attrs))
    lib = b.add_target("//lib:lib", "cc_library")
    ext = b.add_target("//ext:x", "cc_library") if ext_described else b.intern("//ext:x")
    b.add_edge(app, lib, EdgeKind.DEPS)
    b.add_edge(lib, ext, EdgeKind.DEPS)
    b.flags_unseen.extend(unseen)
    return b.build()


def _cut(g: BuildGraph) -> str | None:
    return flags_unknown(g, g.ids["//app:app"], g.ids["//lib:lib"])


def test_flags_are_known_when_every_leaving_target_is_described() -> None:
    assert _cut(_graph(ext_described=True)) is None


def test_a_leaving_target_no_export_describes_leaves_them_unknown() -> None:
    why = _cut(_graph(ext_described=False))
    assert why is not None
    assert why.startswith("//ext:x, which the cut takes away, is named")


def test_an_export_that_shows_no_flags_leaves_them_unknown() -> None:
    why = _cut(_graph(ext_described=True, unseen=("ninja-graph",)))
    assert why is not None
    assert "(ninja-graph)" in why


def test_a_cmake_consumer_s_flags_come_from_the_file_api() -> None:
    assert _cut(_graph(ext_described=False, unseen=("ninja-graph",), cmake=True)) is None


def test_what_stays_through_the_replacement_is_not_asked_about() -> None:
    g = _graph(ext_described=False)
    assert flags_unknown(g, g.ids["//app:app"], g.ids["//lib:lib"], {g.ids["//ext:x"]}) is None
