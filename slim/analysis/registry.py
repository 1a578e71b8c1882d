"""Analyzers, found through the `slim.analyzers` entry-point group (built-ins included).

A third party adds a detector by exposing an `AnalyzerSpec` under that group; slim's own
analyzers are registered the same way in its `pyproject.toml`, so the plugin path is
exercised on every run.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from functools import reduce

from slim.errors import ConfigError
from slim.model.plugin import AnalyzerSpec
from slim.model.rules import CORE_RULES, check_spec

CORE_CODES = frozenset(r.code for r in CORE_RULES)

GROUP = "slim.analyzers"


def registered() -> list[tuple[str, str]]:
    """(name, value) of each entry point in the group, as installed metadata lists them."""
    from importlib.metadata import entry_points

    return [(ep.name, ep.value) for ep in entry_points(group=GROUP)]


def load(value: str) -> object:
    """The object an entry point's value names (`module:attr.path`, extras ignored), as
    `EntryPoint.load` finds it."""
    module, _, attrs = value.partition("[")[0].strip().partition(":")
    obj: object = importlib.import_module(module.strip())
    return reduce(getattr, [a for a in attrs.strip().split(".") if a], obj)


def discover(entries: Sequence[tuple[str, str]] | None = None) -> list[AnalyzerSpec]:
    """Every registered analyzer (`entries` when the caller has the group's entry points,
    else installed metadata), sorted by its first rule code; duplicates are an error."""
    specs: dict[str, AnalyzerSpec] = {}
    seen_codes: dict[str, str] = {}
    for name, value in registered() if entries is None else entries:
        spec = load(value)
        if not isinstance(spec, AnalyzerSpec):
            raise ConfigError(f"entry point {name} = {value} is not an AnalyzerSpec")
        check_spec(spec, value)
        for code in spec.codes:
            if code in CORE_CODES:
                raise ConfigError(f"entry point {value}: rule {code} is one of slim's own")
            if code in seen_codes and seen_codes[code] != value:
                raise ConfigError(f"rule {code} registered twice: {seen_codes[code]} and {value}")
            seen_codes[code] = value
        specs[value] = spec
    return sorted(specs.values(), key=lambda s: (s.codes[0] if s.codes else "", s.name))
