"""The build graph: targets with integer ids and array-based adjacency.

`GraphBuilder` is what every graph reader feeds; `BuildGraph` is the frozen result that
analyzers query. Storage is columnar (lists or memory-mapped columns indexed by id, numpy
CSR edge arrays) so that a million targets and tens of millions of edges fit in memory;
traversals are numpy breadth-first searches that touch only the edges they follow.
"""

from __future__ import annotations

import weakref
from array import array
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, count, islice, repeat
from operator import itemgetter, methodcaller
from typing import TYPE_CHECKING, NamedTuple, NoReturn, TypeVar

import numpy as np

from slim.model.edges import (
    ALL_KINDS,
    BUILD_KINDS,
    CODE_KINDS,
    EdgeKind,
    Location,
    edge_kind_for_attribute,
    split_location,
)
from slim.model.label_hashes import HASH_CHECK, SortedHashes, label_hashes
from slim.model.labels import label_name, label_package, normalize_label
from slim.model.paths import listed_paths

if TYPE_CHECKING:
    from concurrent.futures import Future

    from numpy.typing import NDArray
    from scipy.sparse import csr_matrix

__all__ = [
    "ALL_KINDS",
    "BUILD_KINDS",
    "CODE_KINDS",
    "AttrValue",
    "BuildGraph",
    "Edge",
    "EdgeKind",
    "GraphBuilder",
    "Location",
    "PartialGraphError",
    "Target",
    "edge_kind_for_attribute",
    "split_location",
    "unique_sorted",
]

AttrValue = str | int | bool | tuple[str, ...]
_V = TypeVar("_V")
_SRCS = frozenset({EdgeKind.SRCS})


@dataclass(frozen=True, slots=True)
class Target:
    """One target as analyzers see it (a view over the graph's columns)."""

    id: int
    label: str
    kind: str
    location: Location | None
    srcs: tuple[str, ...]
    tags: tuple[str, ...]
    attrs: dict[str, AttrValue]

    @property
    def package(self) -> str:
        return label_package(self.label)

    @property
    def name(self) -> str:
        return label_name(self.label)

    @property
    def is_external(self) -> bool:
        """Named by an edge but not described by the export (outside the query's scope)."""
        return self.kind == ""

    @property
    def is_test(self) -> bool:
        return (
            self.kind.endswith("_test")
            or self.kind in ("test_suite", "python_test", "cxx_test")
            or self.attrs.get("testonly") is True
        )


@dataclass(frozen=True, slots=True)
class Edge:
    """A dependency edge `target -> dep`, typed by the attribute it comes from."""

    target: int
    dep: int
    kind: EdgeKind


#: What joins a builder's strings into one: the columns' separator (`columns.SEP`), so
#: joined sources become a `StringsColumn` blob as they are.
_SEP = "\0"
#: What a builder keeps when it hands its contents over in `take_part`.
_KEPT_BY_TAKE = frozenset(
    {
        "_ids",
        "_aliases",
        "_labels",
        "_kinds",
        "_kind_names",
        "_kind_codes",
        "_paths",
        "_path_ids",
        "_texts",
        "_sent",
        "described",
        "_by_hash",
    }
)
#: Queued labels that make the builder intern them (`flush`).
_FLUSH_AT = 1 << 16
#: From how many labels a merge looks them up by one join of sorted hashes rather than a
#: dict probe each (below it, hashing the receiving builder's labels costs more).
JOIN_MIN = 50_000


@dataclass(frozen=True)
class PartIds:
    """The ids a receiving builder gave to the labels and paths of the parts it merged
    from one sending builder (see `GraphBuilder.take_part`)."""

    labels: NDArray[np.int64]
    paths: NDArray[np.int32]


class _NoIndex(dict[str, int]):
    """The label index of a worker's part: there is none (see `GraphBuilder.as_part`)."""

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError("a worker's part has no label index: merge it into a builder")

    get = __getitem__ = __contains__ = update = setdefault = _refuse


class _LateIndex(dict[str, int]):
    """The label index of a builder whose labels from `start` on are not in it yet (a
    merge appends a million labels that nothing may look up): the first use adds them
    and puts the full index back on the builder (held weakly: no cycle to keep it)."""

    def __init__(self, builder: GraphBuilder, index: dict[str, int], start: int) -> None:
        super().__init__()
        self._builder = weakref.ref(builder)
        self._labels, self._index, self._start = builder._labels, index, start

    def full(self) -> dict[str, int]:
        index, labels = self._index, self._labels
        if self._start < len(labels):
            index.update(zip(labels[self._start :], range(self._start, len(labels)), strict=True))
            self._start = len(labels)
        b = self._builder()
        if b is not None and b._ids is self:
            b._ids = index
        return index

    def get(self, key: str, default: int | None = None) -> int | None:  # type: ignore[override]
        return self.full().get(key, default)

    def setdefault(self, key: str, default: int) -> int:
        return self.full().setdefault(key, default)

    def update(self, *args: object, **kwargs: int) -> None:
        self.full().update(*args, **kwargs)

    def __getitem__(self, key: str) -> int:
        return self.full()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.full()

    def __len__(self) -> int:
        return len(self.full())

    def __iter__(self) -> Iterator[str]:
        return iter(self.full())


#: Every byte but ":" and NUL (what `all_canonical` deletes).
_NOT_COLON_OR_SEP = bytes(c for c in range(256) if c not in (0, ord(":")))


def all_canonical(labels: list[str]) -> bool:
    """Whether every label of a non-empty list is canonical as `normalize_label` leaves
    one (`//` first, a `:`, no trailing `]`), tested on one joined string: a few scans
    in C instead of three calls per label."""
    joined = _SEP.join(labels)
    m = len(labels)
    if joined.count(_SEP) != m - 1 or not joined.startswith("//"):
        return False
    if joined.count(_SEP + "//") != m - 1 or joined.endswith("]") or "]" + _SEP in joined:
        return False
    colons = joined.encode("utf-8", "surrogatepass").translate(None, _NOT_COLON_OR_SEP)
    sep = _SEP.encode()
    return bool(colons) and not (
        colons.startswith(sep) or colons.endswith(sep) or sep + sep in colons
    )


_SPLIT_LOCATION = methodcaller("rsplit", ":", 2)
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)


def _all_line_column(parts: list[list[str]]) -> bool:
    """Whether every split location is `path:line:column` (`split_location`'s first
    case: both numbers decimal), checked in a few passes in C."""
    if not parts or min(map(len, parts)) != 3:
        return False
    lines, columns = list(map(_SECOND, parts)), list(map(_THIRD, parts))
    return (
        all(lines) and all(columns) and "".join(lines).isdecimal() and "".join(columns).isdecimal()
    )


def _new_index(items: Iterable[tuple[str, int]] | Mapping[str, int]) -> defaultdict[str, int]:
    """A label index: a `defaultdict` whose factory is set only while `flush` looks up."""
    return defaultdict(None, items)


def _objects(items: Sequence[object]) -> NDArray[np.object_]:
    """`items` as a numpy object array (reordered in C, not item by item); tuples stay
    items, not rows."""
    return np.fromiter(items, dtype=object, count=len(items))


def _drop_untyped_twins(keys: NDArray[np.int64]) -> NDArray[np.int64]:
    """Sorted (target, dep, kind) keys without the UNTYPED edges of a pair another export
    describes with a kind (a ninja graph's edge next to the CMake reply's DEPS or IMPLICIT):
    the typed description is the more precise."""
    pair = keys >> 4
    untyped = (keys & 0xF) == int(EdgeKind.UNTYPED)
    twin = np.zeros(len(keys), dtype=bool)
    same = pair[1:] == pair[:-1]
    twin[1:] |= same
    twin[:-1] |= same
    drop = untyped & twin
    return keys[~drop] if drop.any() else keys


