"""Read-only sequences and mappings over packed columns: a cached graph's per-target data.

A million labels, `Location` objects or source tuples cost seconds to build; a cached
graph keeps them as (memory-mapped) numpy arrays and string blobs, and decodes an entry
only when it is asked for.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np

from slim.model.graph import Location, stable_argsort

if TYPE_CHECKING:
    from numpy.typing import NDArray

SEP = "\x00"
_V = TypeVar("_V")


def ordered(values: Mapping[int, _V]) -> tuple[NDArray[np.int64], list[_V]]:
    """(ids ascending, their values): a builder's dicts are mostly in id order already, so
    this sorts only when they are not (and then by an index, never by the values)."""
    ids = np.fromiter(values.keys(), dtype=np.int64, count=len(values))
    items = list(values.values())
    if len(ids) > 1 and not bool(np.all(ids[1:] > ids[:-1])):
        order = stable_argsort(ids)
        ids = ids[order]
        items = [items[k] for k in order.tolist()]
    return ids, items


def _packed_texts(texts: Sequence[str]) -> tuple[bytes, list[bytes]]:
    """(each text followed by the separator, as UTF-8; each text's bytes): one encode and
    one split of the joined texts when none holds the separator (a million labels)."""
    if not texts:
        return b"", []
    joined = SEP.join(texts)
    if joined.count(SEP) == len(texts) - 1:
        data = (joined + SEP).encode()
        parts = data.split(SEP.encode())
        parts.pop()
        return data, parts
    parts = [t.encode() for t in texts]
    return SEP.encode().join(parts) + SEP.encode(), parts


_RANGES: dict[np.dtype[Any], tuple[int, int]] = {}


def _range(dtype: np.dtype[Any]) -> tuple[int, int]:
    hit = _RANGES.get(dtype)
    if hit is None:
        info = np.iinfo(dtype)
        hit = _RANGES[dtype] = (int(info.min), int(info.max))
    return hit


def position(ids: NDArray[np.integer], key: object) -> int:
    """Where `key` is in the sorted `ids`, -1 if absent. The key is searched in the array's
    own dtype: numpy would otherwise convert (copy) the whole memory-mapped array."""
    if not isinstance(key, int | np.integer):
        return -1
    dtype = ids.dtype
    lo, hi = _range(dtype)
    if not lo <= key <= hi:
        return -1
    pos = int(ids.searchsorted(dtype.type(key)))
    return pos if pos < len(ids) and ids[pos] == key else -1


def positions(ids: NDArray[np.integer], keys: NDArray[np.int64]) -> NDArray[np.int64]:
    """For each key the index of the first of the (non-empty) sorted `ids` not below it,
    capped at the last: `ids[out] == keys` says which keys are present."""
    info = np.iinfo(ids.dtype)
    near = np.clip(keys, info.min, info.max).astype(ids.dtype)
    return np.minimum(np.searchsorted(ids, near), len(ids) - 1)


class LocationColumn(Mapping[int, Location]):
    """target id -> Location, from sorted ids, a path-table index and a line per id."""

    def __init__(
        self,
        ids: NDArray[np.int64],
        path_idx: NDArray[np.int64],
        lines: NDArray[np.int64],
        paths: Sequence[str],
    ) -> None:
        self._ids, self._path_idx, self._lines, self._paths = ids, path_idx, lines, paths

    @staticmethod
    def pack(locs: Mapping[int, Location]) -> dict[str, object]:
        if isinstance(locs, LocationColumn):
            return locs._packed()
        ids, values = ordered(locs)
        paths = [v.path for v in values]
        table = {p: i for i, p in enumerate(dict.fromkeys(paths))}
        lines = (-1 if v.line is None else v.line for v in values)
        return {
            "ids": ids,
            "path_idx": np.fromiter(map(table.__getitem__, paths), np.int64, len(paths)),
            "lines": np.fromiter(lines, np.int64, len(values)),
            "paths": SEP.join(table),
        }

    def _packed(self) -> dict[str, object]:
        """`pack` of this column: its arrays, the path table cut to the paths in use."""
        idx = np.asarray(self._path_idx, dtype=np.int64)
        used = np.flatnonzero(np.bincount(idx, minlength=len(self._paths)))  # np.unique, O(n)
        renumber = np.zeros(len(self._paths), dtype=np.int64)
        renumber[used] = np.arange(len(used))
        paths = [self._paths[k] for k in used.tolist()]
        return {
            "ids": np.asarray(self._ids, dtype=np.int64),
            "path_idx": renumber[idx],
            "lines": np.asarray(self._lines, dtype=np.int64),
            "paths": SEP.join(paths),
        }

    @staticmethod
    def unpack(cols: Mapping[str, object]) -> LocationColumn:
        paths = str(cols["paths"])
        return LocationColumn(
            cols["ids"],  # type: ignore[arg-type]
            cols["path_idx"],  # type: ignore[arg-type]
            cols["lines"],  # type: ignore[arg-type]
            paths.split(SEP) if paths else [],
        )

    def _pos(self, key: object) -> int:
        return position(self._ids, key)

    def __getitem__(self, key: int) -> Location:
        pos = self._pos(key)
        if pos < 0:
            raise KeyError(key)
        line = int(self._lines[pos])
        return Location(self._paths[int(self._path_idx[pos])], None if line < 0 else line)

    def __contains__(self, key: object) -> bool:
        return self._pos(key) >= 0

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids.tolist())

    def __len__(self) -> int:
        return len(self._ids)

    def group_by_path(self, ids: Iterable[int]) -> dict[str, list[int]]:
        """Vectorized `group_by_path` (the ids that have a location with a line)."""
        want = np.fromiter(ids, dtype=np.int64)
        if not len(want) or not len(self._ids):
            return {}
        pos = positions(self._ids, want)
        hit = (self._ids[pos] == want) & (self._lines[pos] >= 0)
        want, paths = want[hit], self._path_idx[pos[hit]]
        if not len(want):
            return {}
        order = np.argsort(paths, kind="stable")
        paths, want = paths[order], want[order]
        starts = [0, *(np.flatnonzero(np.diff(paths)) + 1).tolist()]
        ends = [*starts[1:], len(want)]
        found, path_idx = want.tolist(), paths.tolist()
        return {self._paths[path_idx[a]]: found[a:b] for a, b in zip(starts, ends, strict=True)}


class StringsColumn(Mapping[int, tuple[str, ...]]):
    """target id -> tuple of strings (srcs, tags), decoded from one blob on access: the
    values lie in the blob in id order, or in another order that `order` maps to (for
    the i-th id, the `order[i]`-th value; empty: id order)."""

    def __init__(
        self,
        ids: NDArray[np.int64],
        bounds: NDArray[np.int64],
        blob: bytes | NDArray[np.uint8],
        order: NDArray[np.integer] | None = None,
    ) -> None:
        self._ids, self._bounds, self._blob = ids, bounds, blob
        self._order = order if order is not None and len(order) else None

    @staticmethod
    def pack(values: Mapping[int, tuple[str, ...]]) -> dict[str, object]:
        if isinstance(values, StringsColumn):
            return values._arrays()
        ids, items = ordered(values)
        return StringsColumn.from_joined(ids, list(map(SEP.join, items)))._arrays()

    @staticmethod
    def from_joined(
        ids: NDArray[np.int64], texts: Sequence[str], lengths: NDArray[np.integer] | None = None
    ) -> StringsColumn:
        """The column of `ids` (ascending) whose values are `texts`, each one value's
        strings joined by the separator (`lengths`: of each text, when known)."""
        joined = "".join(texts)
        bounds = np.zeros(len(texts) + 1, dtype=np.int64)
        if joined.isascii():  # a character is a byte: no encode per value
            if lengths is None:
                lengths = np.fromiter(map(len, texts), np.int64, len(texts))
            np.cumsum(lengths, out=bounds[1:])
            return StringsColumn(ids, bounds, np.frombuffer(joined.encode(), np.uint8))
        parts = [t.encode() for t in texts]
        np.cumsum(np.fromiter(map(len, parts), np.int64, len(parts)), out=bounds[1:])
        return StringsColumn(ids, bounds, np.frombuffer(b"".join(parts), np.uint8))

    @staticmethod
    def from_laid(
        ids: NDArray[np.int64],
        lengths: NDArray[np.integer],
        blob: NDArray[np.uint8],
        order: NDArray[np.int64] | None,
    ) -> StringsColumn:
        """The column of the values laid end to end in `blob` (`lengths` bytes each), the
        i-th for `ids[i]`; `order` sorts `ids` (distinct), None when they are sorted. The
        values stay where they lie: moving a million of them costs reading each again."""
        bounds = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=bounds[1:])
        if order is None:
            return StringsColumn(ids, bounds, blob)
        return StringsColumn(ids[order], bounds, blob, order)

    def _arrays(self) -> dict[str, object]:
        blob = self._blob
        data = blob if isinstance(blob, np.ndarray) else np.frombuffer(blob, np.uint8)
        order = np.zeros(0, dtype=np.int64) if self._order is None else self._order
        return {"ids": self._ids, "bounds": self._bounds, "blob": data, "order": order}

    @staticmethod
    def unpack(cols: Mapping[str, object]) -> StringsColumn:
        blob = cols["blob"]
        data = blob if isinstance(blob, np.ndarray) else str(blob).encode()
        return StringsColumn(
            cols["ids"],  # type: ignore[arg-type]
            cols["bounds"],  # type: ignore[arg-type]
            data,
            cols.get("order"),  # type: ignore[arg-type]
        )

    def _pos(self, key: object) -> int:
        return position(self._ids, key)

    def __getitem__(self, key: int) -> tuple[str, ...]:
        pos = self._pos(key)
        if pos < 0:
            raise KeyError(key)
        return self._at(pos)

    def _at(self, pos: int) -> tuple[str, ...]:
        k = pos if self._order is None else int(self._order[pos])
        raw = bytes(self._blob[int(self._bounds[k]) : int(self._bounds[k + 1])]).decode()
        return tuple(raw.split(SEP))

    def get(self, key: int, default: Any = None) -> Any:
        """A lookup that costs no exception when absent (most targets have no value)."""
        pos = self._pos(key)
        return default if pos < 0 else self._at(pos)

    def __contains__(self, key: object) -> bool:
        return self._pos(key) >= 0

    def contains_many(self, ids: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Which of `ids` have an entry (one vectorized search)."""
        if not len(self._ids):
            return np.zeros(len(ids), dtype=bool)
        return np.asarray(self._ids[positions(self._ids, ids)] == ids)

    def get_many(self, ids: NDArray[np.int64]) -> list[tuple[str, ...] | None]:
        """`get` of each of `ids` (None when absent) after one vectorized search."""
        if not len(self._ids):
            return [None] * len(ids)
        pos = positions(self._ids, ids)
        hit = (self._ids[pos] == ids).tolist()
        at = self._at
        return [at(p) if h else None for p, h in zip(pos.tolist(), hit, strict=True)]

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids.tolist())

    def __len__(self) -> int:
        return len(self._ids)


