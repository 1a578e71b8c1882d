"""Whether a library edge that the root's link does not use is needed elsewhere: by a
compile (the dependant reads the dep's headers, or compiles with the definitions and
options the edge brings: CMake usage requirements, Bazel `defines`, Buck2 exported
preprocessor flags), by the CMake usage requirements a PUBLIC/INTERFACE edge carries,
or by another binary that links the same library.

A library's edge is shared by every binary linking that library, so it is proposed for
removal only when each of them was checked and none uses the dep.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from slim.model.compile import CompileDeps
from slim.model.context import AnalysisContext
from slim.model.facts import Facts
from slim.model.findings import Confidence, Evidence
from slim.model.graph import BUILD_KINDS, CODE_KINDS, BuildGraph
from slim.model.ownership import Ownership

from ._carried_flags import (
    FLAGS_HINT,
    carried_verdict,
    flags_carried,
    flags_missing,
    flags_unknown,
)
from ._compile_use import C_SUFFIXES, CompileIndex, HeaderUse, TargetCompile, forced
from ._details import LinkDetails
from ._link_verdict import Verdict
from ._link_view import (
    ANALYZER,
    MapView,
    cut_takes,
    has_code,
    is_native,
    link_use,
    links,
    views_of,
)
from ._propagation import Propagation
from ._unseen_libs import drops_unseen, external_calls

#: Dependants of one edge scanned for #include at most (depfiles have no such limit).
MAX_SCANNED_USERS = 200
_NO_COMPILE_KINDS = frozenset({"interface_library", "INTERFACE_LIBRARY", "custom", "UTILITY"})
COMPILE_HINT = (
    "pass --compile with `ninja -C build -t deps > deps.txt` (Ninja) or the compiler's "
    "depfiles (-MD; a directory of *.d), or --workspace for a static #include scan"
)


@dataclass
class EdgeEvidence:
    """What judging a root's library edges needs beyond the root's own link: the compile
    evidence of every target, and the evidence given for each other linking binary."""

    ctx: AnalysisContext
    own: Ownership
    compile: CompileIndex
    consumers: dict[int, Facts | None]
    propagation: Propagation
    calls: list[tuple[str, str | None]] | None = None
    """The root's libraries named by `-l` or path with the calls that put them there
    (`external_calls`), read from the workspace on first use."""

    @staticmethod
    def load(ctx: AnalysisContext, own: Ownership, closure: set[int]) -> EdgeEvidence:
        g = ctx.graph
        libs = [n for n in closure if n != ctx.root]
        up = g.reverse_closure(libs, BUILD_KINDS).tolist() if libs else []
        consumers: dict[int, Facts | None] = {}
        for c in sorted(up):
            if c != ctx.root and links(g.kinds[c]):
                consumers[c] = ctx.evidence_of(g.labels[c])
        deps = list(ctx.facts.of(CompileDeps))
        for f in consumers.values():
            if f is not None:
                deps.extend(f.of(CompileDeps))
        cidx = CompileIndex(g, own, deps, ctx.options.workspace)
        return EdgeEvidence(ctx, own, cidx, consumers, Propagation(ctx))

    def edge_verdict(self, a: int, n: int, link: Verdict) -> Verdict:
        """A link-unreferenced edge `a -> n`: kept when a compile reads `n`'s headers, not
        removable without compile-time evidence, for a library's edge removable only when
        every binary linking `a` was checked and none uses `n`, and kept when the cut takes
        away a library's part of the link no map shows (`drops_unseen`)."""
        verdict = self._compile_verdict(a, n, link)
        if not verdict.removable:
            return verdict
        if self.calls is None:
            self.calls = external_calls(self.ctx)
        return drops_unseen(self.ctx, a, n, verdict, self.calls)

    def _compile_verdict(self, a: int, n: int, link: Verdict) -> Verdict:
        ctx = self.ctx
        g = ctx.graph
        dep = g.labels[n]
        use = _CompileUse.of(self, a, n)
        details = dataclasses.replace(link.details, compile_evidence=use.how)
        if use.used:
            return use.header_only(ctx.root_label, g.labels[a], dep, link, details)
        if use.unknown:
            return self._compile_unknown(dep, use.unknown, link, details)
        if use.unseen:
            return _giver_unseen(g.labels[a], dep, use.unseen, link, details)
        if use.exact and self.compile.workspace is None and link.removable:
            missing = "--workspace (the sources: a __has_include probe is in no depfile)"
            details = _also_missing(details, missing)
            link = dataclasses.replace(
                link,
                confidence=Confidence.MEDIUM,
                message=f"{link.message} Not certain without {missing}.",
                details=details,
            )
        if use.how and not use.exact and link.removable and link.confidence is Confidence.HIGH:
            missing = "--compile (depfiles or `ninja -t deps`: what each compile read)"
            details = _also_missing(details, missing)
            link = dataclasses.replace(
                link,
                confidence=Confidence.MEDIUM,
                message=f"{link.message} Not certain without {missing}: a static #include "
                "scan does not see every include path a build may use.",
                details=details,
            )
        if link.details.idle_initializers and not use.exact:
            msg = (
                f"{dep} contributes nothing to {ctx.root_label}'s link and "
                f"{link.details.idle_initializers.removeprefix('its objects carry ')} that "
                "cannot run here, but only a static #include scan says that no header of it "
                "is used (a header of a library with initializers is how such edges turn "
                f"out needed). Not proposed for removal without exact compile-time evidence "
                f"({COMPILE_HINT.split(', or --workspace')[0]})."
            )
            return Verdict(
                "unreferenced-unsafe", msg, Confidence.LOW, False, link.evidence, None, details
            )
        through = " through an include directory" if use.beside else ""
        ev = [
            *link.evidence,
            Evidence(
                "compile",
                f"{use.how}: no file compiled for {g.labels[a]} (or its dependants) reads a "
                f"header of {dep} or of what it brings{through}",
                None,
                None,
                ANALYZER,
            ),
            *(
                dataclasses.replace(
                    b,
                    detail=f"{b.detail} (from its own directory: found "
                    "without the edge's include directories)",
                )
                for b in use.beside[:3]
            ),
        ]
        unseen = flags_unknown(g, a, n)
        if unseen is not None:
            return _flags_unknown(
                g.labels[a], dep, unseen, dataclasses.replace(link, evidence=ev), details
            )
        carried = flags_carried(g, a, n)
        if carried:
            return carried_verdict(g, ctx.root_label, (a, n), carried, ev, details)
        public = None if a == ctx.root else self._public_edge(a, n)
        given = _requirements_over(g, a, n) if public is None else []
        if given:
            along = [g.labels[m] for m in _declared_along(g, a, n)]
            return _requirements_verdict(
                ctx.root_label, g.labels[a], dep, along, given, ev, details
            )
        if a == ctx.root:
            return dataclasses.replace(link, evidence=ev, details=details)
        if public is not None:
            msg = (
                f"{dep} contributes nothing to {ctx.root_label}'s link, but "
                f"{g.labels[a]} -> {dep} {public}: every target that links {g.labels[a]} "
                f"gets {dep}'s usage requirements (include directories, compile definitions, "
                "options) through it, which no map or depfile shows. Not proposed for removal."
            )
            return Verdict("unreferenced-unsafe", msg, Confidence.LOW, False, ev, None, details)
        return self._consumers_verdict(
            a, n, dataclasses.replace(link, evidence=ev, details=details)
        )

    def _compile_unknown(
        self, dep: str, unknown: list[str], link: Verdict, details: LinkDetails
    ) -> Verdict:
        missing = f"compile-time evidence for {', '.join(unknown[:5])}"
        kept = (
            f"whether the compile of {', '.join(unknown[:5])} includes {dep}'s headers is "
            f"unknown ({COMPILE_HINT})"
        )
        msg = f"{link.message} Not removable: {kept}."
        stray = self.compile.unowned
        if stray:
            msg += (
                f" Ownership unknown for {len(stray)} compiled object(s) of the compile "
                f"evidence given (no target of the graph owns {', '.join(sorted(stray)[:3])})."
            )
        foreign = self.compile.foreign
        if foreign:
            msg += (
                f" {len(foreign)} compiled object(s) of the compile evidence were compiled "
                f"from outside the workspace and the graph's source directories "
                f"({', '.join(sorted(foreign)[:3])}): evidence of another tree is not used."
            )
        return _missing(msg, kept, missing, link, details)

    def _public_edge(self, a: int, n: int) -> str | None:
        """Why a CMake library's edge may carry usage requirements to its dependants
        (PUBLIC/INTERFACE, the plain signature, or a declaring line that cannot be read);
        None for a PRIVATE edge, a library nothing depends on, or a non-CMake graph."""
        g = self.ctx.graph
        if "cmake_type" not in g.target(a).attrs:
            return None
        if len(g.reverse_closure([a], BUILD_KINDS)) <= 1:
            return None
        kw = self.propagation.keyword(a, n)
        if kw.keyword == "PRIVATE":
            return None
        if kw.keyword is None:
            return f"has an unknown keyword ({kw.where})"
        at = f" {kw.where}" if kw.where else ""
        if kw.keyword == "":
            return f"is declared{at} without a keyword (the plain signature is transitive)"
        return f"is declared {kw.keyword}{at}"

    def _consumers_verdict(self, a: int, n: int, link: Verdict) -> Verdict:
        """`a -> n` is a library's edge: who else links `a`, and whether any of them uses
        `n` (each judged on the evidence given for it)."""
        ctx = self.ctx
        g = ctx.graph
        dep, lib = g.labels[n], g.labels[a]
        consumers = [c for c in g.reverse_closure([a], BUILD_KINDS).tolist() if links(g.kinds[c])]
        checked = [ctx.root_label]
        unchecked: list[str] = []
        using: list[str] = []
        ev = list(link.evidence)
        for c in sorted(consumers):
            if c == ctx.root:
                continue
            label = g.labels[c]
            facts = self.consumers.get(c)
            if facts is None and c not in self.consumers:
                facts = ctx.evidence_of(label)
            views = views_of(facts, c, self.own, g)
            if not views:
                unchecked.append(label)
                continue
            checked.append(label)
            why = link_use(views, n) or _use_of_what_leaves(g, views, c, a, n)
            if why is not None:
                using.append(label)
                ev.append(Evidence(why[0], f"{label}: {why[1]}", why[2], None, ANALYZER))
        details = dataclasses.replace(
            link.details,
            consumers_checked=tuple(checked),
            consumers_not_checked=tuple(unchecked),
            consumers_using=tuple(using),
        )
        if not unchecked and not using:
            msg = (
                f"{link.message} {lib}'s edge is shared by every binary that links {lib}; "
                f"checked for each ({', '.join(checked)}): none uses {dep}."
            )
            return dataclasses.replace(link, message=msg, evidence=ev, details=details)
        return Verdict(
            "unused-by-this-root",
            _shared_edge_message(ctx.root_label, lib, dep, checked, unchecked, using),
            Confidence.MEDIUM if not using else Confidence.HIGH,
            False,
            ev,
            None,
            details,
        )


