"""Input-section rows of bfd/gold maps, read column-wise with numpy (the hot path).

bfd and gold print every input section as ` name<pad to col 16>0xADDR<size right-aligned
in 11 columns> file`, wrapping the name onto its own line when it is too long; the
address (`0x` + 16 or 8 hex digits) always starts at column 16 of the line that carries
the numbers. Rows are found and their numbers decoded for a whole chunk at once. No
Python object outlives its segment per row: a name stays a byte range of the map file
(sliced when a section list is first read), and consecutive rows of one file share one
file name. When a segment has anything the fixed
layout does not explain, the regex reader (`regex_rows`) takes the segment instead.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

_HEX = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _HEX[_c] = _i
for _i, _c in enumerate(b"ABCDEF"):
    _HEX[_c] = 10 + _i
_IS_HEX = _HEX < 16
_SIZE_WIDTH = 11
_NAME_COL = 16
#: Sections that take no memory in the program (kept in the file, not loaded).
UNALLOCATED = (".comment", ".debug", ".note.GNU-stack", ".gnu.attributes", ".stab", ".zdebug")
_UNALLOCATED_B = tuple(p.encode() for p in UNALLOCATED)
_SECOND_CHARS = np.array(sorted({p[1] for p in _UNALLOCATED_B}), dtype=np.uint8)
#: Prefixes of per-function/per-object sections: their discarding shows --gc-sections.
FUNCTION_SECTIONS = (b".text.", b".data.", b".rodata.", b".bss.")
_MAX_U64 = (1 << 64) - 1

SECTION_RE = re.compile(
    rb"\n ([^ *\n][^ \n]*)(?:\n {16}| +)(?:0x)?([0-9a-fA-F]+) +(?:0x)?([0-9a-fA-F]+) ([^\n]+)"
)

I64 = NDArray[np.int64]


@dataclass
class Block:
    """The rows of one segment: numbers as arrays, names as file byte ranges (or bytes,
    for a stream), files as runs (`run_start[j]` is the first row of run j)."""

    addrs: NDArray[np.uint64]
    sizes: I64
    lines: I64
    unallocated: NDArray[np.bool_]
    run_start: I64
    run_files: list[bytes]
    name_lo: I64 | None = None
    name_hi: I64 | None = None
    names: list[bytes] | None = None
    function_sections: bool = False
    """Some name is `.text.*`, `.data.*`, `.rodata.*` or `.bss.*` (-ffunction-sections)."""

    def __len__(self) -> int:
        return len(self.lines)

    def files(self) -> list[bytes]:
        """The file of every row (runs expanded)."""
        bounds = [*self.run_start.tolist(), len(self)]
        return [f for j, f in enumerate(self.run_files) for _ in range(bounds[j + 1] - bounds[j])]


def _empty() -> Block:
    z = np.zeros(0, dtype=np.int64)
    return Block(z.astype(np.uint64), z, z, z.astype(bool), z, [], names=[])


@dataclass
class Rows:
    """Section rows in map order, block by block; `columns()` joins them."""

    blocks: list[Block] = field(default_factory=list)

    def add(self, block: Block) -> None:
        if len(block):
            self.blocks.append(block)

    def __len__(self) -> int:
        return sum(len(b) for b in self.blocks)

    def run_files(self) -> list[bytes]:
        return [f for b in self.blocks for f in b.run_files]

    @property
    def function_sections(self) -> bool:
        return any(b.function_sections for b in self.blocks)

    def columns(self, read: Callable[[I64, I64], list[bytes]]) -> Columns:
        """All rows as one set of columns; `read(lo, hi)` slices names out of the file."""
        blocks = self.blocks
        cat = np.concatenate
        if not blocks:
            e = _empty()
            return Columns(e.addrs, e.sizes, e.lines, e.unallocated, e.run_start, [], [])
        offsets = np.cumsum([0, *(len(b) for b in blocks)])
        starts = cat([b.run_start + off for b, off in zip(blocks, offsets.tolist(), strict=False)])
        parts = [(b.names, b.name_lo, b.name_hi) for b in blocks]
        return Columns(
            cat([b.addrs for b in blocks]),
            cat([b.sizes for b in blocks]),
            cat([b.lines for b in blocks]),
            cat([b.unallocated for b in blocks]),
            starts,
            [f for b in blocks for f in b.run_files],
            parts,
            read,
        )


class Columns:
    """The rows of a map section; `names()` is read once, on first use."""

    def __init__(
        self,
        addrs: NDArray[np.uint64],
        sizes: I64,
        lines: I64,
        unallocated: NDArray[np.bool_],
        run_start: I64,
        run_files: list[bytes],
        parts: list[tuple[list[bytes] | None, I64 | None, I64 | None]],
        read: Callable[[I64, I64], list[bytes]] | None = None,
    ) -> None:
        self.addrs, self.sizes, self.lines = addrs, sizes, lines
        self.unallocated, self.run_start, self.run_files = unallocated, run_start, run_files
        self._parts, self._read = parts, read
        self._names: list[str] | None = None
        self._addrs: list[int] | None = None

    def __len__(self) -> int:
        return len(self.lines)

    def names(self) -> list[str]:
        if self._names is None:
            raw: list[bytes] = []
            for names, lo, hi in self._parts:
                if names is not None:
                    raw += names
                else:
                    assert lo is not None
                    assert hi is not None
                    assert self._read is not None
                    raw += self._read(lo, hi)
            self._names = [n.decode("utf-8", "surrogateescape") for n in raw]
            self._parts = []
        return self._names

    def addr_list(self) -> list[int]:
        if self._addrs is None:
            self._addrs = self.addrs.tolist()
        return self._addrs


def regex_rows(data: bytes, start: int, end: int, nl: NDArray[np.intp], base: int) -> Block:
    """The general reader: any whitespace, hex with or without `0x`."""
    names: list[bytes] = []
    addrs: list[int] = []
    sizes: list[int] = []
    files: list[bytes] = []
    pos: list[int] = []
    for m in SECTION_RE.finditer(data, start, end):
        name, addr, size, file = m.groups()
        names.append(name)
        addrs.append(min(int(addr, 16), _MAX_U64))
        sizes.append(int(size, 16))
        files.append(file)
        pos.append(m.start())
    if not pos:
        return _empty()
    lines = np.searchsorted(nl, np.array(pos), side="right").astype(np.int64) + base
    return rows_block(names, addrs, [min(s, 1 << 62) for s in sizes], files, lines.tolist())


def rows_block(
    names: list[bytes], addrs: list[int], sizes: list[int], files: list[bytes], lines: list[int]
) -> Block:
    """A `Block` of rows read one by one (names as bytes, runs of one file found)."""
    if not names:
        return _empty()
    starts = [0, *(i for i in range(1, len(files)) if files[i] != files[i - 1])]
    return Block(
        np.array(addrs, dtype=np.uint64),
        np.array(sizes, dtype=np.int64),
        np.array(lines, dtype=np.int64),
        np.array([n.startswith(_UNALLOCATED_B) for n in names], dtype=bool),
        np.array(starts, dtype=np.int64),
        [files[i] for i in starts],
        names=names,
        function_sections=any(n.startswith(FUNCTION_SECTIONS) for n in names),
    )


# Size fields: a column's class (space, `x`, hex digit) as a base-3 digit; a field is
# valid when its classes spell spaces, `0x`, digits, right-aligned in the 11 columns.
_CLASS = np.full(256, np.nan)
_CLASS[32], _CLASS[ord("x")] = 0.0, 1.0
_CLASS[_IS_HEX] = 2.0
_POW3 = 3.0 ** np.arange(_SIZE_WIDTH - 1, -1, -1)
_VALID_X = {  # key of the class pattern -> column of its `x`
    float(_POW3[x] + 2 * (_POW3[x - 1] + _POW3[x + 1 :].sum())): x
    for x in range(1, _SIZE_WIDTH - 1)
}
_KEYS = np.array(sorted(_VALID_X))
_KEY_X = np.array([_VALID_X[k] for k in sorted(_VALID_X)], dtype=np.int64)
# Per byte as a float: hex digits their value, space and `x` 0, anything else NaN.
_VALUE = np.where(_IS_HEX, _HEX, np.nan)
_VALUE[32] = _VALUE[ord("x")] = 0.0
_HEX_ONLY = np.where(_IS_HEX, _HEX, np.nan)


def _sizes(chars: NDArray[np.uint8]) -> tuple[I64, NDArray[np.bool_]]:
    """Values of right-aligned ` 0x<hex>` fields (rows of 11 chars), and whether each is
    one: spaces, `0`, `x`, then at least one hex digit to the end."""
    key = _CLASS[chars] @ _POW3
    at = np.minimum(np.searchsorted(_KEYS, key), len(_KEYS) - 1)
    ok = _KEYS[at] == key
    zero = chars[np.arange(len(chars)), _KEY_X[at] - 1] == 48
    values = _VALUE[chars] @ (16.0 ** np.arange(_SIZE_WIDTH - 1, -1, -1))
    return np.where(ok, values, 0).astype(np.int64), ok & zero


def _addresses(digits: NDArray[np.uint8]) -> NDArray[np.uint64] | None:
    """Values of fixed-width hex fields (rows of 8 or 16 digits); None unless all are hex."""
    width = digits.shape[1]
    half = min(width, 8)
    low = _HEX_ONLY[digits[:, width - half :]] @ (16.0 ** np.arange(half - 1, -1, -1))
    high = np.zeros(1)
    if width > half:
        high = _HEX_ONLY[digits[:, : width - half]] @ (16.0 ** np.arange(width - half - 1, -1, -1))
    if np.isnan(low).any() or np.isnan(high).any():
        return None
    out: NDArray[np.uint64] = low.astype(np.uint64)
    if width > half:
        out |= high.astype(np.uint64) << np.uint64(32)
    return out


def _unallocated(arr: NDArray[np.uint8], name_lo: I64, name_hi: I64) -> NDArray[np.bool_]:
    """Which names start with an unallocated prefix (only `.c…`, `.d…`, `.g…`, `.n…`,
    `.s…`, `.z…` names are compared in full)."""
    out = np.zeros(len(name_lo), dtype=bool)
    top = len(arr) - 1
    second = arr[np.minimum(name_lo + 1, top)]
    cand = np.flatnonzero((arr[name_lo] == 46) & np.isin(second, _SECOND_CHARS))
    if not len(cand):
        return out
    lo, hi = name_lo[cand], name_hi[cand]
    for prefix in _UNALLOCATED_B:
        want = np.frombuffer(prefix, dtype=np.uint8)
        cols = np.minimum(lo[:, None] + np.arange(len(want)), top)
        out[cand] |= (hi - lo >= len(want)) & (arr[cols] == want).all(axis=1)
    return out


def _any_prefixed(arr: NDArray[np.uint8], name_lo: I64, prefixes: tuple[bytes, ...]) -> bool:
    """Whether some name (starting at `name_lo`, at least 16 bytes before the end) starts
    with one of `prefixes`."""
    top = len(arr) - 1
    for prefix in prefixes:
        want = np.frombuffer(prefix, dtype=np.uint8)
        cols = np.minimum(name_lo[:, None] + np.arange(len(want)), top)
        if (arr[cols] == want).all(axis=1).any():
            return True
    return False


def file_runs(data: bytes, lo: I64, hi: I64) -> tuple[I64, list[bytes]]:
    """First row of each run of rows naming the same file (`data[lo[i]:hi[i]]`), and the
    file of each run (only those slices outlive the segment)."""
    files = _slices(data, lo, hi)
    if not files:
        return np.zeros(0, dtype=np.int64), []
    differs = np.ones(len(files), dtype=bool)
    differs[1:] = np.fromiter(map(operator.ne, files[1:], files[:-1]), bool, len(files) - 1)
    starts: I64 = np.flatnonzero(differs).astype(np.int64)
    return starts, [files[i] for i in starts.tolist()]


def _candidates(
    arr: NDArray[np.uint8], s: I64, length: I64, numbers: NDArray[np.bool_]
) -> tuple[I64, int] | None:
    """Lines carrying a row's numbers, and the address width; None for another layout."""
    first = int(np.flatnonzero(numbers)[0])
    line = arr[int(s[first]) + _NAME_COL : int(s[first]) + length[first]]
    spaces = np.flatnonzero(line == 32)
    if not len(spaces) or int(spaces[0]) not in (10, 18):
        return None
    addr_w = int(spaces[0])
    size_col = _NAME_COL + addr_w
    file_col = size_col + _SIZE_WIDTH + 1
    ci = np.flatnonzero(numbers & (length > file_col))
    sc = s[ci]
    ok = (
        (arr[sc + size_col] == 32)
        & (arr[sc + file_col - 1] == 32)
        & (arr[sc + file_col] != 32)
        & _IS_HEX[arr[sc + file_col - 2]]
    )
    return ci[ok], addr_w


