"""SLIM002 unreferenced-native-dep: a native library the root's link takes nothing from.

For a root binary B whose map is given: a native library N in B's closure is dead when
nothing of N survived into B (no member extracted, no section kept) and no other linked
input references a symbol N defines (`_link_verdict`). Each edge to N is then checked
for what the cut takes with it (a library B's link uses that reaches B only through N),
for compile-time use and, for a library's edge, every other binary linking that library
(`_edge_verdict`); only an edge no evidence needs is proposed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence

from slim.model.context import AnalysisContext
from slim.model.findings import Confidence, Evidence, Finding
from slim.model.graph import CODE_KINDS, BuildGraph, Edge, Target
from slim.model.native import ElfFile, LinkMap, strip_version
from slim.model.ownership import Ownership

from .._findings import on_edge, on_root
from ._edge_verdict import EdgeEvidence
from ._link_verdict import RUNTIME_WEAK, Verdict, link_verdict
from ._link_view import (
    ANALYZER,
    MapView,
    cut_takes,
    has_code,
    is_native,
    link_use,
    live,
    root_binaries,
)
from ._unseen_libs import opaque
from .rules import UNREFERENCED


def not_checked(ctx: AnalysisContext, maps: list[LinkMap]) -> Finding:
    """The root is a binary, maps were given, and none is its link."""
    names = ", ".join(sorted(m.path for m in maps))
    return on_root(
        UNREFERENCED,
        ctx.root_label,
        "not-checked",
        f"no linker map of {ctx.root_label} among the maps given ({names}): none "
        "lists an object this target owns; pass the map of this binary "
        "(-Wl,-Map=...) to check its native deps",
    )


def _unreferenced_libraries(
    ctx: AnalysisContext, views: list[MapView], closure: set[int]
) -> Iterator[tuple[Target, list[Edge]]]:
    """Native targets of the closure nothing of which is live in the root's link, with
    their edges from the closure (a header-only library with no map entry is skipped)."""
    g = ctx.graph
    for n in sorted(closure):
        if n == ctx.root:
            continue
        t = g.target(n)
        in_maps = any(v.mentions(n) for v in views)
        if not is_native(t) and not in_maps and t.kind not in _INTERFACE_KINDS:
            continue
        if any(n in v.shared_owners for v in views):
            continue
        if any(live(v.inputs.get(n, ()), v.map.linker) for v in views):
            continue
        if not in_maps and not has_code(t) and not (_wraps(t) and _dead_payload(g, views, n)):
            continue
        edges = [e for e in g.in_edges(n, CODE_KINDS) if e.target in closure and e.target != n]
        if edges:
            yield t, edges


_INTERFACE_KINDS = frozenset({"interface_library", "INTERFACE_LIBRARY"})


def _wraps(t: Target) -> bool:
    """A target that is only a bundle of others: a CMake INTERFACE library, or one with no
    sources at all (a Bazel `cc_library` of deps alone). A library of headers is judged
    by its headers (never by linker evidence), not by what its deps bring."""
    return t.kind in _INTERFACE_KINDS or not t.srcs


def payload(g: BuildGraph, n: int) -> list[int] | None:
    """What a target without code of its own brings: the native targets with code it
    reaches through targets without code (a CMake INTERFACE library wrapping a static
    one, a Bazel `cc_library` of deps alone). None when it also brings what no map ties
    to a target: an imported or external target, or a library named on the link line by
    path or `-l` (`link_external`)."""
    out, seen, todo = [], {n}, [n]
    while todo:
        x = todo.pop()
        if opaque(g.target(x)):
            return None
        for e in g.out_edges(x, CODE_KINDS):
            if e.dep in seen:
                continue
            seen.add(e.dep)
            t = g.target(e.dep)
            if has_code(t):
                if is_native(t):
                    out.append(e.dep)
            else:
                todo.append(e.dep)
    return sorted(out)


def _dead_payload(g: BuildGraph, views: list[MapView], n: int) -> bool:
    """`n` brings code, and the link uses none of it: its edges are judged as a library's
    (what leaves with each cut is checked as for any library)."""
    brought = payload(g, n)
    return bool(brought) and all(link_use(views, p) is None for p in brought or ())


def _strays(g: BuildGraph, views: list[MapView], closure: set[int]) -> list[str]:
    """Linked inputs of the build tree that no target of the root's closure owns: nobody
    in the graph, or a target the root does not build (merged graphs whose names do not
    line up, a map of another layout)."""
    out: set[str] = set()
    for v in views:
        out.update(i.file for i in v.unowned if live([i], v.map.linker) or i.discarded)
        out.update(v.unowned_shared)
        for o, inputs in v.inputs.items():
            if o not in closure:
                out.update(f"{i.file} (owned by {g.labels[o]})" for i in inputs)
    return sorted(out)


def _dropped_in_use(
    ctx: AnalysisContext, views: list[MapView], a: int, n: int
) -> list[tuple[int, tuple[str, str, int | None]]]:
    """What cutting `a -> n` takes out of the root's closure that its link uses, each with
    where the link shows it."""
    used = ((x, link_use(views, x)) for x in cut_takes(ctx.graph, ctx.root, a, n))
    return [(x, use) for x, use in used if use is not None]


def _drops_used(
    root: str,
    g: BuildGraph,
    a: int,
    n: int,
    dropped: list[tuple[int, tuple[str, str, int | None]]],
    link: Verdict,
) -> Verdict:
    """Kept: the cut would take a library the link uses out of the closure with `n`."""
    x, (_, what, _) = dropped[0]
    more = f" (and {len(dropped) - 1} more)" if len(dropped) > 1 else ""
    msg = (
        f"{g.labels[n]} contributes nothing to {root}'s link itself, but cutting "
        f"{g.labels[a]} -> {g.labels[n]} also takes {g.labels[x]}{more} out of {root}'s "
        f"closure, and the link uses it ({what}): it reaches {root} only through "
        f"{g.labels[n]}. Declare it where it is used before cutting this edge."
    )
    ev = [
        *link.evidence,
        *(
            Evidence(src, f"{g.labels[d]}: {desc}", at, None, ANALYZER)
            for d, (src, desc, at) in dropped[:5]
        ),
    ]
    return Verdict("used-transitively", msg, Confidence.HIGH, False, ev, None, link.details)


def findings(
    ctx: AnalysisContext,
    own: Ownership,
    views: list[MapView],
    elfs: list[ElfFile],
    closure: set[int],
    loose: Sequence[ElfFile] = (),
) -> Iterator[Finding]:
    """One SLIM002 per edge to a library the root's link (`views`, its maps) does not use;
    binaries no link could be tied to (`loose`) count as maybe the root's for hazards."""
    g = ctx.graph
    objects: dict[int, list[ElfFile]] = defaultdict(list)
    for e in elfs:
        if e.kind == "rel":
            o = own.artifact_owner(e.path)
            if o is not None:
                objects[o].append(e)
    weak_undef: set[str] = set()
    for e in [*root_binaries(ctx, own, elfs, views), *loose]:
        weak_undef |= {strip_version(s) for s in e.weak_undefined if not s.startswith(RUNTIME_WEAK)}
    per_edge = EdgeEvidence.load(ctx, own, closure)
    strays = _strays(g, views, closure)
    for t, edges in _unreferenced_libraries(ctx, views, closure):
        objs = objects.get(t.id, [])
        if not has_code(t):  # what it brings: their initializers and weak symbols count
            objs = [o for p in payload(g, t.id) or () for o in objects.get(p, [])]
        link = link_verdict(ctx.root_label, t, views, objs, weak_undef, strays)
        for edge in sorted(edges, key=lambda x: (g.labels[x.target], int(x.kind))):
            verdict = link
            if link.verdict == "unreferenced":
                dropped = _dropped_in_use(ctx, views, edge.target, t.id)
                verdict = (
                    _drops_used(ctx.root_label, g, edge.target, t.id, dropped, link)
                    if dropped
                    else per_edge.edge_verdict(edge.target, t.id, link)
                )
            yield on_edge(
                UNREFERENCED,
                g,
                (edge.target, t.id),
                ctx.root_label,
                edge.kind.attribute,
                verdict.verdict,
                verdict.message,
                verdict.confidence,
                removable=verdict.removable,
                evidence=tuple(verdict.evidence),
                saving=verdict.saving,
                details=verdict.details,
                kept_because=verdict.kept_because,
            )
