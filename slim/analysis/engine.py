"""Run every selected analyzer on every root, each on its own evidence, and build the report.

An analyzer whose evidence was not given does not run silently to "no findings": it
yields a SLIM900 evidence-missing finding naming what to pass. Each root gets only its
own facts (global inputs plus its `[targets."//x"]` inputs), so one root's trace or map
never decides another root's edges.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from slim.analysis.registry import discover
from slim.analysis.suppress import Keep
from slim.analysis.suppress import apply as apply_suppressions
from slim.model.context import AnalysisContext
from slim.model.facts import EVIDENCE_KINDS, Facts, InputFile
from slim.model.findings import Confidence, Finding, Rule
from slim.model.graph import BUILD_KINDS, BuildGraph
from slim.model.options import RootOptions
from slim.model.plugin import AnalyzerSpec
from slim.model.report import EvidenceStatus, Report, ReviewSummary, RootSummary
from slim.model.rules import EVIDENCE_MISSING, STALE_SUPPRESSION
from slim.plan.joint import jointly
from slim.plan.prune import plan_report


@dataclass(frozen=True)
class RootInput:
    """One root and what it is judged on."""

    root: int
    facts: Facts
    options: RootOptions = field(default_factory=RootOptions)


def same_evidence(
    roots: Sequence[int], facts: Facts, options: RootOptions | None = None
) -> list[RootInput]:
    """Roots that share one set of evidence and options (a library caller's simple case)."""
    return [RootInput(r, facts, options or RootOptions()) for r in roots]


@dataclass
class Analysis:
    """Findings of one run before planning (what `review` diffs and `cleanup` stores)."""

    findings: list[Finding]
    suppressed: list[Finding]
    rules: list[Rule]
    evidence: list[EvidenceStatus]
    inputs: list[InputFile]
    notes: list[str] = field(default_factory=list)
    """How link evidence was tied to binaries where names did not tell, and what could
    not be tied (`slim.model.linkage`)."""


def summarize_root(graph: BuildGraph, root: int) -> RootSummary:
    """The root's closure: targets by rule kind and edges by attribute (vectorized over the
    closure's own out-edges, never the whole graph's)."""
    import numpy as np

    from slim.model.graph import EdgeKind

    closure = graph.closure([root], BUILD_KINDS)
    out_kinds = graph.edge_kind[graph.edge_ids_of(closure)].astype(np.int64)
    build = out_kinds[np.isin(out_kinds, [int(k) for k in BUILD_KINDS])]
    per_kind = np.bincount(build, minlength=len(EdgeKind))
    attrs = {EdgeKind(k).attribute: int(n) for k, n in enumerate(per_kind.tolist()) if n}
    kinds = Counter(graph.kinds[i] or "(external)" for i in closure.tolist())
    direct = sorted({graph.labels[e.dep] for e in graph.out_edges(root, BUILD_KINDS)})
    return RootSummary(
        label=graph.labels[root],
        kind=graph.kinds[root],
        targets=len(closure),
        edges=len(build),
        direct_deps=tuple(direct),
        by_kind=tuple(sorted(kinds.items())),
        edges_by_attribute=tuple(sorted(attrs.items())),
    )


def evidence_status(graph: BuildGraph, roots: Sequence[RootInput]) -> list[EvidenceStatus]:
    """Each evidence kind: given (by which files, over every root) or missing."""
    out = []
    for kind, description in EVIDENCE_KINDS.items():
        files = sorted({i.path for r in roots for i in r.facts.given(kind)})
        note = ""
        if kind == "source":
            files = sorted({str(r.options.workspace) for r in roots if r.options.workspace})
        if kind == "graph":
            note = "; ".join(graph.notes)
        out.append(EvidenceStatus(kind, description, bool(files), tuple(files), note))
    return out


def _given(r: RootInput) -> set[str]:
    return r.facts.kinds_given(workspace=r.options.workspace is not None)


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


def _wanted(code: str, select: Sequence[str], ignore: Sequence[str]) -> bool:
    if any(code.startswith(p) for p in ignore):
        return False
    return not select or any(code.startswith(p) for p in select)


def run_analyzers(
    graph: BuildGraph,
    roots: Sequence[RootInput],
    *,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    specs: Sequence[AnalyzerSpec] | None = None,
    keep: Sequence[Keep] = (),
    evidence_of: Callable[[str], Facts | None] | None = None,
    options_of: Callable[[str], RootOptions] | None = None,
) -> Analysis:
    """Findings of every selected analyzer for every root, suppressions applied."""
    specs = list(discover() if specs is None else specs)
    findings: list[Finding] = []
    rules: list[Rule] = [EVIDENCE_MISSING]
    ids = tuple(r.root for r in roots)
    contexts = [
        AnalysisContext(
            graph=graph,
            root=r.root,
            facts=r.facts,
            options=r.options,
            roots=ids,
            evidence_of=evidence_of or (lambda _label: None),
            options_of=options_of or (lambda _label: RootOptions()),
        )
        for r in roots
    ]
    for spec in specs:
        codes = [c for c in spec.codes if _wanted(c, select, ignore)]
        if not codes:
            continue
        rules.extend(r for r in spec.rules if r.code in codes)
        for r, ctx in zip(roots, contexts, strict=True):
            label = graph.labels[r.root]
            if spec.applies is not None and not spec.applies(ctx):
                continue
            if spec.requires and not spec.requires & _given(r):
                findings.append(_missing(spec, label))
                continue
            findings.extend(f for f in spec.factory().analyze(ctx) if f.code in codes)
    workspace = next((r.options.workspace for r in roots if r.options.workspace), None)
    kept = apply_suppressions(graph, ids, findings, workspace, keep)
    if kept.stale:
        rules.append(STALE_SUPPRESSION)
    return Analysis(
        findings=jointly(graph, kept.findings) + kept.stale,
        suppressed=kept.suppressed,
        rules=rules,
        evidence=evidence_status(graph, roots),
        inputs=sorted({i for r in roots for i in r.facts.inputs}, key=_input_key),
        notes=linkage_notes(graph, roots),
    )


def linkage_notes(graph: BuildGraph, roots: Sequence[RootInput]) -> list[str]:
    """What the run's link evidence could not tie to a link, or tied only by content."""
    if not any(r.facts.may_hold("slim.model.native") for r in roots):
        return []
    from slim.model.linkage import Linkage
    from slim.model.native import LinkMap

    out: dict[str, None] = {}
    for r in roots:
        if r.facts.of(LinkMap):
            out.update(dict.fromkeys(Linkage.of(graph, r.facts).notes))
    return sorted(out)


def _input_key(i: InputFile) -> tuple[str, str, str]:
    return (i.evidence, i.path, i.format)


def union_facts(roots: Sequence[RootInput]) -> Facts:
    """Every root's facts at once (timings for the cost model), each fact once."""
    out = Facts()
    seen: set[int] = set()
    for r in roots:
        for fact in r.facts.all():
            if id(fact) not in seen:
                seen.add(id(fact))
                out.add(fact)
        out.inputs.extend(i for i in r.facts.inputs if i not in out.inputs)
    return out


def fact_notes(facts: Facts) -> list[str]:
    """What the readers noted about each evidence file (parts recovered, ignored or
    skipped), prefixed by the file, each once, in a stable order."""
    out: list[str] = []
    for fact in facts.all():
        where = getattr(fact, "path", "") or getattr(fact, "source", "")
        notes: tuple[str, ...] = getattr(fact, "notes", ())
        out.extend(f"{where}: {n}" if where else n for n in notes)
    return sorted(dict.fromkeys(out))


def build_report(
    graph: BuildGraph,
    roots: Sequence[RootInput],
    analysis: Analysis,
    review: ReviewSummary | None = None,
    notes: Sequence[str] = (),
) -> Report:
    """Plan the analysis (fixes, savings, proposals) and assemble the report."""
    ids = [r.root for r in roots]
    facts = union_facts(roots)
    plan = plan_report(graph, ids, analysis.findings, facts)
    return Report.create(
        roots=[summarize_root(graph, r) for r in ids],
        inputs=analysis.inputs,
        evidence=analysis.evidence,
        findings=plan.findings,
        rules=analysis.rules,
        proposals=plan.proposals,
        notes=list(
            dict.fromkeys([*notes, *fact_notes(facts), *graph.notes, *analysis.notes, *plan.notes])
        ),
        savings=plan.savings,
        timings=plan.timings,
        suppressed=analysis.suppressed,
        review=review,
    )


def analyze(
    graph: BuildGraph,
    roots: Sequence[RootInput],
    *,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    specs: Sequence[AnalyzerSpec] | None = None,
    keep: Sequence[Keep] = (),
    evidence_of: Callable[[str], Facts | None] | None = None,
) -> Report:
    """Analyze and plan: the report of one run."""
    analysis = run_analyzers(
        graph,
        roots,
        select=select,
        ignore=ignore,
        specs=specs,
        keep=keep,
        evidence_of=evidence_of,
    )
    return build_report(graph, roots, analysis)
