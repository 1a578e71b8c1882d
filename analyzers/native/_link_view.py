"""Linker maps joined to the build graph: each link's (`slim.model.linkage`) inputs, loads,
cross references, GC and why-extract rows charged to the targets that own them, the
inputs nobody in the graph owns, which links are a binary's own, and which ELF files are
the root binary.

Every native rule reads these views: SLIM002 asks what one library contributed to a link
(and to the other binaries that link it), SLIM004 which ELF files are the root's.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from slim.model.context import AnalysisContext
from slim.model.facts import Facts
from slim.model.graph import BUILD_KINDS, BuildGraph, Target
from slim.model.linkage import LINKING_KINDS, Link, Linkage
from slim.model.native import ElfFile, LinkInput, LinkMap
from slim.model.ownership import Ownership, unversioned

ANALYZER = "analyzer:native_symbols"
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
CODE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".s", ".S", ".asm", ".o", ".a", ".m")
SHARED_SUFFIXES = (".so", ".dylib", ".ifso")
# How sure each linker's map is that an archive with nothing extracted was on the link line.
_LINKER_RANK = {"bfd": 4, "gold": 3, "lld": 2, "mold": 1}

Owner = Callable[[str], "int | None"]


def is_native(t: Target) -> bool:
    return t.kind in NATIVE_KINDS


def has_code(t: Target) -> bool:
    """Whether the target compiles or brings code of its own (not only headers)."""
    return any(s.rsplit("?", 1)[0].endswith(CODE_SUFFIXES) for s in t.srcs) or t.kind in (
        "STATIC_LIBRARY",
        "OBJECT_LIBRARY",
        "cc_import",
        "prebuilt_cxx_library",
    )


def is_shared(path: str) -> bool:
    base = posixpath.basename(path.replace("\\", "/"))
    return base.endswith(SHARED_SUFFIXES) or ".so." in base


def links(kind: str) -> bool:
    """A target with a link step of its own (a binary, a test, a shared library)."""
    return kind.endswith(LINKING_KINDS) or kind in LINKING_KINDS


def is_binary(kind: str) -> bool:
    return kind.endswith(BINARY_KINDS) or kind in BINARY_KINDS


@dataclass
class MapView:
    """One map joined to the graph: inputs and evidence per owning target."""

    map: LinkMap
    link: Link | None = None
    inputs: dict[int, list[LinkInput]] = field(default_factory=lambda: defaultdict(list))
    loaded: dict[int, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    gc: dict[int, list[tuple[str, str, int, str]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    """(file, section, line, report path) per owner."""
    extracted: dict[int, list[tuple[str, str, str, int, str]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    """(extracted, reference, symbol, line, report path) per owner."""
    refs: dict[int, list[tuple[str, str, int]]] = field(default_factory=lambda: defaultdict(list))
    whole: set[int] = field(default_factory=set)
    shared_owners: set[int] = field(default_factory=set)
    unowned: list[LinkInput] = field(default_factory=list)
    """Linked inputs of the build tree (relative paths) no target of the graph owns."""
    unowned_shared: set[str] = field(default_factory=set)
    """Shared libraries of the build tree the link takes (loads, or resolves a symbol
    from) that no target of the graph owns: a map lists no sections of them."""
    gc_given: bool = False
    why_given: bool = False

    def mentions(self, n: int) -> bool:
        """Whether the map lists `n` at all: an input, a load, an extracted member."""
        return n in self.inputs or n in self.loaded or n in self.extracted


def _cached_owner(own: Ownership) -> Owner:
    cache: dict[str, int | None] = {}

    def owner(path: str) -> int | None:
        if path not in cache:
            cache[path] = own.artifact_owner(path)
        return cache[path]

    return owner


def _join_inputs(v: MapView, owner: Owner) -> None:
    m = v.map
    for i in m.inputs:
        o = owner(i.file)
        if o is not None:
            v.inputs[o].append(i)
        elif not posixpath.isabs(i.file.replace("\\", "/")):
            v.unowned.append(i)
    for path, line in m.loaded:
        o = owner(path)
        if o is not None:
            v.loaded[o].append((path, line))
            if is_shared(path):
                v.shared_owners.add(o)
        elif is_shared(path):
            _unowned_shared(v, path)
    loaded = {unversioned(posixpath.basename(p)): p for p, _ in m.loaded}
    for name in m.shared:  # bfd names it bare, by soname: the loaded file of that name
        path = loaded.get(unversioned(name), name) if "/" not in name else name
        o = owner(path)
        if o is not None:
            v.shared_owners.add(o)
        else:
            _unowned_shared(v, path)
    v.whole.update(o for o in map(owner, m.whole_archive) if o is not None)


def _join_xref(v: MapView, owner: Owner) -> None:
    """`--cref` rows: references from another target's input to a symbol `n` defines."""
    for x in v.map.xref:
        if not x.defined_in:
            continue
        d = owner(x.defined_in)
        if d is None:
            if is_shared(x.defined_in):
                _unowned_shared(v, x.defined_in)
            continue
        if is_shared(x.defined_in):
            v.shared_owners.add(d)
        for r in x.referenced_by:
            if owner(r) != d:
                v.refs[d].append((x.symbol, r, x.line))


def _unowned_shared(v: MapView, path: str) -> None:
    if not posixpath.isabs(path.replace("\\", "/")):
        v.unowned_shared.add(path)