def _flags_unknown(lib: str, dep: str, why: str, link: Verdict, details: LinkDetails) -> Verdict:
    """Not removable: neither link nor headers use `dep`, but whether the edge hands the
    compile definitions or options (which no map or depfile shows) is not known."""
    kept = (
        f"whether {lib} -> {dep} hands {lib}'s compile (and its dependants') definitions or "
        f"options is unknown: {why} ({FLAGS_HINT})"
    )
    missing = flags_missing(lib, dep)
    return _missing(f"{link.message} Not removable: {kept}.", kept, missing, link, details)


def _giver_unseen(
    lib: str, dep: str, unseen: list[str], link: Verdict, details: LinkDetails
) -> Verdict:
    """Kept: a compile reads a header through an include directory, and the graph shows no
    dep that gives it that directory (before the cut as after), so whether the cut takes it
    away is unknown; "needed to compile" would be a guess, and so would "not needed"."""
    shown = "; ".join(unseen[:3])
    kept = (
        f"the graph does not show which dep gives the include directory these headers are "
        f"read through ({shown}), so not whether one still does once {lib} -> {dep} is cut"
    )
    missing = (
        "which target passes that include directory on (the CMake file API shows include "
        "directories only on targets that compile, not on a library of object files); "
        "a cut and a rebuild would tell"
    )
    return _missing(f"{link.message} Not removable: {kept}.", kept, missing, link, details)


