"""The Python family: SLIM001 (unused deps), SLIM901/902 (evidence a verdict lacks) and
SLIM903 (trace coverage), all read from one joined view of a root's Python evidence.

One `AnalyzerSpec` for the family: the view (ownership, static scans, traces) is built
once per root and every rule reads it; SLIM901 reports the edges SLIM001 could not judge.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator

from slim.model.context import AnalysisContext, has_python_code
from slim.model.findings import Finding
from slim.model.plugin import AnalyzerSpec

from . import slim001_unused, slim901_ownership, slim902_unreadable, slim903_coverage
from ._import_view import NAME, ImportView
from .slim001_unused import UNUSED
from .slim901_ownership import OWNERSHIP, Unjudged
from .slim902_unreadable import UNREADABLE
from .slim903_coverage import COVERAGE


class PythonImportsAnalyzer:
    """One verdict per Python edge of the root's closure, and the root's coverage."""

    def analyze(self, ctx: AnalysisContext) -> Iterable[Finding]:
        # Hundreds of thousands of small objects on top of a million-target graph: the
        # cyclic GC would rescan the whole heap again and again (none of them form cycles).
        enabled = gc.isenabled()
        gc.disable()
        try:
            return list(_findings(ImportView(ctx)))
        finally:
            if enabled:
                gc.enable()


def _findings(view: ImportView) -> Iterator[Finding]:
    yield from slim902_unreadable.findings(view)
    pairs = view.candidate_pairs()
    fast = view.fast_used(pairs)
    unjudged: list[Unjudged] = []
    for a, b in pairs[~fast].tolist():
        f = slim001_unused.judge(view, a, b)
        if isinstance(f, Unjudged):
            unjudged.append(f)
        elif f is not None:
            yield f
    yield from slim901_ownership.findings(view, unjudged)
    if view.trace is not None and view.py:
        yield slim903_coverage.finding(view)


SPEC = AnalyzerSpec(
    name=NAME,
    rules=(UNUSED, OWNERSHIP, UNREADABLE, COVERAGE),
    requires=frozenset({"trace", "source"}),
    factory=PythonImportsAnalyzer,
    missing_hint=(
        "Pass --trace (slim trace -o FILE -- python -m app, or python -X importtime) "
        "and/or --workspace (the source tree) to check Python deps."
    ),
    applies=has_python_code,
)

__all__ = ["SPEC", "PythonImportsAnalyzer"]
