"""SLIM004 unused-shared-lib: a DT_NEEDED library the root binary resolves no symbol from.

The root's executables and shared libraries among the --binary ELF files are matched by
ownership or name; each DT_NEEDED entry found among the given libraries is checked
against the binary's undefined symbols. A library another needed library uses without
its own DT_NEEDED, or one with static initializers, is reported but never proposed. The
edge to it is then judged as SLIM002 judges an unreferenced one (`EdgeEvidence`): a
compile that reads its headers or gets its definitions, and every other binary linking
a library's edge, keep it.
"""

from __future__ import annotations

import posixpath
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from slim.ingest.binary.elf import names_in_data, whole_strings_in_data
from slim.model.context import AnalysisContext
from slim.model.findings import Confidence, Evidence, Finding, Saving
from slim.model.graph import CODE_KINDS, Edge
from slim.model.native import ElfFile, strip_version
from slim.model.ownership import Ownership

from ._details import LinkDetails, SharedLibDetails
from ._edge_verdict import EdgeEvidence
from ._link_verdict import Verdict
from ._link_view import (
    ANALYZER,
    MapView,
    cut_takes,
    has_code,
    is_shared,
    link_use,
    root_binaries,
)
from .rules import UNUSED_SHARED
from .slim002_unreferenced import payload

#: What a program looks a symbol up by name with.
_LOOKUPS = frozenset({"dlsym", "dlvsym"})
#: What a program loads a library by name with.
_LOADS = frozenset({"dlopen", "dlmopen"})
#: Why a library the build makes must be read before a cut is certain.
_BUILT_UNREAD = (
    "a library of the build the program loads: whether it looks the library up by name "
    "(dlsym, dlopen) or uses it without a DT_NEEDED of its own is not read"
)


@dataclass(frozen=True)
class _Binary:
    """A root binary and the shared libraries given for its DT_NEEDED entries."""

    elf: ElfFile
    libs: dict[str, ElfFile]

    @property
    def given(self) -> list[ElfFile]:
        return [self.libs[n] for n in self.elf.needed if n in self.libs]

    @property
    def not_given(self) -> list[str]:
        return [n for n in self.elf.needed if n not in self.libs]

    def without(self, lib: ElfFile) -> tuple[list[ElfFile], list[str]]:
        """What the program still loads once `lib` is cut (the binary's DT_NEEDED entries,
        theirs in turn, none reached only through `lib`): the given libraries, and the
        names of those not given, whose code is not read."""
        loaded: list[ElfFile] = []
        unread: dict[str, None] = {}
        seen = {id(lib)}
        todo = deque(self.elf.needed)
        while todo:
            name = todo.popleft()
            e = self.libs.get(name)
            if e is None:
                unread[name] = None
            elif id(e) not in seen:
                seen.add(id(e))
                loaded.append(e)
                todo.extend(e.needed)
        return loaded, list(unread)


def _shared_libs(elfs: list[ElfFile]) -> dict[str, ElfFile]:
    """Shared libraries by soname and by file name (the first given wins)."""
    libs: dict[str, ElfFile] = {}
    for e in elfs:
        if e.kind == "dyn":
            for key in {e.soname, posixpath.basename(e.path)} - {""}:
                libs.setdefault(key, e)
    return libs


def findings(
    ctx: AnalysisContext,
    own: Ownership,
    elfs: list[ElfFile],
    views: list[MapView],
    closure: set[int],
) -> Iterator[Finding]:
    """SLIM004 for every DT_NEEDED library of the root's binaries that provides nothing,
    and every shared library of the closure its link was given but dropped (--as-needed)."""
    libs = _shared_libs(elfs)
    judge: list[EdgeEvidence] = []
    for b in sorted(root_binaries(ctx, own, elfs, views), key=lambda e: e.path):
        binary = _Binary(b, libs)
        for needed in b.needed:
            lib = libs.get(needed)
            if lib is not None and not b.undefined & lib.defined:
                judge = judge or [EdgeEvidence.load(ctx, own, closure)]
                how = _Need(needed, (Evidence(b.path, f"DT_NEEDED {needed}", None, 0, ANALYZER),))
                yield from _unused(ctx, own, binary, how, lib, closure, views, judge[0])
    for v, b, lib, how in _dropped(own, elfs, views, closure):
        judge = judge or [EdgeEvidence.load(ctx, own, closure)]
        yield from _unused(ctx, own, _Binary(b, libs), how, lib, closure, [v], judge[0])


@dataclass(frozen=True)
class _Need:
    """How the binary came to the library: its DT_NEEDED entry `name`, or (`dropped`) a
    map's LOAD of it that the link dropped; and the evidence of that."""

    name: str
    evidence: tuple[Evidence, ...]
    dropped: bool = False