def _also_missing(details: LinkDetails, missing: str) -> LinkDetails:
    return dataclasses.replace(
        details, missing_evidence=tuple(sorted({*details.missing_evidence, missing}))
    )


def _missing(msg: str, kept: str, missing: str, link: Verdict, details: LinkDetails) -> Verdict:
    """Kept (`unreferenced`, medium): the link takes nothing, but `missing` evidence is
    needed to say the cut is safe."""
    return Verdict(
        "unreferenced",
        msg,
        Confidence.MEDIUM,
        False,
        link.evidence,
        None,
        _also_missing(details, missing),
        kept,
    )


def _use_of_what_leaves(
    g: BuildGraph, views: list[MapView], c: int, a: int, n: int
) -> tuple[str, str, int | None] | None:
    """Where `c`'s link uses what cutting `a -> n` takes out of `c`'s closure; None when it
    uses none of it."""
    for x in cut_takes(g, c, a, n):
        if (why := link_use(views, x)) is not None:
            return (
                why[0],
                f"{why[1]} ({g.labels[x]}, which it gets only through {g.labels[n]})",
                why[2],
            )
    return None


def _shared_edge_message(
    root: str, lib: str, dep: str, checked: list[str], unchecked: list[str], using: list[str]
) -> str:
    parts = []
    if using:
        parts.append(f"still used through it by {', '.join(using)}")
    if unchecked:
        parts.append(
            f"not checked for {', '.join(unchecked)} (no linker map given for "
            f"{'it' if len(unchecked) == 1 else 'them'}: pass each binary's map, as a root "
            'or in [targets."//x"] linkmap)'
        )
    return (
        f"{dep} contributes nothing to {root}'s link, but {lib} -> {dep} is a "
        f"library's edge, shared by every binary that links {lib}: "
        + "; ".join(parts)
        + f". Checked: {', '.join(checked)}."
    )


