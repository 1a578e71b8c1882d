"""How every analyzer builds its findings: on the root binary as a whole, or on one edge
of the graph (located where the edge is declared)."""

from __future__ import annotations

from slim.model.actions import Action
from slim.model.findings import Confidence, Details, Evidence, Finding, Rule, Saving
from slim.model.graph import BuildGraph


def on_root(
    rule: Rule,
    root: str,
    verdict: str,
    message: str,
    *,
    confidence: Confidence = Confidence.HIGH,
    evidence: tuple[Evidence, ...] = (),
    saving: Saving | None = None,
    details: Details | None = None,
) -> Finding:
    """A finding about the root binary `root` itself (never removable: there is no edge)."""
    return Finding(
        code=rule.code,
        name=rule.name,
        target=root,
        dep="",
        root=root,
        verdict=verdict,
        message=message,
        confidence=confidence,
        removable=False,
        evidence=evidence,
        saving=saving,
        details=details,
    )


def on_edge(
    rule: Rule,
    graph: BuildGraph,
    edge: tuple[int, int],
    root: str,
    attribute: str,
    verdict: str,
    message: str,
    confidence: Confidence,
    *,
    removable: bool = False,
    evidence: tuple[Evidence, ...] = (),
    action: Action | None = None,
    saving: Saving | None = None,
    details: Details | None = None,
    kept_because: str = "",
) -> Finding:
    """A finding about the edge `a -> b` (declared in `attribute`) in the closure of `root`."""
    a, b = edge
    return Finding(
        code=rule.code,
        name=rule.name,
        target=graph.labels[a],
        dep=graph.labels[b],
        root=root,
        attribute=attribute,
        location=graph.edge_location(a, b),
        verdict=verdict,
        message=message,
        confidence=confidence,
        removable=removable,
        evidence=evidence,
        action=action,
        saving=saving,
        details=details,
        kept_because=kept_because,
    )
