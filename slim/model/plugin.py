"""The plugin contract: an `AnalyzerSpec` names a detector's rules, evidence and factory.

A third party exposes one under the `slim.analyzers` entry-point group; slim's own
analyzers are registered the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from slim.model.context import AnalysisContext
from slim.model.findings import Finding, Rule


class Analyzer(Protocol):
    def analyze(self, ctx: AnalysisContext) -> Iterable[Finding]: ...


@dataclass(frozen=True)
class AnalyzerSpec:
    """A detector: the rules it emits, the evidence it needs (any one of), its factory."""

    name: str
    rules: tuple[Rule, ...]
    requires: frozenset[str]
    factory: Callable[[], Analyzer]
    missing_hint: str = ""
    applies: Callable[[AnalysisContext], bool] | None = None
    """Whether the check concerns this root at all (a Python check on a C++ binary does
    not); when it does not, its missing evidence is not reported either."""

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(r.code for r in self.rules)