class EdgeLocationColumn(Mapping[tuple[int, int], Location]):
    """(target, dep) -> where the edge is declared, from sorted `target * n + dep` keys,
    a path-table index, a line and a byte offset per key (-1: none). An export that
    locates every edge (CMake's backtraces) stays out of the metadata a query decodes."""

    def __init__(
        self,
        n: int,
        keys: NDArray[np.int64],
        path_idx: NDArray[np.int64],
        lines: NDArray[np.int64],
        offsets: NDArray[np.int64],
        paths: Sequence[str],
    ) -> None:
        self._n, self._keys, self._path_idx = n, keys, path_idx
        self._lines, self._offsets, self._paths = lines, offsets, paths

    @staticmethod
    def pack(locs: Mapping[tuple[int, int], Location], n: int) -> dict[str, NDArray[Any]]:
        pairs = list(locs.items())
        keys = np.fromiter((a * n + b for (a, b), _ in pairs), np.int64, len(pairs))
        order = np.argsort(keys, kind="stable")
        values = [pairs[k][1] for k in order.tolist()]
        table = {p: i for i, p in enumerate(dict.fromkeys(v.path for v in values))}
        none = -1
        return {
            "keys": keys[order],
            "path_idx": np.fromiter((table[v.path] for v in values), np.int64, len(values)),
            "lines": np.fromiter(
                (none if v.line is None else v.line for v in values), np.int64, len(values)
            ),
            "offsets": np.fromiter(
                (none if v.offset is None else v.offset for v in values), np.int64, len(values)
            ),
            **{f"path_{k}": v for k, v in TextColumn.pack(list(table)).items()},
        }

    def _value(self, pos: int) -> Location:
        line, off = int(self._lines[pos]), int(self._offsets[pos])
        return Location(
            self._paths[int(self._path_idx[pos])],
            None if line < 0 else line,
            None if off < 0 else off,
        )

    def __getitem__(self, key: tuple[int, int]) -> Location:
        pos = position(self._keys, key[0] * self._n + key[1]) if len(self._keys) else -1
        if pos < 0:
            raise KeyError(key)
        return self._value(pos)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return ((k // self._n, k % self._n) for k in self._keys.tolist())

    def __len__(self) -> int:
        return len(self._keys)

    def items(self) -> Iterator[tuple[tuple[int, int], Location]]:  # type: ignore[override]
        for pos, k in enumerate(self._keys.tolist()):
            yield (k // self._n, k % self._n), self._value(pos)


def label_hash(label: str) -> int:
    """The 32-bit hash a label column is indexed by (stable across processes)."""
    return zlib.crc32(label.encode())


class TextColumn(Sequence[str]):
    """id -> string from one blob (each string followed by a separator) and offsets,
    decoded only for the ids asked for."""

    def __init__(self, blob: NDArray[np.uint8], offsets: NDArray[np.int64]) -> None:
        self._blob, self._off = blob, offsets
        self._all: list[str] | None = None

    @staticmethod
    def pack(texts: Sequence[str]) -> dict[str, NDArray[Any]]:
        data, parts = _packed_texts(texts)
        return TextColumn._columns(data, parts)

    @staticmethod
    def _columns(data: bytes, parts: Sequence[bytes]) -> dict[str, NDArray[Any]]:
        offsets = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, parts), np.int64, len(parts)) + 1, out=offsets[1:])
        return {"blob": np.frombuffer(data, dtype=np.uint8), "offsets": offsets}

    def __len__(self) -> int:
        return len(self._off) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if self._all is not None:
            return self._all[i]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return bytes(self._blob[int(self._off[i]) : int(self._off[i + 1]) - 1]).decode()

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_list())

    def many(self, ids: NDArray[np.int64]) -> list[str]:
        """The strings of `ids` (in that order) without a method call per id: the
        planner names hundreds of thousands of targets per cut."""
        if self._all is not None:
            return list(map(self._all.__getitem__, ids.tolist()))
        data = self._blob.data  # a memoryview: slicing it copies nothing
        starts, ends = self._off[ids].tolist(), (self._off[ids + 1] - 1).tolist()
        return [bytes(data[a:b]).decode() for a, b in zip(starts, ends, strict=True)]

    def as_list(self) -> list[str]:
        """Every string, decoded once (whole-graph work)."""
        if self._all is None:
            text = bytes(self._blob[:-1]).decode() if len(self) else ""
            parts = text.split(SEP) if len(self) else []
            if len(parts) != len(self):  # a text holds the separator: cut by offsets
                parts = self.many(np.arange(len(self), dtype=np.int64))
            self._all = parts
        return self._all


