"""The clean-build scheduler on random graphs: the bounds any list schedule must meet, and
the dependency order it promises (a link after the archives it links)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from slim.model.timing import TimedAction
from slim.plan.schedule import Scheduler, Timeline, make_timeline, max_concurrency
from tests.plan._graphs import graph


@st.composite
def builds(draw: st.DrawFn) -> tuple[Timeline, list[int], dict[int, list[int]], Scheduler]:
    """A random DAG of libraries (a compile then an archive each, some untimed) and a
    timeline of their actions at a random -jN."""
    n = draw(st.integers(2, 9))
    edges = [(a, b) for a in range(n) for b in range(a + 1, n) if draw(st.booleans()) and b != a]
    g = graph([(f"//p:t{i}", "cc_library", (f"p/t{i}.cc",)) for i in range(n)],
              [(f"//p:t{a}", f"//p:t{b}") for a, b in edges])  # fmt: skip
    timed = [i for i in range(n) if draw(st.booleans()) or i == 0]
    per: dict[int, list[tuple[str, TimedAction]]] = {}
    for i in timed:
        t = g.lookup(f"//p:t{i}")
        assert t is not None
        c = draw(st.floats(0.01, 5.0))
        a = draw(st.floats(0.01, 1.0))
        start = draw(st.floats(0.0, 10.0))
        per[t] = [
            ("compile", TimedAction(start, start + c)),
            ("archive", TimedAction(start + c, start + c + a)),
        ]
    tl = make_timeline("log", per, ())
    assert tl is not None
    jobs = draw(st.integers(1, 4))
    tl = Timeline(tl.source, tl.run, jobs, tl.tasks)
    deps = {g.lookup(f"//p:t{a}"): [] for a in range(n)}
    for a, b in edges:
        deps[g.lookup(f"//p:t{a}")].append(g.lookup(f"//p:t{b}"))  # type: ignore[index]
    return tl, list(range(n)), deps, Scheduler(g, tl)  # type: ignore[return-value]


@settings(max_examples=200)
@given(builds())
def test_list_schedule_bounds(case: tuple[Timeline, list[int], dict, Scheduler]) -> None:
    """critical path <= makespan <= total work / N + critical path (Graham), and with one
    slot the makespan is the total work."""
    tl, ids, _, sch = case
    sim = sch.baseline(ids)
    work = sum(k.duration for ks in tl.tasks.values() for k in ks)
    assert sim.critical_seconds <= sim.seconds + 1e-6
    assert sim.seconds <= work / tl.jobs + sim.critical_seconds + 1e-6
    if tl.jobs == 1:
        assert abs(sim.seconds - work) < 1e-3 * max(1.0, work)
    assert sim.critical
    assert all(t in tl.tasks or t in ids for t in sim.critical)


@settings(max_examples=200)
@given(builds())
def test_removing_work_never_lengthens_the_critical_path(
    case: tuple[Timeline, list[int], dict, Scheduler],
) -> None:
    tl, ids, _, sch = case
    before = sch.baseline(ids)
    for t in sorted(tl.tasks):
        after = sch.without([i for i in ids if i != t])
        assert after.critical_seconds <= before.critical_seconds + 1e-6


def test_archive_waits_for_the_archives_it_links() -> None:
    """//p:top (1 s compile, 1 s archive) on //p:low (3 s compile, 1 s archive) at -j2:
    top's compile runs beside low's, top's archive waits for low's: 3 + 1 + 1 s."""
    g = graph([("//p:top", "cc_library", ("p/top.cc",)), ("//p:low", "cc_library", ("p/low.cc",))],
              [("//p:top", "//p:low")])  # fmt: skip
    top, low = g.lookup("//p:top"), g.lookup("//p:low")
    assert top is not None
    assert low is not None
    per = {
        top: [("compile", TimedAction(0.0, 1.0)), ("archive", TimedAction(4.0, 5.0))],
        low: [("compile", TimedAction(0.0, 3.0)), ("archive", TimedAction(3.0, 4.0))],
    }
    tl = make_timeline("log", per, ())
    assert tl is not None
    assert tl.jobs == 2
    sim = Scheduler(g, tl).baseline([top, low])
    assert sim.seconds == 5.0
    assert sim.critical == (low, top)
    assert Scheduler(g, tl).without([top]).seconds == 2.0


def test_max_concurrency_counts_touching_intervals_apart() -> None:
    assert max_concurrency([(0, 1), (1, 2), (2, 3)]) == 1
    assert max_concurrency([(0, 2), (1, 3), (1.5, 1.7)]) == 3