@dataclass
class GraphBuilder:
    """Accumulates targets, files and edges from one or more inputs; `build()` freezes them."""

    _ids: dict[str, int] = field(default_factory=lambda: _new_index({}))
    """Label -> id; a `defaultdict` whose factory is set only while `flush` looks a batch up."""
    _aliases: dict[str, int] = field(default_factory=dict)
    _labels: list[str] = field(default_factory=list)
    _kinds: array[int] = field(default_factory=lambda: array("i"))
    """Each label's rule kind as a code into `_kind_names` (0: none, not described): a
    merge or `build` handles them as an array, not a million strings."""
    _kind_names: list[str] = field(default_factory=lambda: [""])
    _kind_codes: dict[str, int] = field(default_factory=lambda: {"": 0})
    _loc_ids: array[int] = field(default_factory=lambda: array("i"))
    _loc_paths: array[int] = field(default_factory=lambda: array("i"))
    _loc_lines: array[int] = field(default_factory=lambda: array("i"))
    _paths: list[str] = field(default_factory=list)
    _path_ids: dict[str, int] = field(default_factory=dict)
    _loc_other: dict[int, Location] = field(default_factory=dict)
    _pending_loc_ids: list[int] = field(default_factory=list)
    _pending_loc_texts: list[str] = field(default_factory=list)
    """Locations given as text (`set_location_text`), split at the next `flush` in bulk."""
    _srcs_ids: array[int] = field(default_factory=lambda: array("i"))
    _srcs_text: list[str | tuple[str, ...]] = field(default_factory=list)
    """Each `add_target` call's sources, in call order: one NUL-joined string per call (a
    tuple when a source holds a NUL), not a tuple of strings per target."""
    _srcs_lens: array[int] = field(default_factory=lambda: array("i"))
    """The length of each call's joined sources (counted while the string is in the
    cache: `build` would read a million scattered strings again for it)."""
    _srcs_tuples: bool = False
    """Whether some call's sources are kept as a tuple."""
    _tags: dict[int, tuple[str, ...]] = field(default_factory=dict)
    _attrs: dict[int, dict[str, AttrValue]] = field(default_factory=dict)
    _src: array[int] = field(default_factory=lambda: array("i"))
    _dst: array[int] = field(default_factory=lambda: array("i"))
    _ekind: array[int] = field(default_factory=lambda: array("b"))
    _pending_labels: list[str] = field(default_factory=list)
    _pending_src: array[int] = field(default_factory=lambda: array("i"))
    """Per queued group of `_pending_labels` (columns, not a tuple per group: building
    and transposing those cost 0.35 us a group): its target (-1: a file),"""
    _pending_counts: array[int] = field(default_factory=lambda: array("i"))
    """how many labels it has,"""
    _pending_kinds: array[int] = field(default_factory=lambda: array("b"))
    """its edge kind,"""
    _pending_packages: list[str] = field(default_factory=list)
    """and the package its relative labels are in."""
    _edge_locations: dict[tuple[int, int], Location] = field(default_factory=dict)
    _pending_files: list[int] = field(default_factory=list)
    """Where in `_pending_labels` a queued file is (`add_source_file`: not in a group)."""
    _files: array[int] = field(default_factory=lambda: array("i"))
    """Ids added as files, repeats allowed (a set of a million ints is 40 MB)."""
    _generated_by: dict[int, int] = field(default_factory=dict)
    _artifacts: dict[str, int] = field(default_factory=dict)
    _configurations: dict[int, set[str]] = field(default_factory=dict)
    formats: list[str] = field(default_factory=list)
    flags_unseen: list[str] = field(default_factory=list)
    """The exports given whose targets do not show the compile flags they hand their
    dependants (see `BuildGraph.flags_unseen`)."""
    flag_attributes_seen: int = 0
    """Targets described with their exported-flag attributes, empty or not (a Buck2 export
    shows them only when the query asked for them: none seen means not asked)."""
    notes: list[str] = field(default_factory=list)
    described: set[int] | None = None
    """When a set: the targets `add_target` describes (what one export describes)."""
    _texts: dict[str, str] = field(default_factory=dict)
    _sent: tuple[int, int] = (0, 0)
    """(labels, paths) sent by earlier `take_part` calls: a part's ids start there."""
    _late_kinds: list[int] = field(default_factory=list)
    """Ids below `_sent[0]` that got their rule kind since the last `take_part`."""
    _sent_kinds: dict[int, int] = field(default_factory=dict)
    """In a part: the kinds (codes) its builder gave to labels of earlier parts."""
    _hashes: tuple[int, NDArray[np.int64]] | None = None
    """In a part: (`hash(HASH_CHECK)`, the hash of each of its labels) where it was made."""
    _by_hash: SortedHashes | None = None
    """The labels' hashes, sorted, once a large merge has looked labels up by them."""

    def __len__(self) -> int:
        return len(self._labels)

    def __getstate__(self) -> dict[str, object]:
        """What a worker sends back: no label -> id index (rebuilt from the labels), the
        labels as one string when none holds a NUL (a million strings pickle 10x slower)."""
        skip = ("_ids", "_texts", "_path_ids", "_by_hash")
        state = {k: v for k, v in self.__dict__.items() if k not in skip}
        joined = _SEP.join(self._labels)
        if len(self._labels) > 1 and joined.count(_SEP) == len(self._labels) - 1:
            state["_labels"] = joined
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        labels = state.get("_labels")
        if isinstance(labels, str):
            state = {**state, "_labels": labels.split(_SEP)}
        self.__dict__.update(state)
        self._texts, self._by_hash = {}, None
        if state.get("_part"):  # only merged: rebuilding indexes costs a million inserts
            self._ids, self._path_ids = _NoIndex(), {}
            return
        self._ids = _new_index(zip(self._labels, range(len(self._labels)), strict=True))
        self._path_ids = dict(zip(self._paths, range(len(self._paths)), strict=True))

    def as_part(self) -> GraphBuilder:
        """This builder, flushed, to be sent to a process that only merges it: it travels
        without its label index (`lookup`, `intern` and the like refuse to run on it)."""
        self.flush()
        self.__dict__["_part"] = True
        return self

    def take_part(self) -> GraphBuilder:
        """What this builder gained since its last `take_part`, as a part (see `as_part`):
        the labels and paths it added, kinds it gave to labels sent before, and every
        target, edge and location, which this builder then forgets (it keeps its labels,
        so the next part names a label seen before by its id). A worker reading several
        pieces of a file sends one after each; `merge` maps the ids of earlier parts
        through the `PartIds` it returned for them."""
        self.flush()
        sent_labels, sent_paths = self._sent
        part = GraphBuilder()
        state = {k: v for k, v in self.__dict__.items() if k not in _KEPT_BY_TAKE}
        fresh = GraphBuilder().__dict__
        self.__dict__.update({k: fresh[k] for k in state})
        part.__dict__.update(state)
        part._labels = self._labels[sent_labels:]
        part._kinds = self._kinds[sent_labels:]
        part._kind_names = list(self._kind_names)
        part._paths = self._paths[sent_paths:]
        part._sent = self._sent
        late: list[int] = state["_late_kinds"]
        part._sent_kinds = dict(zip(late, map(self._kinds.__getitem__, late), strict=True))
        part._hashes = (hash(HASH_CHECK), label_hashes(part._labels))
        self._sent = (len(self._labels), len(self._paths))
        part.__dict__["_part"] = True
        return part

    def text(self, value: str) -> str:
        """One shared copy of a string many targets carry (a rule kind, a BUILD file path)."""
        return self._texts.setdefault(value, value)

    def set_location(self, target: int, location: Location) -> None:
        """Where `target` is declared (a later call wins). Kept as columns: a path table
        and a line per call, not a `Location` object per target."""
        if self._pending_loc_texts:
            self._flush_locations()
        line = location.line
        if location.offset is None and (line is None or 0 <= line < 2**31):
            self._located(target, location.path, -1 if line is None else line)
        else:
            self._loc_other[target] = location
            self._located(target, "", -2)

    def set_location_text(self, target: int, text: str) -> None:
        """`set_location(target, Location.parse(text))` without the object, at the next
        `flush` (a million rules' locations are split there in a few passes in C)."""
        self._pending_loc_ids.append(target)
        self._pending_loc_texts.append(text)

    def _flush_locations(self) -> None:
        """Record the locations given as text since the last flush, in order. The common
        `path:line:column` of every one is split in bulk; a batch with any other (no
        column, no line, a line past 32 bits) is split one by one."""
        texts, ids = self._pending_loc_texts, self._pending_loc_ids
        self._pending_loc_texts, self._pending_loc_ids = [], []
        parts = list(map(_SPLIT_LOCATION, texts))
        lines = list(map(_SECOND, parts)) if _all_line_column(parts) else None
        numbers = list(map(int, lines)) if lines is not None else []
        if lines is None or max(numbers, default=0) >= 2**31:
            for target, text in zip(ids, texts, strict=True):
                path, line = split_location(text)
                if line is None:
                    self._located(target, path, -1)
                elif line < 2**31:
                    self._located(target, path, line)
                else:
                    self._loc_other[target] = Location(path, line)
                    self._located(target, "", -2)
            return
        path_ids = self._path_ids
        if not isinstance(path_ids, defaultdict):
            self._path_ids = path_ids = _new_index(path_ids)
        known = len(path_ids)
        path_ids.default_factory = count(len(self._paths)).__next__
        try:
            pids = np.fromiter(map(path_ids.__getitem__, map(_FIRST, parts)), np.int32, len(parts))
        finally:
            path_ids.default_factory = None
        if len(path_ids) > known:  # the new paths, last in the index
            self._paths.extend(reversed(list(islice(reversed(path_ids), len(path_ids) - known))))
        self._loc_ids.frombytes(np.array(ids, dtype=np.int32).tobytes())
        self._loc_paths.frombytes(pids.tobytes())
        self._loc_lines.frombytes(np.array(numbers, dtype=np.int32).tobytes())

    def _located(self, target: int, path: str, line: int) -> None:
        self._loc_ids.append(target)
        self._loc_paths.append(self._path_id(path))
        self._loc_lines.append(line)

    def _final_locations(
        self, renumber: NDArray[np.int32]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """(new ids ascending, path index, line) of each kept target's last location."""
        ids = np.frombuffer(self._loc_ids, dtype=np.int32)[::-1]
        order = stable_argsort(ids)
        ascending = ids[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = ascending[1:] != ascending[:-1]
        last = len(ids) - 1 - order[first]
        new = renumber[ascending[first]]
        keep = new >= 0
        paths = np.frombuffer(self._loc_paths, dtype=np.int32)[last][keep]
        lines = np.frombuffer(self._loc_lines, dtype=np.int32)[last][keep]
        return new[keep].astype(np.int64), paths.astype(np.int64), lines.astype(np.int64)

    def _built_locations(self, renumber: NDArray[np.int32]) -> Mapping[int, Location]:
        """The kept targets' locations: columns, or a dict when a location has a byte
        offset or an unusual line (no reader of a build graph gives one)."""
        from slim.model.columns import LocationColumn

        ids, paths, lines = self._final_locations(renumber)
        if not len(lines) or int(lines.min()) >= -1:
            return LocationColumn(ids, paths, lines, self._paths)
        by_old = {int(renumber[k]): v for k, v in self._loc_other.items()}
        col = LocationColumn(ids, paths, lines, self._paths)
        return {
            i: by_old[i] if line == -2 else col[i]
            for i, line in zip(ids.tolist(), lines.tolist(), strict=True)
        }

    def intern(self, label: str) -> int:
        """The id of a canonical label, creating an unknown (external) node if new."""
        n = len(self._labels)
        i = self._ids.setdefault(label, n)
        if i == n:
            self._labels.append(label)
            self._kinds.append(0)
        return i

    def _kind_code(self, kind: str) -> int:
        code = self._kind_codes.get(kind)
        if code is None:
            code = self._kind_codes[kind] = len(self._kind_names)
            self._kind_names.append(kind)
        return code

    def _intern_distinct(
        self,
        labels: list[str],
        kinds: NDArray[np.int32],
        hashes: NDArray[np.int64] | None = None,
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Ids of another builder's labels (distinct, with their kinds as codes of this
        builder and maybe their hashes): the new ones are appended in one pass, kinds and
        all; also the positions of those already here. Many labels are looked up by a join
        of sorted hashes, and appended without indexing them (see `_LateIndex`)."""
        # (a late index would be completed by the first probe: a million inserts)
        joined = len(labels) >= JOIN_MIN or isinstance(self._ids, _LateIndex)
        if not joined:
            get = self._ids.get
            ids = np.fromiter(map(get, labels, repeat(-1)), dtype=np.int64, count=len(labels))
        else:
            hashes = label_hashes(labels) if hashes is None else hashes
            ids = self._joined(labels, hashes)
        new = ids < 0
        fresh = np.flatnonzero(new).tolist()
        if fresh:
            n0 = len(self._labels)
            ids[new] = np.arange(n0, n0 + len(fresh), dtype=np.int64)
            added = list(map(labels.__getitem__, fresh))
            self._labels.extend(added)
            self._kinds.frombytes(kinds[new].astype(np.int32).tobytes())
            if not joined:
                self._ids.update(zip(added, range(n0, n0 + len(added)), strict=True))
            elif not isinstance(self._ids, _LateIndex):
                self._ids = _LateIndex(self, self._ids, n0)
        if joined and self._by_hash is not None:
            self._by_hash.extend(self._labels, None if hashes is None else hashes[new])
        return ids, np.flatnonzero(~new)

    def _joined(self, labels: list[str], hashes: NDArray[np.int64]) -> NDArray[np.int64]:
        """The ids of `labels` here (-1: new), found by their hashes and then compared."""
        index = self._by_hash = self._by_hash or SortedHashes()
        index.extend(self._labels)
        ids = index.find(hashes)
        found = np.flatnonzero(ids >= 0)
        mine = self._labels
        same = np.fromiter(
            map(
                str.__eq__,
                map(mine.__getitem__, ids[found].tolist()),
                map(labels.__getitem__, found.tolist()),
            ),
            dtype=bool,
            count=len(found),
        )
        if not bool(same.all()):  # a hash that several labels share: look them up exactly
            get = self._ids.get
            for j in found[~same].tolist():
                i = get(labels[j])
                ids[j] = -1 if i is None else i
        return ids

    def intern_raw(self, labels: Sequence[str], package: str) -> list[int]:
        """Ids of labels as a tool printed them (`//a`, `@//a:b`, `:x` in `package`).

        Canonical spellings, by far the most common, cost one dict lookup; any other
        spelling is normalized once and remembered as an alias.
        """
        out: list[int | None] = list(map(self._ids.get, labels))
        if None not in out:
            return out  # type: ignore[return-value]
        aliases = self._aliases
        for pos, i in enumerate(out):
            if i is not None:
                continue
            raw = labels[pos]
            hit = aliases.get(raw)
            if hit is None:
                if raw.startswith(":"):
                    hit = self.intern(normalize_label(raw, package))
                else:
                    canonical = normalize_label(raw)
                    hit = self.intern(canonical)
                    if canonical != raw:
                        aliases[raw] = hit
            out[pos] = hit
        return out  # type: ignore[return-value]

    def add_target(
        self,
        label: str,
        kind: str,
        *,
        location: Location | None = None,
        srcs: Iterable[str] = (),
        tags: Iterable[str] = (),
        attrs: dict[str, AttrValue] | None = None,
    ) -> int:
        """Describe a rule target (canonical label); later descriptions only fill gaps (the
        first export named on the command line decides the rule kind)."""
        i = self.intern(label)
        if kind and not self._kinds[i]:
            self._kinds[i] = self._kind_code(kind)
            if i < self._sent[0]:
                self._late_kinds.append(i)
        if self.described is not None and kind:
            self.described.add(i)
        if location is not None:
            self.set_location(i, location)
        srcs_t = tuple(srcs)
        if srcs_t:
            self._add_srcs(i, srcs_t)
        tags_t = tuple(tags)
        if tags_t:
            self._tags[i] = tags_t
        if attrs:
            self._attrs.setdefault(i, {}).update(attrs)
        return i

    def add_rule_row(
        self,
        label: str,
        kind: str,
        srcs: Sequence[str],
        location: str | None,
        groups: Sequence[tuple[Sequence[str], EdgeKind]],
        package: str,
        *,
        tags: Sequence[str] = (),
        attrs: dict[str, AttrValue] | None = None,
    ) -> int:
        """`add_target`, `set_location_text` (when `location`) and `add_label_groups` of one
        rule in one call, for the million rules of a streamed export (the three calls,
        and the kind update through `intern` and a helper, cost 6-8% more of its parse)."""
        n = len(self._labels)
        i = self._ids.setdefault(label, n)
        code = self._kind_codes.get(kind)
        if code is None:
            code = self._kind_code(kind)
        if i == n:
            self._labels.append(label)
            self._kinds.append(code)
        elif code and not self._kinds[i]:
            self._kinds[i] = code
            if i < self._sent[0]:
                self._late_kinds.append(i)
        if self.described is not None and kind:
            self.described.add(i)
        if srcs:
            self._add_srcs(i, tuple(srcs))
        if tags:
            self._tags[i] = tuple(tags)
        if attrs:
            self._attrs.setdefault(i, {}).update(attrs)
        if location:
            self._pending_loc_ids.append(i)
            self._pending_loc_texts.append(location)
        pending, targets = self._pending_labels, self._pending_src
        counts, kinds, packages = self._pending_counts, self._pending_kinds, self._pending_packages
        for labels, edge_kind in groups:  # `_queue` inline
            pending.extend(labels)
            targets.append(i)
            counts.append(len(labels))
            kinds.append(edge_kind)
            packages.append(package)
        if len(pending) >= _FLUSH_AT:
            self.flush()
        return i

    def _add_srcs(self, i: int, srcs: tuple[str, ...]) -> None:
        """A target's sources as every export lists them (a CMake reply's headers and a
        ninja graph's compiled sources): a later export adds, never replaces (`build`
        joins a target's calls in order)."""
        joined = _SEP.join(srcs)
        self._srcs_ids.append(i)
        self._srcs_lens.append(len(joined))
        if joined.count(_SEP) == len(srcs) - 1:
            self._srcs_text.append(joined)
        else:
            self._srcs_text.append(srcs)
            self._srcs_tuples = True

    def add_file(self, label: str, *, generated_by: str | None = None) -> int:
        """A source or generated file; edges to it are folded into its owner at build()."""
        i = self.intern(label)
        self._files.append(i)
        if generated_by is not None:
            self._generated_by[i] = self.intern(generated_by)
        return i

    def add_source_file(self, label: str) -> None:
        """`add_file(label)` queued with the edge labels (a label as printed, normalized
        there as theirs are): a source file's line follows the rule naming it in a
        streamed export, so its label is interned next to that mention, while the index
        entry is still in the cache."""
        pending = self._pending_labels
        self._pending_files.append(len(pending))
        pending.append(label)
        if len(pending) >= _FLUSH_AT:
            self.flush()

    def add_configuration(self, target: int, configuration: str) -> None:
        self._configurations.setdefault(target, set()).add(configuration)

    def add_edge(
        self, target: int, dep: int, kind: EdgeKind, location: Location | None = None
    ) -> None:
        self._src.append(target)
        self._dst.append(dep)
        self._ekind.append(int(kind))
        if location is not None:
            self._edge_locations.setdefault((target, dep), location)

    def add_label_edges(
        self, target: int, labels: Sequence[str], kind: EdgeKind, package: str
    ) -> None:
        """Edges to labels as printed (see `intern_raw`), interned in bulk at the next flush:
        one C-level pass over many rules' labels instead of a call per rule."""
        self._pending_labels.extend(labels)
        self._queue(target, len(labels), kind, package)
        if len(self._pending_labels) >= _FLUSH_AT:
            self.flush()

    def add_label_groups(
        self, target: int, groups: Sequence[tuple[Sequence[str], EdgeKind]], package: str
    ) -> None:
        """`add_label_edges` for each (labels, kind) of one rule, in one call."""
        for labels, kind in groups:
            pending = self._pending_labels
            pending.extend(labels)
            self._queue(target, len(labels), kind, package)
            if len(pending) >= _FLUSH_AT:
                self.flush()

    def _queue(self, target: int, n: int, kind: int, package: str) -> None:
        """A group of the last `n` queued labels: edges of `kind` from `target`."""
        self._pending_src.append(target)
        self._pending_counts.append(n)
        self._pending_kinds.append(kind)
        self._pending_packages.append(package)

    def flush(self) -> None:
        """Intern queued labels and append their edges; record queued locations."""
        if self._pending_loc_texts:
            self._flush_locations()
        if not self._pending_src and not self._pending_files:
            return
        labels, packages = self._pending_labels, self._pending_packages
        targets, counts_a, kinds_a = self._pending_src, self._pending_counts, self._pending_kinds
        files = self._pending_files
        self._pending_labels, self._pending_packages, self._pending_files = [], [], []
        self._pending_src, self._pending_counts = array("i"), array("i")
        self._pending_kinds = array("b")
        counts = np.frombuffer(counts_a, dtype=np.int32).astype(np.int64)
        is_file = None
        if files:
            is_file = np.zeros(len(labels), dtype=bool)
            is_file[files] = True
        out = self._interned(labels, counts, packages, is_file)
        src = np.repeat(np.frombuffer(targets, dtype=np.int32), counts)
        kinds = np.repeat(np.frombuffer(kinds_a, dtype=np.int8), counts)
        if is_file is not None:
            self._files.frombytes(out[is_file].astype(np.int32).tobytes())
            out = out[~is_file]
        self._src.frombytes(src.tobytes())
        self._dst.frombytes(out.astype(np.int32).tobytes())
        self._ekind.frombytes(kinds.tobytes())
        if self._by_hash is not None:
            self._by_hash.extend(self._labels)

    def _interned(
        self,
        labels: list[str],
        counts: NDArray[np.int64],
        packages: Sequence[str],
        is_file: NDArray[np.bool_] | None = None,
    ) -> NDArray[np.int64]:
        """The ids of queued labels, new ones added in order of first mention: the groups'
        labels (`counts` of them each, relative ones in the group's package) and, where
        `is_file` says, files (absolute).

        The index is probed once per label, in C: while the batch is looked up, it is a
        `defaultdict` whose factory gives a new label the next id. New labels that are
        not canonical (`@//a`, `:x`) make the batch's new labels go in one by one,
        normalized by `intern_raw`."""
        ids = self._ids
        if isinstance(ids, _LateIndex):
            ids = ids.full()
        if not isinstance(ids, defaultdict):
            ids.get("")  # a part's index refuses; a plain one is made over once
            self._ids = ids = _new_index(ids)
        n0 = len(self._labels)
        after = count(n0)
        ids.default_factory = after.__next__
        try:
            out = np.fromiter(map(ids.__getitem__, labels), np.int64, len(labels))
        finally:
            ids.default_factory = None
        if next(after) == n0:
            return out
        at = np.flatnonzero(out >= n0)
        seen = out[at]
        before = np.maximum.accumulate(np.concatenate(([n0 - 1], seen[:-1])))
        new = list(map(labels.__getitem__, at[seen > before].tolist()))
        if all_canonical(new):
            self._labels.extend(new)
            self._kinds.frombytes(bytes(4 * len(new)))
            return out
        for label in new:
            del ids[label]
        group = np.repeat(np.arange(len(counts)), counts)
        if is_file is None:
            owner = group[at].tolist()
        else:  # a file is in no group: -1 (no package)
            of = np.full(len(labels), -1, dtype=np.int64)
            of[~is_file] = group
            owner = of[at].tolist()
        out[at] = [
            self.intern_raw([labels[k]], packages[o] if o >= 0 else "")[0]
            for k, o in zip(at.tolist(), owner, strict=True)
        ]
        return out

    def hash_labels(self) -> None:
        """Hash labels as they are added, for the large merges to come (see `merge`): a
        string just made is in the cache, one interned a million labels ago is not (its
        hash costs three times as much then)."""
        self._by_hash = self._by_hash or SortedHashes()

    def _path_id(self, path: str) -> int:
        pid = self._path_ids.get(path)
        if pid is None:
            pid = self._path_ids[path] = len(self._paths)
            self._paths.append(path)
        return pid

    def add_edges(self, target: int, deps: Iterable[int], kind: EdgeKind) -> None:
        deps_arr = array("i", deps)
        self._src.extend(array("i", [target]) * len(deps_arr))
        self._dst.extend(deps_arr)
        self._ekind.extend(array("b", [int(kind)]) * len(deps_arr))

    def add_artifact(self, path: str, label: str) -> None:
        """An output file (object, archive, shared library) known to belong to a target."""
        self._artifacts[path] = self.intern(label)

    def set_attr(self, target: int, name: str, value: AttrValue) -> None:
        self._attrs.setdefault(target, {})[name] = value

    def kind_of(self, target: int) -> str:
        return self._kind_names[self._kinds[target]]

    def label_of(self, target: int) -> str:
        return self._labels[target]

    def lookup(self, label: str) -> int | None:
        return self._ids.get(label)

    def merge(self, other: GraphBuilder, earlier: PartIds | None = None) -> PartIds:
        """Add everything `other` (built independently, e.g. in a worker) describes. A part
        taken after others from one builder (`take_part`) names their labels and paths by
        its ids: `earlier` is what merging those returned; the result extends it."""
        self.flush()
        other.flush()
        hashes = other._hashes
        codes = np.array(list(map(self._kind_code, other._kind_names)), dtype=np.int32)
        theirs = codes[np.frombuffer(other._kinds, dtype=np.int32)]
        new, known = self._intern_distinct(
            other._labels,
            theirs,
            hashes[1] if hashes is not None and hashes[0] == hash(HASH_CHECK) else None,
        )
        new_paths = np.array([self._path_id(p) for p in other._paths], dtype=np.int32)
        before, before_paths = other._sent
        if before or before_paths:
            if earlier is None or (len(earlier.labels), len(earlier.paths)) != other._sent:
                raise ValueError("a part is merged after the parts taken before it")
            ids = np.concatenate((earlier.labels, new))
            pids = np.concatenate((earlier.paths, new_paths))
        else:
            ids, pids = new, new_paths
        at = ids.item  # few ids are looked up one by one: no list of them all
        has_kind = theirs != 0
        given = known[has_kind[known]]
        kinds = np.frombuffer(self._kinds, dtype=np.int32)  # a view: written in place
        mine = ids[before + given]
        unset = kinds[mine] == 0
        kinds[mine[unset]] = theirs[given[unset]]
        late = other._sent_kinds
        at_late = ids[np.fromiter(late.keys(), dtype=np.int64, count=len(late))]
        if late:  # labels of earlier parts a later one describes: most rules, in one pass
            late_codes = codes[np.fromiter(late.values(), dtype=np.int64, count=len(late))]
            unset_late = (late_codes != 0) & (kinds[at_late] == 0)
            kinds[at_late[unset_late]] = late_codes[unset_late]
        del kinds  # (the array cannot grow while viewed)
        if self.described is not None:  # what this export describes, worker parts included
            self.described.update(new[has_kind].tolist())
            self.described.update(at_late.tolist())
        if other._loc_ids:
            locs = ids[np.frombuffer(other._loc_ids, dtype=np.int32)].astype(np.int32)
            self._loc_ids.frombytes(locs.tobytes())
            self._loc_paths.frombytes(
                pids[np.frombuffer(other._loc_paths, dtype=np.int32)].tobytes()
            )
            self._loc_lines.frombytes(other._loc_lines.tobytes())
        for d, into in (
            (other._loc_other, self._loc_other),
            (other._tags, self._tags),
        ):
            into.update(zip(map(at, d), d.values(), strict=True))  # type: ignore[arg-type]
        if other._srcs_ids:
            srcs = ids[np.frombuffer(other._srcs_ids, dtype=np.int32)].astype(np.int32)
            self._srcs_ids.frombytes(srcs.tobytes())
            self._srcs_lens.extend(other._srcs_lens)
            self._srcs_text.extend(other._srcs_text)
            self._srcs_tuples |= other._srcs_tuples
        attrs_by = dict(zip(map(at, other._attrs), other._attrs.values(), strict=True))
        for k in attrs_by.keys() & self._attrs.keys():
            self._attrs[k].update(attrs_by.pop(k))
        self._attrs.update((k, dict(v)) for k, v in attrs_by.items())
        for k, c in other._configurations.items():
            self._configurations.setdefault(at(k), set()).update(c)
        if other._files:
            files = ids[np.frombuffer(other._files, dtype=np.int32)].astype(np.int32)
            self._files.frombytes(files.tobytes())
        for f, g in other._generated_by.items():
            self._generated_by[at(f)] = at(g)
        for path, t in other._artifacts.items():
            self._artifacts[path] = at(t)
        for (a, b), loc in other._edge_locations.items():
            self._edge_locations.setdefault((at(a), at(b)), loc)
        if len(other._src):
            src = ids[np.frombuffer(other._src, dtype=np.int32)].astype(np.int32)
            dst = ids[np.frombuffer(other._dst, dtype=np.int32)].astype(np.int32)
            self._src.frombytes(src.tobytes())
            self._dst.frombytes(dst.tobytes())
            self._ekind.frombytes(other._ekind.tobytes())
        self.formats.extend(other.formats)
        self.flags_unseen.extend(other.flags_unseen)
        self.flag_attributes_seen += other.flag_attributes_seen
        self.notes.extend(other.notes)
        return PartIds(ids, pids)

    def labels_since(self, start: int) -> list[str]:
        """Labels interned after the first `start` ones (a closure reader's next frontier)."""
        return self._labels[start:]

    def _described_mask(self) -> NDArray[np.bool_]:
        """Which labels have a rule kind (some export describes them)."""
        return np.asarray(np.frombuffer(self._kinds, dtype=np.int32) != 0)

    def _file_nodes(
        self, n_all: int, described: NDArray[np.bool_]
    ) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
        """(plain files, each label's node after folding): an undescribed file is a plain
        file unless a rule generates it, then it is folded into that rule."""
        is_file = np.zeros(n_all, dtype=bool)
        redirect = np.arange(n_all, dtype=np.int64)
        if not self._files:
            return is_file, redirect
        files = np.frombuffer(self._files, dtype=np.int32).astype(np.int64)
        files = files[~described[files]]
        owner = np.full(n_all, -1, dtype=np.int64)
        if self._generated_by:
            gen = self._generated_by
            owner[np.fromiter(gen.keys(), np.int64, len(gen))] = np.fromiter(
                gen.values(), np.int64, len(gen)
            )
        theirs = owner[files]
        folded = (theirs >= 0) & (theirs != files)
        redirect[files[folded]] = theirs[folded]
        is_file[files[~folded]] = True
        return is_file, redirect

    def _srcs_only(
        self,
        src: NDArray[np.int32],
        dst: NDArray[np.int32],
        ek: NDArray[np.int8],
        described: NDArray[np.bool_],
    ) -> NDArray[np.bool_]:
        """Undescribed labels that edges name only in srcs/hdrs (build() folds them)."""
        n_all = len(self._labels)
        unknown = ~described
        srcs_in = np.zeros(n_all, dtype=bool)
        other_in = np.zeros(n_all, dtype=bool)
        is_srcs = ek == int(EdgeKind.SRCS)
        srcs_in[dst[is_srcs]] = True
        other_in[dst[~is_srcs]] = True
        has_out = np.zeros(n_all, dtype=bool)
        has_out[src] = True
        return unknown & srcs_in & ~other_in & ~has_out

    def has_srcs_only_unknowns(self) -> bool:
        """Whether some undescribed, non-file label is named only in srcs: whether it is a
        file then depends on every other line of the export (a closure reader gives up)."""
        self.flush()
        if not self._dst:
            return False
        src = np.frombuffer(self._src, dtype=np.int32)
        dst = np.frombuffer(self._dst, dtype=np.int32)
        ek = np.frombuffer(self._ekind, dtype=np.int8)
        mask = self._srcs_only(src, dst, ek, self._described_mask())
        if self._files:
            mask[np.frombuffer(self._files, dtype=np.int32)] = False
        return bool(mask.any())

    def build(self) -> BuildGraph:
        """Fold file nodes into their owners, drop duplicate edges and freeze."""
        self.flush()
        self._by_hash = None  # tens of megabytes no one asks again
        n_all = len(self._labels)
        src = np.frombuffer(self._src, dtype=np.int32) if self._src else np.zeros(0, np.int32)
        dst = np.frombuffer(self._dst, dtype=np.int32) if self._dst else np.zeros(0, np.int32)
        ek = np.frombuffer(self._ekind, dtype=np.int8) if self._ekind else np.zeros(0, np.int8)
        described = self._described_mask()
        is_file, redirect = self._file_nodes(n_all, described)
        # Labels named only in srcs/hdrs and described nowhere are files too (rules-only
        # queries such as `kind(rule, deps(...))` omit the source-file targets).
        if len(dst):
            is_file |= self._srcs_only(src, dst, ek, described)
        # Renumber: drop plain-file nodes and generated files folded into their rule.
        node_keep = ~is_file & (redirect == np.arange(n_all))
        new_id = np.full(n_all, -1, dtype=np.int64)
        new_id[node_keep] = np.arange(int(node_keep.sum()))
        # ids fit in 32 bits (the builder's arrays hold them so): gathers through a table
        # half the size are 3-5x faster
        renumber = new_id.astype(np.int32)
        final = renumber[redirect]
        n_kept = int(node_keep.sum())
        edges = _edges_later(final, src, dst, ek, n_kept)
        data_files = self._data_files(src, dst, ek, is_file, final)
        from slim.model.columns import CodeColumn, LabelColumn

        kept = np.flatnonzero(node_keep).tolist()
        labels = list(map(self._labels.__getitem__, kept))
        kinds = CodeColumn(
            list(self._kind_names), np.frombuffer(self._kinds, dtype=np.int32)[node_keep]
        )

        def remap(d: dict[int, _V]) -> dict[int, _V]:
            """`d` under the new ids, without the dropped ones (in C: a million entries)."""
            new = new_id[np.fromiter(d.keys(), dtype=np.int64, count=len(d))]
            keep = new >= 0
            if bool(keep.all()):
                return dict(zip(new.tolist(), d.values(), strict=True))
            return dict(zip(new[keep].tolist(), compress(d.values(), keep.tolist()), strict=True))

        artifacts = {p: int(final[t]) for p, t in self._artifacts.items()}
        edge_locs = {
            (int(final[a]), int(final[b])): loc
            for (a, b), loc in self._edge_locations.items()
            if final[a] >= 0 and final[b] >= 0
        }
        locations = self._built_locations(renumber)
        srcs = self._built_srcs(renumber)
        column = LabelColumn.of(labels)
        e = edges.result()
        graph = BuildGraph(
            labels=column,
            kinds=kinds,
            locations=locations,
            srcs=srcs,
            tags=remap(self._tags),
            attrs=remap(self._attrs),
            configurations={k: tuple(sorted(v)) for k, v in remap(self._configurations).items()},
            edge_src=e.src,
            edge_dst=e.dst,
            edge_kind=e.kind,
            indptr=e.indptr,
            edge_locations=edge_locs,
            artifacts={p: t for p, t in artifacts.items() if t >= 0},
            formats=tuple(dict.fromkeys(self.formats)),
            flags_unseen=tuple(dict.fromkeys(self.flags_unseen)),
            notes=tuple(dict.fromkeys(self.notes)),
            data_files=data_files,
        )
        graph.set_reverse(e.reverse_order, e.reverse_ptr)
        return graph

    def _built_srcs(self, renumber: NDArray[np.int32]) -> Mapping[int, tuple[str, ...]]:
        """The kept targets' sources under their new ids, a target's calls joined in order
        without repeats: a column over one blob, or a dict when a source holds a NUL."""
        from slim.model.columns import StringsColumn

        ids = renumber[np.frombuffer(self._srcs_ids, dtype=np.int32)]
        lens = np.frombuffer(self._srcs_lens, dtype=np.int32)
        keep = ids >= 0
        texts = self._srcs_text
        if not bool(keep.all()):
            ids, lens, texts = ids[keep], lens[keep], list(compress(texts, keep.tolist()))
        order = None
        if len(ids) > 1 and not bool(np.all(ids[1:] > ids[:-1])):
            order = stable_argsort(ids)
        if not self._srcs_tuples and (order is None or bool(np.all(np.diff(ids[order]) > 0))):
            laid = "".join(texts)  # type: ignore[arg-type]  # (no tuples)
            if laid.isascii():  # one source list per target: left in the calls' order
                blob = np.frombuffer(laid.encode(), dtype=np.uint8)
                return StringsColumn.from_laid(ids.astype(np.int64), lens, blob, order)
        if order is not None:
            ids, lens, texts = ids[order], lens[order], _objects(texts)[order].tolist()
        if self._srcs_tuples:
            out: dict[int, tuple[str, ...]] = {}
            for i, t in zip(ids.tolist(), texts, strict=True):
                got = t if isinstance(t, tuple) else tuple(t.split(_SEP))
                out[i] = got if i not in out else tuple(dict.fromkeys((*out[i], *got)))
            return out
        joined: list[str] = texts  # type: ignore[assignment]
        if len(ids) > 1:
            again = np.flatnonzero(ids[1:] == ids[:-1])
            if len(again):
                first = np.ones(len(ids), dtype=bool)
                first[again + 1] = False
                starts = np.flatnonzero(first).tolist()
                ends = [*starts[1:], len(ids)]
                joined = [
                    joined[a]
                    if b - a == 1
                    else _SEP.join(dict.fromkeys(_SEP.join(joined[a:b]).split(_SEP)))
                    for a, b in zip(starts, ends, strict=True)
                ]
                ids = ids[first]
                return StringsColumn.from_joined(ids.astype(np.int64), joined)
        return StringsColumn.from_joined(ids.astype(np.int64), joined, lens)

    def _data_files(
        self,
        src: NDArray[np.int32],
        dst: NDArray[np.int32],
        ek: NDArray[np.int8],
        is_file: NDArray[np.bool_],
        final: NDArray[np.int32],
    ) -> dict[int, tuple[str, ...]]:
        """Target -> the plain files its `data` names (folded away with the file nodes,
        but what a target ships: a program may open them by path)."""
        if not len(dst):
            return {}
        sel = (ek == int(EdgeKind.DATA)) & is_file[dst]
        out: dict[int, set[str]] = {}
        for owner, f in zip(final[src[sel]].tolist(), dst[sel].tolist(), strict=True):
            if owner >= 0:
                out.setdefault(owner, set()).add(self._labels[f])
        return {k: tuple(sorted(v)) for k, v in out.items()}


#: Edges from which `build` sorts them on a thread of their own while it lays out the
#: nodes' columns (numpy lets go of the GIL in the sort and the gathers).
_THREAD_EDGES = 1 << 20


class _BuiltEdges(NamedTuple):
    src: NDArray[np.int32]
    dst: NDArray[np.int32]
    kind: NDArray[np.int8]
    indptr: NDArray[np.int64]
    reverse_order: NDArray[np.int64]
    reverse_ptr: NDArray[np.int64]


def _edges_later(
    final: NDArray[np.int32],
    src: NDArray[np.int32],
    dst: NDArray[np.int32],
    ek: NDArray[np.int8],
    n: int,
) -> Future[_BuiltEdges]:
    """`_built_edges(...)`: on a thread of its own for a large graph, else at once."""
    from concurrent.futures import Future, ThreadPoolExecutor

    if len(src) < _THREAD_EDGES:
        done: Future[_BuiltEdges] = Future()
        done.set_result(_built_edges(final, src, dst, ek, n))
        return done
    pool = ThreadPoolExecutor(max_workers=1)
    edges = pool.submit(_built_edges, final, src, dst, ek, n)
    pool.shutdown(wait=False)  # the thread ends with its one task
    return edges


def _built_edges(
    final: NDArray[np.int32],
    src: NDArray[np.int32],
    dst: NDArray[np.int32],
    ek: NDArray[np.int8],
    n: int,
) -> _BuiltEdges:
    """The edges under the final ids (`final`: -1 for a dropped node), sorted by (target,
    dep, kind), repeats and untyped twins dropped, with their forward and reverse CSR over
    `n` nodes (the reverse one is what every cache entry holds)."""
    # Pack (target, dep, kind) into one int64 key per edge, in place: with tens of
    # millions of edges every temporary array is hundreds of megabytes.
    from_id = final[src]
    to_id = final[dst]
    keep = (from_id >= 0) & (to_id >= 0) & (from_id != to_id)
    keys = from_id[keep].astype(np.int64)
    del from_id
    keys <<= 32
    keys |= to_id[keep]
    del to_id
    keys <<= 4
    keys |= ek[keep]
    del keep
    # a timsort: edges come mostly in order of their targets (ids are given in file
    # order), which it merges as runs, 2x faster than a quicksort here
    keys.sort(kind="stable")
    if len(keys):
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
        keys = _drop_untyped_twins(keys)
    e_src = (keys >> 36).astype(np.int32)
    e_dst = ((keys >> 4) & ((1 << 32) - 1)).astype(np.int32)
    e_kind = (keys & 0xF).astype(np.int8)
    indptr = np.zeros(n + 1, dtype=np.int64)
    rptr = np.zeros(n + 1, dtype=np.int64)
    if len(e_src):
        np.cumsum(np.bincount(e_src, minlength=n), out=indptr[1:])
        np.cumsum(np.bincount(e_dst, minlength=n), out=rptr[1:])
    return _BuiltEdges(e_src, e_dst, e_kind, indptr, stable_argsort(e_dst), rptr)


class PartialGraphError(RuntimeError):
    """A whole-graph question asked of a graph that holds only some roots' closure."""


def stable_argsort(a: NDArray[np.integer]) -> NDArray[np.int64]:
    """`np.argsort(a, kind="stable")`, for ints spanning less than 2**32 by a radix sort of
    two 16-bit passes (numpy's stable argsort is a radix sort for 16-bit ints, a timsort
    for wider ones: 2-3x slower on millions of ids or hashes)."""
    n = len(a)
    if n and a.dtype.kind in "iu":
        lo, hi = int(a.min()), int(a.max())
        if hi - lo < 2**32:
            if lo >= 0 and hi < 2**32:
                v, top = a, hi
            elif a.dtype.kind == "u":  # in its own type: no value is below `lo`
                v, top = a - a.dtype.type(lo), hi - lo
            else:
                v, top = a.astype(np.int64) - lo, hi - lo
            if top < 2**16:
                return np.argsort(v.astype(np.uint16), kind="stable").astype(np.int64)
            low = np.argsort(v.astype(np.uint16), kind="stable")  # (a cast keeps 16 bits)
            high = np.argsort((v >> 16).astype(np.uint16)[low], kind="stable")
            return low[high].astype(np.int64)
    return np.argsort(a, kind="stable").astype(np.int64)


def unique_sorted(a: NDArray[np.int64]) -> NDArray[np.int64]:
    """`np.unique` of a 1-D integer array (numpy 2's own imports `numpy.ma` on first use,
    tens of milliseconds of a query's start-up)."""
    a = np.sort(a)
    if len(a) > 1:
        a = a[np.concatenate(([True], a[1:] != a[:-1]))]
    return a


def _kind_table(kinds: frozenset[EdgeKind]) -> NDArray[np.bool_]:
    table = np.zeros(16, dtype=bool)
    table[[int(k) for k in kinds]] = True
    return table


class BuildGraph:
    """A frozen build graph; ids are dense ints, edges sorted by (target, dep, kind)."""

    def __init__(
        self,
        *,
        labels: Sequence[str],
        kinds: Sequence[str],
        locations: Mapping[int, Location],
        srcs: Mapping[int, tuple[str, ...]],
        tags: Mapping[int, tuple[str, ...]],
        attrs: Mapping[int, dict[str, AttrValue]],
        configurations: dict[int, tuple[str, ...]],
        edge_src: NDArray[np.int32],
        edge_dst: NDArray[np.int32],
        edge_kind: NDArray[np.int8],
        edge_locations: Mapping[tuple[int, int], Location],
        artifacts: dict[str, int],
        formats: tuple[str, ...] = (),
        notes: tuple[str, ...] = (),
        indptr: NDArray[np.int64] | None = None,
        data_files: Mapping[int, tuple[str, ...]] | None = None,
        flags_unseen: tuple[str, ...] = (),
    ) -> None:
        self.labels = labels
        self.kinds = kinds
        self.locations = locations
        self.srcs = srcs
        self.tags = tags
        self.attrs = attrs
        self.configurations = configurations
        self.edge_src = edge_src
        self.edge_dst = edge_dst
        self.edge_kind = edge_kind
        self.edge_locations = edge_locations
        self.artifacts = artifacts
        self.formats = formats
        self.flags_unseen = flags_unseen
        """The exports given (format names) whose targets do not show the compile flags
        they hand their dependants (Bazel `defines`, Buck2 exported preprocessor flags,
        CMake usage requirements): a ninja graph, a DOT graph, Buck2 JSON without those
        attributes. Their absence there is not evidence that an edge hands over none."""
        self.notes = notes
        #: Target -> the plain files its `data` attribute names (not nodes of the graph).
        self.data_files: Mapping[int, tuple[str, ...]] = data_files or {}
        n = len(labels)
        if indptr is not None and len(indptr) == n + 1:
            self.indptr = indptr
        else:
            self.indptr = np.zeros(n + 1, dtype=np.int64)
            if len(edge_src):
                np.cumsum(np.bincount(edge_src, minlength=n), out=self.indptr[1:])
        self._ids: dict[str, int] | None = None
        self._scans = 0
        self._rev: tuple[NDArray[np.integer], NDArray[np.int64]] | None = None
        self._csr: dict[frozenset[EdgeKind], csr_matrix] = {}
        self._csr_rev: dict[frozenset[EdgeKind], csr_matrix] = {}
        self._closures: dict[tuple[int, frozenset[EdgeKind]], NDArray[np.int64]] = {}
        self._described: NDArray[np.bool_] | None = None
        self.closure_of: tuple[str, ...] = ()
        """Set when the graph holds only these roots' closure (all edge kinds): forward
        queries from them are exact, reverse and whole-graph ones are not."""

    # -- nodes -------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.labels)

    @property
    def edge_count(self) -> int:
        return len(self.edge_src)

    @property
    def ids(self) -> dict[str, int]:
        if self._ids is None:
            self._ids = dict(zip(self.labels, range(len(self.labels)), strict=True))
        return self._ids

    def lookup(self, label: str) -> int | None:
        """The id of a label in any spelling (`//a`, `@//a:a`, ...), None if absent.

        A cached graph's label column answers from its hash index; the first few lookups
        on a list scan it (a C-level pass, ~10 ms for a million labels) instead of building
        the million-entry index a one-root query never needs.
        """
        find = getattr(self.labels, "find", None)
        if find is not None and self._ids is None:
            for cand in dict.fromkeys((label, normalize_label(label))):
                hit: int | None = find(cand)
                if hit is not None:
                    return hit
            return None
        if self._ids is None and self._scans < 8 and isinstance(self.labels, list):
            self._scans += 1
            for cand in dict.fromkeys((label, normalize_label(label))):
                try:
                    return self.labels.index(cand)
                except ValueError:
                    continue
            return None
        i = self.ids.get(label)
        if i is None:
            i = self.ids.get(normalize_label(label))
        return i

    def target(self, i: int) -> Target:
        return Target(
            id=i,
            label=self.labels[i],
            kind=self.kinds[i],
            location=self.locations.get(i),
            srcs=self.files(i),
            tags=self.tags.get(i, ()),
            attrs=self.attrs.get(i, {}),
        )

    def files(self, i: int) -> tuple[str, ...]:
        """`i`'s `srcs` with each filegroup they name replaced by its files, as Bazel
        hands them to the rule (`srcs = [":enc_sources"]`, `hdrs = [":public_headers"]`),
        nested ones too; a label of anything else stays as it is."""
        own = self.srcs.get(i, ())
        if not any("." not in s.rpartition(":")[2] for s in own):  # files have a suffix
            return own
        out: list[str] = []
        seen = {i}
        todo = [(i, own)]
        while todo:
            t, srcs = todo.pop()
            groups = {
                self.labels[e.dep]: e.dep
                for e in self.out_edges(t, _SRCS)
                if self.kinds[e.dep] == "filegroup"
            }
            out.extend(x for x in srcs if x not in groups)
            fresh = [g for g in groups.values() if g not in seen]
            seen.update(fresh)
            todo.extend((g, self.srcs.get(g, ())) for g in reversed(fresh))
        return tuple(dict.fromkeys(out))

    def described(self, ids: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Which of `ids` are real targets (a rule kind or sources), not bare labels that
        only an edge names; vectorized over a cached graph's columns."""
        nonempty = getattr(self.kinds, "nonempty", None)
        contains_many = getattr(self.srcs, "contains_many", None)
        if nonempty is None or contains_many is None:
            return self._described_all()[ids]
        out: NDArray[np.bool_] = nonempty(ids) | contains_many(ids)
        return out

    def _described_all(self) -> NDArray[np.bool_]:
        """`described` of every target of a graph held in lists and dicts (a fresh parse),
        computed once: planning asks it of large closures again and again."""
        if self._described is None:
            n = len(self.labels)
            mask = np.fromiter((k != "" for k in self.kinds), dtype=bool, count=n)
            with_srcs = np.fromiter(self.srcs.keys(), dtype=np.int64, count=len(self.srcs))
            mask[with_srcs] = True
            self._described = mask
        return self._described

    def targets(self, ids: Iterable[int] | None = None) -> Iterator[Target]:
        for i in range(len(self.labels)) if ids is None else ids:
            yield self.target(int(i))

    # -- edges -------------------------------------------------------------------
    def out_edges(self, i: int, kinds: frozenset[EdgeKind] = ALL_KINDS) -> list[Edge]:
        lo, hi = int(self.indptr[i]), int(self.indptr[i + 1])
        out = []
        for d, k in zip(self.edge_dst[lo:hi].tolist(), self.edge_kind[lo:hi].tolist(), strict=True):
            kind = EdgeKind(k)
            if kind in kinds:
                out.append(Edge(i, d, kind))
        return out

    def in_edges(self, i: int, kinds: frozenset[EdgeKind] = ALL_KINDS) -> list[Edge]:
        order, rptr = self._reverse()
        lo, hi = int(rptr[i]), int(rptr[i + 1])
        out = []
        for e in order[lo:hi].tolist():
            kind = EdgeKind(int(self.edge_kind[e]))
            if kind in kinds:
                out.append(Edge(int(self.edge_src[e]), i, kind))
        return out

    def edge_kinds(self, target: int, dep: int) -> list[EdgeKind]:
        lo, hi = int(self.indptr[target]), int(self.indptr[target + 1])
        seg = self.edge_dst[lo:hi]
        hits = np.flatnonzero(seg == dep)
        return [EdgeKind(int(self.edge_kind[lo + h])) for h in hits.tolist()]

    def edge_location(self, target: int, dep: int) -> Location | None:
        """Where the edge is declared: its own line when known, else the target's rule."""
        return self.edge_locations.get((target, dep)) or self.locations.get(target)

    def _reverse(self) -> tuple[NDArray[np.integer], NDArray[np.int64]]:
        """(edge ids sorted by dep, pointer per dep): the reverse CSR, given by a cached
        graph or computed once."""
        if self._rev is None:
            n = len(self.labels)
            order = stable_argsort(self.edge_dst)
            rptr = np.zeros(n + 1, dtype=np.int64)
            if len(order):
                np.cumsum(np.bincount(self.edge_dst, minlength=n), out=rptr[1:])
            self._rev = (order, rptr)
        return self._rev

    def reverse_csr(self) -> tuple[NDArray[np.integer], NDArray[np.int64]]:
        """(edge ids sorted by dep, pointer per dep)."""
        return self._reverse()

    def set_reverse(self, order: NDArray[np.integer], rptr: NDArray[np.int64]) -> None:
        """Use a precomputed reverse CSR (a cached graph's memory-mapped arrays)."""
        self._rev = (order, rptr)

    def edge_ids_of(self, ids: NDArray[np.int64], *, reverse: bool = False) -> NDArray[np.int64]:
        """Ids of the out-edges (in-edges with `reverse`) of `ids`, touching only those."""
        if reverse:
            order, ptr = self._reverse()
        else:
            ptr = self.indptr
        lo = ptr[ids]
        counts = ptr[ids + 1] - lo
        total = int(counts.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        shift = np.repeat(lo - (np.cumsum(counts) - counts), counts)
        pos: NDArray[np.int64] = np.arange(total, dtype=np.int64) + shift
        return order[pos].astype(np.int64) if reverse else pos

    def _step(
        self, frontier: NDArray[np.int64], table: NDArray[np.bool_], reverse: bool
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(edge ids, the nodes they lead to) from `frontier`, kinds filtered by `table`."""
        eids = self.edge_ids_of(frontier, reverse=reverse)
        eids = eids[table[self.edge_kind[eids]]]
        ends = self.edge_src[eids] if reverse else self.edge_dst[eids]
        return eids, ends.astype(np.int64)

    def _bfs(
        self, sources: Iterable[int], kinds: frozenset[EdgeKind], *, reverse: bool = False
    ) -> NDArray[np.int64]:
        """Edge count from the nearest of `sources` for every target (-1: unreached), one
        vectorized step per level."""
        n = len(self.labels)
        table = _kind_table(kinds)
        dist = np.full(n, -1, dtype=np.int64)
        frontier = unique_sorted(np.fromiter(sources, dtype=np.int64))
        dist[frontier] = 0
        level = 0
        while len(frontier):
            level += 1
            _, ends = self._step(frontier, table, reverse)
            ends = unique_sorted(ends)
            frontier = ends[dist[ends] < 0]
            dist[frontier] = level
        return dist

    def reach_mask(
        self,
        sources: Iterable[int],
        kinds: frozenset[EdgeKind] = BUILD_KINDS,
        *,
        cut: NDArray[np.int64] | None = None,
        seen: NDArray[np.bool_] | None = None,
        reverse: bool = False,
    ) -> NDArray[np.bool_]:
        """Which targets `sources` reach (reach them, with `reverse`), sources included,
        with the edges whose `src * n + dst` key is in `cut` ignored; with `seen`, that
        mask is extended in place (targets already in it are not entered again)."""
        n = len(self.labels)
        table = _kind_table(kinds)
        mask = np.zeros(n, dtype=bool) if seen is None else seen
        frontier = unique_sorted(np.fromiter(sources, dtype=np.int64))
        frontier = frontier[~mask[frontier]]
        mask[frontier] = True
        while len(frontier):
            eids, ends = self._step(frontier, table, reverse)
            if cut is not None and len(cut) and len(eids):
                keys = self.edge_src[eids].astype(np.int64) * n + self.edge_dst[eids]
                ends = ends[~np.isin(keys, cut)]
            ends = unique_sorted(ends[~mask[ends]])
            mask[ends] = True
            frontier = ends
        return mask

    def reach_masks(
        self,
        variants: Sequence[tuple[Sequence[int], NDArray[np.int64]]],
        kinds: frozenset[EdgeKind] = BUILD_KINDS,
    ) -> NDArray[np.uint64]:
        """`reach_mask` of up to 64 (sources, cut keys) variants in one search: bit j of a
        target's word says whether variant j reaches it. The variants share each edge
        they follow, so pricing ten cuts of one root costs about one search, not ten."""
        if len(variants) > 64:
            raise ValueError(f"at most 64 variants, found {len(variants)}")
        n = len(self.labels)
        table = _kind_table(kinds)
        bits = np.zeros(n, dtype=np.uint64)
        keys, masks = [], []
        for j, (sources, cut) in enumerate(variants):
            bit = np.uint64(1 << j)
            src = np.fromiter(sources, dtype=np.int64)
            bits[src] |= bit
            keys.append(np.asarray(cut, dtype=np.int64))
            masks.append(np.full(len(cut), bit, dtype=np.uint64))
        cut_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
        order = np.argsort(cut_keys, kind="stable")
        cut_keys, cut_bits = cut_keys[order], np.concatenate(masks or [bits[:0]])[order]
        frontier = unique_sorted(np.flatnonzero(bits).astype(np.int64))
        while len(frontier):
            eids, ends = self._step(frontier, table, False)
            carry = bits[self.edge_src[eids]]
            if len(cut_keys) and len(eids):
                k = self.edge_src[eids].astype(np.int64) * n + ends
                pos = np.minimum(np.searchsorted(cut_keys, k), len(cut_keys) - 1)
                hit = np.flatnonzero(cut_keys[pos] == k)
                for h in hit.tolist():  # a key may repeat (one per variant that cuts it)
                    p, end = int(pos[h]), k[h]
                    while p < len(cut_keys) and cut_keys[p] == end:
                        carry[h] &= ~cut_bits[p]
                        p += 1
            gained = carry & ~bits[ends]
            keep = gained != 0
            ends, gained = ends[keep], gained[keep]
            np.bitwise_or.at(bits, ends, gained)
            frontier = unique_sorted(ends)
        return bits

    def adjacency(
        self, kinds: frozenset[EdgeKind] = BUILD_KINDS
    ) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
        """(indptr, indices) of the edges of `kinds`: CSR rows without scipy (edges are
        sorted by target, so no COO pass)."""
        if kinds == ALL_KINDS:
            return self.indptr, self.edge_dst
        mask = self.edge_mask(kinds)
        indptr = np.zeros(len(self.labels) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.edge_src[mask], minlength=len(self.labels)), out=indptr[1:])
        return indptr, self.edge_dst[mask]

    def csr(self, kinds: frozenset[EdgeKind] = BUILD_KINDS) -> csr_matrix:
        """Adjacency restricted to `kinds` as a scipy CSR matrix (cached per kind set)."""
        m = self._csr.get(kinds)
        if m is None:
            from scipy.sparse import csr_matrix

            n = len(self.labels)
            indptr, indices = self.adjacency(kinds)
            data = np.ones(len(indices), dtype=np.int8)
            m = csr_matrix((data, indices, indptr), shape=(n, n))
            self._csr[kinds] = m
        return m

    def edge_mask(self, kinds: frozenset[EdgeKind]) -> NDArray[np.bool_]:
        """Which edges have one of `kinds` (a table lookup, not a set search)."""
        return _kind_table(kinds)[self.edge_kind]

    # -- traversals (numpy, no scipy: a query touches only the edges it follows) ---------
    def closure(
        self, roots: Iterable[int], kinds: frozenset[EdgeKind] = BUILD_KINDS
    ) -> NDArray[np.int64]:
        """Ids reachable from `roots` (roots included), sorted (read-only; recent single-root
        closures are remembered, since analyzers, planner and summary all ask for them)."""
        roots = list(roots)
        key = (int(roots[0]), kinds) if len(roots) == 1 else None
        if key is not None and key in self._closures:
            return self._closures[key]
        out = np.flatnonzero(self.reach_mask(roots, kinds)).astype(np.int64)
        out.flags.writeable = False
        if key is not None:
            if len(self._closures) >= 8:
                self._closures.pop(next(iter(self._closures)))
            self._closures[key] = out
        return out

    def reverse_closure(
        self, targets: Iterable[int], kinds: frozenset[EdgeKind] = BUILD_KINDS
    ) -> NDArray[np.int64]:
        """Ids that reach any of `targets` (targets included), sorted."""
        self._need_whole("reverse_closure")
        return np.flatnonzero(self.reach_mask(targets, kinds, reverse=True)).astype(np.int64)

    def closure_without(
        self,
        root: int,
        removed: Iterable[tuple[int, int]],
        kinds: frozenset[EdgeKind] = BUILD_KINDS,
    ) -> NDArray[np.int64]:
        """What `root` still reaches once the edges `removed` are cut (all their kinds)."""
        n = len(self.labels)
        cut = np.array(sorted({int(a) * n + int(b) for a, b in removed}), dtype=np.int64)
        return np.flatnonzero(self.reach_mask([root], kinds, cut=cut)).astype(np.int64)

    def _need_whole(self, what: str) -> None:
        if self.closure_of:
            raise PartialGraphError(f"{what} needs the whole graph, not a closure")

    def _back_within(
        self, nodes: NDArray[np.int64], dest: int, kinds: frozenset[EdgeKind]
    ) -> NDArray[np.int64]:
        """Edge count from each of `nodes` to `dest` (-1: none) over the edges among
        `nodes`, which must be closed under successors (a closure)."""
        ptr = self.indptr
        counts = (ptr[nodes + 1] - ptr[nodes]).astype(np.int64)
        eids = self.edge_ids_of(nodes)
        src = np.repeat(nodes, counts)
        keep = _kind_table(kinds)[self.edge_kind[eids]]
        src, dst = src[keep], self.edge_dst[eids[keep]].astype(np.int64)
        up = np.full(len(self.labels), -1, dtype=np.int64)
        up[dest] = 0
        level = 0
        frontier = np.zeros(len(self.labels), dtype=bool)
        frontier[dest] = True
        while True:
            level += 1
            new = unique_sorted(src[frontier[dst] & (up[src] < 0)])
            if not len(new):
                return up
            frontier[:] = False
            frontier[new] = True
            up[new] = level

    def bfs_distances(
        self, source: int, kinds: frozenset[EdgeKind] = BUILD_KINDS, *, reverse: bool = False
    ) -> NDArray[np.int64]:
        """Edge count from `source` (to it, with `reverse`) for every target; -1 if none.

        On a closure graph the reverse distances are exact for the nodes of the closure
        (every path from one of them stays inside it), which is all `shortest_paths` uses.
        """
        return self._bfs([source], kinds, reverse=reverse)

    def csr_reversed(self, kinds: frozenset[EdgeKind] = BUILD_KINDS) -> csr_matrix:
        """The transposed adjacency (dependents of each target), cached per kind set."""
        m = self._csr_rev.get(kinds)
        if m is None:
            m = self.csr(kinds).T.tocsr()
            self._csr_rev[kinds] = m
        return m

    def shortest_paths(
        self,
        source: int,
        dest: int,
        kinds: frozenset[EdgeKind] = BUILD_KINDS,
        limit: int = 10,
    ) -> list[list[int]]:
        """Up to `limit` shortest dependency paths from `source` to `dest`, sorted by labels.

        Two BFS (from the source, and to the dest on the reversed graph) mark the edges that
        lie on a shortest path; only that small DAG is enumerated.
        """
        down = self.bfs_distances(source, kinds)
        total = int(down[dest])
        if total < 0:
            return []
        # Every node of a path from source to dest is reachable from source: the search
        # back from dest runs on that closure's own edges (a hub's dependents, which the
        # reverse adjacency would list, can be most of the graph).
        up = self._back_within(np.flatnonzero(down >= 0), dest, kinds)
        reached = np.flatnonzero(up >= 0)
        nodes = reached[down[reached] + up[reached] == total]
        on_path = np.zeros(len(self.labels), dtype=bool)
        on_path[nodes] = True
        table = _kind_table(kinds)
        succ: dict[int, list[int]] = {}
        for a in nodes.tolist():
            _, nexts = self._step(np.array([a], dtype=np.int64), table, False)
            nexts = unique_sorted(nexts)  # one per kind
            nexts = nexts[on_path[nexts] & (down[nexts] == down[a] + 1)]
            if len(nexts):
                succ[a] = nexts.tolist()
        return listed_paths(source, dest, succ, self.labels.__getitem__, limit)