def _slices(data: bytes, lo: I64, hi: I64) -> list[bytes]:
    return [data[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True)]


def fixed_rows(
    data: bytes,
    start: int,
    end: int,
    nl: NDArray[np.intp],
    base: int,
    offset: int = -1,
    *,
    kept: bool = True,
) -> Block | None:
    """Rows of data[start:end] by columns; None when the segment needs the regex reader.

    `nl` holds every newline position of `data` (data[0] is a newline); line k of the
    chunk starts at nl[k-1] + 1 and is numbered base + k. A row is a line starting with
    one space and a name (the regex's anchor): every such line must decode as a row.
    `offset` is the file offset of data[0] (names stay byte ranges), -1 for a stream.
    Kept rows say which are unallocated; discarded ones whether any is per-function.
    """
    arr = np.frombuffer(data, dtype=np.uint8)
    top = len(arr) - 1
    lo, hi = (int(x) for x in np.searchsorted(nl, [start, end]))
    k = np.arange(lo, min(hi, len(nl) - 1))
    if not len(k):
        return _empty()
    s = nl[k].astype(np.int64) + 1
    e = nl[k + 1].astype(np.int64)
    length = e - s
    c1 = arr[np.minimum(s + 1, top)]
    named = (arr[np.minimum(s, top)] == 32) & (c1 != 32) & (c1 != 42) & (c1 != 10) & (length > 1)
    longer = np.flatnonzero(length > _NAME_COL + 3)
    numbers = np.zeros(len(k), dtype=bool)
    numbers[longer] = (arr[s[longer] + _NAME_COL] == 48) & (arr[s[longer] + _NAME_COL + 1] == 120)
    if not numbers.any():
        return _empty() if not named.any() else None
    found = _candidates(arr, s, length, numbers)
    if found is None:
        return None
    ci, addr_w = found
    size_col = _NAME_COL + addr_w
    file_col = size_col + _SIZE_WIDTH + 1
    # One row-wise copy of each candidate's first `file_col` bytes; fields are columns.
    block = np.lib.stride_tricks.sliding_window_view(arr, file_col)[s[ci]]
    prev = np.maximum(ci - 1, 0)
    wrapped = (block[:, :_NAME_COL] == 32).all(axis=1) & (ci > 0) & named[prev] & ~numbers[prev]
    keep = named[ci] | wrapped
    if int(keep.sum()) != int(named.sum()):
        return None
    idx, is_wrapped, block = ci[keep], wrapped[keep], block[keep]
    if not len(idx):
        return _empty()
    addrs = _addresses(block[:, _NAME_COL + 2 : size_col])
    sizes, valid = _sizes(block[:, size_col : size_col + _SIZE_WIDTH])
    if addrs is None or not valid.all():
        return None
    rs = s[idx]
    # Names: single rows end at the first space after column 1; wrapped rows take the
    # whole previous line.
    head = block[:, 1:_NAME_COL] == 32
    first_sp = np.where(head.any(axis=1), head.argmax(axis=1), _NAME_COL - 1)
    pi = np.maximum(idx - 1, 0)
    name_lo = np.where(is_wrapped, s[pi] + 1, rs + 1)
    name_hi = np.where(is_wrapped, e[pi], rs + 1 + first_sp)
    file_lo, file_hi = rs + file_col, e[idx]
    starts, run_files = file_runs(data, file_lo, file_hi)
    out = Block(
        addrs,
        sizes,
        np.where(is_wrapped, k[idx] - 1, k[idx]) + base + 1,
        _unallocated(arr, name_lo, name_hi) if kept else np.zeros(len(idx), dtype=bool),
        starts,
        run_files,
    )
    out.function_sections = not kept and _any_prefixed(arr, name_lo, FUNCTION_SECTIONS)
    if offset >= 0:
        out.name_lo, out.name_hi = name_lo + offset, name_hi + offset
    else:
        out.names = _slices(data, name_lo, name_hi)
    return out
