"""A map joined to the graph: bfd names an as-needed shared library by its soname alone
(`libevent_core-2.2.so.1` for the `LOAD lib/libevent_core-2.2.so.1.0.0` it loaded, libevent
built with SOVERSION); that is the loaded file, owned by its target, not an input of the
build tree nobody owns (which made every library absent from the map "ownership unknown")."""

from __future__ import annotations

from slim_analyzers.native._link_view import view

from slim.model.graph import GraphBuilder
from slim.model.linkage import Link
from slim.model.native import LinkMap
from slim.model.ownership import Ownership


def _view(loaded: tuple[str, ...], shared: tuple[str, ...]):  # type: ignore[no-untyped-def]
    b = GraphBuilder()
    app = b.add_target("//:app", "EXECUTABLE")
    core = b.add_target("//:core", "SHARED_LIBRARY")
    b.add_artifact("lib/libevent_core-2.2.so", "//:core")
    g = b.build()
    m = LinkMap(
        "app.map", "bfd", "app", True, False, (), tuple((p, k + 1) for k, p in enumerate(loaded)),
        shared,
    )  # fmt: skip
    return core, view(Link(m, frozenset({app})), Ownership.of(g))


def test_a_soname_is_the_loaded_file_of_that_name() -> None:
    core, v = _view(
        ("/lib/x86_64-linux-gnu/libc.so.6", "lib/libevent_core-2.2.so.1.0.0"),
        ("libc.so.6", "libevent_core-2.2.so.1"),
    )
    assert v.shared_owners == {core}
    assert v.unowned_shared == set()


def test_a_soname_nothing_loaded_stays_unowned() -> None:
    _, v = _view(("/lib/x86_64-linux-gnu/libc.so.6",), ("libmystery.so.3",))
    assert v.unowned_shared == {"libmystery.so.3"}