def _join_gc(v: MapView, owner: Owner, link: Link) -> None:
    """The `--print-gc-sections` reports of this link."""
    for g in link.gc:
        v.gc_given = True
        for e in g.entries:
            o = owner(e.file)
            if o is not None:
                v.gc[o].append((e.file, e.section, e.line, g.path))


def _join_why(v: MapView, owner: Owner, link: Link) -> None:
    """The lld `--why-extract` reports of this link."""
    for w in link.why:
        v.why_given = True
        for row in w.entries:
            o = owner(row.extracted)
            if o is not None:
                v.extracted[o].append((row.extracted, row.reference, row.symbol, row.line, w.path))


def view(link: Link, own: Ownership) -> MapView:
    """The link's map and reports, charged to their owners."""
    v = MapView(link.map, link)
    owner = _cached_owner(own)
    _join_inputs(v, owner)
    _join_xref(v, owner)
    _join_gc(v, owner, link)
    _join_why(v, owner, link)
    return v


def views_of(facts: Facts | None, binary: int, own: Ownership, graph: BuildGraph) -> list[MapView]:
    """The views of the links among `facts` that are `binary`'s."""
    if facts is None:
        return []
    return [view(lk, own) for lk in Linkage.of(graph, facts, own).links_of(binary)]


def by_rank(views: list[MapView]) -> list[MapView]:
    """The most telling map first (bfd, gold, lld, mold), then by path."""
    return sorted(views, key=lambda v: (-_LINKER_RANK.get(v.map.linker, 0), v.map.path))


#: Sections that survive --gc-sections without any code of the input: the exception
#: table of a collected function (gold, lld keep it), a COMDAT copy of the personality
#: pointer, unwind and note data.
RESIDUE = re.compile(
    r"^(?:\.gcc_except_table|\.eh_frame|\.comment|\.note|\.debug|\.group"
    r"|(?:\.data\.rel\.local\.|\.data\.rel\.ro\.local\.|\.data\.)?DW\.ref\.)"
)


def use_bytes(i: LinkInput) -> int:
    """Bytes of `i` kept in the program, residue (`RESIDUE`) not counted."""
    if not i.sections:
        return i.kept_bytes
    return min(i.kept_bytes, sum(s.size for s in i.sections if not RESIDUE.match(s.name)))


def residue(i: LinkInput) -> list[str]:
    """Names of the residue sections kept of `i` (in the program: none when it kept no
    bytes)."""
    if not i.kept_bytes:
        return []
    return [s.name for s in i.sections if s.size and RESIDUE.match(s.name)]


def live(inputs: Iterable[LinkInput], linker: str) -> bool:
    """Something of it is in the program (MSVC maps carry no sizes: a listed public is)."""
    return any(use_bytes(i) > 0 or (linker == "msvc" and i.sections) for i in inputs)


def is_member(path: str) -> bool:
    """`lib.a(m.o)`: an archive member (extracted by a reference), not an object linked
    because the command line names it."""
    return path.endswith(")") and "(" in path


def cut_loses(g: BuildGraph, c: int, a: int, n: int) -> list[int]:
    """Targets that cutting `a -> n` takes out of `c`'s closure (`n` itself when nothing
    else leads to it), ascending."""
    kept = g.closure_without(c, [(a, n)], BUILD_KINDS)
    return list(np.setdiff1d(g.closure([c], BUILD_KINDS), kept, assume_unique=True).tolist())


def cut_takes(g: BuildGraph, c: int, a: int, n: int) -> list[int]:
    """Targets other than `n` that cutting `a -> n` takes out of `c`'s closure: they reach
    `c` only through `n` (googletest's tests get `gtest` only through `gtest_main`)."""
    return [x for x in cut_loses(g, c, a, n) if x != n]


def link_use(views: list[MapView], n: int) -> tuple[str, str, int | None] | None:
    """Whether `n` takes part in any of these links: (map, what, line), or None."""
    for v in views:
        m = v.map
        if n in v.shared_owners:
            return m.path, "links it as a shared library", None
        for i in v.inputs.get(n, ()):
            if live([i], m.linker):
                return m.path, f"{i.file} is linked ({i.kept_bytes} bytes kept)", i.line or None
            return m.path, f"{i.file} is extracted (then garbage-collected)", i.line or None
        for sym, ref, line in v.refs.get(n, ())[:1]:
            return m.path, f"{sym} referenced by {ref} (--cref)", line
        for file, _ref, sym, line, why in v.extracted.get(n, ())[:1]:
            return why, f"{file} extracted for {sym} (why-extract)", line
        for file, sec, line, gc in v.gc.get(n, ())[:1]:
            return gc, f"{file}:({sec}) linked then garbage-collected", line
        if n in v.whole:
            return m.path, "linked whole-archive", None
    return None


def root_binaries(
    ctx: AnalysisContext, own: Ownership, elfs: list[ElfFile], views: list[MapView]
) -> list[ElfFile]:
    """ELF executables/libraries that are the root: the binaries of its links, or (no map
    given) owned by it or named like it."""
    tied = [e for v in views if v.link is not None for e in v.link.binaries]
    if views:
        return tied
    name = ctx.root_label.rsplit(":", 1)[-1]
    return [
        e
        for e in elfs
        if e.kind in ("exec", "dyn")
        and (own.artifact_owner(e.path) == ctx.root or posixpath.basename(e.path) == name)
    ]
