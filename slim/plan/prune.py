"""Turn findings into actions, fixes, pruned targets and savings.

Each removable edge finding proposes an action (`Remove`, `Move` for a runtime-only use,
an analyzer's `Replace`); `slim.plan.fixes` writes it out, `slim.plan.savings` prices it.
Totals come from one computation over every proposed action at once, so the report,
the Markdown summary, the review and the cleanup backlog give the same figures.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from slim.model.actions import Action, EdgeAction, Move, Remove, Replace
from slim.model.facts import Facts
from slim.model.findings import Finding, Fix, Saving
from slim.model.graph import BuildGraph, EdgeKind
from slim.model.history import ChangeHistory, NoHistory
from slim.model.report import (
    Excluded,
    HistoryWindow,
    Proposal,
    RootSchedule,
    SavingsSummary,
    TimingCoverage,
)
from slim.plan.costs import CostModel, build_costs
from slim.plan.fixes import write
from slim.plan.savings import Edge, Reach, edge_saving, plan_savings

RUNTIME_UNUSED = "runtime-unused"
DOWNGRADE_TO = "runtime_deps"
MOVE_SAVES_NOTHING = (
    "runtime_deps: still built and shipped, only no longer linked or compiled against"
)


def _attribute(f: Finding) -> str:
    attr = f.attribute or "deps"
    return "deps" if attr.startswith("deps (") or attr == "untyped" else attr


def action_of(f: Finding) -> Action | None:
    """What a finding proposes: the analyzer's action, else the planner's default for a
    removable edge (`Move` to runtime_deps for a runtime-only use, otherwise `Remove`)."""
    if f.action is not None:
        return f.action
    if not f.dep:
        return None
    attr = _attribute(f)
    if f.verdict == RUNTIME_UNUSED and attr != DOWNGRADE_TO:
        return Move(f.target, f.dep, attr, DOWNGRADE_TO)
    if not f.removable:
        return None
    return Remove(f.target, f.dep, attr)


@dataclass(frozen=True)
class Plan:
    """The planner's result: findings completed with fixes and savings, and the totals."""

    findings: list[Finding]
    proposals: list[Proposal]
    savings: SavingsSummary
    timings: TimingCoverage | None
    notes: list[str]


def _ids(graph: BuildGraph, a: EdgeAction) -> tuple[int, int] | None:
    x, y = graph.lookup(a.target), graph.lookup(a.dep)
    return None if x is None or y is None else (x, y)


class _Pricer:
    """Prices actions for roots on one graph, sharing the cost model and reachability."""

    def __init__(self, graph: BuildGraph, model: CostModel) -> None:
        self.graph = graph
        self.model = model
        self.reach = Reach(graph)

    def added(self, actions: Sequence[EdgeAction]) -> list[Edge]:
        out = []
        for a in actions:
            if isinstance(a, Replace):
                x, w = self.graph.lookup(a.target), self.graph.lookup(a.with_dep)
                if x is not None and w is not None:
                    out.append((x, w))
        return out

    def cut(self, actions: Sequence[EdgeAction]) -> list[Edge]:
        return [e for a in actions if not isinstance(a, Move) and (e := _ids(self.graph, a))]

    def finding(self, root: int, a: EdgeAction) -> Saving:
        if isinstance(a, Move):
            return Saving(compile_basis=MOVE_SAVES_NOTHING)
        return edge_saving(self.graph, root, self.cut([a]), self.model, self.reach, self.added([a]))

    def prefetch(self, findings: Sequence[Finding]) -> None:
        """Price in shared searches what `finding` and the proposals will ask for: each
        removable edge alone, and each (root, target)'s edges together."""
        requests: list[tuple[list[int], list[Edge]]] = []
        groups: dict[tuple[int, str], list[EdgeAction]] = defaultdict(list)
        for f in findings:
            a = action_of(f)
            r = self.graph.lookup(f.root or f.target)
            if not (f.removable and r is not None and isinstance(a, Remove | Move | Replace)):
                continue
            if _ids(self.graph, a) is None:
                continue
            if not isinstance(a, Move | Replace):
                requests.append(([r], self.cut([a])))
            if f.root:
                groups[(r, f.target)].append(a)
        for (r, _), acts in groups.items():
            if not any(isinstance(a, Replace) for a in acts):
                requests.append(([r], self.cut(acts)))
        self.reach.prefetch(requests)

    def roots(self, by_root: dict[int, list[EdgeAction]]) -> tuple[dict[int, Saving], Saving]:
        cuts = {r: self.cut(acts) for r, acts in by_root.items()}
        adds = {r: self.added(acts) for r, acts in by_root.items()}
        plan = plan_savings(self.graph, list(by_root), cuts, self.model, self.reach, adds)
        return plan.per_root, plan.global_saving


