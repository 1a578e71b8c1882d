"""SLIM001 unused-python-dep: Python deps a binary's code never imports, from traces + sources.

For every edge A -> B in a root's closure where B is a Python target, the view joins what
A's sources import (statically, with the kind of each import) and what the runtime traces
show loaded (with importers). Dead needs both silent and nothing else in the binary
relying on the edge; imports that are lazy, optional or typing-only and never traced give
`runtime-unused` (keep, downgrade). An edge to a target whose modules are unknown is left
to SLIM901, never judged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from slim.model.findings import Confidence, Details, Evidence, Finding, Rule, Saving
from slim.model.graph import CODE_KINDS, EdgeKind
from slim.model.pytrace import StaticImport, TracedModule

from .._findings import on_edge
from ._import_view import NAME, ImportView
from ._loaders import judge as judge_loaders
from ._ownership import MAX_LISTED, short
from .slim901_ownership import Unjudged

UNUSED = Rule(
    code="SLIM001",
    name="unused-python-dep",
    summary="A Python dependency the code never imports (dead) or imports only lazily.",
    help=(
        "For each edge A -> B to a Python target, slim looks for B's modules in A's sources "
        "(static imports with their kind: top-level, lazy, optional, typing-only, importlib "
        "literal) and in the runtime import traces. dead: neither shows it and nothing else "
        "in the binary gets B through this edge (removable). runtime-unused: imported only "
        "lazily, optionally or for typing and never traced: keep it, but consider a lazy "
        "import, an optional extra or runtime_deps. Pass --trace and --workspace: with only "
        "one of them the verdict is never 'dead, high'."
    ),
)
_HOW = {
    "lazy": "lazily (inside a function)",
    "optional": "optionally (under except ImportError)",
    "typing-only": "for typing (under if TYPE_CHECKING)",
    "importlib": "dynamically",
    "top-level": "at top level",
}
_ADVICE = {
    "optional": "it is imported only under `except ImportError`: make it an "
    "optional extra instead of a hard dep",
    "lazy": "it is imported only inside functions: move it to runtime_deps or an "
    "optional extra, or keep the lazy import and fetch it on demand",
}
Imports = list[tuple[str, StaticImport]]


@dataclass(frozen=True)
class _Edge:
    """The edge A -> B being judged: the attribute that declares it, whether B is also
    re-exported, B's modules (and the targets among them whose modules are unknown)."""

    a: int
    b: int
    attribute: str
    exports: bool
    mods: set[str]
    unknown: set[int]
    looked: Evidence

    def unjudged(self, unknown: set[int]) -> Unjudged:
        return Unjudged(self.a, self.b, self.attribute, tuple(sorted(unknown)), self.looked)


@dataclass(frozen=True)
class _Uses:
    """What A's imports and the traces show of B: `certain` (an eager import, a parent
    package, A importing B in the traces), soft imports only, and B's modules loaded."""

    certain: bool
    soft: Imports = dataclasses.field(default_factory=list)
    hits: list[TracedModule] = dataclasses.field(default_factory=list)


@dataclass(frozen=True)
class _Blind:
    """What a blind spot makes of a would-be 'dead' edge (`used`: an entry-point read of a
    group the dep declares)."""

    used: bool = False
    verdict: str = ""
    message: str = ""
    evidence: tuple[Evidence, ...] = ()


def judge(view: ImportView, a: int, b: int) -> Finding | Unjudged | None:
    """SLIM001 for the edge A -> B, None when it is used or not an edge to judge, or the
    edge left to SLIM901 when the modules of B are unknown."""
    edge = _edge(view, a, b)
    if edge is None:
        return None
    if (not edge.mods or edge.unknown) and not view.owned[b].guessed:
        return edge.unjudged(edge.unknown or {b})
    uses = _uses(view, edge)
    if uses.certain:
        return None
    if uses.soft:
        return None if uses.hits else _runtime_unused(view, edge, uses.soft)
    if edge.exports and (uses.hits or any(m in view.importers() for m in edge.mods)):
        return None  # re-exported and used through the re-export
    if edge.unknown:
        return edge.unjudged(edge.unknown)
    return _not_imported(view, edge, uses.hits)


