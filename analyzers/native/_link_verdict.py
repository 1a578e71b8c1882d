"""What one root's link says of one native library: SLIM002's verdict before its edges
are looked at (compile-time use and other consumers come after, per edge).

Three steps: what the maps show of the library (members extracted, sections kept or
garbage-collected, references, or nothing at all, and which flag would have said more);
what makes a library that contributes nothing unsafe to cut (registration libraries,
static initializers, weak symbols); and the verdict those give.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from slim.model.findings import Confidence, Evidence, Saving
from slim.model.graph import Target
from slim.model.native import ElfFile, demangle

from ._details import LinkDetails
from ._link_view import ANALYZER, MapView, is_member, residue

#: Weak references every gcc/glibc program carries; they say nothing about the deps.
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
#: Weak references the C++ runtime itself resolves (libstdc++ references
#: __cxa_pure_virtual weakly in every binary bfd, gold and lld link): no library's absence
#: is hidden behind one, unless the library's archive shows it defines it.
RUNTIME_PROVIDED = frozenset({"__cxa_pure_virtual", "__cxa_deleted_virtual"})
_BLIND_MAPS = (
    "the map (lld/mold, no --cref, no GC report) cannot tell a library that was "
    "never extracted from one that was extracted by a reference and then "
    "garbage-collected, and a referenced one is needed to compile"
)


@dataclass
class Verdict:
    """SLIM002 for one library (then one edge to it): what the finding will say."""

    verdict: str
    message: str
    confidence: Confidence
    removable: bool
    evidence: list[Evidence]
    saving: Saving | None
    details: LinkDetails
    kept_because: str = ""
    """See `Finding.kept_because`."""


@dataclass
class _MapsShow:
    """What the maps of one link show of one library."""

    evidence: list[Evidence] = field(default_factory=list)
    referenced: bool = False
    """Another input references a symbol it defines (`--cref`)."""
    extracted: bool = False
    """A member was extracted (then garbage-collected: nothing of it was kept)."""
    direct: bool = False
    """Objects of it are on the link line (an object library), every section collected."""
    missing: list[str] = field(default_factory=list)
    """The flags that would have told more."""
    blind: int = 0
    """Maps that cannot tell never-extracted from extracted-then-collected."""

    def row(self, source: str, detail: str, line: int | None) -> None:
        self.evidence.append(Evidence(source, detail, line, None, ANALYZER))


def _member_rows(v: MapView, n: int, show: _MapsShow) -> None:
    """Members of `n` extracted into the link: by whom, what was discarded."""
    m = v.map
    for path, line in v.loaded.get(n, ()):
        show.row(m.path, f"LOAD {path} (given to the linker)", line)
    for i in v.inputs.get(n, ()):
        if is_member(i.file):
            show.extracted = True
        else:
            show.direct = True
            left = residue(i)
            what = f"{i.file} is on the link line; --gc-sections collected all of its code and data"
            show.row(
                m.path,
                what + (f" (left: {', '.join(left[:4])}, not use)" if left else ""),
                i.line or None,
            )
        if i.pulled_by is not None:
            what = f"{i.file} extracted for {i.pulled_by.file} ({i.pulled_by.symbol})"
            show.row(m.path, what, i.pulled_by.line)
        for s in i.discarded[:5]:
            what = f"discarded {s.name} {s.size:#x} {s.file}"
            show.row(m.path, what, s.line)
    for file, ref, sym, line, why in v.extracted.get(n, ())[:5]:
        show.extracted = True
        show.row(why, f"{ref}\t{file}\t{sym} (why-extract)", line)
    for file, sec, line, gc in v.gc.get(n, ())[:5]:
        if is_member(file):
            show.extracted = True
        else:
            show.direct = True
        show.row(gc, f"removing unused section {file}:({sec})", line)


def _reference_rows(v: MapView, n: int, show: _MapsShow) -> None:
    """`--cref` references to `n`, or the map's statement that nothing of `n` is in it."""
    m = v.map
    for sym, ref, line in v.refs.get(n, ())[:5]:
        show.referenced = True
        show.row(m.path, f"{sym} referenced by {ref} (--cref)", line)
    if n not in v.inputs and n not in v.extracted and n not in v.gc:
        what = (
            "no member of its archive was extracted (Archive member section) and no "
            "section of it is in the memory map"
            if m.linker in ("bfd", "gold")
            else f"no input of it among the {len(m.inputs)} inputs the map lists"
        )
        show.row(m.path, f"{m.linker} map: {what}", None)


