"""Wall clock of a clean build: the measured actions re-scheduled on N parallel slots.

The model (docs/savings.md states it for users): every timed action keeps the duration
the log measured. A target's compile actions wait for nothing (sources exist in a clean
checkout) except a dependency that only generates code (no compile of its own); its
archive/link actions ("finals") wait for its own compiles and for the finals of its
nearest timed dependencies in the graph (CMake's Ninja generator orders a static
library after the libraries it links, a binary after all of them); a dependency with no
archive of its own (Bazel links objects) passes on its compiles and its own
dependencies' outputs. N is the most actions
the log shows running at once. Ready actions start in the order they started in the log
(the tool's own choice), on the first free slot. The critical path is the longest chain
of that dependency order, without the slot limit.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
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
        csr = graph.csr(BUILD_KINDS)
        self._indptr = csr.indptr
        self._indices = csr.indices
        self._baseline: dict[tuple[int, ...], Simulated] = {}

    def _deps(self, t: int, cut: frozenset[Edge], added: dict[int, list[int]]) -> list[int]:
        lo, hi = int(self._indptr[t]), int(self._indptr[t + 1])
        out = [int(d) for d in self._indices[lo:hi].tolist() if (t, int(d)) not in cut]
        return out + added.get(t, [])

    def _timed_deps(
        self, inside: set[int], cut: frozenset[Edge], added: dict[int, list[int]]
    ) -> dict[int, list[int]]:
        """Per timed target of `inside`, its nearest timed dependencies (through untimed
        targets), over the graph with `cut` gone and `added` edges in."""
        tasks = self.timeline.tasks
        memo: dict[int, frozenset[int]] = {}

        def nearest(t: int) -> frozenset[int]:
            hit = memo.get(t)
            if hit is not None:
                return hit
            memo[t] = frozenset()  # a cycle ends here
            found: set[int] = set()
            stack = self._deps(t, cut, added)
            seen: set[int] = set()
            while stack:
                d = stack.pop()
                if d in seen or d not in inside:
                    continue
                seen.add(d)
                if d in tasks:
                    found.add(d)
                else:
                    stack.extend(self._deps(d, cut, added))
            memo[t] = frozenset(found)
            return memo[t]

        return _acyclic({t: sorted(nearest(t)) for t in inside if t in tasks})

    def simulate(
        self, inside: Iterable[int], cut: Sequence[Edge] = (), added: Sequence[Edge] = ()
    ) -> Simulated:
        """The clean build of the targets `inside` (a root's closure), `cut` edges gone."""
        ids = set(inside)
        adds: dict[int, list[int]] = {}
        for a, b in added:
            adds.setdefault(a, []).append(b)
        deps = self._timed_deps(ids, frozenset(cut), adds)
        return _run(self.timeline, deps)

    def baseline(self, inside: Sequence[int]) -> Simulated:
        key = tuple(sorted(inside))
        hit = self._baseline.get(key)
        if hit is None:
            hit = self._baseline[key] = self.simulate(key)
        return hit


def _acyclic(deps: dict[int, list[int]]) -> dict[int, list[int]]:
    """`deps` without the edges that close a cycle (CMake allows cyclic static libraries):
    a depth-first walk from the lowest id drops each edge back onto its own path."""
    state: dict[int, int] = {}
    out: dict[int, list[int]] = {t: [] for t in deps}
    for root in sorted(deps):
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(deps[root]))]
        while stack:
            t, it = stack[-1]
            d = next(it, None)
            if d is None:
                state[t] = 2
                stack.pop()
                continue
            if state.get(d) == 1:
                continue
            out[t].append(d)
            if d not in state:
                state[d] = 1
                stack.append((d, iter(deps[d])))
    return out


def _postorder(deps: dict[int, list[int]]) -> list[int]:
    """Targets of an acyclic `deps`, each after all of its dependencies."""
    done: set[int] = set()
    order: list[int] = []
    for root in sorted(deps):
        stack = [(root, iter(deps[root]))]
        if root in done:
            continue
        done.add(root)
        while stack:
            t, it = stack[-1]
            d = next(it, None)
            if d is None:
                order.append(t)
                stack.pop()
            elif d not in done:
                done.add(d)
                stack.append((d, iter(deps[d])))
    return order