def _dropped(
    own: Ownership, elfs: list[ElfFile], views: list[MapView], closure: set[int]
) -> Iterator[tuple[MapView, ElfFile, ElfFile, _Need]]:
    """(map, binary, library, how) of each shared library of the closure a link was given
    (its map LOADs it) and dropped: it is none of the binary's DT_NEEDED entries nor of the
    map's as-needed libraries, and the binary resolves none of its symbols. Only a link
    tied to exactly one binary is read, and only a library given with --binary (its
    soname is what DT_NEEDED would name)."""
    owned: dict[int, dict[str, ElfFile]] = {}
    for e in elfs:
        if e.kind == "dyn" and (o := own.artifact_owner(e.path)) is not None:
            owned.setdefault(o, {}).setdefault(e.soname or posixpath.basename(e.path), e)
    for v in views:
        if v.link is None or len(v.link.binaries) != 1:
            continue
        (b,) = v.link.binaries
        kept = set(b.needed) | {posixpath.basename(n) for n in v.map.shared}
        for o in sorted(v.shared_owners & closure):
            given = list(owned.get(o, {}).items())
            loads = [(p, line) for p, line in v.loaded.get(o, ()) if is_shared(p)]
            if len(given) != 1 or not loads:
                continue
            ((name, lib),) = given
            if name not in kept and not b.undefined & lib.defined:
                yield v, b, lib, _Need(name, _dropped_evidence(v, b, name, loads[0]), True)


def _dropped_evidence(
    v: MapView, b: ElfFile, name: str, load: tuple[str, int]
) -> tuple[Evidence, ...]:
    path, line = load
    needed = ", ".join(b.needed) or "none"
    return (
        Evidence(v.map.path, f"LOAD {path} (given to the linker)", line, None, ANALYZER),
        Evidence(
            b.path,
            f"no DT_NEEDED {name} (the link dropped it: --as-needed); needed: {needed}",
            None,
            0,
            ANALYZER,
        ),
    )


def _blockers(binary: _Binary, how: _Need, lib: ElfFile, loaded: list[ElfFile]) -> list[str]:
    """Why dropping the library may break the program although the binary uses nothing:
    what the binary or a library the program still loads (`loaded`) needs of it (symbols
    without a DT_NEEDED of their own, its name for dlopen, a symbol's name for dlsym)."""
    needed = how.name
    via = sorted(o.path for o in loaded if needed not in o.needed and o.undefined & lib.defined)
    out = []
    if via:
        out.append(f"{', '.join(via)} use(s) it without their own DT_NEEDED")
    if lib.has_static_init and not how.dropped:
        out.append("it has static initializers (loading it has effects)")
    stems = (_stem(needed), _stem(posixpath.basename(lib.path)))
    loaders = [e for e in [binary.elf, *loaded] if _imports(e, _LOADS)]
    for e in [binary.elf, *(o for o in loaders if o is not binary.elf)]:
        named = names_in_data(e, *stems)
        if named:
            out.append(
                f"{e.path} holds the string {named!r} in its data: the program may load "
                "the library by name (dlopen)"
            )
            break
    else:
        if loaders:
            out.append(
                f"{loaders[0].path} calls dlopen: the program may load the library by a "
                "name built at run time, which no data shows (a plugin's)"
            )
    for e in [binary.elf, *loaded] if not how.dropped else []:
        looked_up = _looked_up(e, lib)
        if looked_up:
            out.append(
                f"{e.path} calls dlsym and holds the string {looked_up!r}, a symbol the "
                "library defines, in its data: the program may look it up by name"
            )
            break
    return out


def _imports(e: ElfFile, names: frozenset[str]) -> bool:
    return bool(names & {strip_version(s) for s in e.undefined})


def _looked_up(b: ElfFile, lib: ElfFile) -> str:
    """A symbol of `lib` that `b`, which imports `dlsym`, holds as a string (what
    `dlsym(RTLD_DEFAULT, "name")` finds in a loaded library); "" when none or no dlsym. A
    library the link dropped is never loaded: nothing to look up there."""
    if not _imports(b, _LOOKUPS):
        return ""
    return whole_strings_in_data(b, lib.defined)


def _stem(name: str) -> str:
    """A shared library's name up to `.so` (`libfoo-2.2` of `libfoo-2.2.so.1`)."""
    cut = name.find(".so")
    return name[:cut] if cut > 0 else name


