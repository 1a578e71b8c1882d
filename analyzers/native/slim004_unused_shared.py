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
from collections.abc import Iterator
from dataclasses import dataclass

from slim.model.context import AnalysisContext
from slim.model.findings import Confidence, Evidence, Finding, Saving
from slim.model.graph import CODE_KINDS
from slim.model.native import ElfFile
from slim.model.ownership import Ownership

from ._details import LinkDetails, SharedLibDetails
from ._edge_verdict import EdgeEvidence
from ._link_verdict import Verdict
from ._link_view import ANALYZER, MapView, cut_takes, link_use, root_binaries
from .rules import UNUSED_SHARED


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
    """SLIM004 for every DT_NEEDED library of the root's binaries that provides nothing."""
    libs = _shared_libs(elfs)
    judge: list[EdgeEvidence] = []
    for b in sorted(root_binaries(ctx, own, elfs, views), key=lambda e: e.path):
        binary = _Binary(b, libs)
        for needed in b.needed:
            lib = libs.get(needed)
            if lib is not None and not b.undefined & lib.defined:
                judge = judge or [EdgeEvidence.load(ctx, own, closure)]
                yield from _unused(ctx, own, binary, needed, lib, closure, views, judge[0])


def _blockers(binary: _Binary, needed: str, lib: ElfFile) -> list[str]:
    """Why dropping the library may break the program although the binary uses nothing."""
    via = sorted(
        o.path
        for o in binary.given
        if o is not lib and needed not in o.needed and o.undefined & lib.defined
    )
    out = []
    if via:
        out.append(f"{', '.join(via)} use(s) it without their own DT_NEEDED")
    if lib.has_static_init:
        out.append("it has static initializers (loading it has effects)")
    return out


def _unused(
    ctx: AnalysisContext,
    own: Ownership,
    binary: _Binary,
    needed: str,
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
    edges = (
        [e for e in g.in_edges(dep, CODE_KINDS) if e.target in closure] if dep is not None else []
    )
    ev = (
        Evidence(b.path, f"DT_NEEDED {needed}", None, 0, ANALYZER),
        Evidence(
            lib.path,
            f"defines {len(lib.defined)} dynamic symbols; the binary's "
            f"{len(b.undefined)} undefined symbols resolve none of them",
            None,
            0,
            ANALYZER,
        ),
    )
    blockers = _blockers(binary, needed, lib)
    used = _used_owners(own, binary)
    targets: list[int | None] = [*sorted({e.target for e in edges}, key=lambda t: g.labels[t])]
    for tgt in targets or [None]:
        also = list(blockers)
        if tgt is not None and dep is not None:
            dropped = _dropped_used(ctx, views, used, tgt, dep)
            if dropped:
                also.append(
                    f"cutting {g.labels[tgt]} -> {dep_label} also takes "
                    f"{', '.join(dropped[:3])} out of the closure, which {b.path} uses"
                )
        msg = f"{b.path} needs {needed} but resolves no symbol from it"
        if also:
            msg += f"; not safe to drop: {'; '.join(also)}"
        else:
            msg += " (drop the dep, or link with -Wl,--as-needed)"
        if binary.not_given:
            msg += f". Not given, so not checked: {', '.join(sorted(binary.not_given))}"
        verdict = Verdict(
            "unused" if not also else "unused-unsafe",
            msg,
            Confidence.HIGH if not also else Confidence.LOW,
            tgt is not None and not also,
            list(ev),
            None,
            LinkDetails(0, 0, (), ()),
        )
        if verdict.removable and tgt is not None and dep is not None:
            verdict = judge.edge_verdict(tgt, dep, verdict)
        removable = verdict.removable
        yield Finding(
            code=UNUSED_SHARED.code,
            name=UNUSED_SHARED.name,
            target=g.labels[tgt] if tgt is not None else ctx.root_label,
            dep=dep_label,
            root=ctx.root_label,
            verdict=verdict.verdict,
            message=verdict.message,
            confidence=verdict.confidence,
            removable=removable,
            attribute="deps" if dep_label else "",
            evidence=tuple(verdict.evidence),
            saving=Saving(bytes=lib.size, bytes_basis="size of the shared library")
            if removable
            else None,
            details=SharedLibDetails.of(needed, lib.size, verdict.details),
            kept_because=verdict.kept_because,
        )


def _used_owners(own: Ownership, binary: _Binary) -> set[int]:
    """Targets owning a given DT_NEEDED library the binary resolves a symbol from."""
    out = set()
    for o in binary.given:
        if binary.elf.undefined & o.defined and (t := own.artifact_owner(o.path)) is not None:
            out.add(t)
    return out


def _dropped_used(
    ctx: AnalysisContext, views: list[MapView], used: set[int], a: int, n: int
) -> list[str]:
    """What cutting `a -> n` takes out of the root's closure that the binary uses (a shared
    library it resolves symbols from, or code its maps show): `app -> a` with `a` linking
    `b` PUBLIC, and `app` calling only `b`."""
    g = ctx.graph
    lost = cut_takes(g, ctx.root, a, n)
    return [g.labels[x] for x in lost if x in used or link_use(views, x) is not None]
