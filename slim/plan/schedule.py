"""Wall clock of a clean build: the measured actions re-scheduled on N parallel slots.

The model (docs/savings.md states it for users): every timed action keeps the duration
the log measured. A target's compile actions wait for nothing (sources exist in a clean
checkout) except a dependency that only generates code (no compile of its own); its
archive/link actions ("finals") wait for its own compiles and for the finals of its
nearest timed dependencies in the graph (CMake's Ninja generator orders a static
library after the libraries it links, a binary after all of them); a dependency with no
archive of its own (Bazel links objects) passes on its compiles and its own
dependencies' outputs. N is the most actions the log shows running at once. Ready
actions start in the order they started in the log (the tool's own choice), on the
first free slot. The critical path is the longest chain of that dependency order,
without the slot limit.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from slim.model.graph import BUILD_KINDS, BuildGraph
from slim.model.timing import ARCHIVE, LINK, OTHER, TimedAction

Edge = tuple[int, int]
_FINAL = frozenset({ARCHIVE, LINK, OTHER})


class Task(NamedTuple):
    """One timed action of a target: when it started in the log, how long it took."""

    order: float
    duration: float
    final: bool


@dataclass(frozen=True)
class Timeline:
    """The timed actions of one build, per target, and the parallelism it ran at."""

    source: str
    run: int
    jobs: int
    tasks: dict[int, tuple[Task, ...]]
    tool_critical: tuple[str, ...] = ()
    """The build tool's own critical path (Bazel's), as action descriptions."""


@dataclass(frozen=True)
class Simulated:
    """One re-scheduled clean build."""

    seconds: float
    critical_seconds: float
    critical: tuple[int, ...]
    """Targets on the critical path, first to last."""


def max_concurrency(spans: Iterable[tuple[float, float]]) -> int:
    """The most intervals open at once (an end at t closes before a start at t)."""
    events = sorted(p for s, e in spans for p in ((s, 1), (e, -1)) if e > s)
    events.sort(key=lambda p: (p[0], p[1]))
    now = best = 0
    for _, step in events:
        now += step
        best = max(best, now)
    return max(best, 1)


def make_timeline(
    source: str, per_target: dict[int, list[tuple[str, TimedAction]]], tool_critical: Sequence[str]
) -> Timeline | None:
    """The timeline of the run with the most actions (a log holds several runs)."""
    runs: dict[int, int] = {}
    for items in per_target.values():
        for _, a in items:
            runs[a.run] = runs.get(a.run, 0) + 1
    if not runs:
        return None
    run = max(runs, key=lambda r: (runs[r], r))
    tasks: dict[int, tuple[Task, ...]] = {}
    spans: list[tuple[float, float]] = []
    for t, items in per_target.items():
        mine = [(c, a) for c, a in items if a.run == run]
        if mine:
            tasks[t] = tuple(sorted(Task(a.start, a.duration, c in _FINAL) for c, a in mine))
            spans.extend((a.start, a.end) for _, a in mine)
    return Timeline(source, run, max_concurrency(spans), tasks, tuple(tool_critical))


class Scheduler:
    """Clean builds of sets of targets of one graph, re-scheduled from one timeline."""

    def __init__(self, graph: BuildGraph, timeline: Timeline) -> None:
        self.graph = graph
        self.timeline = timeline
        self._indptr, self._indices = graph.adjacency(BUILD_KINDS)
        self._baseline: dict[tuple[int, ...], Simulated] = {}

    def _deps(self, t: int, cut: frozenset[Edge], added: dict[int, list[int]]) -> list[int]:
        lo, hi = int(self._indptr[t]), int(self._indptr[t + 1])
        out: list[int] = self._indices[lo:hi].tolist()
        if cut:
            out = [d for d in out if (t, d) not in cut]
        return out + added.get(t, []) if added else out

    def _dag(
        self, inside: set[int], cut: frozenset[Edge], added: dict[int, list[int]]
    ) -> tuple[list[int], dict[int, list[int]]]:
        """The targets of `inside` that have a timed action or depend on one, each after its
        dependencies, and their dependencies among them (an edge closing a cycle is
        dropped: CMake allows cyclic static libraries)."""
        tasks = self.timeline.tasks
        order: list[int] = []
        deps: dict[int, list[int]] = {}
        state: dict[int, int] = {}

        def kids(t: int) -> Iterator[int]:
            return iter([d for d in self._deps(t, cut, added) if d in inside])

        for start in sorted(inside):
            if start in state:
                continue
            state[start] = 1
            deps[start] = []
            stack = [(start, kids(start))]
            while stack:
                t, it = stack[-1]
                d = next(it, None)
                if d is None:
                    state[t] = 2
                    stack.pop()
                    deps[t] = [x for x in deps[t] if x in deps]
                    if deps[t] or t in tasks:
                        order.append(t)
                    else:
                        del deps[t]
                    continue
                seen = state.get(d)
                if seen == 1:
                    continue
                deps[t].append(d)
                if seen is None:
                    state[d] = 1
                    deps[d] = []
                    stack.append((d, kids(d)))
        return order, deps

    def _simulate(
        self, inside: set[int], cut: frozenset[Edge], added: dict[int, list[int]]
    ) -> Simulated:
        order, deps = self._dag(inside, cut, added)
        return _run(self.timeline, order, deps)

    def baseline(self, inside: Sequence[int]) -> Simulated:
        """The clean build of `inside` (a root's closure) as it is (cached)."""
        key = tuple(sorted(inside))
        hit = self._baseline.get(key)
        if hit is None:
            hit = self._baseline[key] = self._simulate(set(key), frozenset(), {})
        return hit

    def without(
        self, after: Iterable[int], cut: Sequence[Edge] = (), added: Sequence[Edge] = ()
    ) -> Simulated:
        """The clean build of `after`: the closure once `cut` is gone and `added` is in."""
        adds: dict[int, list[int]] = {}
        for a, b in added:
            adds.setdefault(a, []).append(b)
        return self._simulate(set(after), frozenset(cut), adds)


TaskId = tuple[int, int]
#: Task index of a target's join: done when its compiles (or finals) and its
#: dependencies' outputs are; it takes no slot and no time.
JOIN = -1


def _run(tl: Timeline, order: list[int], deps: dict[int, list[int]]) -> Simulated:
    """List-schedule the timed actions of `order`'s targets on `tl.jobs` slots, and the
    critical path. A target's output (what its dependants' archive/link waits for) is its
    one final, else a join of its finals, else a join of its compiles and its
    dependencies' outputs (a target without an archive, or without actions, passes them on)."""
    tasks = tl.tasks
    waits: dict[TaskId, int] = {}
    succ: dict[TaskId, list[TaskId]] = {}

    def after(task: TaskId, before: Sequence[TaskId]) -> None:
        waits[task] = len(before)
        for p in before:
            succ.setdefault(p, []).append(task)

    out: dict[int, TaskId] = {}
    gens: set[int] = set()
    for t in order:
        ks = tasks.get(t, ())
        entries = [(t, i) for i, k in enumerate(ks) if not k.final]
        finals = [(t, i) for i, k in enumerate(ks) if k.final]
        from_deps = [out[d] for d in deps[t]]
        if not ks and len(from_deps) == 1:
            out[t] = from_deps[0]
            continue
        gen_outputs = [out[d] for d in deps[t] if d in gens]
        for e in entries:
            after(e, gen_outputs)
        for f in finals:
            after(f, [*entries, *from_deps])
        if len(finals) == 1:
            out[t] = finals[0]
        else:
            out[t] = (t, JOIN)
            after(out[t], finals or [*entries, *from_deps])
        if ks and not entries:
            gens.add(t)
    makespan = _list_schedule(tl, waits, succ)
    crit_s, chain = _critical(tl, waits, succ)
    return Simulated(round(makespan, 3), round(crit_s, 3), chain)


def _duration(tl: Timeline, task: TaskId) -> float:
    return 0.0 if task[1] == JOIN else tl.tasks[task[0]][task[1]].duration


def _order(tl: Timeline, task: TaskId) -> float:
    return -1.0 if task[1] == JOIN else tl.tasks[task[0]][task[1]].order


def _list_schedule(
    tl: Timeline,
    waits: dict[TaskId, int],
    succ: dict[TaskId, list[TaskId]],
) -> float:
    """Makespan on `tl.jobs` slots; ready tasks start in the log's order (joins at once)."""
    left = dict(waits)
    ready = [(_order(tl, k), k) for k, n in waits.items() if n == 0]
    heapq.heapify(ready)
    running: list[tuple[float, TaskId]] = []
    now = end = 0.0
    while ready or running:
        while ready and (len(running) < tl.jobs or ready[0][1][1] == JOIN):
            _, k = heapq.heappop(ready)
            if k[1] == JOIN:
                _release(tl, k, left, succ, ready)
                continue
            heapq.heappush(running, (now + _duration(tl, k), k))
        if not running:
            continue
        now, k = heapq.heappop(running)
        end = max(end, now)
        _release(tl, k, left, succ, ready)
    return end


def _release(
    tl: Timeline,
    k: TaskId,
    left: dict[TaskId, int],
    succ: dict[TaskId, list[TaskId]],
    ready: list[tuple[float, TaskId]],
) -> None:
    for s in succ.get(k, ()):
        left[s] -= 1
        if left[s] == 0:
            heapq.heappush(ready, (_order(tl, s), s))


def _critical(
    tl: Timeline,
    waits: dict[TaskId, int],
    succ: dict[TaskId, list[TaskId]],
) -> tuple[float, tuple[int, ...]]:
    """The longest chain of the task DAG (no slot limit) and its targets, first to last;
    `waits` lists the tasks in a topological order (each after its predecessors)."""
    best: dict[TaskId, tuple[float, TaskId | None]] = {}
    finish: dict[TaskId, float] = {}
    for k in waits:
        at, _ = best.get(k, (0.0, None))
        end = finish[k] = at + _duration(tl, k)
        for s in succ.get(k, ()):
            b = best.get(s)
            if b is None or end > b[0]:
                best[s] = (end, k)
    if not finish:
        return 0.0, ()
    last = max(finish, key=lambda k: (finish[k], k))
    chain: list[int] = []
    cur: TaskId | None = last
    while cur is not None:
        if not chain or chain[-1] != cur[0]:
            chain.append(cur[0])
        cur = best.get(cur, (0.0, None))[1]
    return finish[last], tuple(reversed(chain))
