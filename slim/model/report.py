"""The report: everything renderers need, sorted and frozen (renderers know only this)."""

from __future__ import annotations

from dataclasses import dataclass, field

from slim.model.facts import InputFile
from slim.model.findings import Finding, Rule, Saving

SCHEMA = "slim.report/1"


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
    """A pruned target: its new dependency list and the commands that make it so."""

    root: str
    target: str
    remove: tuple[str, ...]
    new_deps: tuple[str, ...]
    commands: tuple[str, ...]
    saving: Saving | None = None
    codes: tuple[str, ...] = ()


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
    totals: tuple[tuple[str, float | int | str], ...] = field(default=())
    suppressed: tuple[Finding, ...] = ()

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
        totals: dict[str, float | int | str] | None = None,
        suppressed: list[Finding] | None = None,
    ) -> Report:
        return Report(
            roots=tuple(sorted(roots, key=lambda r: r.label)),
            inputs=tuple(sorted(set(inputs), key=lambda i: (i.evidence, i.path, i.format))),
            evidence=tuple(evidence),
            findings=tuple(sorted(set(findings), key=lambda f: f.sort_key)),
            rules=tuple(sorted({r.code: r for r in rules}.values(), key=lambda r: r.code)),
            proposals=tuple(sorted(proposals or [], key=lambda p: (p.root, p.target))),
            notes=tuple(dict.fromkeys(notes or [])),
            totals=tuple(sorted((totals or {}).items())),
            suppressed=tuple(sorted(set(suppressed or []), key=lambda f: f.sort_key)),
        )

    @property
    def removable(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.removable)
