"""How an action is written: a CMake edge declared by a call that declares other
targets' edges too (a macro, a function, a loop) is never edited for one target, even
when the fix points at the line naming the dep."""

from __future__ import annotations

from slim.model.actions import Remove
from slim.model.graph import BuildGraph, EdgeKind, GraphBuilder, Location
from slim.plan.fixes import write

CALL = Location("CMakeLists.txt", 12)
DEP_LINE = Location("CMakeLists.txt", 13)


def _graph(*apps: str) -> BuildGraph:
    """Executables `apps`, each linking //:util by the same target_link_libraries call."""
    b = GraphBuilder()
    b.formats.append("cmake-fileapi")
    util = b.add_target("//:util", "STATIC_LIBRARY")
    for app in apps:
        b.add_edge(b.add_target(app, "EXECUTABLE"), util, EdgeKind.DEPS, CALL)
    return b.build()


def test_a_call_declaring_several_targets_edges_is_left_to_the_user() -> None:
    g = _graph("//:hello", "//:server")
    (fix,) = write(g, Remove("//:hello", "//:util"), dep_line=DEP_LINE)
    assert fix.kind == "text"
    assert fix.location == CALL
    assert fix.command.startswith(
        "CMakeLists.txt:12: this target_link_libraries line declares the edges of 2 targets "
        "(//:hello, //:server: a function, macro or loop); removing util there removes it "
        "from all of them"
    )


def test_a_call_of_one_target_is_edited_at_the_line_naming_the_dep() -> None:
    (fix,) = write(_graph("//:hello"), Remove("//:hello", "//:util"), dep_line=DEP_LINE)
    assert fix.kind == "cmake"
    assert fix.command == "CMakeLists.txt:13: in target_link_libraries(hello …) remove util"


def test_a_graph_without_build_files_gets_no_buildozer_command() -> None:
    """A ninja graph (meson, GN) names no BUILD, BUCK or CMake file: buildozer could not
    run there, so the fix says what to change in words."""
    b = GraphBuilder()
    b.formats.append("ninja-graph")
    b.add_edge(b.add_target("//app:app", "executable"), b.intern("//foo:libfoo.a"), EdgeKind.DEPS)
    (fix,) = write(b.build(), Remove("//app:app", "//foo:libfoo.a"))
    assert fix.kind == "text"
    assert fix.command == (
        "in the build description that generates //app:app, stop depending on "
        "//foo:libfoo.a (the graph names no build file to edit)"
    )