def _edge(view: ImportView, a: int, b: int) -> _Edge | None:
    """The edge as judged, or None for an edge SLIM001 never proposes: data (files read
    at run time), runtime_deps only (where never-imported deps belong), or a test-only
    dep of a root that is not a test."""
    g = view.g
    kinds = set(g.edge_kinds(a, b))
    if EdgeKind.DATA in kinds or not kinds & CODE_KINDS:
        return None
    code = [k for k in kinds if k in CODE_KINDS and k is not EdgeKind.RUNTIME_DEPS]
    if not code:
        return None
    if g.target(b).is_test and not view.test_root:
        return None
    mods, unknown = view.provided(b)
    return _Edge(
        a,
        b,
        sorted(k.attribute for k in code)[0],
        EdgeKind.EXPORTS in kinds,
        mods,
        unknown,
        view.looked_for(b, mods),
    )


def _uses(view: ImportView, edge: _Edge) -> _Uses:
    """A's imports of B's modules and the traced loads of them that count for B."""
    a, b, mods = edge.a, edge.b, edge.mods
    used = view.used_by(a)
    if any(view.evidence_for(b, p, used) for p in view.parents(a) & mods):
        return _Uses(certain=True)  # B provides a parent package of A's own modules
    matches = view.matching(a, b, mods)
    if view.importtime_only and any(i.dynamic for _, i in matches):
        return _Uses(certain=True)  # -X importtime has no rows for importlib-loaded modules
    names = set(view.traced)
    hits = [t for t in view.trace_hits(mods) if view.evidence_for(b, t.name, names)]
    eager = any(i.eager for _, i in matches)
    if eager or any(view.importer_is(t, a) for t in hits):
        return _Uses(certain=True)
    return _Uses(False, [(p, i) for p, i in matches if not i.eager], hits)


def _finding(
    view: ImportView,
    edge: _Edge,
    verdict: str,
    message: str,
    confidence: Confidence,
    evidence: tuple[Evidence, ...],
    *,
    removable: bool = False,
    saving: Saving | None = None,
    details: Details | None = None,
) -> Finding:
    return on_edge(
        UNUSED,
        view.g,
        (edge.a, edge.b),
        view.root_label,
        edge.attribute,
        verdict,
        message,
        confidence,
        removable=removable,
        evidence=evidence,
        saving=saving,
        details=details,
    )


def _runtime_unused(view: ImportView, edge: _Edge, soft: Imports) -> Finding:
    """A imports B only lazily, optionally or for typing, and the traces never load it."""
    kinds = {i.kind for _, i in soft}
    if kinds == {"typing-only"}:
        advice = (
            "it is imported only under `if TYPE_CHECKING`: a type-checking-only dep "
            "(stubs, a typing target) keeps it out of the runtime package"
        )
        conf = Confidence.HIGH
    else:
        advice = _ADVICE.get(
            sorted(kinds - {"typing-only"})[0],
            "it is imported only conditionally: consider an optional extra",
        )
        conf = Confidence.MEDIUM if view.trace is not None else Confidence.LOW
    seen = "never loaded in the traces" if view.trace is not None else "no trace given"
    la, lb = view.g.labels[edge.a], view.g.labels[edge.b]
    return _finding(
        view,
        edge,
        "runtime-unused",
        f"{la} imports {lb} only {' or '.join(_HOW[k] for k in sorted(kinds))} ({seen}); "
        f"keep the edge: {advice}",
        conf,
        (
            *(Evidence(p, i.describe(), line=i.line, analyzer=NAME) for p, i in soft),
            *view.trace_evidence(edge.b),
            edge.looked,
        ),
        details=view.footprint(edge.b),
    )