class LabelColumn(TextColumn):
    """id -> label from one blob and offsets; `find` answers from a sorted hash index, so
    a query never builds the million-entry label -> id dict."""

    def __init__(
        self,
        blob: NDArray[np.uint8],
        offsets: NDArray[np.int64],
        hashes: NDArray[np.uint32],
        order: NDArray[np.int32],
    ) -> None:
        super().__init__(blob, offsets)
        self._hashes, self._order = hashes, order

    @staticmethod
    def pack(texts: Sequence[str]) -> dict[str, NDArray[Any]]:
        """The arrays of a column of `texts`; a column's own when `texts` is one."""
        if isinstance(texts, LabelColumn):
            return {
                "blob": texts._blob,
                "offsets": texts._off,
                "hashes": texts._hashes,
                "order": texts._order,
            }
        data, parts = _packed_texts(texts)
        out = TextColumn._columns(data, parts)
        hashes = np.fromiter(map(zlib.crc32, parts), dtype=np.uint32, count=len(parts))
        order = stable_argsort(hashes).astype(np.int32)
        return {**out, "hashes": hashes[order], "order": order}

    @classmethod
    def of(cls, labels: list[str]) -> LabelColumn:
        """A column over `labels`, which it keeps (a read decodes nothing): a built graph's
        labels are packed while its edges sort on a thread, not when the cache is written."""
        a = cls.pack(labels)
        column = cls(a["blob"], a["offsets"], a["hashes"], a["order"])
        column._all = labels
        return column

    def find(self, label: str) -> int | None:
        """The id of exactly `label`, None if absent."""
        h = np.uint32(label_hash(label))  # a Python int would convert the whole array
        lo = int(np.searchsorted(self._hashes, h, side="left"))
        hi = int(np.searchsorted(self._hashes, h, side="right"))
        for pos in range(lo, hi):
            i = int(self._order[pos])
            if self[i] == label:
                return i
        return None

    def index(self, label: str, start: int = 0, stop: int | None = None) -> int:
        i = self.find(label)
        if i is None or i < start or (stop is not None and i >= stop):
            raise ValueError(f"{label!r} is not in the graph")
        return i

    def __contains__(self, label: object) -> bool:
        return isinstance(label, str) and self.find(label) is not None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LabelColumn | CodeColumn | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class KeyIndex:
    """bytes key -> int value over a blob of keys, their offsets, a sorted crc32 index and
    the values (a saved dict; looked up without decoding the rest)."""

    def __init__(self, arrays: Mapping[str, NDArray[Any]]) -> None:
        self._blob, self._off = arrays["blob"], arrays["offsets"]
        self._hashes, self._order, self._values = (
            arrays["hashes"],
            arrays["order"],
            arrays["values"],
        )

    @staticmethod
    def pack(index: Mapping[bytes, int]) -> dict[str, NDArray[Any]]:
        keys = list(index)
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, keys), np.int64, len(keys)), out=offsets[1:])
        hashes = np.fromiter(map(zlib.crc32, keys), dtype=np.uint32, count=len(keys))
        order = np.argsort(hashes, kind="stable").astype(np.int64)
        return {
            "blob": np.frombuffer(b"".join(keys), dtype=np.uint8),
            "offsets": offsets,
            "hashes": hashes[order],
            "order": order,
            "values": np.fromiter(index.values(), dtype=np.int64, count=len(keys)),
        }

    @staticmethod
    def unpack(arrays: Mapping[str, NDArray[Any]]) -> KeyIndex:
        n = len(arrays["values"])
        if not (
            len(arrays["offsets"]) == n + 1 and len(arrays["hashes"]) == len(arrays["order"]) == n
        ):
            raise ValueError("key index arrays do not fit together")
        if n and int(arrays["offsets"][-1]) != len(arrays["blob"]):
            raise ValueError("key index offsets do not span the blob")
        return KeyIndex(arrays)

    def __len__(self) -> int:
        return len(self._values)

    def get(self, key: bytes) -> int | None:
        h = np.uint32(zlib.crc32(key))
        lo = int(np.searchsorted(self._hashes, h, side="left"))
        hi = int(np.searchsorted(self._hashes, h, side="right"))
        for pos in range(lo, hi):
            i = int(self._order[pos])
            if bytes(self._blob[int(self._off[i]) : int(self._off[i + 1])]) == key:
                return int(self._values[i])
        return None


