"""A cached whole graph read without numpy: the columns a path query needs, as memoryviews
over the mapped `.npy` files, so a warm `slim why` costs python's startup, not numpy's.

Only what `why` asks is answered (label lookup, shortest paths, edge kinds and where an
edge is declared); anything the view cannot vouch for (a missing or damaged entry, an
unexpected array layout, a search past its budget) is None, and the caller takes the
numpy route, which reports and rebuilds a damaged entry.
"""

from __future__ import annotations

import mmap
import re
import sys
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Collection
from pathlib import Path
from typing import Literal, cast

from slim.model.edges import EdgeKind, Location
from slim.model.labels import normalize_label
from slim.model.paths import listed_paths

_ARRAYS = (
    "indptr",
    "dst",
    "kind",
    "label_blob",
    "label_offsets",
    "label_hashes",
    "label_order",
    "loc_ids",
    "loc_path_idx",
    "loc_lines",
    "locpath_blob",
    "locpath_offsets",
    "eloc_keys",
    "eloc_path_idx",
    "eloc_lines",
    "eloc_offsets",
    "eloc_path_blob",
    "eloc_path_offsets",
)
#: npy dtype -> memoryview format, little-endian only (a view of another byte order is None).
_FORMATS = {
    "|i1": ("b", 1),
    "|u1": ("B", 1),
    "<i2": ("h", 2),
    "<i4": ("i", 4),
    "<u4": ("I", 4),
    "<i8": ("q", 8),
    "<u8": ("Q", 8),
}
_HEADER = re.compile(
    r"\{'descr': '([^']+)', 'fortran_order': False, 'shape': \((\d*),?\), \}\s*\n?$"
)
_IntFormat = Literal["b", "B", "h", "i", "I", "q", "Q"]
_KINDS = frozenset(int(k) for k in EdgeKind)
#: Edges a pure-Python search may follow before it hands over to the numpy route.
EDGE_BUDGET = 400_000


class _RefusedError(Exception):
    """An array this view does not read (the numpy route does)."""