def _not_imported(view: ImportView, edge: _Edge, hits: list[TracedModule]) -> Finding | None:
    """No import of B's modules in A's sources: dead, unless the sources were not read,
    B stays in the build anyway, other code needs what leaves, or a blind spot of the
    evidence could reach it."""
    a, b = edge.a, edge.b
    if not view.has_static(a):
        return None if hits else _sources_not_read(view, edge)
    la = view.g.labels[a]
    src_ev = Evidence(
        f"{la} sources",
        f"{len(view.scans.get(a, ()))} files scanned; none imports {short(edge.mods)}",
        analyzer=NAME,
    )
    leaving = view.leaving(a, b)
    if not leaving and hits:
        return _redundant(view, edge, hits, src_ev)
    gone = set(leaving)
    gone_mods = {
        m
        for t in leaving
        if t in view.owned
        for m in view.owned[t].modules
        if view.index.owners_of(m) <= gone
    }
    users = [
        (t, p, imp)
        for m in sorted(gone_mods)
        for t, p, imp in view.importers().get(m, ())
        if t not in leaving and t != a
    ]
    if _entry_point_use(view, gone):
        return None  # the program reads an entry-point group the dep declares
    traced_leaving = view.trace_hits(gone_mods)
    if users or traced_leaving:
        if edge.exports:
            return None
        return _used_transitively(view, edge, users, traced_leaving, src_ev)
    blind = _blind_spot(view, edge, gone, gone_mods)
    if blind is not None:
        return None if blind.used else _possibly_dead(view, edge, blind, src_ev)
    return _dead(view, edge, leaving, src_ev)


def _sources_not_read(view: ImportView, edge: _Edge) -> Finding:
    """B never loaded in the traces, but without A's sources a lazy import may be missed."""
    la, lb = view.g.labels[edge.a], view.g.labels[edge.b]
    why = view.static_ok.get(edge.a) or (
        "no --workspace given" if view.ws is None else "no sources read"
    )
    return _finding(
        view,
        edge,
        "unused-in-traces",
        f"no module of {lb} was loaded in the traces, but the sources of {la} "
        f"were not read ({why}): a lazy or static-only import may be missed, "
        "so the edge is not proposed for removal",
        Confidence.LOW,
        (*view.trace_evidence(edge.b), edge.looked),
        details=view.footprint(edge.b),
    )


def _redundant(
    view: ImportView, edge: _Edge, hits: list[TracedModule], src_ev: Evidence
) -> Finding:
    """A does not import B, but B stays in the build through other targets: the cut
    is harmless for A and saves nothing."""
    g = view.g
    la, lb = g.labels[edge.a], g.labels[edge.b]
    via = sorted({g.labels[t] for t in view.parents_in_closure(edge.b)} - {la})
    return _finding(
        view,
        edge,
        "redundant-direct-dep",
        f"{la} does not import {lb} itself; {lb} stays in the build through "
        f"{short(via)}, so cutting this edge saves nothing"
        + (f" ({len(hits)} of its modules are loaded through them)" if hits else ""),
        Confidence.MEDIUM if view.trace is not None else Confidence.LOW,
        (src_ev, *view.loaded_evidence(hits), edge.looked),
    )


def _used_transitively(
    view: ImportView,
    edge: _Edge,
    users: list[tuple[int, str, StaticImport]],
    traced: list[TracedModule],
    src_ev: Evidence,
) -> Finding:
    """A does not import B, but other code imports what leaves with the cut."""
    g = view.g
    la, lb = g.labels[edge.a], g.labels[edge.b]
    ev = [
        Evidence(p, f"{g.labels[t]}: {imp.describe()}", line=imp.line, analyzer=NAME)
        for t, p, imp in users[:MAX_LISTED]
    ]
    who = short(g.labels[t] for t, _, _ in users) or "code seen in the traces"
    return _finding(
        view,
        edge,
        "used-transitively",
        f"{la} does not import {lb}, but {who} does and gets it only through "
        f"this edge: declare the dep where it is imported before cutting it",
        Confidence.HIGH,
        (src_ev, *ev, *view.loaded_evidence(traced), edge.looked),
    )


