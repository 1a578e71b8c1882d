"""Read-only mappings over packed columns: per-target metadata of a cached graph.

A million `Location` objects or source tuples cost seconds to build; a cached graph keeps
them as numpy arrays and a string table, and builds an entry only when it is asked for.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

import numpy as np

from slim.model.graph import Location

if TYPE_CHECKING:
    from numpy.typing import NDArray

SEP = "\x00"


class LocationColumn(Mapping[int, Location]):
    """target id -> Location, from sorted ids, a path-table index and a line per id."""

    def __init__(
        self,
        ids: NDArray[np.int64],
        path_idx: NDArray[np.int64],
        lines: NDArray[np.int64],
        paths: list[str],
    ) -> None:
        self._ids, self._path_idx, self._lines, self._paths = ids, path_idx, lines, paths

    @staticmethod
    def pack(locs: Mapping[int, Location]) -> dict[str, object]:
        items = sorted(locs.items())
        table: dict[str, int] = {}
        idx = [table.setdefault(loc.path, len(table)) for _, loc in items]
        return {
            "ids": np.array([k for k, _ in items], dtype=np.int64),
            "path_idx": np.array(idx, dtype=np.int64),
            "lines": np.array([-1 if v.line is None else v.line for _, v in items], np.int64),
            "paths": SEP.join(table),
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
        if not isinstance(key, int | np.integer):
            return -1
        pos = int(np.searchsorted(self._ids, key))
        return pos if pos < len(self._ids) and self._ids[pos] == key else -1

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
        pos = np.minimum(np.searchsorted(self._ids, want), len(self._ids) - 1)
        hit = (self._ids[pos] == want) & (self._lines[pos] >= 0)
        want, paths = want[hit], self._path_idx[pos[hit]]
        order = np.argsort(paths, kind="stable")
        paths, want = paths[order], want[order]
        cuts = np.flatnonzero(np.diff(paths)) + 1
        return {
            self._paths[int(group_paths[0])]: group.tolist()
            for group_paths, group in zip(np.split(paths, cuts), np.split(want, cuts), strict=True)
            if len(group)
        }


class StringsColumn(Mapping[int, tuple[str, ...]]):
    """target id -> tuple of strings (srcs, tags), decoded from one blob on access."""

    def __init__(self, ids: NDArray[np.int64], bounds: NDArray[np.int64], blob: bytes) -> None:
        self._ids, self._bounds, self._blob = ids, bounds, blob

    @staticmethod
    def pack(values: Mapping[int, tuple[str, ...]]) -> dict[str, object]:
        items = sorted(values.items())
        parts = [SEP.join(v).encode() for _, v in items]
        bounds = np.zeros(len(parts) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in parts], out=bounds[1:])
        return {
            "ids": np.array([k for k, _ in items], dtype=np.int64),
            "bounds": bounds,
            "blob": np.frombuffer(b"".join(parts), dtype=np.uint8),
        }

    @staticmethod
    def unpack(cols: Mapping[str, object]) -> StringsColumn:
        blob = cols["blob"]
        data = blob.tobytes() if isinstance(blob, np.ndarray) else str(blob).encode()
        return StringsColumn(
            cols["ids"],  # type: ignore[arg-type]
            cols["bounds"],  # type: ignore[arg-type]
            data,
        )

    def _pos(self, key: object) -> int:
        if not isinstance(key, int | np.integer):
            return -1
        pos = int(np.searchsorted(self._ids, key))
        return pos if pos < len(self._ids) and self._ids[pos] == key else -1

    def __getitem__(self, key: int) -> tuple[str, ...]:
        pos = self._pos(key)
        if pos < 0:
            raise KeyError(key)
        raw = self._blob[int(self._bounds[pos]) : int(self._bounds[pos + 1])].decode()
        return tuple(raw.split(SEP))

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
