"""Turn removable findings into pruned targets and ready-to-run buildozer commands."""

from __future__ import annotations

import dataclasses
import shlex
from collections import defaultdict
from collections.abc import Sequence

from slim.model.facts import Facts
from slim.model.findings import Finding, Fix
from slim.model.graph import BUILD_KINDS, BuildGraph, EdgeKind
from slim.model.report import Proposal


def buildozer_remove(attribute: str, dep: str, target: str) -> str:
    """`buildozer 'remove deps //x:y' //a:b` (quoted for a POSIX shell)."""
    return f"buildozer {shlex.quote(f'remove {attribute} {dep}')} {shlex.quote(target)}"


def _with_fix(f: Finding) -> Finding:
    if f.fix is not None or not f.removable or not f.dep:
        return f
    attr = f.attribute or "deps"
    if attr.startswith("deps ("):
        attr = "deps"
    return dataclasses.replace(f, fix=Fix(buildozer_remove(attr, f.dep, f.target)))


def plan_report(
    graph: BuildGraph,
    roots: Sequence[int],
    findings: list[Finding],
    facts: Facts,
) -> tuple[list[Proposal], list[Finding], dict[str, float | int | str]]:
    """Proposals per (root, target), findings completed with fixes, and report totals."""
    del facts
    findings = [_with_fix(f) for f in findings]
    cuts: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for f in findings:
        if f.removable and f.dep:
            cuts[(f.root, f.target)].append(f)
    proposals = []
    for (root, target), fs in sorted(cuts.items()):
        t = graph.lookup(target)
        removed = tuple(sorted({f.dep for f in fs}))
        new_deps: tuple[str, ...] = ()
        if t is not None:
            new_deps = tuple(
                sorted(
                    {
                        graph.labels[e.dep]
                        for e in graph.out_edges(t, frozenset({EdgeKind.DEPS}))
                        if graph.labels[e.dep] not in removed
                    }
                )
            )
        commands = tuple(sorted({f.fix.command for f in fs if f.fix is not None}))
        proposals.append(
            Proposal(
                root=root,
                target=target,
                remove=removed,
                new_deps=new_deps,
                commands=commands,
                codes=tuple(sorted({f.code for f in fs})),
            )
        )
    totals: dict[str, float | int | str] = {
        "findings": len(findings),
        "removable": sum(1 for f in findings if f.removable),
    }
    for r in roots:
        cut_edges = []
        for f in findings:
            if f.removable and f.dep and f.root == graph.labels[r]:
                a, b = graph.lookup(f.target), graph.lookup(f.dep)
                if a is not None and b is not None:
                    cut_edges.append((a, b))
        if cut_edges:
            before = graph.closure([r], BUILD_KINDS)
            after = graph.closure_without(r, cut_edges, BUILD_KINDS)
            totals[f"targets_removed[{graph.labels[r]}]"] = len(before) - len(after)
    return proposals, findings, totals
