"""Link evidence tied together: which map is whose link, which GC and why-extract reports
belong to which map, which binary each link wrote.

One run may be given the maps, reports and binaries of many links at once (every root of
`slim report //a //b`, `slim cleanup`); a report or a binary charged to the wrong link
turns verdicts (issue 12 §4, issue 14). Each piece is tied by content first and by name
only to break ties:

- a map is the link of the targets owning its inputs, of its output's owner, and of the
  target its output is named after;
- a GC or why-extract report belongs to the map that kept none of the sections it removed
  and lists its plain objects (the binary's own; lld and mold maps leave out archive
  members collected whole), ties broken by file name (`app.gc.txt` and `app.map`), then
  by how many of its files the map lists, then by linker;
- a binary is a link's when the map names it as output, when it is the artifact of (or
  named like) the link's target, when it has the build-id of a binary already tied, or
  when its section table holds every input section the map placed (addresses and sizes),
  for exactly one map.

What cannot be tied is `Unattributed`, reported in a note and never used to make a
verdict less safe. Pure: the facts are read, nothing is opened.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from slim.model.native import ElfFile, ElfSection, GcReport, LinkMap, WhyExtract

if TYPE_CHECKING:
    from slim.model.facts import Facts
    from slim.model.graph import BuildGraph
    from slim.model.ownership import Ownership

#: Rule kinds with a link step of their own (binaries, tests, shared libraries).
LINKING_KINDS: tuple[str, ...] = (
    "_binary",
    "_test",
    "executable",
    "shared_library",
    "module_library",
    "EXECUTABLE",
    "SHARED_LIBRARY",
    "MODULE_LIBRARY",
)
_REPORT_SUFFIXES = (".gc.txt", ".gc", ".why.tsv", ".why", ".txt", ".tsv", ".map", ".log")
#: Mergeable input sections (strings, constants) are placed before merging: not layout.
_MERGED = re.compile(r"\.(?:str|cst)\d+(?:\.\d+)?$")
_MIN_LAYOUT_SECTIONS = 3


def links_kind(kind: str) -> bool:
    """A rule kind with a link step of its own."""
    return kind.endswith(LINKING_KINDS)


@dataclass(frozen=True, eq=False)
class Link:
    """One link: its map, the reports of the same link, the binaries it wrote, and the
    targets whose link it is (`owners`)."""

    map: LinkMap
    owners: frozenset[int]
    gc: tuple[GcReport, ...] = ()
    why: tuple[WhyExtract, ...] = ()
    binaries: tuple[ElfFile, ...] = ()


@dataclass(frozen=True, eq=False)
class Unattributed:
    """A report or binary no link could be tied to, and why."""

    path: str
    kind: str
    reason: str
    binary: ElfFile | None = None


@dataclass(frozen=True, eq=False)
class Linkage:
    """Every link of one set of facts, what could not be tied, and how binaries were."""

    links: tuple[Link, ...] = ()
    unattributed: tuple[Unattributed, ...] = ()
    notes: tuple[str, ...] = ()

    @staticmethod
    def of(graph: BuildGraph, facts: Facts, own: Ownership | None = None) -> Linkage:
        """The linkage of `facts` (computed once, then kept among them)."""
        hit = facts.of(Linkage)
        if hit:
            return hit[0]
        from slim.model.ownership import Ownership

        out = tie(graph, own or Ownership.of(graph), facts)
        facts.add(out)
        return out

    def links_of(self, target: int) -> list[Link]:
        return [lk for lk in self.links if target in lk.owners]

    def unattributed_binaries(self) -> list[ElfFile]:
        return [u.binary for u in self.unattributed if u.binary is not None]


def _stem(path: str) -> str:
    base = posixpath.basename(path.replace("\\", "/"))
    for suf in _REPORT_SUFFIXES:
        if base.endswith(suf) and len(base) > len(suf):
            return base[: -len(suf)]
    return base


def _map_owners(
    graph: BuildGraph, own: Ownership, names: dict[str, list[int]], m: LinkMap
) -> frozenset[int]:
    owners = {o for i in m.inputs if (o := own.artifact_owner(i.file)) is not None}
    if m.output:
        o = own.artifact_owner(m.output)
        if o is not None:
            owners.add(o)
        base = posixpath.basename(m.output)
        owners.update(t for t in names.get(base, ()) if links_kind(graph.kinds[t]))
    return frozenset(owners)


_NAMES: WeakKeyDictionary[BuildGraph, dict[str, list[int]]] = WeakKeyDictionary()


def _names(graph: BuildGraph) -> dict[str, list[int]]:
    """Target name (the part after `:`) -> ids of the linking targets of that name."""
    out = _NAMES.get(graph)
    if out is None:
        out = _NAMES[graph] = {}
        for i, kind in enumerate(graph.kinds):
            if kind and links_kind(kind):
                out.setdefault(graph.labels[i].rsplit(":", 1)[-1], []).append(i)
    return out


def _pick(candidates: list[int], scores: Sequence[tuple[int, ...]]) -> int | None:
    """The one candidate with the best score, None on a tie."""
    if not candidates:
        return None
    best = max(scores[c] for c in candidates)
    top = [c for c in candidates if scores[c] == best]
    return top[0] if len(top) == 1 else None


def _kept(m: LinkMap) -> set[tuple[str, str]]:
    """(file, section) of every input section the map kept."""
    return {(i.file, x.name) for i in m.inputs for x in i.sections if x.size}


def _report_scores(
    maps: Sequence[LinkMap],
    kept: Sequence[set[tuple[str, str]]],
    removed: set[tuple[str, str]],
    files: set[str],
    path: str,
    linker: str,
) -> list[tuple[int, ...]]:
    """Per map, best first when larger: no section the report removed is one the map
    kept; the report's plain objects (the binary's own, not archive members: lld and mold
    maps leave out members every section of which was collected) are the map's inputs;
    the file names match; more of the report's files are the map's; the same linker."""
    out: list[tuple[int, ...]] = []
    for m, keep in zip(maps, kept, strict=True):
        names = {i.file for i in m.inputs} | {p for p, _ in m.loaded}
        names |= {i.archive for i in m.inputs if i.archive}
        hits = files & names
        plain = sum(1 for f in hits if not f.endswith(")"))
        contradictions = len(removed & keep)
        same_name = int(_stem(path) == _stem(m.path))
        same_linker = int(bool(linker) and (linker == m.linker or m.linker in linker.split("/")))
        out.append((-contradictions, plain, same_name, len(hits), same_linker))
    return out


def _tie_report(
    maps: Sequence[LinkMap],
    kept: Sequence[set[tuple[str, str]]],
    removed: set[tuple[str, str]],
    files: set[str],
    path: str,
    linker: str,
) -> tuple[int | None, str]:
    """The map a report naming `files` (and removing `removed`) belongs to, or None and
    why not."""
    scores = _report_scores(maps, kept, removed, files, path, linker)
    cands = [k for k, s in enumerate(scores) if s[3] > 0 or not files]
    if not cands:
        return None, "names no file of any map given"
    k = _pick(cands, scores)
    if k is None:
        tied = sorted(maps[c].path for c in cands if scores[c] == max(scores[x] for x in cands))
        return None, f"fits {len(tied)} maps equally ({', '.join(tied[:3])})"
    return k, ""


def _section_of(by_name: list[ElfSection], name: str) -> ElfSection | None:
    """The output section an input section `name` goes to (the longest matching name)."""
    return next((s for s in by_name if name == s.name or name.startswith(s.name + ".")), None)


def layout_fits(m: LinkMap, e: ElfFile) -> bool | None:
    """Whether every input section the map placed lies inside the binary's section of
    that name (None: too few sections to tell)."""
    secs = [s for s in e.sections if s.address and s.size and s.type != "SHT_NOTE"]
    if not secs:
        return None
    by_name = sorted(secs, key=lambda s: -len(s.name))
    seen: set[str] = set()
    for i in m.inputs:
        for x in i.sections:
            if not x.size or not x.address or _MERGED.search(x.name):
                continue
            s = _section_of(by_name, x.name)
            if s is None:
                continue
            if not (s.address <= x.address and x.address + x.size <= s.address + s.size):
                return False
            seen.add(s.name)
    return True if len(seen) >= _MIN_LAYOUT_SECTIONS else None


@dataclass
class _Tying:
    graph: BuildGraph
    own: Ownership
    names: dict[str, list[int]]
    maps: list[LinkMap]
    owners: list[frozenset[int]]
    gc: dict[int, list[GcReport]] = field(default_factory=dict)
    why: dict[int, list[WhyExtract]] = field(default_factory=dict)
    bins: dict[int, list[ElfFile]] = field(default_factory=dict)
    loose: list[Unattributed] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def reports(self, gcs: list[GcReport], whys: list[WhyExtract]) -> None:
        kept = [_kept(m) for m in self.maps] if gcs else []
        for g in gcs:
            removed = {(e.file, e.section) for e in g.entries}
            files = {e.file for e in g.entries}
            k, why = _tie_report(self.maps, kept, removed, files, g.path, g.linker)
            if k is None:
                self.loose.append(Unattributed(g.path, "gc report", why))
            else:
                self.gc.setdefault(k, []).append(g)
        for w in whys:
            files = {e.extracted for e in w.entries} | {e.reference for e in w.entries}
            none: list[set[tuple[str, str]]] = [set() for _ in self.maps]
            k, why = _tie_report(self.maps, none, set(), files, w.path, "lld")
            if k is None:
                self.loose.append(Unattributed(w.path, "why-extract report", why))
            else:
                self.why.setdefault(k, []).append(w)

    def binaries(self, elfs: list[ElfFile]) -> None:
        ids: dict[str, int] = {}
        later: list[ElfFile] = []
        for e in elfs:
            k = self._by_name(e)
            if k is None:
                later.append(e)
                continue
            if layout_fits(self.maps[k], e) is False:
                self.loose.append(
                    Unattributed(
                        e.path,
                        "binary",
                        f"named like the output of {self.maps[k].path}, but its sections do "
                        "not hold what that map placed (another build?)",
                        e,
                    )
                )
                continue
            self.bins.setdefault(k, []).append(e)
            if e.build_id:
                ids.setdefault(e.build_id, k)
        for e in later:
            self._by_content(e, ids)

    def _by_name(self, e: ElfFile) -> int | None:
        base = posixpath.basename(e.path)
        owner = self.own.artifact_owner(e.path)
        hits = [
            k
            for k, m in enumerate(self.maps)
            if (m.output and posixpath.basename(m.output) == base)
            or (owner is not None and owner in self.owners[k])
        ]
        if not hits:
            named = set(self.names.get(base, ()))
            hits = [k for k, o in enumerate(self.owners) if named & o]
        return hits[0] if len(hits) == 1 else None

    def _by_content(self, e: ElfFile, ids: dict[str, int]) -> None:
        """By build-id, then (an executable: a shared library given for its symbols is no
        link's output) by section layout."""
        k = ids.get(e.build_id) if e.build_id else None
        how = f"build-id {e.build_id[:12]}"
        if k is None and e.kind != "exec":
            return
        if k is None:
            fits = [k for k, m in enumerate(self.maps) if layout_fits(m, e)]
            k = fits[0] if len(fits) == 1 else None
            how = "its section layout"
            if k is None:
                reason = (
                    f"its name matches no map's output or target, and its section layout "
                    f"fits {len(fits)} of the {len(self.maps)} maps given"
                )
                self.loose.append(Unattributed(e.path, "binary", reason, e))
                return
        self.bins.setdefault(k, []).append(e)
        self.notes.append(f"binary {e.path} tied to the link of {self.maps[k].path} by {how}")


def tie(graph: BuildGraph, own: Ownership, facts: Facts) -> Linkage:
    """Tie the maps, reports and linked binaries among `facts` (module docstring)."""
    maps = sorted(facts.of(LinkMap), key=lambda m: m.path)
    names = _names(graph) if maps else {}
    t = _Tying(graph, own, names, maps, [_map_owners(graph, own, names, m) for m in maps])
    t.reports(facts.of(GcReport), facts.of(WhyExtract))
    linked = [e for e in facts.of(ElfFile) if e.kind in ("exec", "dyn") and not e.archive]
    if maps:
        t.binaries(linked)
    links = tuple(
        Link(
            m,
            t.owners[k],
            tuple(t.gc.get(k, ())),
            tuple(t.why.get(k, ())),
            tuple(t.bins.get(k, ())),
        )
        for k, m in enumerate(maps)
    )
    notes = [*t.notes]
    for u in t.loose:
        notes.append(f"{u.kind} {u.path} not tied to any link: {u.reason}")
    return Linkage(links, tuple(t.loose), tuple(notes))