TaskId = tuple[int, int]


def _run(tl: Timeline, deps: dict[int, list[int]]) -> Simulated:
    """List-schedule the tasks of `deps`' targets on `tl.jobs` slots; and the critical path."""
    tasks = tl.tasks
    gens = {t for t in deps if all(k.final for k in tasks[t])}
    waits: dict[TaskId, int] = {}
    succ: dict[TaskId, list[TaskId]] = {}
    # What a dependant's archive/link waits for: a target's finals; a target without any
    # (Bazel links objects, not archives) passes on its compiles and its own deps' outputs.
    outputs: dict[int, list[TaskId]] = {}
    for t in _postorder(deps):
        ks = tasks[t]
        entries = [(t, i) for i, k in enumerate(ks) if not k.final]
        finals = [(t, i) for i, k in enumerate(ks) if k.final]
        from_deps = sorted({x for d in deps[t] for x in outputs[d]})
        outputs[t] = finals or sorted({*entries, *from_deps})
        gen_outputs = [x for d in deps[t] if d in gens for x in outputs[d]]
        for task, before in (
            *((e, gen_outputs) for e in entries),
            *((f, [*entries, *from_deps]) for f in finals),
        ):
            waits[task] = len(before)
            for p in before:
                succ.setdefault(p, []).append(task)
    makespan = _list_schedule(tl, waits, succ)
    crit_s, chain = _critical(tl, waits, succ)
    return Simulated(round(makespan, 3), round(crit_s, 3), chain)


def _list_schedule(
    tl: Timeline,
    waits: dict[tuple[int, int], int],
    succ: dict[tuple[int, int], list[tuple[int, int]]],
) -> float:
    tasks = tl.tasks
    left = dict(waits)
    ready = [(tasks[t][i].order, t, i) for (t, i), n in waits.items() if n == 0]
    heapq.heapify(ready)
    running: list[tuple[float, int, int]] = []
    now = end = 0.0
    while ready or running:
        while ready and len(running) < tl.jobs:
            _, t, i = heapq.heappop(ready)
            heapq.heappush(running, (now + tasks[t][i].duration, t, i))
        now, t, i = heapq.heappop(running)
        end = max(end, now)
        for s in succ.get((t, i), ()):
            left[s] -= 1
            if left[s] == 0:
                heapq.heappush(ready, (tasks[s[0]][s[1]].order, s[0], s[1]))
    return end


def _critical(
    tl: Timeline,
    waits: dict[tuple[int, int], int],
    succ: dict[tuple[int, int], list[tuple[int, int]]],
) -> tuple[float, tuple[int, ...]]:
    """The longest chain of the task DAG (no slot limit) and its targets, first to last."""
    tasks = tl.tasks
    left = dict(waits)
    finish: dict[tuple[int, int], float] = {}
    prev: dict[tuple[int, int], tuple[int, int] | None] = {}
    start_at: dict[tuple[int, int], tuple[float, tuple[int, int] | None]] = {}
    todo = sorted(k for k, n in waits.items() if n == 0)
    for k in todo:
        start_at[k] = (0.0, None)
    while todo:
        k = todo.pop()
        at, p = start_at[k]
        finish[k] = at + tasks[k[0]][k[1]].duration
        prev[k] = p
        for s in succ.get(k, ()):
            best = start_at.get(s)
            if best is None or finish[k] > best[0] or (finish[k] == best[0] and k < (best[1] or k)):
                start_at[s] = (finish[k], k)
            left[s] -= 1
            if left[s] == 0:
                todo.append(s)
    if not finish:
        return 0.0, ()
    last = max(finish, key=lambda k: (finish[k], k))
    chain: list[int] = []
    cur: tuple[int, int] | None = last
    while cur is not None:
        if not chain or chain[-1] != cur[0]:
            chain.append(cur[0])
        cur = prev[cur]
    return finish[last], tuple(reversed(chain))
