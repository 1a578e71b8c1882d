"""The Python family's detector: the root's joined import view, judged rule by rule."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator

from slim.model.context import AnalysisContext
from slim.model.findings import Finding

from . import slim001_unused, slim901_ownership, slim902_unreadable, slim903_coverage
from ._import_view import ImportView
from .slim901_ownership import Unjudged


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