def _gaps(v: MapView, show: _MapsShow) -> None:
    """The flags the link lacked for a certain verdict."""
    m = v.map
    if not m.has_cref:
        show.missing.append(f"-Wl,--cref for {m.path}")
    if m.linker in ("lld", "mold") and not (v.gc_given or v.why_given):
        show.missing.append(
            f"-Wl,--print-gc-sections (or lld --why-extract) output next to {m.path}"
        )
        if not m.has_cref:
            show.blind += 1


def _maps_show(views: list[MapView], n: int) -> _MapsShow:
    show = _MapsShow()
    for v in views:
        _member_rows(v, n, show)
        _reference_rows(v, n, show)
        _gaps(v, show)
    return show


def _registration(t: Target, views: list[MapView]) -> list[str]:
    """Why a library with unreferenced symbols is linked on purpose."""
    out = []
    opts = t.attrs.get("linkopts", ())
    text = " ".join(opts) if isinstance(opts, tuple) else str(opts)
    whole_flag = "whole-archive" in text or "--force_load" in text or "-all_load" in text
    if t.attrs.get("alwayslink") is True or whole_flag:
        out.append(
            "it is a registration library (alwayslink/--whole-archive): its symbols are "
            "unreferenced by design and its static initializers register it"
        )
    if any(t.id in v.whole for v in views):
        out.append("the map shows its members linked whole-archive (not by reference)")
    return out


def _initializers(objs: list[ElfFile], evidence: list[Evidence]) -> str:
    """The library's objects carrying static initializers ("" when none)."""
    ctor_objs = sorted(o.path for o in objs if o.has_static_init)
    if not ctor_objs:
        return ""
    evidence.extend(
        Evidence(p, ".init_array/.ctors section present", None, 0, ANALYZER) for p in ctor_objs[:3]
    )
    return f"its objects carry static initializers ({', '.join(ctor_objs[:3])})"


def _object_hazards(t: Target, objs: list[ElfFile], binary_weak_undef: set[str]) -> list[str]:
    """What the library's own objects (and the binary's weak references) make unsafe:
    weak definitions, a weak reference it may be the provider of."""
    out = []
    weak_defs = sorted(set().union(*(o.weak_defined for o in objs))) if objs else []
    if weak_defs:
        shown = ", ".join(demangle(weak_defs[:3]))
        out.append(f"it defines weak symbols ({shown}) that may be meant to override")
    provided = set().union(*(o.defined for o in objs)) if objs else set()
    weak_refs = sorted(binary_weak_undef & provided)
    if weak_refs:
        out.append(
            f"the binary references {', '.join(demangle(weak_refs[:3]))} weakly; "
            "a weak reference does not extract archive members"
        )
    elif (
        unknown := sorted(w for w in binary_weak_undef if w not in RUNTIME_PROVIDED)
    ) and not objs:
        shown = ", ".join(demangle(unknown[:3]))
        out.append(
            f"the binary references {shown} weakly and nothing defines it; without "
            f"{t.label}'s archive (--binary) it cannot be ruled out that it is the provider"
        )
    return out