def _code_dtype(n: int) -> type[np.integer[Any]]:
    """The narrowest signed integer type for codes below `n`."""
    return np.int8 if n < 2**7 else np.int16 if n < 2**15 else np.int32


class CodeColumn(Sequence[str]):
    """id -> one of a few strings (rule kinds): a table and a code per id."""

    def __init__(self, table: list[str], codes: NDArray[np.integer]) -> None:
        self._table, self._codes = table, codes

    def nonempty(self, ids: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Which of `ids` have a value other than the empty string."""
        if "" not in self._table:
            return np.ones(len(ids), dtype=bool)
        return np.asarray(self._codes[ids] != self._table.index(""))

    @staticmethod
    def pack(values: Sequence[str]) -> tuple[list[str], NDArray[np.integer]]:
        """(the distinct values sorted, each value's position there, as narrow as fits)."""
        if isinstance(values, CodeColumn):
            return values._repacked()
        table = sorted(set(values))
        pos = {k: i for i, k in enumerate(table)}
        return table, np.fromiter(
            map(pos.__getitem__, values), dtype=_code_dtype(len(table)), count=len(values)
        )

    def _repacked(self) -> tuple[list[str], NDArray[np.integer]]:
        """`pack(list(self))` without a string per id: the used codes renumbered."""
        used = np.unique(self._codes).tolist()
        table = sorted({self._table[c] for c in used})
        pos = {k: i for i, k in enumerate(table)}
        renumber = np.zeros(max(used, default=0) + 1, dtype=np.int64)
        renumber[used] = [pos[self._table[c]] for c in used]
        return table, renumber[self._codes].astype(_code_dtype(len(table)))

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self._table[c] for c in self._codes[i].tolist()]
        return self._table[int(self._codes[i])]

    def __iter__(self) -> Iterator[str]:
        table = self._table
        return iter([table[c] for c in self._codes.tolist()])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LabelColumn | CodeColumn | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class MsgpackColumn(Mapping[int, Any]):
    """target id -> a msgpack-encoded value (attributes), decoded on access."""

    def __init__(self, ids: NDArray[np.int64], bounds: NDArray[np.int64], blob: NDArray[np.uint8]):
        self._ids, self._bounds, self._blob = ids, bounds, blob

    @staticmethod
    def pack(values: Mapping[int, Any]) -> dict[str, NDArray[Any]]:
        import msgspec

        ids, items = ordered(values)
        enc = msgspec.msgpack.Encoder()
        parts = [enc.encode(v) for v in items]
        bounds = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, parts), np.int64, len(parts)), out=bounds[1:])
        return {"ids": ids, "bounds": bounds, "blob": np.frombuffer(b"".join(parts), np.uint8)}

    def _pos(self, key: object) -> int:
        return position(self._ids, key)

    def __getitem__(self, key: int) -> Any:
        pos = self._pos(key)
        if pos < 0:
            raise KeyError(key)
        return self._at(pos)

    def _at(self, pos: int) -> Any:
        import msgspec

        raw = bytes(self._blob[int(self._bounds[pos]) : int(self._bounds[pos + 1])])
        value = msgspec.msgpack.decode(raw)
        if isinstance(value, dict):
            return {k: tuple(v) if isinstance(v, list) else v for k, v in value.items()}
        return value

    def get(self, key: int, default: Any = None) -> Any:
        """A lookup that costs no exception when absent (most targets have no value)."""
        pos = self._pos(key)
        return default if pos < 0 else self._at(pos)

    def __contains__(self, key: object) -> bool:
        return self._pos(key) >= 0

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids.tolist())

    def __len__(self) -> int:
        return len(self._ids)


def group_by_path(locations: Mapping[int, Location], ids: Iterable[int]) -> dict[str, list[int]]:
    """The targets among `ids` that have a location with a line, grouped by file."""
    if isinstance(locations, LocationColumn):
        return locations.group_by_path(ids)
    out: dict[str, list[int]] = {}
    for t in ids:
        loc = locations.get(t)
        if loc is not None and loc.line is not None:
            out.setdefault(loc.path, []).append(t)
    return out