def _merge(planned: Saving, analyzer: Saving | None) -> Saving:
    """The planner's times and targets; an analyzer's measured bytes win where the
    planner found none."""
    if analyzer is None or not analyzer.bytes or planned.bytes:
        return planned
    return dataclasses.replace(planned, bytes=analyzer.bytes, bytes_basis=analyzer.bytes_basis)


def _complete(graph: BuildGraph, f: Finding, pricer: _Pricer) -> tuple[Finding, tuple[Fix, ...]]:
    a = action_of(f)
    fixes = write(graph, a, f.removable, f.dep_location) if a is not None else ()
    f = dataclasses.replace(f, action=a, fix=fixes[0] if fixes else None)
    r = graph.lookup(f.root or f.target)
    edge = isinstance(a, Remove | Move | Replace) and _ids(graph, a) is not None
    if f.removable and edge and r is not None and isinstance(a, Remove | Move | Replace):
        f = dataclasses.replace(f, saving=_merge(pricer.finding(r, a), f.saving))
    return f, fixes


def _new_deps(graph: BuildGraph, target: str, actions: Sequence[EdgeAction]) -> tuple[str, ...]:
    t = graph.lookup(target)
    if t is None:
        return ()
    attribute = actions[0].attribute
    kinds = {k for k in EdgeKind if k.attribute == attribute} or {EdgeKind.DEPS}
    if attribute == "deps":
        kinds |= {EdgeKind.UNTYPED}
    gone = {a.dep for a in actions}
    deps = {graph.labels[e.dep] for e in graph.out_edges(t, frozenset(kinds))} - gone
    deps |= {a.with_dep for a in actions if isinstance(a, Replace)}
    return tuple(sorted(deps))


def plan_report(
    graph: BuildGraph, roots: Sequence[int], findings: Sequence[Finding], facts: Facts
) -> Plan:
    """Fixes and savings for every finding, proposals per (root, target), totals."""
    model = build_costs(graph, facts)
    pricer = _Pricer(graph, model)
    pricer.prefetch(findings)
    out: list[Finding] = []
    groups: dict[tuple[str, str], list[tuple[Finding, tuple[Fix, ...]]]] = defaultdict(list)
    for f in findings:
        f, fixes = _complete(graph, f, pricer)
        out.append(f)
        if f.removable and isinstance(f.action, Remove | Move | Replace):
            groups[(f.root, f.target)].append((f, fixes))
    proposals = []
    for (root, target), items in sorted(groups.items()):
        actions = [f.action for f, _ in items if isinstance(f.action, Remove | Move | Replace)]
        r = graph.lookup(root) if root else None
        saving = pricer.roots({r: actions})[0][r] if r is not None else None
        proposals.append(
            Proposal(
                root=root,
                target=target,
                remove=tuple(sorted({a.dep for a in actions})),
                new_deps=_new_deps(graph, target, actions),
                fixes=tuple(sorted({x for _, fx in items for x in fx}, key=_fix_key)),
                saving=saving,
                codes=tuple(sorted({f.code for f, _ in items})),
            )
        )
    window, why = history_of(facts)
    savings = dataclasses.replace(
        summarize(graph, roots, out, pricer),
        schedules=schedules(pricer, roots),
        history=window,
        history_note=why,
    )
    return Plan(
        findings=out,
        proposals=proposals,
        savings=savings,
        timings=_coverage(model),
        notes=list(model.notes),
    )


def schedules(pricer: _Pricer, roots: Sequence[int]) -> tuple[RootSchedule, ...]:
    """Each root's clean build re-scheduled from the timeline, with its critical path."""
    sch = pricer.model.scheduler
    if sch is None:
        return ()
    labels = pricer.graph.labels
    out = []
    for r in roots:
        sim = sch.baseline(pricer.reach.closure([r]).tolist())
        out.append(
            RootSchedule(
                root=labels[r],
                jobs=sch.timeline.jobs,
                seconds=sim.seconds,
                critical_seconds=sim.critical_seconds,
                critical_path=tuple(labels[t] for t in sim.critical),
                source=sch.timeline.source,
                tool_critical_path=sch.timeline.tool_critical,
            )
        )
    return tuple(sorted(out, key=lambda x: x.root))


def history_of(facts: Facts) -> tuple[HistoryWindow | None, str]:
    """The history window of the quarterly figures, or why there is none."""
    hs = facts.of(ChangeHistory)
    if not hs:
        why = [n.reason for n in facts.of(NoHistory)]
        return None, why[0] if why else "no history given"
    h = hs[0]
    window = HistoryWindow(
        source=h.source,
        days=h.days,
        until=h.until,
        anchor=h.anchor,
        commits=len(h.commits),
        covered_days=h.covered_days,
        phrase=h.phrase,
    )
    return window, ""


def _fix_key(x: Fix) -> tuple[str, str]:
    return (x.kind, x.command)


