"""Phrases every text renderer shares: savings, evidence locations, edges."""

from __future__ import annotations

from slim.model.actions import Move, Remove, Replace
from slim.model.findings import Evidence, Finding, Saving
from slim.model.report import Proposal


def seconds(s: float) -> str:
    return f"{s:.1f} s"


def saving_phrase(s: Saving) -> str:
    """`2.5 s compile, 0.0 s link, 0 bytes, 1 target (measured; …)`."""
    n = s.targets_removed
    return (
        f"{seconds(s.compile_seconds)} compile, {seconds(s.link_seconds)} link, "
        f"{s.bytes:,} bytes, {n} target{'' if n == 1 else 's'} ({s.basis})"
    )


def where(e: Evidence) -> str:
    """`file:line`, `file:byte N` or `file`."""
    if e.line is not None:
        return f"{e.source}:{e.line}"
    if e.offset is not None:
        return f"{e.source}:byte {e.offset}"
    return e.source


def edge(f: Finding) -> str:
    return f"{f.target} -> {f.dep}" if f.dep else f.target


def proposal_phrase(p: Proposal) -> str:
    """`remove //a, //b; replace //c with //d` (what the proposal's fixes do)."""
    verbs: dict[str, list[str]] = {}
    for x in p.fixes:
        a = x.action
        if isinstance(a, Replace):
            verbs.setdefault("replace", []).append(f"{a.dep} with {a.with_dep}")
        elif isinstance(a, Move):
            verbs.setdefault("move", []).append(f"{a.dep} to {a.to_attr}")
        elif isinstance(a, Remove):
            verbs.setdefault("remove", []).append(a.dep)
    return "; ".join(f"{v} {', '.join(dict.fromkeys(items))}" for v, items in verbs.items())
