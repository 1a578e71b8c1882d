"""Analyzers, found through the `slim.analyzers` entry-point group (built-ins included).

A third party adds a detector by exposing an `AnalyzerSpec` under that group; slim's own
analyzers are registered the same way in its `pyproject.toml`, so the plugin path is
exercised on every run.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from slim.errors import ConfigError
from slim.model.plugin import AnalyzerSpec
from slim.model.rules import CORE_RULES, check_spec

CORE_CODES = frozenset(r.code for r in CORE_RULES)

GROUP = "slim.analyzers"


def discover() -> list[AnalyzerSpec]:
    """Every registered analyzer, sorted by its first rule code; duplicates are an error."""
    specs: dict[str, AnalyzerSpec] = {}
    seen_codes: dict[str, str] = {}
    for ep in entry_points(group=GROUP):
        spec = ep.load()
        if not isinstance(spec, AnalyzerSpec):
            raise ConfigError(f"entry point {ep.name} = {ep.value} is not an AnalyzerSpec")
        check_spec(spec, ep.value)
        for code in spec.codes:
            if code in CORE_CODES:
                raise ConfigError(f"entry point {ep.value}: rule {code} is one of slim's own")
            if code in seen_codes and seen_codes[code] != ep.value:
                raise ConfigError(
                    f"rule {code} registered twice: {seen_codes[code]} and {ep.value}"
                )
            seen_codes[code] = ep.value
        specs[ep.value] = spec
    return sorted(specs.values(), key=lambda s: (s.codes[0] if s.codes else "", s.name))