@dataclass
class _CompileUse:
    """Headers of `n` (or of what `n` brings) read by the compile of `a` or of its
    dependants (`used`), the targets whose compile is unknown, and the evidence kinds."""

    used: list[tuple[int, str, Evidence]]
    unknown: list[str]
    how: str
    unseen: list[str] = dataclasses.field(default_factory=list)
    """Compiles reading a header through an include directory whose giver is not shown."""
    beside: list[Evidence] = dataclasses.field(default_factory=list)
    """Includes of the dep's headers found from the includer's own directory."""

    @property
    def exact(self) -> bool:
        """Depfiles or `ninja -t deps` for every compile looked at (no static scan)."""
        return bool(self.how) and "static" not in self.how

    @staticmethod
    def of(ev: EdgeEvidence, a: int, n: int, instead: frozenset[int] = frozenset()) -> _CompileUse:
        """The uses once `a -> n` is cut (and what `instead` provides is given)."""
        ctx = ev.ctx
        g = ctx.graph
        cidx = ev.compile
        brought = set(g.closure([n], CODE_KINDS).tolist())
        use = _CompileUse([], [], "")
        hows: set[str] = set()
        users = [u for u in _users(ctx, a) if _compiles(ctx, u) and not _headers_only(ev, u)]
        scan_budget = MAX_SCANNED_USERS
        for u in users:
            known = cidx.by_target.get(u)
            if known is None and scan_budget <= 0:
                use.unknown.append(
                    f"{g.labels[u]} (one of {len(users)} dependants: too many to scan)"
                )
                continue
            if known is None:
                scan_budget -= 1
            tc = cidx.of(u)
            if tc is None:
                use.unknown.append(g.labels[u])
                continue
            hows.add(tc.how)
            _header_uses(ev, (a, n), u, tc, brought, use, instead)
            unresolved = [*tc.unresolved, *_maybe_taken(cidx, tc, brought)]
            if not tc.exact and unresolved:
                shown = "; ".join(unresolved[:3])
                use.unknown.append(f"{g.labels[u]} (static scan could not resolve {shown})")
        use.how = ", ".join(sorted(hows))
        return use

    def header_only(
        self, root: str, lib: str, dep: str, link: Verdict, details: LinkDetails
    ) -> Verdict:
        """Kept: a compile reads the dep's headers although the link takes nothing."""
        seen: dict[str, Evidence] = {}
        for _, what, hev in self.used:
            seen.setdefault(what, hev)
        rows = list(seen)
        exact = self.exact
        msg = (
            f"{dep} contributes no code to {root}'s link, but it is needed to "
            f"compile: {rows[0]}"
            + (f" (and {len(rows) - 1} more)" if len(rows) > 1 else "")
            + f" ({self.how}). Cutting {lib} -> {dep} takes its headers and include "
            "directories away."
        )
        return Verdict(
            "header-only-use",
            msg,
            Confidence.HIGH if exact else Confidence.MEDIUM,
            False,
            [*link.evidence, *list(seen.values())[:5]],
            None,
            dataclasses.replace(details, header_uses=tuple(rows[:20])),
        )