def link_verdict(
    root_label: str,
    t: Target,
    views: list[MapView],
    objs: list[ElfFile],
    binary_weak_undef: set[str],
    strays: Sequence[str] = (),
) -> Verdict:
    """SLIM002 for library `t` in the link of `root_label` (its maps `views`, the most
    telling first; `objs`: its own objects or archive members given with --binary;
    `strays`: linked inputs no target of the root's closure owns)."""
    n = t.id
    show = _maps_show(views, n)
    blockers = [_BLIND_MAPS] if show.blind and show.blind == len(views) else []
    blockers += _registration(t, views)
    evidence = show.evidence
    blockers += _object_hazards(t, objs, binary_weak_undef)
    ctors = _initializers(objs, evidence)
    if ctors and (show.direct or blockers):
        blockers.append(ctors)
    missing = show.missing
    if not objs:
        missing.append(
            f"--binary with {t.label}'s archive or objects (static initializers, weak symbols)"
        )
    kept = sum(i.kept_bytes for v in views[:1] for i in v.inputs.get(n, ()))
    discarded = sum(i.discarded_bytes for v in views[:1] for i in v.inputs.get(n, ()))
    details = LinkDetails(
        kept_bytes=kept,
        discarded_bytes=discarded,
        linkers=tuple(sorted({v.map.linker for v in views})),
        maps=tuple(sorted(v.map.path for v in views)),
        archive_bytes=sum(o.size for o in objs) if objs else None,
        missing_evidence=tuple(sorted(set(missing))),
    )
    if show.referenced or show.extracted:
        return _discarded_by_gc(root_label, t, show.referenced, evidence, details)
    unmatched = t.attrs.get("unmatched_export")
    if isinstance(unmatched, str):
        why = (
            f"only {unmatched} describes it, and the graph exports do not line up (see the "
            "notes): which of their targets owns which archive, and which edge the build "
            "files declare, cannot be told"
        )
        return _ownership_unknown(root_label, t, why, evidence, details)
    if not any(v.mentions(n) for v in views) and strays:
        return _ownership_unknown(
            root_label, t, _strays_text(root_label, strays), evidence, details
        )
    if blockers:
        msg = (
            f"{t.label} contributes nothing to {root_label}'s link, but it is not safe "
            f"to remove: {'; '.join(blockers)}."
        )
        return Verdict("unreferenced-unsafe", msg, Confidence.LOW, False, evidence, None, details)
    if ctors:
        details = dataclasses.replace(details, idle_initializers=ctors)
    return _unreferenced(root_label, t, objs, missing, evidence, details)


def _strays_text(root_label: str, strays: Sequence[str]) -> str:
    shown = ", ".join(strays[:3]) + (f" and {len(strays) - 3} more" if len(strays) > 3 else "")
    return (
        f"{len(strays)} input(s) linked into {root_label} ({shown}) belong to no target of "
        f"{root_label}'s closure in the graph, so the map cannot show that none of them is "
        "its code (a graph that does not line up with the build that wrote the map?)"
    )


def _ownership_unknown(
    root_label: str, t: Target, why: str, evidence: list[Evidence], details: LinkDetails
) -> Verdict:
    """What the map links cannot be charged to targets for sure: `t`'s code may be there."""
    msg = f"{t.label}: ownership unknown: {why}. Not proposed for removal."
    return Verdict("unreferenced-unsafe", msg, Confidence.LOW, False, evidence, None, details)


def _discarded_by_gc(
    root_label: str, t: Target, referenced: bool, evidence: list[Evidence], details: LinkDetails
) -> Verdict:
    """Extracted (by a reference) and then garbage-collected: needed to compile and link."""
    why = "referenced by other inputs (--cref)" if referenced else "extracted by a reference"
    msg = (
        f"{t.label} is linked into {root_label} only to be discarded: "
        f"{why}, yet no section of it survived --gc-sections ({details.discarded_bytes} bytes "
        "discarded). The referencing code needs it to compile and link, so the "
        "edge cannot simply be cut."
    )
    return Verdict(
        "discarded-by-gc",
        msg,
        Confidence.MEDIUM,
        False,
        evidence,
        None,
        dataclasses.replace(details, referenced=True),
    )


def _unreferenced(
    root_label: str,
    t: Target,
    objs: list[ElfFile],
    missing: list[str],
    evidence: list[Evidence],
    details: LinkDetails,
) -> Verdict:
    """Nothing of `t` is in the link and nothing makes the cut unsafe: removable."""
    conf = Confidence.HIGH if not missing else Confidence.MEDIUM
    msg = f"{t.label} contributes no code and no referenced symbol to {root_label}."
    if details.idle_initializers:
        msg += (
            f" {details.idle_initializers[0].upper()}{details.idle_initializers[1:]}, which "
            "cannot run here: no member of its archive is in the link (an initializer runs "
            "only with its member, and nothing links it whole)."
        )
    if missing:
        msg += f" Not certain without {'; '.join(sorted(set(missing)))}."
    archive = sum(o.size for o in objs)
    saving = Saving(
        bytes=details.kept_bytes + details.discarded_bytes,
        bytes_basis="bytes of its sections in this link (none kept: the binary does not shrink)"
        + (f"; its objects ({archive} bytes) are no longer built or linked" if objs else ""),
    )
    return Verdict("unreferenced", msg, conf, True, evidence, saving, details)
