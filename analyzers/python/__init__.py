"""The Python family: SLIM001 (unused deps), SLIM901/902 (evidence a verdict lacks) and
SLIM903 (trace coverage), all read from one joined view of a root's Python evidence.

One `AnalyzerSpec` for the family: the view (ownership, static scans, traces) is built
once per root and every rule reads it; SLIM901 reports the edges SLIM001 could not judge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slim.model.context import has_python_code
from slim.model.plugin import AnalyzerSpec

from .rules import COVERAGE, NAME, OWNERSHIP, UNREADABLE, UNUSED

if TYPE_CHECKING:
    from .analyzer import PythonImportsAnalyzer


def _analyzer() -> PythonImportsAnalyzer:
    """The detector, imported when a root has the evidence it reads (a report without
    traces or sources never loads it)."""
    from .analyzer import PythonImportsAnalyzer

    return PythonImportsAnalyzer()


SPEC = AnalyzerSpec(
    name=NAME,
    rules=(UNUSED, OWNERSHIP, UNREADABLE, COVERAGE),
    requires=frozenset({"trace", "source"}),
    factory=_analyzer,
    missing_hint=(
        "Pass --trace (slim trace -o FILE -- python -m app, or python -X importtime) "
        "and/or --workspace (the source tree) to check Python deps."
    ),
    applies=has_python_code,
)

__all__ = ["SPEC"]