def _maybe_taken(cidx: CompileIndex, tc: TargetCompile, brought: set[int]) -> list[str]:
    """The unresolved angled includes of `tc` that may be a header of what the cut takes
    away (or of nobody known)."""
    out = []
    for why, headers in tc.maybe:
        owners = [cidx.headers.providers(h) for h in headers]
        if any(p is None or p.targets & brought for p in owners):
            out.append(why)
    return out


@dataclass(frozen=True)
class RepointUse:
    """What a compile loses when `a -> n` points at another target instead: headers only
    `n` (or what it brings) provides, compiles whose evidence is missing, the definitions
    and options the edge hands over (each shown), and the evidence kinds."""

    headers: tuple[str, ...]
    unknown: tuple[str, ...]
    flags: tuple[str, ...]
    how: str
    flags_unknown: str | None = None
    """Why the flags the edge hands over cannot be read off the graph (`flags_unknown`)."""


def repoint_use(ev: EdgeEvidence, a: int, n: int, w: int) -> RepointUse:
    """The compile side of pointing `a -> n` at `w` (a CPU variant of a GPU library): safe
    when nothing is lost, nothing unknown, and the edge hands over no flags."""
    g = ev.ctx.graph
    use = _CompileUse.of(ev, a, n, frozenset(ev.propagation.given_by(w)))
    flags = [
        f"-D{value}" if kind == "define" else value
        for kind, value, _ in _requirements_over(g, a, n)
    ]
    stays = set(g.closure([w], CODE_KINDS).tolist())
    flags += [
        f"-D{v}" if name == "defines" else v
        for x, name, values in flags_carried(g, a, n)
        if x not in stays
        for v in values
    ]
    return RepointUse(
        tuple(dict.fromkeys(row for _, row, _ in use.used)),
        (*use.unknown, *(f"{u}: which dep gives its include directory" for u in use.unseen)),
        tuple(flags),
        use.how,
        flags_unknown(g, a, n, stays),
    )


