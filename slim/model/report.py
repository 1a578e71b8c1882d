"""The report: everything renderers need, sorted and frozen (renderers know only this)."""

from __future__ import annotations

from dataclasses import dataclass, field

from slim.model.facts import InputFile
from slim.model.findings import Finding, Fix, Rule, Saving

SCHEMA = "slim.report/2"


@dataclass(frozen=True, slots=True)
class EvidenceStatus:
    """Whether one kind of evidence was given, from which files, and what that means."""

    kind: str
    description: str
    given: bool
    files: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True, slots=True)
class RootSummary:
    """The dependency closure of one root binary."""

    label: str
    kind: str
    targets: int
    edges: int
    direct_deps: tuple[str, ...]
    by_kind: tuple[tuple[str, int], ...]
    edges_by_attribute: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Proposal:
    """A pruned target: its new dependency list and the fixes that make it so."""

    root: str
    target: str
    remove: tuple[str, ...]
    new_deps: tuple[str, ...]
    fixes: tuple[Fix, ...]
    saving: Saving | None = None
    codes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Excluded:
    """A removable finding whose cut removes no target from the build, and why."""

    code: str
    root: str
    target: str
    dep: str
    reason: str


@dataclass(frozen=True, slots=True)
class RootSchedule:
    """A root's clean build re-scheduled from the timeline: its wall clock at -jN and its
    critical path (the longest chain of the dependency order)."""

    root: str
    jobs: int
    seconds: float
    critical_seconds: float
    critical_path: tuple[str, ...]
    """Targets on the critical path, first to last."""
    source: str
    tool_critical_path: tuple[str, ...] = ()
    """The build tool's own critical path, when the timings carry it (Bazel profile)."""


@dataclass(frozen=True, slots=True)
class HistoryWindow:
    """The VCS history the quarterly figures come from."""

    source: str
    days: int
    until: str
    anchor: str
    """`newest commit` or `given` (--history-until)."""
    commits: int
    covered_days: float
    phrase: str


@dataclass(frozen=True, slots=True)
class SavingsSummary:
    """What every proposed action saves, per root and over all roots (a target counted
    once however many roots stop building it); the per-finding figures are each cut alone."""

    per_root: tuple[tuple[str, Saving], ...] = ()
    total: Saving = field(default_factory=Saving)
    excluded: tuple[Excluded, ...] = ()
    schedules: tuple[RootSchedule, ...] = ()
    history: HistoryWindow | None = None
    history_note: str = ""
    """Why there is no history when there is none (no git work tree, --history-days 0)."""

    def of(self, root: str) -> Saving | None:
        return dict(self.per_root).get(root)


@dataclass(frozen=True, slots=True)
class TimingCoverage:
    """How much of the given build timings slim could attribute to targets of the graph."""

    actions: int = 0
    attributed: int = 0
    unattributed_seconds: float = 0.0
    cache: tuple[tuple[str, int, int], ...] = ()
    """Per target whose actions carry cache outcomes: (label, hits, misses), by label."""
    cache_stats: tuple[tuple[str, str, int, int], ...] = ()
    """Per compiler-cache stats file and language: (file, language, hits, misses)."""

    @property
    def unattributed(self) -> int:
        return self.actions - self.attributed


@dataclass(frozen=True, slots=True)
class RootDelta:
    """How a change moved one root: closure size, edges, removable targets."""

    root: str
    targets: int
    edges: int
    removable_targets: int
    new_binary: bool = False
    new_gpu_code: bool = False


@dataclass(frozen=True, slots=True)
class ReviewSummary:
    """What `slim review` found a change did: findings it introduced, changed and fixed."""

    introduced: int
    changed: int
    fixed: tuple[str, ...]
    deltas: tuple[RootDelta, ...]


@dataclass(frozen=True)
class Report:
    """One run's result; build it through `Report.create` so ordering is canonical."""

    roots: tuple[RootSummary, ...]
    inputs: tuple[InputFile, ...]
    evidence: tuple[EvidenceStatus, ...]
    findings: tuple[Finding, ...]
    rules: tuple[Rule, ...]
    proposals: tuple[Proposal, ...] = ()
    notes: tuple[str, ...] = ()
    savings: SavingsSummary = field(default_factory=SavingsSummary)
    timings: TimingCoverage | None = None
    suppressed: tuple[Finding, ...] = ()
    review: ReviewSummary | None = None
    source_root: str = ""
    """The workspace relative to the repository root (`sample_graphs/monorepo`): locations
    are relative to the workspace, code-scanning URIs to the repository root."""

    @staticmethod
    def create(
        *,
        roots: list[RootSummary],
        inputs: list[InputFile],
        evidence: list[EvidenceStatus],
        findings: list[Finding],
        rules: list[Rule],
        proposals: list[Proposal] | None = None,
        notes: list[str] | None = None,
        savings: SavingsSummary | None = None,
        timings: TimingCoverage | None = None,
        suppressed: list[Finding] | None = None,
        review: ReviewSummary | None = None,
    ) -> Report:
        return Report(
            roots=tuple(sorted(roots, key=lambda r: r.label)),
            inputs=tuple(sorted(set(inputs), key=lambda i: (i.evidence, i.path, i.format))),
            evidence=tuple(evidence),
            findings=tuple(sorted(set(findings), key=lambda f: f.sort_key)),
            rules=tuple(sorted({r.code: r for r in rules}.values(), key=lambda r: r.code)),
            proposals=tuple(sorted(proposals or [], key=lambda p: (p.root, p.target))),
            notes=tuple(dict.fromkeys(notes or [])),
            savings=savings or SavingsSummary(),
            timings=timings,
            suppressed=tuple(sorted(set(suppressed or []), key=lambda f: f.sort_key)),
            review=review,
        )

    @property
    def removable(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.removable)
