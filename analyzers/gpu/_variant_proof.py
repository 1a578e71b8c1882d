"""Whether pointing an edge at a CPU variant is safe, from evidence rather than a name.

A sibling named like the GPU target or sharing its header offers the same API; only the
link's cross references (`--cref`) and the variant's own symbols show that it defines
every symbol the program takes from what the cut removes, and only compile evidence shows
that no compile reads a header the variant does not provide.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from slim.model.context import AnalysisContext
from slim.model.facts import Facts
from slim.model.findings import Evidence
from slim.model.graph import BUILD_KINDS, BuildGraph
from slim.model.native import ElfFile, demangle, strip_version
from slim.model.ownership import Ownership

from ..native._carried_flags import FLAGS_HINT, flags_missing
from ..native._edge_verdict import COMPILE_HINT, EdgeEvidence, repoint_use
from ..native._link_view import MapView, cut_loses, links, views_of

CREF_HINT = "link it with -Wl,-Map=<binary>.map,--cref and pass the map (--linkmap)"


@dataclass(frozen=True)
class VariantProof:
    """Why pointing `u -> v` at `w` is safe (`evidence`), or why that is not shown
    (`kept_because`, with the evidence to produce in `missing`)."""

    kept_because: str = ""
    missing: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()

    @property
    def proven(self) -> bool:
        return not self.kept_because


def prove(ctx: AnalysisContext, u: int, v: int, w: int) -> VariantProof:
    """The link, then the compile, of the root with `u -> v` pointed at `w`."""
    own = Ownership.of(ctx.graph)
    link = _link_proof(ctx, own, (u, v), w)
    if not link.proven:
        return link
    closure = set(ctx.closure.tolist())
    compile_ = _compile_proof(ctx, EdgeEvidence.load(ctx, own, closure), (u, v), w)
    if not compile_.proven:
        return compile_
    return VariantProof(evidence=link.evidence + compile_.evidence)


def _link_proof(ctx: AnalysisContext, own: Ownership, cut: tuple[int, int], w: int) -> VariantProof:
    """Every symbol the link of each binary linking `u` resolves from what leaves it with
    the cut, referenced from what stays, is defined by `w`'s objects (the edge is shared
    by all of them: each is judged on its own map)."""
    g = ctx.graph
    u, v = cut
    variant, dep = g.labels[w], g.labels[v]
    stays = set(g.closure([w], BUILD_KINDS).tolist())
    needed: dict[str, tuple[str, str, str, int]] = {}
    objs: list[ElfFile] = []
    unchecked: list[str] = []
    initializers = _Initializers()
    for c, facts in _linking(ctx, u):
        views = [m for m in views_of(facts, c, own, g) if m.map.has_cref]
        if not views:
            unchecked.append(g.labels[c])
            continue
        leaving = set(cut_loses(g, c, u, v)) - stays
        for sym, row in _needed(views, leaving, own).items():
            needed.setdefault(sym, row)
        objs += [e for e in facts.of(ElfFile) if own.artifact_owner(e.archive or e.path) == w]
        initializers.check(g, c, views, leaving, facts, own)
    if unchecked:
        shared = "" if unchecked == [ctx.root_label] else f"{g.labels[u]} -> {dep} is shared: "
        return VariantProof(
            f"{shared}which symbols the link of {', '.join(unchecked[:5])} takes from {dep} "
            f"is unknown without a linker map with cross references ({CREF_HINT})",
            tuple(f"a linker map of {x} with --cref" for x in unchecked[:5]),
        )
    if not objs:
        return VariantProof(
            f"whether {variant} defines the {len(needed)} symbol(s) {ctx.root_label}'s link "
            f"takes from {dep} is unknown (pass {variant}'s archive or objects with --binary)",
            (f"the archive of {variant} (--binary)",),
        )
    defined = {s for e in objs for s in e.defined}
    defined |= set(demangle(sorted(defined)))
    lacking = sorted(s for s in needed if strip_version(s) not in defined)
    if lacking:
        sym, ref, path, line = needed[lacking[0]]
        return VariantProof(
            f"{variant} does not define {_listed(lacking)}, which {ctx.root_label}'s link "
            f"takes from {dep}",
            evidence=(Evidence(path, f"{sym} referenced by {ref} (--cref)", line or None),),
        )
    if initializers.lost or initializers.unknown:
        return initializers.kept(variant)
    archives = sorted({e.archive or e.path for e in objs})
    return VariantProof(
        evidence=(
            Evidence(
                archives[0],
                f"{variant} defines each of the {len(needed)} symbol(s) the link takes from "
                f"{dep}" + (f" ({_listed(sorted(needed))})" if needed else ""),
                analyzer="gpu_kernels",
            ),
        )
    )


@dataclass
class _Initializers:
    """Objects of what leaves with the cut that the links take in and that run static
    initializers besides nvcc's fatbin registration (`lost`: object, target, binary), and
    targets whose linked objects were not given (`unknown`: target, binary). Such an
    initializer may register into code that stays (a kernel registry): the cut takes that
    away, and nothing shows the variant does the same."""

    lost: list[tuple[str, str, str]] = field(default_factory=list)
    unknown: list[tuple[str, str]] = field(default_factory=list)

    def check(
        self,
        g: BuildGraph,
        c: int,
        views: list[MapView],
        leaving: set[int],
        facts: Facts,
        own: Ownership,
    ) -> None:
        by_owner: dict[int, dict[str, ElfFile]] = {}
        for e in facts.of(ElfFile):
            o = own.artifact_owner(e.archive or e.path)
            if o in leaving:
                by_owner.setdefault(o, {})[e.member or posixpath.basename(e.path)] = e
        for x in sorted(leaving):
            given = by_owner.get(x, {})
            for name in sorted(
                {
                    i.member or posixpath.basename(i.file)
                    for m in views
                    for i in m.inputs.get(x, ())
                    if i.linked
                }
            ):
                obj = given.get(name)
                if obj is None:
                    self.unknown.append((g.labels[x], g.labels[c]))
                    break
                if obj.foreign_initializers:
                    self.lost.append((obj.path, g.labels[x], g.labels[c]))

    def kept(self, variant: str) -> VariantProof:
        if self.lost:
            path, dep, binary = self.lost[0]
            return VariantProof(
                f"{path} of {dep}, linked into {binary}, runs static initializers besides "
                f"nvcc's fatbin registration (a C++ dynamic initializer or a constructor): "
                f"the cut takes them out of the program, and whether {variant} does what "
                "they do (a registration into code that stays) is unknown",
                evidence=(Evidence(path, ".init_array entries besides nvcc's", None, 0),),
            )
        dep, binary = self.unknown[0]
        return VariantProof(
            f"whether the objects of {dep} linked into {binary} run static initializers "
            f"the cut takes out of the program is unknown (pass {dep}'s archive or objects "
            "with --binary)",
            (f"the archive of {dep} (--binary)",),
        )


def _linking(ctx: AnalysisContext, u: int) -> list[tuple[int, Facts]]:
    """The root and every other target with a link of its own whose build contains `u`,
    each with the evidence given for it (none: empty)."""
    g = ctx.graph
    up = g.reverse_closure([u], BUILD_KINDS).tolist()
    others = [c for c in sorted(up) if c != ctx.root and links(g.kinds[c])]
    return [(ctx.root, ctx.facts)] + [(c, ctx.evidence_of(g.labels[c]) or Facts()) for c in others]


def _listed(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f", … ({len(names)} in all)" if len(names) > 3 else "")


def _needed(
    views: list[MapView], leaving: set[int], own: Ownership
) -> dict[str, tuple[str, str, str, int]]:
    """symbol -> (symbol, referencing input, map, line) of each symbol defined by a target
    that leaves and referenced from an input that stays (or that no target owns)."""
    out: dict[str, tuple[str, str, str, int]] = {}
    for m in views:
        for x in sorted(leaving):
            for sym, ref, line in m.refs.get(x, ()):
                if own.artifact_owner(ref) not in leaving:
                    out.setdefault(sym, (sym, ref, m.map.path, line))
    return out


def _compile_proof(
    ctx: AnalysisContext, ev: EdgeEvidence, cut: tuple[int, int], w: int
) -> VariantProof:
    """No compile of `u` or its dependants reads a header only what leaves provides, each
    such compile is known, and the edge hands over no definitions or options."""
    g = ctx.graph
    u, v = cut
    use = repoint_use(ev, u, v, w)
    dep, variant = g.labels[v], g.labels[w]
    if use.headers:
        return VariantProof(
            f"{use.headers[0]}"
            + (f" (and {len(use.headers) - 1} more)" if len(use.headers) > 1 else "")
            + f", a header {variant} does not provide ({use.how})"
        )
    if use.flags:
        return VariantProof(
            f"{g.labels[u]} -> {dep} hands {g.labels[u]}'s compile {', '.join(use.flags[:5])}, "
            f"which {variant} does not"
        )
    if use.flags_unknown is not None:
        return VariantProof(
            f"whether {g.labels[u]} -> {dep} hands {g.labels[u]}'s compile definitions or "
            f"options that {variant} does not is unknown: {use.flags_unknown} ({FLAGS_HINT})",
            (flags_missing(g.labels[u], dep),),
        )
    if use.unknown:
        return VariantProof(
            f"whether the compile of {', '.join(use.unknown[:5])} reads a header of {dep} "
            f"that {variant} does not provide is unknown ({COMPILE_HINT})",
            tuple(f"compile-time evidence for {x}" for x in use.unknown[:5]),
        )
    return VariantProof(
        evidence=(
            Evidence(
                "compile",
                f"{use.how}: every header of {dep} that a compile of {g.labels[u]} (or its "
                f"dependants) reads is also provided by {variant}",
                analyzer="gpu_kernels",
            ),
        )
    )