def _requirements_over(g: BuildGraph, a: int, n: int) -> list[tuple[str, str, str]]:
    """(kind, value, where) of each compile definition and option `a`'s compiles get over
    the edge `a -> n` (the CMake file API traces them to the line declaring it): `n`'s
    usage requirements, which no map or depfile shows."""
    rows = g.target(a).attrs.get("inherited_compile")
    at = g.edge_locations.get((a, n))
    if not isinstance(rows, tuple) or at is None or at.line is None:
        return []
    out = []
    for row in map(str, rows):
        kind, _, rest = row.partition("\t")
        value, _, where = rest.rpartition("\t")
        if where == f"{at.path}:{at.line}":
            out.append((kind, value, where))
    return out


def _shown(kind: str, value: str) -> str:
    """A usage requirement as the message names it."""
    if kind == "define":
        return f"-D{value}"
    if kind == "precompiled header":
        return f"{value} (a precompiled header)"
    return f"{value} (a source compiled into it)" if kind == "source" else value


def _verb(kind: str) -> str:
    return {"link option": "links with", "source": "compiles"}.get(kind, "compiles with")


def _declared_along(g: BuildGraph, a: int, n: int) -> list[int]:
    """The other deps of `a` whose edges the same line declares as `a -> n`'s."""
    at = g.edge_locations.get((a, n))
    deps = {e.dep for e in g.out_edges(a, BUILD_KINDS)} - {n}
    return sorted(m for m in deps if g.edge_locations.get((a, m)) == at)


def _requirements_verdict(
    root: str,
    lib: str,
    dep: str,
    along: list[str],
    given: list[tuple[str, str, str]],
    evidence: list[Evidence],
    details: LinkDetails,
) -> Verdict:
    """Kept: the edge hands the dependant's compile definitions or options (or options of
    its link), so cutting it changes what is compiled or linked (or breaks it) although the
    link takes nothing from the dep. When the line declares other deps too, the file API
    cannot tell which of them gives which."""
    kinds = {kind for kind, _, _ in given}
    steps = "compile"
    if "link option" in kinds:
        steps = "link" if kinds == {"link option"} else "compile and link"
    shown = [_shown(kind, value) for kind, value, _ in given[:5]] + (
        [f"… {len(given) - 5} more"] if len(given) > 5 else []
    )
    where = given[0][2]
    whose = (
        f"{dep}'s usage requirements"
        if not along
        else f"the usage requirements of {dep} or of {', '.join(along[:3])} (declared on "
        "the same line)"
    )
    msg = (
        f"{dep} contributes no code to {root}'s link, but {lib} -> {dep} gives {lib}'s "
        f"{steps} {whose}: {', '.join(shown)} (the CMake file API traces them to {where}). "
        f"Cutting the edge changes that {steps}."
    )
    ev = [
        *evidence,
        *(
            Evidence(
                "graph (CMake file API)",
                f"{lib} {_verb(kind)} {value} ({kind}) through {where}",
                None,
                None,
                ANALYZER,
            )
            for kind, value, where in given[:5]
        ),
    ]
    return Verdict("usage-requirements", msg, Confidence.HIGH, False, ev, None, details)