def _array(path: Path) -> memoryview:
    """A 1-D little-endian `.npy` file as a typed memoryview over its mapped pages."""
    with path.open("rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    whole = memoryview(mapped)
    if bytes(whole[:6]) != b"\x93NUMPY" or len(whole) < 10:
        raise _RefusedError(path.name)
    width = 2 if whole[6] == 1 else 4
    size = int.from_bytes(whole[8 : 8 + width], "little")
    start = 8 + width + size
    m = _HEADER.match(bytes(whole[8 + width : start]).decode("latin-1"))
    typed = _FORMATS.get(m.group(1)) if m else None
    if m is None or typed is None or not m.group(2):
        raise _RefusedError(path.name)
    fmt, width = typed
    end = start + int(m.group(2)) * width
    if end > len(whole):
        raise _RefusedError(path.name)
    return whole[start:end].cast(cast(_IntFormat, fmt))


class _Texts:
    """id -> string from a blob of strings each followed by a separator, and offsets."""

    def __init__(self, blob: memoryview, offsets: memoryview) -> None:
        self._blob, self._off = blob, offsets

    def __len__(self) -> int:
        return len(self._off) - 1

    def __getitem__(self, i: int) -> str:
        if not 0 <= i < len(self):
            raise IndexError(i)
        return bytes(self._blob[self._off[i] : self._off[i + 1] - 1]).decode()


class _Labels(_Texts):
    """Labels with the sorted crc32 index of `LabelColumn`: `find` decodes only the
    labels whose hash matches."""

    def __init__(
        self, blob: memoryview, offsets: memoryview, hashes: memoryview, order: memoryview
    ) -> None:
        super().__init__(blob, offsets)
        self._hashes, self._order = hashes, order

    def find(self, label: str) -> int | None:
        h = zlib.crc32(label.encode())
        for pos in range(bisect_left(self._hashes, h), bisect_right(self._hashes, h)):
            i = self._order[pos]
            if self[i] == label:
                return i
        return None


def _spans(offsets: memoryview, total: int) -> bool:
    return not len(offsets) or (offsets[0] == 0 and offsets[-1] == total)


class GraphView:
    """The part of a cached `BuildGraph` that `slim why` reads."""

    def __init__(self, a: dict[str, memoryview], n: int, e: int) -> None:
        self.labels = _Labels(
            a["label_blob"], a["label_offsets"], a["label_hashes"], a["label_order"]
        )
        self._ptr, self._dst, self._kind = a["indptr"], a["dst"], a["kind"]
        self._loc_ids, self._loc_path, self._loc_lines = (
            a["loc_ids"],
            a["loc_path_idx"],
            a["loc_lines"],
        )
        self._paths = _Texts(a["locpath_blob"], a["locpath_offsets"])
        self._n = n
        self._eloc = (a["eloc_keys"], a["eloc_path_idx"], a["eloc_lines"], a["eloc_offsets"])
        self._eloc_paths = _Texts(a["eloc_path_blob"], a["eloc_path_offsets"])
        self._check(n, e)

    def _check(self, n: int, e: int) -> None:
        """The shapes `graph_store.unpack` checks, for the columns read here."""
        ok = (
            len(self._ptr) == n + 1
            and (n < 0 or (self._ptr[0] == 0 and self._ptr[-1] == e))
            and len(self._dst) == len(self._kind) == e
            and len(self.labels) == n
            and len(self.labels._hashes) == len(self.labels._order) == n
            and _spans(self.labels._off, len(self.labels._blob))
            and len(self._loc_ids) == len(self._loc_path) == len(self._loc_lines)
            and (not len(self._loc_ids) or self._loc_ids[-1] < n)
            and _spans(self._paths._off, len(self._paths._blob))
            and len({len(col) for col in self._eloc}) == 1
            and _spans(self._eloc_paths._off, len(self._eloc_paths._blob))
        )
        if not ok:
            raise _RefusedError("shapes")

    def lookup(self, label: str) -> int | None:
        """The id of a label in any spelling, as `BuildGraph.lookup` finds it."""
        for cand in dict.fromkeys((label, normalize_label(label))):
            hit = self.labels.find(cand)
            if hit is not None:
                return hit
        return None

    def edge_kinds(self, target: int, dep: int) -> list[EdgeKind]:
        lo, hi = self._ptr[target], self._ptr[target + 1]
        return [EdgeKind(self._kind[k]) for k in range(lo, hi) if self._dst[k] == dep]

    def edge_location(self, target: int, dep: int) -> Location | None:
        """Where the edge is declared: its own line when known, else the target's rule."""
        keys, paths, lines, offsets = self._eloc
        key = target * self._n + dep
        pos = bisect_left(keys, key)
        if pos < len(keys) and keys[pos] == key:
            line, off = lines[pos], offsets[pos]
            return Location(
                self._eloc_paths[paths[pos]], None if line < 0 else line, None if off < 0 else off
            )
        pos = bisect_left(self._loc_ids, target)
        if pos == len(self._loc_ids) or self._loc_ids[pos] != target:
            return None
        line = self._loc_lines[pos]
        return Location(self._paths[self._loc_path[pos]], None if line < 0 else line)

    def shortest_paths(
        self, source: int, dest: int, kinds: Collection[EdgeKind], limit: int = 10
    ) -> list[list[int]] | None:
        """`BuildGraph.shortest_paths` by a level-by-level search that stops at `dest`'s
        level, keeping each node's parents one level up; None past `EDGE_BUDGET` edges."""
        allowed = frozenset(int(k) for k in kinds)
        ptr, dst, kind = self._ptr, self._dst, self._kind
        level = {source: 0}
        parents: dict[int, list[int]] = {}
        frontier, depth, followed = [source], 0, 0
        while frontier and dest not in level:
            depth += 1
            nxt: list[int] = []
            for a in frontier:
                lo, hi = ptr[a], ptr[a + 1]
                followed += hi - lo
                for k in range(lo, hi):
                    d = dst[k]
                    if kind[k] not in allowed:
                        if kind[k] not in _KINDS:
                            raise ValueError(f"edge kind {kind[k]}")
                        continue
                    seen = level.get(d)
                    if seen is None:
                        level[d] = depth
                        parents[d] = [a]
                        nxt.append(d)
                    elif seen == depth and parents[d][-1] != a:
                        parents[d].append(a)
            if followed > EDGE_BUDGET:
                return None
            frontier = nxt
        if dest not in level:
            return []
        on_path, todo = {dest}, [dest]
        while todo:
            for p in parents.get(todo.pop(), ()):
                if p not in on_path:
                    on_path.add(p)
                    todo.append(p)
        succ: dict[int, list[int]] = {}
        for d in on_path:
            for p in parents.get(d, ()):
                succ.setdefault(p, []).append(d)
        return listed_paths(source, dest, succ, self.labels.__getitem__, limit)


def open_view(key: str, closure_of: tuple[str, ...] | None = None) -> GraphView | None:
    """The view of the cache entry for `key`, None when there is none it can read; with
    `closure_of`, an entry of the closure of those roots only (its metadata says so)."""
    if sys.byteorder != "little":
        return None
    from slim.infra.cache import checked_entry

    names = [f"{a}.npy" for a in _ARRAYS] + (["meta.msgpack"] if closure_of else [])
    got = checked_entry(key, names)
    if got is None:
        return None
    entry, manifest = got
    try:
        if closure_of is not None and _closure_of(entry / "meta.msgpack") != closure_of:
            return None
        arrays = {a: _array(entry / f"{a}.npy") for a in _ARRAYS}
        return GraphView(arrays, int(manifest["nodes"]), int(manifest["edges"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError, _RefusedError):
        return None


def _closure_of(meta: Path) -> tuple[str, ...]:
    import msgspec

    try:
        got = msgspec.msgpack.decode(meta.read_bytes())
    except msgspec.DecodeError:
        return ()
    roots = got.get("closure_of", ()) if isinstance(got, dict) else ()
    return tuple(str(r) for r in roots) if isinstance(roots, list) else ()
