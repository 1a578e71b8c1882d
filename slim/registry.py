"""Analyzers, found through the `slim.analyzers` entry-point group (built-ins included).

A third party adds a detector by exposing an `AnalyzerSpec` under that group; slim's own
analyzers are registered the same way in its `pyproject.toml`, so the plugin path is
exercised on every run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Protocol

from slim.errors import ConfigError
from slim.model.context import AnalysisContext
from slim.model.findings import Finding, Rule

GROUP = "slim.analyzers"


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


def discover() -> list[AnalyzerSpec]:
    """Every registered analyzer, sorted by its first rule code; duplicates are an error."""
    specs: dict[str, AnalyzerSpec] = {}
    seen_codes: dict[str, str] = {}
    for ep in entry_points(group=GROUP):
        spec = ep.load()
        if not isinstance(spec, AnalyzerSpec):
            raise ConfigError(f"entry point {ep.name} = {ep.value} is not an AnalyzerSpec")
        for code in spec.codes:
            if code in seen_codes and seen_codes[code] != ep.value:
                raise ConfigError(
                    f"rule {code} registered twice: {seen_codes[code]} and {ep.value}"
                )
            seen_codes[code] = ep.value
        specs[ep.value] = spec
    return sorted(specs.values(), key=lambda s: (s.codes[0] if s.codes else "", s.name))
