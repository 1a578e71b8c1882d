"""SLIM902 python-source-unreadable: a target whose static imports are incomplete (a
source that does not parse or decode, or only native/stub modules), so SLIM001 never
calls its deps dead."""

from __future__ import annotations

from collections.abc import Iterator

from slim.model.findings import Confidence, Evidence, Finding

from ._import_view import ImportView
from .rules import NAME, UNREADABLE


def findings(view: ImportView) -> Iterator[Finding]:
    """One SLIM902 per target of the closure whose sources could not all be read."""
    g = view.g
    for a, why in sorted(view.static_ok.items()):
        ev = [
            Evidence(s.path, s.error, line=s.error_line, analyzer=NAME)
            for s in view.scans.get(a, ())
            if s.error
        ]
        yield Finding(
            code=UNREADABLE.code,
            name=UNREADABLE.name,
            target=g.labels[a],
            dep="",
            verdict="evidence-incomplete",
            message=(
                f"static imports of {g.labels[a]} are incomplete ({why}): "
                "its Python deps are never marked dead"
            ),
            confidence=Confidence.HIGH,
            removable=False,
            root=view.root_label,
            location=g.locations.get(a),
            evidence=tuple(ev),
        )
