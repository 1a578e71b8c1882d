"""SLIM002 unreferenced-native-dep: a native library the root's link takes nothing from.

For a root binary B whose map is given: a native library N in B's closure is dead when
nothing of N survived into B (no member extracted, no section kept) and no other linked
input references a symbol N defines (`_link_verdict`). Each edge to N is then checked
for what the cut takes with it (a library B's link uses that reaches B only through N),
for compile-time use and, for a library's edge, every other binary linking that library
(`_edge_verdict`); only an edge no evidence needs is proposed.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path

from slim.model.context import AnalysisContext
from slim.model.findings import Confidence, Evidence, Finding
from slim.model.graph import CODE_KINDS, BuildGraph, Edge, Target
from slim.model.labels import label_name
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
from ._propagation import call_words
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
        if _opaque(g.target(x)):
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


#: A target's options for the links of its dependants: Bazel `linkopts`, Buck2's exported
#: linker flags (CMake's libraries named by path or `-l` are `link_external`).
LINK_OPTION_ATTRS = ("linkopts", "exported_linker_flags", "exported_post_linker_flags")
#: Options that only say how the target's own archive is linked (see `_registration`).
_OWN_ARCHIVE = ("--whole-archive", "--no-whole-archive", "-force_load", "-all_load")


def link_options(t: Target) -> list[str]:
    """What the target puts on its dependants' link lines that no map ties to it: the
    libraries it names by path or `-l` (CMake), its linker options (Bazel, Buck2: `-lz`
    adds a library a dependant may call into; `-u sym` changes what is extracted)."""
    out: list[str] = []
    for name in ("link_external", *LINK_OPTION_ATTRS):
        given = t.attrs.get(name)
        if isinstance(given, tuple):
            out += [str(v) for v in given if not any(w in str(v) for w in _OWN_ARCHIVE)]
    return out


def _opaque(t: Target) -> bool:
    """A target whose part of the link the graph does not name (an imported or unknown
    one, or one that adds libraries or options to its dependants' links)."""
    return not t.kind or bool(t.attrs.get("imported")) or bool(link_options(t))


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


def _drops_unseen(
    ctx: AnalysisContext, a: int, n: int, verdict: Verdict, calls: list[tuple[str, str | None]]
) -> Verdict:
    """Kept: the cut also takes out of the root's closure a target whose part of the link
    no map can show (an imported target, a library named by path or `-l`): the program
    may call into it with nothing else declaring it. `calls`: see `_external_calls`."""
    g = ctx.graph
    leaving = [n, *cut_takes(g, ctx.root, a, n)]
    names = {str(g.target(x).attrs.get("cmake_name") or label_name(g.labels[x])) for x in leaving}
    untied = sorted({lib for lib, who in calls if who is None or who in names})
    if untied:
        return _kept(
            verdict,
            f"{ctx.root_label}'s link line names {', '.join(untied[:3])} by path or -l, put "
            "there by a call of a target the cut takes away (or one slim cannot read): the "
            "program may call into it",
        )
    unseen = [x for x in leaving if _opaque(g.target(x))]
    if not unseen:
        return verdict
    shown = ", ".join(g.labels[x] for x in unseen[:3])
    external = [v for x in unseen for v in link_options(g.target(x))]
    what = f" (it links {', '.join(external[:3])})" if external else ""
    return _kept(
        verdict,
        f"the cut also takes {shown}{what} out of {ctx.root_label}'s closure, and no map "
        "ties such a library to a target: whether the link uses it is unknown",
    )


def _external_calls(ctx: AnalysisContext) -> list[tuple[str, str | None]]:
    """(library, the target whose call put it there) of each library the root's link line
    names by path or -l, as CMake codemodel < 2.9 records them (on the linking target,
    with the call's line); the target is None when the call cannot be read or names a
    variable (a function, a macro). Read once per root: each edge's check uses them."""
    rows = ctx.root_target.attrs.get("link_external_at")
    if not isinstance(rows, tuple):
        return []
    dirs = [Path(ctx.options.workspace)] if ctx.options.workspace is not None else []
    root = ctx.root_target.attrs.get("source_root")
    if isinstance(root, str) and root:
        dirs.append(Path(root))
    out: list[tuple[str, str | None]] = []
    for row in map(str, rows):
        lib, _, at = row.partition("\t")
        path, _, line = at.rpartition(":")
        words = call_words(dirs, path, int(line)) if line.isdigit() else None
        out.append((lib, words[0] if words and not words[0].startswith("$") else None))
    return out


def _kept(verdict: Verdict, why: str) -> Verdict:
    return dataclasses.replace(
        verdict,
        message=f"{verdict.message} Not removable: {why}.",
        confidence=Confidence.MEDIUM,
        removable=False,
        kept_because=why,
    )


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
    calls = _external_calls(ctx)
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
                if verdict.removable:
                    verdict = _drops_unseen(ctx, edge.target, t.id, verdict, calls)
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