def _unused(
    ctx: AnalysisContext,
    own: Ownership,
    binary: _Binary,
    how: _Need,
    lib: ElfFile,
    closure: set[int],
    views: list[MapView],
    judge: EdgeEvidence,
) -> Iterator[Finding]:
    """One finding per target of the closure that depends on the library's owner (the
    root when no target owns it)."""
    g = ctx.graph
    b = binary.elf
    dep = own.artifact_owner(lib.path)
    dep_label = g.labels[dep] if dep is not None else ""
    edges = _entries(ctx, dep, closure) if dep is not None else []
    needed = how.name
    ev = (
        *how.evidence,
        Evidence(
            lib.path,
            f"defines {len(lib.defined)} dynamic symbols; the binary's "
            f"{len(b.undefined)} undefined symbols resolve none of them",
            None,
            0,
            ANALYZER,
        ),
    )
    loaded, unread = binary.without(lib)
    blockers = _blockers(binary, how, lib, loaded)
    built = [n for n in unread if own.shared_library_owners(n)]
    used = _used_owners(own, binary)
    pairs: list[tuple[int | None, int | None]] = [
        *sorted({(e.target, e.dep) for e in edges}, key=lambda p: (g.labels[p[0]], g.labels[p[1]]))
    ]
    for tgt, via in pairs or [(None, dep)]:
        also = list(blockers)
        via_label = g.labels[via] if via is not None else ""
        if tgt is not None and via is not None:
            dropped = _dropped_used(ctx, views, used, (tgt, via), dep)
            if dropped:
                also.append(
                    f"cutting {g.labels[tgt]} -> {via_label} also takes "
                    f"{', '.join(dropped[:3])} out of the closure, which {b.path} uses"
                )
        msg = _message(b.path, how, via_label if via != dep else "", dep_label, also)
        if binary.not_given:
            msg += f". Not given, so not checked: {', '.join(sorted(binary.not_given))}"
        confidence = Confidence.HIGH if not also else Confidence.LOW
        missing: tuple[str, ...] = ()
        kept = "; ".join(also)
        if built and not also:
            confidence = Confidence.MEDIUM
            missing = (f"--binary {', '.join(built)}",)
            kept = f"{', '.join(built)} not given ({_BUILT_UNREAD})"
            msg += f". Not removable: {kept}"
        verdict = Verdict(
            "unused" if not also else "unused-unsafe",
            msg,
            confidence,
            tgt is not None and not also and not built,
            list(ev),
            None,
            LinkDetails(0, 0, (), (), missing_evidence=missing),
            kept_because=kept,
        )
        if verdict.removable and tgt is not None and via is not None:
            verdict = judge.edge_verdict(tgt, via, verdict)
        removable = verdict.removable
        yield Finding(
            code=UNUSED_SHARED.code,
            name=UNUSED_SHARED.name,
            target=g.labels[tgt] if tgt is not None else ctx.root_label,
            dep=via_label,
            root=ctx.root_label,
            verdict=verdict.verdict,
            message=verdict.message,
            confidence=verdict.confidence,
            removable=removable,
            attribute="deps" if via_label else "",
            evidence=tuple(verdict.evidence),
            saving=Saving(bytes=lib.size, bytes_basis="size of the shared library")
            if removable
            else None,
            details=SharedLibDetails.of(needed, lib.size, verdict.details),
            kept_because=verdict.kept_because,
        )


def _message(binary: str, how: _Need, wrapper: str, dep: str, also: list[str]) -> str:
    """What the finding says: how the binary came to the library, and what blocks the cut."""
    if how.dropped:
        msg = (
            f"{binary} was linked with {how.name} and resolves no symbol from it: the "
            "linker dropped it (--as-needed), so only the build edge is left"
        )
    else:
        msg = f"{binary} needs {how.name} but resolves no symbol from it"
    if wrapper:
        msg += f" ({wrapper} brings it and nothing else: {wrapper} -> {dep})"
    if also:
        msg += f"; not safe to drop: {'; '.join(also)}"
    elif not how.dropped:
        msg += " (drop the dep, or link with -Wl,--as-needed)"
    return msg


def _entries(ctx: AnalysisContext, dep: int, closure: set[int]) -> list[Edge]:
    """The edges of the closure into `dep`, an edge from a wrapper that brings nothing
    else (a CMake INTERFACE library around the shared one, a Bazel `cc_library` of deps
    alone) replaced by the edges into that wrapper: its own edge is how it wraps, the cut
    is where code reaches for it."""
    g = ctx.graph
    out: list[Edge] = []
    seen, todo = {dep}, [dep]
    while todo:
        n = todo.pop()
        for e in g.in_edges(n, CODE_KINDS):
            x = e.target
            if x not in closure or x in seen:
                continue
            if x != ctx.root and not has_code(g.target(x)) and payload(g, x) == [dep]:
                seen.add(x)
                todo.append(x)
            else:
                out.append(e)
    return out


def _used_owners(own: Ownership, binary: _Binary) -> set[int]:
    """Targets owning a given DT_NEEDED library the binary resolves a symbol from."""
    out = set()
    for o in binary.given:
        if binary.elf.undefined & o.defined and (t := own.artifact_owner(o.path)) is not None:
            out.add(t)
    return out


def _dropped_used(
    ctx: AnalysisContext,
    views: list[MapView],
    used: set[int],
    cut: tuple[int, int],
    judged: int | None,
) -> list[str]:
    """What cutting `a -> n` takes out of the root's closure that the binary uses (a shared
    library it resolves symbols from, or code its maps show; not the library `judged`,
    whose map LOAD is no use): `app -> a` with `a` linking `b` PUBLIC, and `app` calling
    only `b`."""
    g = ctx.graph
    lost = cut_takes(g, ctx.root, *cut)
    return [
        g.labels[x] for x in lost if x != judged and (x in used or link_use(views, x) is not None)
    ]
