"""SLIM002 unreferenced-native-dep and SLIM004 unused-shared-lib, from linker maps and ELF.

For a root binary B whose map is given: a native library N in B's closure is dead when
nothing of N survived into B (no member extracted, no section kept) and no other linked
input references a symbol N defines. Registration libraries (alwayslink/whole-archive),
static constructors and weak symbols make a dead-looking N unsafe to cut; missing
`--cref`, GC or ELF evidence lowers the confidence and says which flag would settle it.
SLIM004: a DT_NEEDED library the binary resolves no symbol from.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from slim.model.compile import CompileDeps
from slim.model.context import AnalysisContext, has_native_code
from slim.model.facts import Facts
from slim.model.findings import Confidence, Evidence, Finding, Rule, Saving
from slim.model.graph import BUILD_KINDS, CODE_KINDS, BuildGraph, Target
from slim.model.native import (
    ElfFile,
    GcReport,
    LinkInput,
    LinkMap,
    WhyExtract,
    demangle,
    strip_version,
)
from slim.model.ownership import Ownership
from slim.model.plugin import AnalyzerSpec

from ._compile_use import C_SUFFIXES, CompileIndex
from ._details import LinkDetails, SharedLibDetails

UNREFERENCED = Rule(
    code="SLIM002",
    name="unreferenced-native-dep",
    summary="A native library dep contributes no linked code and no referenced symbol.",
    help=(
        "The linker map of the binary shows no member of the library's archive extracted, "
        "no section of it kept after --gc-sections, and (with --cref) no other input "
        "referencing a symbol it defines. Registration libraries (alwayslink, "
        "--whole-archive), static constructors and weak symbols are never proposed for "
        "removal. Link with -Wl,-Map=app.map,--cref,--gc-sections and pass the library "
        "archives with --binary for a certain verdict."
    ),
)
UNUSED_SHARED = Rule(
    code="SLIM004",
    name="unused-shared-lib",
    summary="A DT_NEEDED shared library provides no symbol the binary uses.",
    help=(
        "Pass the binary and its shared libraries with --binary. A library from which "
        "neither the binary nor another needed library resolves a symbol can be dropped "
        "(or linked with -Wl,--as-needed)."
    ),
)

NATIVE_KINDS = frozenset(
    {
        "cc_library",
        "cuda_library",
        "cc_import",
        "objc_library",
        "cxx_library",
        "prebuilt_cxx_library",
        "cc_shared_library",
        "STATIC_LIBRARY",
        "OBJECT_LIBRARY",
        "SHARED_LIBRARY",
        "MODULE_LIBRARY",
        "static_library",
        "shared_library",
    }
)
BINARY_KINDS = ("_binary", "_test", "EXECUTABLE", "executable")
#: Targets whose link takes a library's edges with it (a map of each is the evidence).
LINKING_KINDS: tuple[str, ...] = (
    "_binary",
    "_test",
    "executable",
    "shared_library",
    "module_library",
)
LINKING_KINDS += ("cc_shared_library", "EXECUTABLE", "SHARED_LIBRARY", "MODULE_LIBRARY")
#: Dependants of one edge scanned for #include at most (depfiles have no such limit).
MAX_SCANNED_USERS = 200
_NO_COMPILE_KINDS = frozenset({"interface_library", "INTERFACE_LIBRARY", "custom", "UTILITY"})
COMPILE_HINT = (
    "pass --compile with `ninja -C build -t deps > deps.txt` (Ninja) or the compiler's "
    "depfiles (-MD; a directory of *.d), or --workspace for a static #include scan"
)
CODE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".s", ".S", ".asm", ".o", ".a", ".m")
SHARED_SUFFIXES = (".so", ".dylib", ".ifso")
# Weak references every gcc/glibc program carries; they say nothing about the deps.
RUNTIME_WEAK = (
    "_ITM_",
    "__gmon_start__",
    "__cxa_finalize",
    "_Jv_RegisterClasses",
    "__pthread",
    "pthread_",
    "__libc_",
    "__register_frame_info",
    "__deregister_frame_info",
    "__tls_get_addr",
)
# How sure each linker's map is that an archive with nothing extracted was on the link line.
_LINKER_RANK = {"bfd": 4, "gold": 3, "lld": 2, "mold": 1}


def _is_native(t: Target) -> bool:
    return t.kind in NATIVE_KINDS


def _has_code(t: Target) -> bool:
    return any(s.rsplit("?", 1)[0].endswith(CODE_SUFFIXES) for s in t.srcs) or t.kind in (
        "STATIC_LIBRARY",
        "OBJECT_LIBRARY",
        "cc_import",
        "prebuilt_cxx_library",
    )


def _is_shared(path: str) -> bool:
    base = posixpath.basename(path.replace("\\", "/"))
    return base.endswith(SHARED_SUFFIXES) or ".so." in base


def _whole_archive_flag(t: Target) -> bool:
    opts = t.attrs.get("linkopts", ())
    text = " ".join(opts) if isinstance(opts, tuple) else str(opts)
    return "whole-archive" in text or "--force_load" in text or "-all_load" in text


@dataclass
class _MapView:
    """One map joined to the graph: inputs and evidence per owning target."""

    map: LinkMap
    inputs: dict[int, list[LinkInput]] = field(default_factory=lambda: defaultdict(list))
    loaded: dict[int, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    gc: dict[int, list[tuple[str, str, int]]] = field(default_factory=lambda: defaultdict(list))
    extracted: dict[int, list[tuple[str, str, str, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    refs: dict[int, list[tuple[str, str, int]]] = field(default_factory=lambda: defaultdict(list))
    whole: set[int] = field(default_factory=set)
    shared_owners: set[int] = field(default_factory=set)
    gc_given: bool = False
    why_given: bool = False


def _view(m: LinkMap, own: Ownership, gcs: list[GcReport], whys: list[WhyExtract]) -> _MapView:
    v = _MapView(m)
    owner_cache: dict[str, int | None] = {}

    def owner(path: str) -> int | None:
        if path not in owner_cache:
            owner_cache[path] = own.artifact_owner(path)
        return owner_cache[path]

    files = {i.file for i in m.inputs}
    for i in m.inputs:
        o = owner(i.file)
        if o is not None:
            v.inputs[o].append(i)
    for path, line in m.loaded:
        o = owner(path)
        if o is not None:
            v.loaded[o].append((path, line))
            if _is_shared(path):
                v.shared_owners.add(o)
    for path in m.shared:
        o = owner(path)
        if o is not None:
            v.shared_owners.add(o)
    for a in m.whole_archive:
        o = owner(a)
        if o is not None:
            v.whole.add(o)
    for x in m.xref:
        if not x.defined_in:
            continue
        d = owner(x.defined_in)
        if d is None:
            continue
        if _is_shared(x.defined_in):
            v.shared_owners.add(d)
        for r in x.referenced_by:
            if owner(r) != d:
                v.refs[d].append((x.symbol, r, x.line))
    for g in gcs:
        if not any(e.file in files for e in g.entries):
            continue
        v.gc_given = True
        for e in g.entries:
            o = owner(e.file)
            if o is not None:
                v.gc[o].append((e.file, e.section, e.line))
    for w in whys:
        if not any(e.reference in files or e.extracted in files for e in w.entries):
            continue
        v.why_given = True
        for row in w.entries:
            o = owner(row.extracted)
            if o is not None:
                v.extracted[o].append((row.extracted, row.reference, row.symbol, row.line))
    return v


def _map_matches(v: _MapView, root: int, own: Ownership, graph: BuildGraph) -> bool:
    if root in v.inputs:
        return True
    out = v.map.output
    if out:
        if own.artifact_owner(out) == root:
            return True
        if posixpath.basename(out) == graph.labels[root].rsplit(":", 1)[-1]:
            return True
    return False


_TLL_KEYWORDS = {
    "PUBLIC": "PUBLIC",
    "PRIVATE": "PRIVATE",
    "INTERFACE": "INTERFACE",
    "LINK_PUBLIC": "PUBLIC",
    "LINK_PRIVATE": "PRIVATE",
    "LINK_INTERFACE_LIBRARIES": "INTERFACE",
}


def _declared_visibility(dirs: list[Path], path: str, line: int, name: str) -> str | None:
    """The keyword in force for `name` in the `target_link_libraries(...)` call starting at
    `path:line` ("" for the plain signature); None when the file cannot be read."""
    for d in dirs:
        f = d / path
        try:
            lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        if not 0 < line <= len(lines):
            continue
        text = " ".join(lines[line - 1 : line + 40])
        text = text.split(")", 1)[0].partition("(")[2]
        words = [w.strip('"') for w in text.replace("\t", " ").split()]
        current = ""
        for w in words[1:]:
            if w in _TLL_KEYWORDS:
                current = _TLL_KEYWORDS[w]
            elif w == name or w.replace("::", "__") == name:
                return current
        return current
    return None


def _links(kind: str) -> bool:
    """A target with a link step of its own (a binary, a test, a shared library)."""
    return kind.endswith(LINKING_KINDS) or kind in LINKING_KINDS


def _link_use(views: list[_MapView], n: int) -> tuple[str, str, int | None] | None:
    """Whether `n` takes part in any of these links: (map, what, line), or None."""
    for v in views:
        m = v.map
        if n in v.shared_owners:
            return m.path, "links it as a shared library", None
        for i in v.inputs.get(n, ()):
            if _live([i], m.linker):
                return m.path, f"{i.file} is linked ({i.kept_bytes} bytes kept)", i.line or None
            return m.path, f"{i.file} is extracted (then garbage-collected)", i.line or None
        for sym, ref, line in v.refs.get(n, ())[:1]:
            return m.path, f"{sym} referenced by {ref} (--cref)", line
        for file, _ref, sym, line in v.extracted.get(n, ())[:1]:
            return m.path, f"{file} extracted for {sym} (why-extract)", line
        for file, sec, line in v.gc.get(n, ())[:1]:
            return m.path, f"{file}:({sec}) linked then garbage-collected", line
        if n in v.whole:
            return m.path, "linked whole-archive", None
    return None


def _live(inputs: Iterable[LinkInput], linker: str) -> bool:
    """Something of it is in the program (MSVC maps carry no sizes: a listed public is)."""
    return any(i.kept_bytes > 0 or (linker == "msvc" and i.sections) for i in inputs)


def _root_binaries(
    ctx: AnalysisContext, own: Ownership, elfs: list[ElfFile], views: list[_MapView]
) -> list[ElfFile]:
    """ELF executables/libraries that are the root: owned by it, or named like it/its map."""
    name = ctx.root_label.rsplit(":", 1)[-1]
    outputs = {posixpath.basename(v.map.output) for v in views if v.map.output}
    return [
        e
        for e in elfs
        if e.kind in ("exec", "dyn")
        and (
            own.artifact_owner(e.path) == ctx.root
            or posixpath.basename(e.path) in outputs
            or posixpath.basename(e.path) == name
        )
    ]


class NativeSymbolsAnalyzer:
    """Joins linker maps, GC reports and ELF facts to the root's closure."""

    _compile: CompileIndex
    _consumer_facts: dict[int, Facts | None]

    def analyze(self, ctx: AnalysisContext) -> Iterator[Finding]:
        g = ctx.graph
        own = Ownership.of(g)
        root_t = ctx.root_target
        maps = ctx.facts.of(LinkMap)
        gcs = ctx.facts.of(GcReport)
        whys = ctx.facts.of(WhyExtract)
        elfs = ctx.facts.of(ElfFile)
        closure = set(ctx.closure.tolist())
        views = [_view(m, own, gcs, whys) for m in maps]
        mine = [v for v in views if _map_matches(v, ctx.root, own, g)]
        mine.sort(key=lambda v: (-_LINKER_RANK.get(v.map.linker, 0), v.map.path))
        is_binary = root_t.kind.endswith(BINARY_KINDS) or root_t.kind in BINARY_KINDS
        if maps and not mine and is_binary:
            yield self._not_checked(ctx, maps)
        if mine:
            self._consumer_facts = self._load_consumers(ctx, closure)
            deps = list(ctx.facts.of(CompileDeps))
            for f in self._consumer_facts.values():
                if f is not None:
                    deps.extend(f.of(CompileDeps))
            self._compile = CompileIndex(g, own, deps, ctx.options.workspace)
            yield from self._slim002(ctx, own, mine, elfs, closure)
        yield from self._slim004(ctx, own, elfs, mine, closure)

    # -- SLIM002 -----------------------------------------------------------------------
    def _not_checked(self, ctx: AnalysisContext, maps: list[LinkMap]) -> Finding:
        names = ", ".join(sorted(m.path for m in maps))
        return Finding(
            code=UNREFERENCED.code,
            name=UNREFERENCED.name,
            target=ctx.root_label,
            dep="",
            root=ctx.root_label,
            verdict="not-checked",
            message=(
                f"no linker map of {ctx.root_label} among the maps given ({names}): none "
                "lists an object this target owns; pass the map of this binary "
                "(-Wl,-Map=...) to check its native deps"
            ),
            confidence=Confidence.HIGH,
            removable=False,
        )

    def _slim002(
        self,
        ctx: AnalysisContext,
        own: Ownership,
        views: list[_MapView],
        elfs: list[ElfFile],
        closure: set[int],
    ) -> Iterator[Finding]:
        g = ctx.graph
        elf_by_owner: dict[int, list[ElfFile]] = defaultdict(list)
        for e in elfs:
            if e.kind == "rel":
                o = own.artifact_owner(e.path)
                if o is not None:
                    elf_by_owner[o].append(e)
        binary_weak_undef: set[str] = set()
        for e in _root_binaries(ctx, own, elfs, views):
            binary_weak_undef |= {
                strip_version(s) for s in e.weak_undefined if not s.startswith(RUNTIME_WEAK)
            }
        for n in sorted(closure):
            if n == ctx.root:
                continue
            t = g.target(n)
            in_maps = any(n in v.inputs or n in v.loaded or n in v.extracted for v in views)
            if not _is_native(t) and not in_maps:
                continue
            if any(n in v.shared_owners for v in views):
                continue
            if any(_live(v.inputs.get(n, ()), v.map.linker) for v in views):
                continue
            if not in_maps and not _has_code(t):
                continue
            edges = [e for e in g.in_edges(n, CODE_KINDS) if e.target in closure and e.target != n]
            if not edges:
                continue
            link_verdict = self._verdict(ctx, t, views, elf_by_owner.get(n, []), binary_weak_undef)
            for edge in sorted(edges, key=lambda x: (g.labels[x.target], int(x.kind))):
                verdict = link_verdict
                if link_verdict.verdict == "unreferenced":
                    verdict = self._edge_verdict(ctx, own, edge.target, n, link_verdict)
                yield Finding(
                    code=UNREFERENCED.code,
                    name=UNREFERENCED.name,
                    target=g.labels[edge.target],
                    dep=t.label,
                    root=ctx.root_label,
                    attribute=edge.kind.attribute,
                    location=g.edge_location(edge.target, n),
                    verdict=verdict.verdict,
                    message=verdict.message,
                    confidence=verdict.confidence,
                    removable=verdict.removable,
                    evidence=tuple(verdict.evidence),
                    saving=verdict.saving,
                    details=verdict.details,
                )

    # -- per edge: compile-time use and every consumer --------------------------------
    def _load_consumers(self, ctx: AnalysisContext, closure: set[int]) -> dict[int, Facts | None]:
        """The evidence of every other binary that links a library of this closure."""
        g = ctx.graph
        libs = [n for n in closure if n != ctx.root]
        up = g.reverse_closure(libs, BUILD_KINDS).tolist() if libs else []
        out: dict[int, Facts | None] = {}
        for c in sorted(up):
            if c != ctx.root and _links(g.kinds[c]):
                out[c] = ctx.evidence_of(g.labels[c])
        return out

    def _users(self, ctx: AnalysisContext, a: int) -> list[int]:
        """`a` and every target whose compile gets headers through `a` (its dependants)."""
        if a == ctx.root:
            return [a]
        up = ctx.graph.reverse_closure([a], CODE_KINDS).tolist()
        return sorted(set(up) | {a})

    def _compiles(self, ctx: AnalysisContext, u: int) -> bool:
        t = ctx.graph.target(u)
        if t.kind in _NO_COMPILE_KINDS or t.is_external:
            return False
        srcs = [s.rsplit("?", 1)[0] for s in t.srcs]
        if srcs:
            return any(s.endswith(C_SUFFIXES) for s in srcs)
        return _is_native(t) or _links(t.kind)

    def _compile_use(
        self, ctx: AnalysisContext, a: int, n: int
    ) -> tuple[list[tuple[int, str, Evidence]], list[str], str]:
        """Headers of `n` (or of what `n` brings) read by the compile of `a` or of its
        dependants; the targets whose compile is unknown; the kind of evidence used."""
        g = ctx.graph
        cidx = self._compile
        brought = set(g.closure([n], CODE_KINDS).tolist())
        used: list[tuple[int, str, Evidence]] = []
        unknown: list[str] = []
        hows: set[str] = set()
        users = [u for u in self._users(ctx, a) if self._compiles(ctx, u)]
        scan_budget = MAX_SCANNED_USERS
        for u in users:
            known = cidx.by_target.get(u)
            if known is None and scan_budget <= 0:
                unknown.append(f"{g.labels[u]} (one of {len(users)} dependants: too many to scan)")
                continue
            if known is None:
                scan_budget -= 1
            tc = cidx.of(u)
            if tc is None:
                unknown.append(g.labels[u])
                continue
            hows.add(tc.how)
            direct = {e.dep for e in g.out_edges(u, CODE_KINDS)}
            if u == a:
                direct.discard(n)
            for h in tc.headers:
                owners = cidx.owners(h.header) & brought
                owners -= direct | {u}
                if owners:
                    via = sorted(g.labels[o] for o in owners)
                    what = f"{h.source} includes {h.header}"
                    if via != [g.labels[n]]:
                        what += f" (owned by {', '.join(via)})"
                    if u != a:
                        what = f"{g.labels[u]}: {what}"
                    used.append((u, what, h.evidence))
            if not tc.exact and tc.unresolved:
                shown = "; ".join(tc.unresolved[:3])
                unknown.append(f"{g.labels[u]} (static scan could not resolve {shown})")
        how = ", ".join(sorted(hows))
        return used, unknown, how

    def _edge_verdict(
        self, ctx: AnalysisContext, own: Ownership, a: int, n: int, link: _Verdict
    ) -> _Verdict:
        """A link-unreferenced edge `a -> n`: kept when a compile reads `n`'s headers, not
        removable without compile-time evidence, and for a library's edge removable only
        when every binary linking `a` was checked and none uses `n`."""
        g = ctx.graph
        dep = g.labels[n]
        used, unknown, how = self._compile_use(ctx, a, n)
        details = dataclasses.replace(link.details, compile_evidence=how)
        if used:
            seen: dict[str, Evidence] = {}
            for _, what, hev in used:
                seen.setdefault(what, hev)
            rows = list(seen)
            exact = "static" not in how
            msg = (
                f"{dep} contributes no code to {ctx.root_label}'s link, but it is needed to "
                f"compile: {rows[0]}"
                + (f" (and {len(rows) - 1} more)" if len(rows) > 1 else "")
                + f" ({how}). Cutting {g.labels[a]} -> {dep} takes its headers and include "
                "directories away."
            )
            return _Verdict(
                "header-only-use",
                msg,
                Confidence.HIGH if exact else Confidence.MEDIUM,
                False,
                [*link.evidence, *list(seen.values())[:5]],
                None,
                dataclasses.replace(details, header_uses=tuple(rows[:20])),
            )
        if unknown:
            missing = f"compile-time evidence for {', '.join(unknown[:5])}"
            msg = (
                f"{link.message} Not removable: whether the compile of "
                f"{', '.join(unknown[:5])} includes {dep}'s headers is unknown ({COMPILE_HINT})."
            )
            stray = self._compile.unowned
            if stray:
                msg += (
                    f" Ownership unknown for {len(stray)} compiled object(s) of the compile "
                    f"evidence given (no target of the graph owns {', '.join(sorted(stray)[:3])})."
                )
            return _Verdict(
                "unreferenced",
                msg,
                Confidence.MEDIUM,
                False,
                link.evidence,
                None,
                dataclasses.replace(
                    details,
                    missing_evidence=tuple(sorted({*details.missing_evidence, missing})),
                ),
            )
        ev = [
            *link.evidence,
            Evidence(
                "compile",
                f"{how}: no file compiled for {g.labels[a]} (or its dependants) reads a "
                f"header of {dep} or of what it brings",
                None,
                None,
                "analyzer:native_symbols",
            ),
        ]
        if a == ctx.root:
            return dataclasses.replace(link, evidence=ev, details=details)
        public = self._public_edge(ctx, a, n)
        if public is not None:
            msg = (
                f"{dep} contributes nothing to {ctx.root_label}'s link, but "
                f"{g.labels[a]} -> {dep} {public}: every target that links {g.labels[a]} "
                f"gets {dep}'s usage requirements (include directories, compile definitions, "
                "options) through it, which no map or depfile shows. Not proposed for removal."
            )
            return _Verdict("unreferenced-unsafe", msg, Confidence.LOW, False, ev, None, details)
        return self._consumers_verdict(
            ctx, own, a, n, dataclasses.replace(link, evidence=ev, details=details)
        )

    def _public_edge(self, ctx: AnalysisContext, a: int, n: int) -> str | None:
        """Why a CMake library's edge may carry usage requirements to its dependants
        (PUBLIC/INTERFACE, the plain signature, or a declaring line that cannot be read);
        None for a PRIVATE edge, a library nothing depends on, or a non-CMake graph."""
        g = ctx.graph
        attrs = g.target(a).attrs
        if "cmake_type" not in attrs:
            return None
        if len(g.reverse_closure([a], BUILD_KINDS)) <= 1:
            return None
        dep = g.labels[n]
        vis = attrs.get("link_visibility")
        if isinstance(vis, tuple):
            for row in vis:
                label, _, kind = str(row).rpartition(" ")
                if label == dep:
                    return None if kind == "PRIVATE" else f"is declared {kind}"
        loc = g.edge_location(a, n)
        if loc is None:
            return "has no declaring line to read its visibility from"
        name = str(g.target(n).attrs.get("cmake_name") or dep.rsplit(":", 1)[-1])
        declared = _declared_visibility(self._source_dirs(ctx, a), loc.path, loc.line or 0, name)
        if declared == "PRIVATE":
            return None
        if declared is None:
            return f"is declared at {loc} (not readable here, so its visibility is unknown)"
        if declared == "":
            return f"is declared at {loc} without a keyword (the plain signature is transitive)"
        return f"is declared {declared} at {loc}"

    def _source_dirs(self, ctx: AnalysisContext, a: int) -> list[Path]:
        out = []
        if ctx.options.workspace is not None:
            out.append(Path(ctx.options.workspace))
        root = ctx.graph.target(a).attrs.get("source_root")
        if isinstance(root, str) and root:
            out.append(Path(root))
        return out

    def _consumers_verdict(
        self, ctx: AnalysisContext, own: Ownership, a: int, n: int, link: _Verdict
    ) -> _Verdict:
        g = ctx.graph
        dep, lib = g.labels[n], g.labels[a]
        consumers = [c for c in g.reverse_closure([a], BUILD_KINDS).tolist() if _links(g.kinds[c])]
        checked = [ctx.root_label]
        unchecked: list[str] = []
        using: list[str] = []
        ev = list(link.evidence)
        for c in sorted(consumers):
            if c == ctx.root:
                continue
            label = g.labels[c]
            facts = self._consumer_facts.get(c)
            if facts is None and c not in self._consumer_facts:
                facts = ctx.evidence_of(label)
            maps = facts.of(LinkMap) if facts is not None else []
            gcs = facts.of(GcReport) if facts is not None else []
            whys = facts.of(WhyExtract) if facts is not None else []
            views = [_view(m, own, gcs, whys) for m in maps]
            views = [v for v in views if _map_matches(v, c, own, g)]
            if not views:
                unchecked.append(label)
                continue
            checked.append(label)
            why = _link_use(views, n)
            if why is not None:
                using.append(label)
                ev.append(
                    Evidence(why[0], f"{label}: {why[1]}", why[2], None, "analyzer:native_symbols")
                )
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
        parts = []
        if using:
            parts.append(f"still used through it by {', '.join(using)}")
        if unchecked:
            parts.append(
                f"not checked for {', '.join(unchecked)} (no linker map given for "
                f"{'it' if len(unchecked) == 1 else 'them'}: pass each binary's map, as a root "
                'or in [targets."//x"] linkmap)'
            )
        msg = (
            f"{dep} contributes nothing to {ctx.root_label}'s link, but {lib} -> {dep} is a "
            f"library's edge, shared by every binary that links {lib}: "
            + "; ".join(parts)
            + f". Checked: {', '.join(checked)}."
        )
        return _Verdict(
            "unused-by-this-root",
            msg,
            Confidence.MEDIUM if not using else Confidence.HIGH,
            False,
            ev,
            None,
            details,
        )

    def _verdict(
        self,
        ctx: AnalysisContext,
        t: Target,
        views: list[_MapView],
        objs: list[ElfFile],
        binary_weak_undef: set[str],
    ) -> _Verdict:
        n = t.id
        ev: list[Evidence] = []
        blockers: list[str] = []
        missing: list[str] = []
        blind: list[str] = []
        kept = sum(i.kept_bytes for v in views[:1] for i in v.inputs.get(n, ()))
        discarded = sum(i.discarded_bytes for v in views[:1] for i in v.inputs.get(n, ()))
        referenced = False
        linked_then_gced = False
        a = "analyzer:native_symbols"
        for v in views:
            m = v.map
            for path, line in v.loaded.get(n, ()):
                ev.append(Evidence(m.path, f"LOAD {path} (given to the linker)", line, None, a))
            for i in v.inputs.get(n, ()):
                linked_then_gced = True
                if i.pulled_by is not None:
                    ev.append(
                        Evidence(
                            m.path,
                            f"{i.file} extracted for {i.pulled_by.file} ({i.pulled_by.symbol})",
                            i.pulled_by.line,
                            None,
                            a,
                        )
                    )
                for s in i.discarded[:5]:
                    ev.append(
                        Evidence(
                            m.path, f"discarded {s.name} {s.size:#x} {s.file}", s.line, None, a
                        )
                    )
            for file, ref, sym, line in v.extracted.get(n, ())[:5]:
                linked_then_gced = True
                ev.append(Evidence(m.path, f"{ref}\t{file}\t{sym} (why-extract)", line, None, a))
            for file, sec, line in v.gc.get(n, ())[:5]:
                linked_then_gced = True
                ev.append(
                    Evidence(m.path, f"removing unused section {file}:({sec})", line, None, a)
                )
            for sym, ref, line in v.refs.get(n, ())[:5]:
                referenced = True
                ev.append(Evidence(m.path, f"{sym} referenced by {ref} (--cref)", line, None, a))
            if n not in v.inputs and n not in v.extracted and n not in v.gc:
                listed = len(m.inputs)
                what = (
                    "no member of its archive was extracted (Archive member section) and no "
                    "section of it is in the memory map"
                    if m.linker in ("bfd", "gold")
                    else f"no input of it among the {listed} inputs the map lists"
                )
                ev.append(Evidence(m.path, f"{m.linker} map: {what}", None, None, a))
            if not m.has_cref:
                missing.append(f"-Wl,--cref for {m.path}")
            if m.linker in ("lld", "mold") and not (v.gc_given or v.why_given):
                missing.append(
                    f"-Wl,--print-gc-sections (or lld --why-extract) output next to {m.path}"
                )
                if not m.has_cref:
                    blind.append(m.path)
        if blind and len(blind) == len(views):
            blockers.append(
                "the map (lld/mold, no --cref, no GC report) cannot tell a library that was "
                "never extracted from one that was extracted by a reference and then "
                "garbage-collected, and a referenced one is needed to compile"
            )
        attrs = t.attrs
        if attrs.get("alwayslink") is True or _whole_archive_flag(t):
            blockers.append(
                "it is a registration library (alwayslink/--whole-archive): its symbols are "
                "unreferenced by design and its static initializers register it"
            )
        if any(n in v.whole for v in views):
            blockers.append("the map shows its members linked whole-archive (not by reference)")
        ctor_objs = sorted(o.path for o in objs if o.has_static_init)
        if ctor_objs:
            blockers.append(f"its objects carry static initializers ({', '.join(ctor_objs[:3])})")
            for p in ctor_objs[:3]:
                ev.append(Evidence(p, ".init_array/.ctors section present", None, 0, a))
        weak_defs = sorted(set().union(*(o.weak_defined for o in objs))) if objs else []
        if weak_defs:
            shown = ", ".join(demangle(weak_defs[:3]))
            blockers.append(f"it defines weak symbols ({shown}) that may be meant to override")
        provided = set().union(*(o.defined for o in objs)) if objs else set()
        weak_refs = sorted(binary_weak_undef & provided)
        if weak_refs:
            blockers.append(
                f"the binary references {', '.join(demangle(weak_refs[:3]))} weakly; "
                "a weak reference does not extract archive members"
            )
        elif binary_weak_undef and not objs:
            shown = ", ".join(demangle(sorted(binary_weak_undef)[:3]))
            blockers.append(
                f"the binary references {shown} weakly and nothing defines it; without "
                f"{t.label}'s archive (--binary) it cannot be ruled out that it is the provider"
            )
        if not objs:
            missing.append(
                f"--binary with {t.label}'s archive or objects (static initializers, weak symbols)"
            )
        details = LinkDetails(
            kept_bytes=kept,
            discarded_bytes=discarded,
            linkers=tuple(sorted({v.map.linker for v in views})),
            maps=tuple(sorted(v.map.path for v in views)),
            archive_bytes=sum(o.size for o in objs) if objs else None,
            missing_evidence=tuple(sorted(set(missing))),
        )
        if referenced or linked_then_gced:
            why = (
                "referenced by other inputs (--cref)" if referenced else "extracted by a reference"
            )
            msg = (
                f"{t.label} is linked into {ctx.root_label} only to be discarded: "
                f"{why}, yet no section of it survived --gc-sections ({discarded} bytes "
                "discarded). The referencing code needs it to compile and link, so the "
                "edge cannot simply be cut."
            )
            return _Verdict(
                "discarded-by-gc",
                msg,
                Confidence.MEDIUM,
                False,
                ev,
                None,
                dataclasses.replace(details, referenced=True),
            )
        if blockers:
            msg = (
                f"{t.label} contributes nothing to {ctx.root_label}'s link, but it is not safe "
                f"to remove: {'; '.join(blockers)}."
            )
            return _Verdict("unreferenced-unsafe", msg, Confidence.LOW, False, ev, None, details)
        conf = Confidence.HIGH if not missing else Confidence.MEDIUM
        msg = f"{t.label} contributes no code and no referenced symbol to {ctx.root_label}."
        if missing:
            msg += f" Not certain without {'; '.join(sorted(set(missing)))}."
        archive = sum(o.size for o in objs)
        saving = Saving(
            bytes=kept + discarded,
            bytes_basis="bytes of its sections in this link (none kept: the binary does not shrink)"
            + (f"; its objects ({archive} bytes) are no longer built or linked" if objs else ""),
        )
        return _Verdict("unreferenced", msg, conf, True, ev, saving, details)

    # -- SLIM004 -----------------------------------------------------------------------
    def _slim004(
        self,
        ctx: AnalysisContext,
        own: Ownership,
        elfs: list[ElfFile],
        views: list[_MapView],
        closure: set[int],
    ) -> Iterator[Finding]:
        g = ctx.graph
        bins = _root_binaries(ctx, own, elfs, views)
        libs: dict[str, ElfFile] = {}
        for e in elfs:
            if e.kind == "dyn":
                for key in {e.soname, posixpath.basename(e.path)} - {""}:
                    libs.setdefault(key, e)
        a = "analyzer:native_symbols"
        for b in sorted(bins, key=lambda e: e.path):
            undefined = b.undefined
            others = [libs[n] for n in b.needed if n in libs]
            missing = [n for n in b.needed if n not in libs]
            for needed in b.needed:
                lib = libs.get(needed)
                if lib is None:
                    continue
                provided = lib.defined
                used = sorted(undefined & provided)
                if used:
                    continue
                via = sorted(
                    o.path
                    for o in others
                    if o is not lib and needed not in o.needed and o.undefined & provided
                )
                dep = own.artifact_owner(lib.path)
                dep_label = g.labels[dep] if dep is not None else ""
                edges = (
                    [e for e in g.in_edges(dep, CODE_KINDS) if e.target in closure]
                    if dep is not None
                    else []
                )
                ev = [
                    Evidence(b.path, f"DT_NEEDED {needed}", None, 0, a),
                    Evidence(
                        lib.path,
                        f"defines {len(provided)} dynamic symbols; the binary's "
                        f"{len(undefined)} undefined symbols resolve none of them",
                        None,
                        0,
                        a,
                    ),
                ]
                blockers = []
                if via:
                    blockers.append(f"{', '.join(via)} use(s) it without their own DT_NEEDED")
                if lib.has_static_init:
                    blockers.append("it has static initializers (loading it has effects)")
                removable = bool(edges) and not blockers
                msg = f"{b.path} needs {needed} but resolves no symbol from it"
                if blockers:
                    msg += f"; not safe to drop: {'; '.join(blockers)}"
                else:
                    msg += " (drop the dep, or link with -Wl,--as-needed)"
                if missing:
                    msg += f". Not given, so not checked: {', '.join(sorted(missing))}"
                details = SharedLibDetails(needed, lib.size)
                targets = [g.labels[e.target] for e in edges] or [ctx.root_label]
                for tgt in sorted(set(targets)):
                    yield Finding(
                        code=UNUSED_SHARED.code,
                        name=UNUSED_SHARED.name,
                        target=tgt,
                        dep=dep_label,
                        root=ctx.root_label,
                        verdict="unused" if not blockers else "unused-unsafe",
                        message=msg,
                        confidence=Confidence.HIGH if not blockers else Confidence.LOW,
                        removable=removable,
                        attribute="deps" if dep_label else "",
                        evidence=tuple(ev),
                        saving=Saving(bytes=lib.size, bytes_basis="size of the shared library")
                        if removable
                        else None,
                        details=details,
                    )


@dataclass
class _Verdict:
    verdict: str
    message: str
    confidence: Confidence
    removable: bool
    evidence: list[Evidence]
    saving: Saving | None
    details: LinkDetails


SPEC = AnalyzerSpec(
    name="native-symbols",
    rules=(UNREFERENCED, UNUSED_SHARED),
    requires=frozenset({"linkmap", "binary"}),
    factory=NativeSymbolsAnalyzer,
    missing_hint=(
        "Link the binary with -Wl,-Map=app.map,--cref,--gc-sections and pass --linkmap "
        "app.map; pass --binary for the binary, its .so files and the deps' archives."
    ),
    applies=has_native_code,
)
