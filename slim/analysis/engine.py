"""Run every selected analyzer on every root and assemble the report.

An analyzer whose evidence was not given does not run silently to "no findings": it
yields a SLIM900 evidence-missing finding naming what to pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from slim.analysis.registry import discover
from slim.analysis.suppress import STALE_SUPPRESSION, Keep
from slim.analysis.suppress import apply as apply_suppressions
from slim.model.context import AnalysisContext, Options
from slim.model.facts import EVIDENCE_KINDS, Facts
from slim.model.findings import Confidence, Finding, Rule
from slim.model.graph import BUILD_KINDS, BuildGraph
from slim.model.plugin import AnalyzerSpec
from slim.model.report import EvidenceStatus, Report, RootSummary

EVIDENCE_MISSING = Rule(
    code="SLIM900",
    name="evidence-missing",
    summary="A check could not run because the evidence it needs was not given.",
    help=(
        "slim never reads missing evidence as 'all clear'. Pass the named input "
        "(--trace, --workspace, --linkmap, --binary, --timings) or name it in slim.toml "
        "to let the check run."
    ),
)


def summarize_root(graph: BuildGraph, root: int) -> RootSummary:
    """The root's closure: targets by rule kind and edges by attribute (vectorized)."""
    import numpy as np

    from slim.model.graph import EdgeKind

    closure = graph.closure([root], BUILD_KINDS)
    inside = np.zeros(len(graph), dtype=bool)
    inside[closure] = True
    build = graph.edge_mask(BUILD_KINDS)
    sel = build & inside[graph.edge_src]
    per_kind = np.bincount(graph.edge_kind[sel].astype(np.int64), minlength=len(EdgeKind))
    attrs = {EdgeKind(k).attribute: int(n) for k, n in enumerate(per_kind.tolist()) if n}
    kinds = Counter(graph.kinds[i] or "(external)" for i in closure.tolist())
    direct = sorted({graph.labels[e.dep] for e in graph.out_edges(root, BUILD_KINDS)})
    return RootSummary(
        label=graph.labels[root],
        kind=graph.kinds[root],
        targets=len(closure),
        edges=int(sel.sum()),
        direct_deps=tuple(direct),
        by_kind=tuple(sorted(kinds.items())),
        edges_by_attribute=tuple(sorted(attrs.items())),
    )


def evidence_status(graph: BuildGraph, facts: Facts, options: Options) -> list[EvidenceStatus]:
    out = []
    for kind, description in EVIDENCE_KINDS.items():
        files = tuple(sorted(i.path for i in facts.given(kind)))
        note = ""
        if kind == "source" and options.workspace is not None:
            files = (str(options.workspace),)
        if kind == "graph":
            note = "; ".join(graph.notes)
        given = bool(files)
        out.append(EvidenceStatus(kind, description, given, files, note))
    return out


def _missing(spec: AnalyzerSpec, root: str) -> Finding:
    need = " or ".join(sorted(spec.requires))
    hint = f" {spec.missing_hint}" if spec.missing_hint else ""
    return Finding(
        code=EVIDENCE_MISSING.code,
        name=EVIDENCE_MISSING.name,
        target=root,
        dep="",
        root=root,
        verdict="not-checked",
        message=f"{'/'.join(spec.codes)} {spec.name} not checked: no {need} evidence given.{hint}",
        confidence=Confidence.HIGH,
        removable=False,
    )


def analyze(
    graph: BuildGraph,
    roots: Sequence[int],
    facts: Facts,
    options: Options | None = None,
    *,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    specs: Sequence[AnalyzerSpec] | None = None,
    keep: Sequence[Keep] = (),
) -> Report:
    """Findings of every selected analyzer for every root, planned and sorted."""
    from slim.plan import plan_report

    opts = options or Options()
    specs = list(discover() if specs is None else specs)
    status = evidence_status(graph, facts, opts)
    given = {s.kind for s in status if s.given}
    findings: list[Finding] = []
    rules: list[Rule] = [EVIDENCE_MISSING]
    contexts = {
        root: AnalysisContext(graph=graph, root=root, facts=facts, options=opts) for root in roots
    }
    for spec in specs:
        codes = set(spec.codes)
        if select and not codes & set(select):
            continue
        if ignore and codes <= set(ignore):
            continue
        rules.extend(spec.rules)
        for root in roots:
            label = graph.labels[root]
            ctx = contexts[root]
            if spec.applies is not None and not spec.applies(ctx):
                continue
            if spec.requires and not spec.requires & given:
                findings.append(_missing(spec, label))
                continue
            for f in spec.factory().analyze(ctx):
                if f.code in ignore or (select and f.code not in select and f.code != "SLIM900"):
                    continue
                findings.append(f)
    kept = apply_suppressions(graph, roots, findings, opts.workspace, keep)
    findings = kept.findings + kept.stale
    if kept.stale:
        rules.append(STALE_SUPPRESSION)
    summaries = [summarize_root(graph, r) for r in roots]
    proposals, findings, totals = plan_report(graph, roots, findings, facts)
    return Report.create(
        roots=summaries,
        inputs=list(facts.inputs),
        evidence=status,
        findings=findings,
        rules=rules,
        proposals=proposals,
        notes=list(graph.notes) + [str(v) for k, v in totals.items() if k.startswith("note:")],
        totals=totals,
        suppressed=kept.suppressed,
    )
