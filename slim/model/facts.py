"""Evidence loaded from inputs other than the graph, kept by type.

Readers return typed fact objects (an import trace, a linker map, an ELF file, a timing
set…); `Facts` keeps them by class so analyzers ask for what they need with `of(T)` and
a plugin can bring a fact type of its own without changing this module.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from slim.model.jsontypes import JSON

T = TypeVar("T")

#: Evidence kinds, in report order, with what each one lets slim decide.
EVIDENCE_KINDS: dict[str, str] = {
    "graph": "build graph export (targets and dependency edges)",
    "trace": "runtime Python import traces",
    "source": "Python sources in the workspace (static imports)",
    "linkmap": "linker maps (archive members pulled, sections kept)",
    "binary": "ELF binaries, shared libraries, objects (symbols, DT_NEEDED, fatbins)",
    "compile": "compile-time dependencies (depfiles from -MD, ninja -t deps: headers read)",
    "timings": "build timings (.ninja_log, Bazel profile, Buck2 reports)",
}


@dataclass(frozen=True, slots=True)
class InputFile:
    """One input as given by the user, with the format it was read as."""

    evidence: str
    path: str
    format: str

    def as_dict(self) -> dict[str, JSON]:
        return {"evidence": self.evidence, "path": self.path, "format": self.format}


@dataclass
class Facts:
    """Every non-graph fact of one run, grouped by type, plus the inputs they came from."""

    inputs: list[InputFile] = field(default_factory=list)
    _by_type: dict[type, list[object]] = field(default_factory=dict)

    def add(self, fact: object) -> None:
        self._by_type.setdefault(type(fact), []).append(fact)

    def extend(self, facts: Iterable[object]) -> None:
        for f in facts:
            self.add(f)

    def of(self, cls: type[T]) -> list[T]:
        """All facts of class `cls` (subclasses included), in the order they were added."""
        out: list[T] = []
        for t, items in self._by_type.items():
            if issubclass(t, cls):
                out.extend(items)  # type: ignore[arg-type]
        return out

    def may_hold(self, module: str) -> bool:
        """Whether facts of a type from `module` can be here: never before that module was
        imported (a caller skips importing a model it would find no fact of)."""
        return bool(self._by_type) and module in sys.modules

    def all(self) -> list[object]:
        """Every fact, in the order of their types' first addition."""
        return [f for items in self._by_type.values() for f in items]

    def kinds_given(self, *, workspace: bool = False) -> set[str]:
        """The evidence kinds of the inputs, and `source` when a workspace is read."""
        kinds = {i.evidence for i in self.inputs}
        if workspace:
            kinds.add("source")
        return kinds

    def given(self, evidence: str) -> list[InputFile]:
        return [i for i in self.inputs if i.evidence == evidence]
