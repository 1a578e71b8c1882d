"""Run every selected analyzer on every root and assemble the report.

An analyzer whose evidence was not given does not run silently to "no findings": it
yields a SLIM900 evidence-missing finding naming what to pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from slim.model.context import AnalysisContext, Options
from slim.model.facts import EVIDENCE_KINDS, Facts
from slim.model.findings import Confidence, Finding, Rule
from slim.model.graph import BUILD_KINDS, BuildGraph
from slim.model.report import EvidenceStatus, Report, RootSummary
from slim.registry import AnalyzerSpec, discover

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
    closure = graph.closure([root], BUILD_KINDS)
    ids = set(closure.tolist())
    kinds = Counter(graph.kinds[i] or "(external)" for i in ids)
    attrs: Counter[str] = Counter()
    n_edges = 0
    for i in ids:
        for e in graph.out_edges(i, BUILD_KINDS):
            n_edges += 1
            attrs[e.kind.attribute] += 1
    direct = sorted({graph.labels[e.dep] for e in graph.out_edges(root, BUILD_KINDS)})
    return RootSummary(
        label=graph.labels[root],
        kind=graph.kinds[root],
        targets=len(ids),
        edges=n_edges,
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
) -> Report:
    """Findings of every selected analyzer for every root, planned and sorted."""
    from slim.plan import plan_report

    opts = options or Options()
    specs = list(discover() if specs is None else specs)
    status = evidence_status(graph, facts, opts)
    given = {s.kind for s in status if s.given}
    findings: list[Finding] = []
    rules: list[Rule] = [EVIDENCE_MISSING]
    for spec in specs:
        codes = set(spec.codes)
        if select and not codes & set(select):
            continue
        if ignore and codes <= set(ignore):
            continue
        rules.extend(spec.rules)
        for root in roots:
            label = graph.labels[root]
            if spec.requires and not spec.requires & given:
                findings.append(_missing(spec, label))
                continue
            ctx = AnalysisContext(graph=graph, root=root, facts=facts, options=opts)
            for f in spec.factory().analyze(ctx):
                if f.code in ignore or (select and f.code not in select and f.code != "SLIM900"):
                    continue
                findings.append(f)
    summaries = [summarize_root(graph, r) for r in roots]
    proposals, findings, totals = plan_report(graph, roots, findings, facts)
    return Report.create(
        roots=summaries,
        inputs=list(facts.inputs),
        evidence=status,
        findings=findings,
        rules=rules,
        proposals=proposals,
        notes=list(graph.notes),
        totals=totals,
    )
