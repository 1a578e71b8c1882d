"""Findings: one verdict about one edge (or one binary), with the evidence behind it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from slim.model.graph import Location


class Confidence(str, Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        return {"high": 3, "medium": 2, "low": 1}[self.value]


@dataclass(frozen=True, slots=True)
class Rule:
    """A stable rule code and its documentation (SARIF rules, `slim explain`, docs)."""

    code: str
    name: str
    summary: str
    help: str = ""


@dataclass(frozen=True, slots=True)
class Evidence:
    """One observation behind a verdict: where it was seen and what it shows."""

    source: str
    detail: str
    line: int | None = None
    offset: int | None = None
    analyzer: str = ""

    @property
    def location(self) -> Location:
        return Location(self.source, self.line, self.offset)


@dataclass(frozen=True, slots=True)
class Saving:
    """What cutting an edge saves, with the basis of each figure."""

    compile_seconds: float = 0.0
    link_seconds: float = 0.0
    bytes: int = 0
    targets_removed: int = 0
    basis: str = "default"


@dataclass(frozen=True, slots=True)
class Fix:
    """A command that applies the proposal (buildozer for BUILD/BUCK; text for CMake)."""

    command: str
    kind: str = "buildozer"
    description: str = ""
    safe: bool = True


@dataclass(frozen=True, slots=True)
class Finding:
    """A verdict; `target`/`dep` are labels (dep empty for binary-wide findings)."""

    code: str
    name: str
    target: str
    dep: str
    verdict: str
    message: str
    confidence: Confidence
    removable: bool
    root: str = ""
    attribute: str = ""
    location: Location | None = None
    evidence: tuple[Evidence, ...] = ()
    fix: Fix | None = None
    saving: Saving | None = None
    data: tuple[tuple[str, str | int | float | bool], ...] = field(default=())

    @property
    def sort_key(self) -> tuple[str, str, str, str, str]:
        return (self.code, self.root, self.target, self.dep, self.message)