def summarize(
    graph: BuildGraph, roots: Sequence[int], findings: Sequence[Finding], pricer: _Pricer
) -> SavingsSummary:
    """Savings of every removable action at once, per root and over all roots."""
    by_root: dict[int, list[EdgeAction]] = {}
    excluded = []
    labels = {graph.labels[r]: r for r in roots}
    for f in findings:
        a = f.action
        if not f.removable or not isinstance(a, Remove | Move | Replace):
            continue
        if isinstance(a, Move):
            excluded.append(Excluded(f.code, f.root, f.target, f.dep, MOVE_SAVES_NOTHING))
            continue
        r = labels.get(f.root)
        if r is not None and _ids(graph, a) is not None:
            by_root.setdefault(r, []).append(a)
    if not by_root:
        return SavingsSummary(excluded=tuple(excluded))
    per_root, total = pricer.roots(by_root)
    measured = _measured_bytes(findings)
    per_root = {
        r: dataclasses.replace(
            s,
            bytes=measured.get(graph.labels[r], (0, ""))[0],
            bytes_basis=measured.get(graph.labels[r], (0, ""))[1],
        )
        for r, s in per_root.items()
    }
    bases = sorted({b for _, b in measured.values() if b})
    total = dataclasses.replace(
        total, bytes=sum(n for n, _ in measured.values()), bytes_basis="; ".join(bases)
    )
    return SavingsSummary(
        per_root=tuple(sorted((graph.labels[r], s) for r, s in per_root.items())),
        total=total,
        excluded=tuple(sorted(excluded, key=lambda e: (e.root, e.target, e.dep, e.code))),
    )


def _measured_bytes(findings: Sequence[Finding]) -> dict[str, tuple[int, str]]:
    """Per root, the bytes its removable findings save (each binary shrinks on its own)."""
    out: dict[str, tuple[int, str]] = {}
    for f in findings:
        if f.removable and f.saving is not None and f.saving.bytes:
            n, basis = out.get(f.root, (0, ""))
            out[f.root] = (n + f.saving.bytes, basis or f.saving.bytes_basis)
    return out


def _coverage(model: CostModel) -> TimingCoverage | None:
    if not model.actions and not model.cache_stats:
        return None
    labels = model.graph.labels
    return TimingCoverage(
        actions=model.actions,
        attributed=model.actions - model.unattributed,
        unattributed_seconds=round(model.unattributed_seconds, 3),
        cache=tuple(sorted((labels[t], h, m) for t, (h, m) in model.cache.items())),
        cache_stats=tuple(
            (cs.source, lang, h, m) for cs in model.cache_stats for lang, h, m in cs.by_language
        ),
    )


def edge_actions(findings: Sequence[Finding]) -> list[EdgeAction]:
    """Every distinct edge action the removable findings propose (what `apply` and
    `verify` carry out), sorted."""
    seen = {
        f.action for f in findings if f.removable and isinstance(f.action, Remove | Move | Replace)
    }
    return sorted(seen, key=lambda a: (a.target, a.dep, a.verb))


def rank_actions(
    graph: BuildGraph,
    facts: Facts,
    by_root: Mapping[int, Sequence[EdgeAction]],
    order: Sequence[EdgeAction],
) -> tuple[SavingsSummary, list[Saving]]:
    """The saving of every action over all roots (what `slim report` gives for them), and
    each action's share in `order`: priced one after another over all roots, so the
    shares add up to the total compile time and targets."""
    from slim.plan.quarter import quarter
    from slim.plan.savings import price

    pricer = _Pricer(graph, build_costs(graph, facts))
    if not by_root:
        return SavingsSummary(), [Saving() for _ in order]
    per_root, total = pricer.roots({r: list(a) for r, a in by_root.items()})
    roots = sorted(by_root)
    shares: list[Saving] = []
    prev = Saving()
    prev_gone: set[int] = set()
    prev_new: set[int] = set()
    for k in range(1, len(order) + 1):
        acts = list(order[:k])
        gone, new = pricer.reach.delta(roots, pricer.cut(acts), pricer.added(acts))
        now = price(pricer.model, gone, added=new)
        share_gone = sorted(set(gone.tolist()) - prev_gone)
        share_new = sorted(set(new.tolist()) - prev_new)
        shares.append(
            Saving(
                compile_seconds=round(now.compile_seconds - prev.compile_seconds, 3),
                removed=tuple(sorted(set(now.removed) - set(prev.removed))),
                added=tuple(sorted(set(now.added) - set(prev.added))),
                compile_basis=now.compile_basis,
                quarter=quarter(pricer.model, share_gone, share_new),
            )
        )
        prev, prev_gone, prev_new = now, set(gone.tolist()), set(new.tolist())
    summary = SavingsSummary(
        per_root=tuple(sorted((graph.labels[r], s) for r, s in per_root.items())), total=total
    )
    return summary, shares
