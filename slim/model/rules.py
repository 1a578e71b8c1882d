"""The one rule table: slim's own core rules plus every discovered analyzer's.

`slim analyzers`, `slim explain`, the SARIF rules and the report's rule list all read it,
so every code a report can emit is explainable.
"""

from __future__ import annotations

from collections.abc import Iterable

from slim.errors import ConfigError
from slim.model.facts import EVIDENCE_KINDS
from slim.model.findings import Rule
from slim.model.plugin import AnalyzerSpec

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
STALE_SUPPRESSION = Rule(
    code="SLIM990",
    name="stale-suppression",
    summary="A suppression (`# slim: keep(...)` or a config `keep` entry) matches no finding.",
    help=(
        "The kept edge is no longer reported: it is used now, it was removed, or the check "
        "that flagged it did not run. Delete the suppression so keep-lists do not rot, or "
        "give the evidence the check needs."
    ),
)
CORE_RULES: tuple[Rule, ...] = (EVIDENCE_MISSING, STALE_SUPPRESSION)


def check_spec(spec: AnalyzerSpec, where: str) -> None:
    """An analyzer may only require evidence kinds slim knows how to give."""
    unknown = sorted(set(spec.requires) - set(EVIDENCE_KINDS))
    if unknown:
        raise ConfigError(
            f"analyzer {where}: requires unknown evidence kind {', '.join(unknown)} "
            f"(known: {', '.join(EVIDENCE_KINDS)})"
        )


def rule_table(specs: Iterable[AnalyzerSpec]) -> dict[str, tuple[Rule, AnalyzerSpec | None]]:
    """Every rule code -> (rule, the analyzer that emits it; None for core rules), sorted."""
    table: dict[str, tuple[Rule, AnalyzerSpec | None]] = {r.code: (r, None) for r in CORE_RULES}
    for spec in specs:
        for r in spec.rules:
            table.setdefault(r.code, (r, spec))
    return dict(sorted(table.items()))