def _header_uses(
    ev: EdgeEvidence,
    cut: tuple[int, int],
    u: int,
    tc: TargetCompile,
    brought: set[int],
    use: _CompileUse,
    instead: frozenset[int] = frozenset(),
) -> None:
    """Add to `use` the headers `u`'s compile reads that only `n` (or what it brings)
    provides once `cut` (`a -> n`) is gone (and `instead` is given). Headers nobody is
    known to provide go to `use.unknown`; to `use.unseen`, those read through an include
    directory that no dep known to reach `u` passes on even before the cut (the graph does
    not show where `u` gets it: a library of object files declares include directories
    the CMake file API shows on no target), so not whether the cut takes it away. A header
    CMake targets list, which every file of a CMake `u`'s compile names from its own
    directory, needs no include directory of the edge: no use (`use.beside`), unless the
    compile passes `-I-` (no search of the includer's directory then)."""
    g = ev.ctx.graph
    owners = ev.compile.headers
    kept = ev.propagation.kept(u, cut) | instead
    now: set[int] | None = None
    stray: list[str] = []
    unexplained: list[str] = []
    for h in [*tc.headers, *ev.compile.probes(u, tc)]:
        prov = owners.providers(h.header)
        from_n = prov.targets & brought if prov is not None else frozenset()
        if h.probe and not from_n:
            continue  # what no target known to leave provides answers the probe as before
        if prov is None or (prov.guessed and not from_n):
            stray.append(f"{h.source} reads {h.header}")
            continue
        if not from_n:
            continue
        still: set[int] = set() if prov.guessed else set(prov.targets & kept)
        if prov.include_dir is not None:
            d = prov.include_dir
            still = {p for p in still if p == u or owners.exports(p, d)}
            if not still:
                if now is None:
                    now = ev.propagation.kept(u, (-1, -1))
                if not any(p == u or owners.exports(p, d) for p in prov.targets & now):
                    unexplained.append(f"{h.source} reads {h.header} through {d or '.'}")
                    continue
        if still:
            continue
        if (
            prov.exact
            and all(_cmake(g, t) for t in (u, *prov.targets))
            and not g.target(u).attrs.get("quote_dir_off")
            and not forced(g, u)
        ):
            found = ev.compile.beside(tc, h.header)
            if found is not None:
                use.beside.append(found)
                continue
        row = _header_row(g.labels, cut, u, h, set(from_n), prov.rule)
        use.used.append((u, row, h.evidence))
    if stray:
        shown = "; ".join(sorted(set(stray))[:3])
        use.unknown.append(f"{g.labels[u]} (no target of the graph is known to provide: {shown})")
    if unexplained:
        shown = "; ".join(sorted(set(unexplained))[:3])
        use.unseen.append(f"{g.labels[u]} ({shown})")


def _cmake(g: BuildGraph, t: int) -> bool:
    return "cmake_type" in g.target(t).attrs


def _header_row(
    labels: Sequence[str], cut: tuple[int, int], u: int, h: HeaderUse, owners: set[int], rule: str
) -> str:
    a, n = cut
    via = sorted(labels[o] for o in owners)
    what = f"{h.source} {'probes (__has_include)' if h.probe else 'includes'} {h.header}"
    if via != [labels[n]]:
        what += f" (provided by {', '.join(via)}: {rule})"
    if u != a:
        what = f"{labels[u]}: {what}"
    return what


def _users(ctx: AnalysisContext, a: int) -> list[int]:
    """`a` and every target whose compile gets headers through `a` (its dependants)."""
    if a == ctx.root:
        return [a]
    up = ctx.graph.reverse_closure([a], CODE_KINDS).tolist()
    return sorted(set(up) | {a})


def _headers_only(ev: EdgeEvidence, u: int) -> bool:
    """A library of headers alone with no compile of its own recorded (Bazel compiles a
    `cc_library` with only `hdrs` nowhere but in its dependants, whose depfiles list what
    those headers include; with `parse_headers` it has its own, and they count). A target
    whose sources the graph does not list is not one."""
    if u == ev.ctx.root or u in ev.compile.by_target:
        return False
    t = ev.ctx.graph.target(u)
    return bool(t.srcs) and not has_code(t)


def _compiles(ctx: AnalysisContext, u: int) -> bool:
    t = ctx.graph.target(u)
    if t.kind in _NO_COMPILE_KINDS or t.is_external:
        return False
    srcs = [s.rsplit("?", 1)[0] for s in t.srcs]
    if srcs:
        return any(s.endswith(C_SUFFIXES) for s in srcs)
    return is_native(t) or links(t.kind)