def _possibly_dead(view: ImportView, edge: _Edge, blind: _Blind, src_ev: Evidence) -> Finding:
    return _finding(
        view,
        edge,
        blind.verdict,
        blind.message,
        Confidence.LOW,
        (src_ev, *blind.evidence, *view.trace_evidence(edge.b), edge.looked),
    )


def _dead(view: ImportView, edge: _Edge, leaving: list[int], src_ev: Evidence) -> Finding:
    """Nothing imports B or what leaves with it: removable, with the footprint it takes."""
    g = view.g
    la, lb = g.labels[edge.a], g.labels[edge.b]
    conf = Confidence.HIGH if view.trace is not None else Confidence.MEDIUM
    caveat = "" if view.trace is not None else " (no trace given: sources only)"
    guessed = [t for t in leaving if t in view.owned and view.owned[t].guessed]
    if guessed:
        conf = Confidence.MEDIUM
        caveat += f"; modules of {short(g.labels[t] for t in guessed)} guessed from names"
    files, size = view.files_of(leaving)
    return _finding(
        view,
        edge,
        "dead",
        f"{la} never imports {lb}: none of its modules appears in "
        f"{len(view.scans.get(edge.a, ()))} source files or in {len(view.trace_files)} "
        f"traces{caveat}",
        conf,
        (src_ev, *view.trace_evidence(edge.b), edge.looked),
        removable=True,
        saving=Saving(
            bytes=size,
            bytes_basis=f"python package footprint: {files} files leave the binary",
        ),
        details=dataclasses.replace(
            view.footprint(edge.b), package_files_removed=files, package_bytes_removed=size
        ),
    )


def _entry_point_use(view: ImportView, gone: set[int]) -> bool:
    """Whether loaded code reads an entry-point group a target that leaves declares."""
    sites = [s for s in view.sites if s.loader.kind == "entry-points"]
    if view.importtime_only:
        sites.extend(s for s in view.third_party_loaded().sites if s.loader.kind == "entry-points")
    if not sites:
        return False
    groups = {t: view.groups(t) for t in gone}
    return bool(judge_loaders(sites, gone, set(), groups, sees_importlib=True).uses)


def _blind_spot(
    view: ImportView, edge: _Edge, gone: set[int], gone_mods: set[str]
) -> _Blind | None:
    """Loaded code that could load what leaves with the cut although nothing names it
    (a computed import, a file loader, an entry-point read), or, under importtime-only
    traces, loaded third-party code that could not be read to rule that out."""
    la, lb = view.g.labels[edge.a], view.g.labels[edge.b]
    sites = list(view.sites)
    third = view.third_party_loaded() if view.importtime_only else None
    if third is not None:
        sites.extend(third.sites)
    groups = {t: view.groups(t) for t in gone}
    v = judge_loaders(sites, gone, gone_mods, groups, view.sees_importlib)
    if v.uses:
        return _Blind(used=True)
    if v.blocks:
        first = v.blocks[0]
        more = f", and {len(v.blocks) - 1} more" if len(v.blocks) > 1 else ""
        where = f"{first.path}:{first.loader.line}"
        return _Blind(
            verdict="possibly-dead",
            message=(
                f"{la} never imports {lb} by name, but code the binary loads can load "
                f"modules no import names ({first.describe()} at {where}{more}): "
                "not proposed for removal"
            ),
            evidence=tuple(
                Evidence(x.path, x.describe(), line=x.loader.line, analyzer=NAME)
                for x in v.blocks[:MAX_LISTED]
            ),
        )
    if third is not None and third.missing:
        return _Blind(
            verdict="unused-in-traces",
            message=(
                f"no module of {lb} was imported by name or in the traces, but the traces "
                "are `-X importtime`, which records no importlib loads, and the loaded "
                f"third-party code could not be read to rule them out ({len(third.missing)} "
                f"modules, e.g. {short(third.missing, 3)}): record with `slim trace` or "
                "`python -v`, or pass --site-packages"
            ),
            evidence=(
                Evidence(
                    "site-packages",
                    f"sources not found for {short(third.missing)}",
                    analyzer=NAME,
                ),
            ),
        )
    return None
