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

from slim.model.findings import Confidence, Details, Evidence, Finding, Saving
from slim.model.graph import CODE_KINDS, EdgeKind
from slim.model.pytrace import StaticImport, TracedModule

from .._findings import on_edge
from ._import_view import ImportView
from ._loaders import LoaderSite
from ._loaders import judge as judge_loaders
from ._ownership import MAX_LISTED, short
from .rules import NAME, UNUSED
from .slim901_ownership import Unjudged

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
    gone = set(leaving)
    gone_mods = view.modules_leaving(gone)
    if not gone_mods and not view.shipped(leaving) and (hits or _imported_elsewhere(view, edge)):
        return _redundant(view, edge, hits, src_ev)
    users = [
        (t, p, imp)
        for m in sorted(gone_mods)
        for t, p, imp in view.importers().get(m, ())
        if t not in gone and t != a
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
    files = view.shipped(leaving)
    if files:
        return _possibly_dead(view, edge, _ships_files(view, edge, files), src_ev)
    if view.trace is None:
        unseen = _library_code(view, edge, gone, gone_mods)
        if unseen is not None:
            return _possibly_dead(view, edge, unseen, src_ev)
    return _dead(view, edge, leaving, gone_mods, src_ev)


def _library_code(
    view: ImportView, edge: _Edge, gone: set[int], gone_mods: set[str]
) -> _Blind | None:
    """Sources only: third-party code that stays in the build may import a third-party
    package that leaves (its code names it, or it could not be read); without a trace
    nothing shows which of its code runs."""
    hits, unread = view.packages_importing(gone, gone_mods)
    la, lb = view.g.labels[edge.a], view.g.labels[edge.b]
    if hits:
        who, path, line, name = hits[0]
        more = f", and {len(hits) - 1} more" if len(hits) > 1 else ""
        return _Blind(
            verdict="possibly-dead",
            message=(
                f"{la} never imports {lb}, but third-party code in the binary does: "
                f"{who} imports `{name}` ({path}:{line}{more}), and without a trace "
                "nothing shows whether the program runs that code: record one "
                "(`slim trace -o t.jsonl -- python -m ...`) to judge the edge"
            ),
            evidence=tuple(
                Evidence(p, f"{w}: imports `{n}`", line=ln, analyzer=NAME)
                for w, p, ln, n in hits[:MAX_LISTED]
            ),
        )
    if unread:
        return _Blind(
            verdict="possibly-dead",
            message=(
                f"{la} never imports {lb}, but the code of the third-party packages "
                f"{short(unread, 3)} was not read (no installed files: pass --site-packages) "
                "and may import it; without a trace nothing shows it unused: record one "
                "(`slim trace -o t.jsonl -- python -m ...`) or pass --site-packages"
            ),
            evidence=(
                Evidence("site-packages", f"no files read for {short(unread)}", analyzer=NAME),
            ),
        )
    return None


def _ships_files(view: ImportView, edge: _Edge, files: list[str]) -> _Blind:
    """What leaves ships files a program may open by path: no evidence kind records file
    reads, so the modules alone cannot show the cut safe."""
    la, lb = view.g.labels[edge.a], view.g.labels[edge.b]
    return _Blind(
        verdict="possibly-dead",
        message=(
            f"{la} never imports {lb}, but the cut also removes {len(files)} "
            f"{'file that is' if len(files) == 1 else 'files that are'} no module "
            f"({short(files, 3)}): a program may open {'it' if len(files) == 1 else 'them'} "
            "by path, and no "
            "trace records file reads, so the edge is not proposed for removal; check that "
            f"nothing reads {'it' if len(files) == 1 else 'them'}"
        ),
        evidence=tuple(
            Evidence(f, "leaves with the cut", analyzer=NAME) for f in files[:MAX_LISTED]
        ),
    )


def _imported_elsewhere(view: ImportView, edge: _Edge) -> bool:
    """Whether code other than A's imports one of B's modules (B stays for it), or B
    stands for an installed package that an imported package requires."""
    importers = view.importers()
    if any(t != edge.a for m in edge.mods for t, _, _ in importers.get(m, ())):
        return True
    return bool(view.providers(edge.b) & view.imported_packages())


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
    importers = view.importers()
    users = sorted(
        {
            (p, imp.line, f"{g.labels[t]}: {imp.describe()}")
            for m in edge.mods
            for t, p, imp in importers.get(m, ())
            if t != edge.a
        }
    )
    return _finding(
        view,
        edge,
        "redundant-direct-dep",
        f"{la} does not import {lb} itself; {lb} stays in the build through "
        f"{short(via)}, so cutting this edge saves nothing"
        + (f" ({len(hits)} of its modules are loaded through them)" if hits else ""),
        Confidence.MEDIUM if view.trace is not None else Confidence.LOW,
        (
            src_ev,
            *(Evidence(p, d, line=ln, analyzer=NAME) for p, ln, d in users[:MAX_LISTED]),
            *view.loaded_evidence(hits),
            edge.looked,
        ),
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
    loaders = sorted({i for tm in traced for i in tm.importers if i} - set(edge.mods))
    who = short(g.labels[t] for t, _, _ in users) or (
        f"{short(loaders, 3)} (in the traces)" if loaders else "code seen in the traces"
    )
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


def _dead(
    view: ImportView, edge: _Edge, leaving: list[int], gone_mods: set[str], src_ev: Evidence
) -> Finding:
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
        f"{la} never imports {lb}: {_absent(view, edge, gone_mods)}{caveat}",
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


def _absent(view: ImportView, edge: _Edge, gone_mods: set[str]) -> str:
    """Where B's modules were looked for; when some are loaded but stay in the build (a
    shared `__init__.py` another target provides), which ones leave and which stay."""
    n, m = len(view.scans.get(edge.a, ())), len(view.trace_files)
    staying = [tm.name for tm in view.trace_hits(edge.mods) if tm.name not in gone_mods]
    if not staying:
        return f"none of its modules appears in {n} source files or in {m} traces"
    return (
        f"what leaves with it ({short(gone_mods, 3)}) appears in none of {n} source files "
        f"and {m} traces; {short(staying, 3)} is loaded but stays, provided by another target"
    )


def _entry_point_use(view: ImportView, gone: set[int]) -> bool:
    """Whether loaded code reads an entry-point group a target that leaves declares."""
    sites = [s for s in view.sites if s.loader.kind == "entry-points"]
    if view.importtime_only:
        sites.extend(s for s in view.third_party_loaded().sites if s.loader.kind == "entry-points")
    if not sites:
        return False
    return bool(judge_loaders(sites, view.what_leaves(gone, set()), sees_importlib=True).uses)


def _blind_spot(
    view: ImportView, edge: _Edge, gone: set[int], gone_mods: set[str]
) -> _Blind | None:
    """Loaded code that could load what leaves with the cut although nothing imports it
    (a computed import, a file loader, an entry-point read, unpickling, discovery), or,
    under importtime-only traces, loaded third-party code that could not be read to rule
    that out, or a string that names what leaves (loaders by name may be given it)."""
    lb = view.g.labels[edge.b]
    sites = list(view.sites)
    third = view.third_party_loaded() if view.importtime_only else None
    if third is not None:
        sites.extend(third.sites)
    leaving = view.what_leaves(gone, gone_mods)
    v = judge_loaders(sites, leaving, view.sees_importlib)
    if v.uses:
        return _Blind(used=True)
    if v.blocks:
        return _blocked(view, edge, v.blocks)
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
    named = judge_loaders(view.named_sites(gone, gone_mods), leaving, view.sees_importlib)
    return _blocked(view, edge, named.blocks) if named.blocks else None


def _blocked(view: ImportView, edge: _Edge, blocks: tuple[LoaderSite, ...]) -> _Blind:
    la, lb = view.g.labels[edge.a], view.g.labels[edge.b]
    first = blocks[0]
    more = f", and {len(blocks) - 1} more" if len(blocks) > 1 else ""
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
            for x in blocks[:MAX_LISTED]
        ),
    )
