"""Input-section rows of lld and mold maps, read column-wise with numpy (the hot path).

Both print fixed columns under a header (`VMA [LMA] Size Align Out In Symbol`), numbers
right-aligned to the end of their header word (lld: hex; mold: VMA `0x` hex, sizes
decimal), and an input section as `file:(section)` 8 columns past `Out`. Rows are found
and their numbers decoded for a whole chunk at once; names stay byte ranges of the file
(as in `_gnu_rows`). Anything the columns do not explain sends the segment back to the
per-row reader, which reports bad input precisely.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from slim.ingest.linkmap._gnu_rows import Block, _empty, _slices, _unallocated, file_runs

I64 = NDArray[np.int64]
_INTERNAL = b"<internal>:("
_INTERNAL_A = np.frombuffer(_INTERNAL, dtype=np.uint8)
_DEC = np.full(256, np.nan)
_DEC[48:58] = np.arange(10)
_HEXV = np.full(256, np.nan)
_HEXV[48:58] = np.arange(10)
_HEXV[97:103] = np.arange(10, 16)
_HEXV[65:71] = np.arange(10, 16)


class Columns:
    """Where a map's fields are: (start, end) of the VMA and Size values, `Out`'s column."""

    def __init__(self, header: bytes, size_base: int) -> None:
        words = header.split()
        ends, pos = [], 0
        for w in words:
            pos = header.index(w, pos) + len(w)
            ends.append(pos)
        self.vma = (0, ends[0])
        i = words.index(b"Size")
        self.size = (ends[i - 1], ends[i])
        self.out = header.index(b"Out")
        self.size_base = size_base


def _values(chars: NDArray[np.uint8], base: int) -> tuple[NDArray[np.uint64], NDArray[np.bool_]]:
    """Right-aligned numbers (spaces, an optional `0x` for hex, then digits) and whether
    each row is one; hex values of up to 16 digits are exact (two 8-digit halves)."""
    table = _HEXV if base == 16 else _DEC
    v = table[chars]
    width = chars.shape[1]
    digit = ~np.isnan(v)
    nondigit = ~digit
    last_non = np.where(nondigit.any(axis=1), width - 1 - nondigit[:, ::-1].argmax(axis=1), -1)
    trailing = width - 1 - last_non
    rows = np.arange(len(chars))
    xat = np.maximum(last_non, 1)
    prefixed = (base == 16) & (last_non >= 1) & (chars[rows, xat] == 120)
    prefixed &= chars[rows, xat - 1] == 48
    spaces = (chars == 32).sum(axis=1)
    ok = (trailing >= 1) & (spaces == width - trailing - np.where(prefixed, 2, 0))
    ok &= trailing <= (16 if base == 16 else 15)
    col = np.arange(width)
    v = np.where(col[None, :] > last_non[:, None], v, 0.0)
    if base == 10:
        return (v @ (10.0 ** (width - 1 - col))).astype(np.uint64), ok
    low_w = col >= width - 8
    low = v[:, low_w] @ (16.0 ** (width - 1 - col[low_w]))
    high = v[:, ~low_w] @ (16.0 ** (width - 9 - col[~low_w])) if width > 8 else np.zeros(len(v))
    return (high.astype(np.uint64) << np.uint64(32)) | low.astype(np.uint64), ok


def _window(arr: NDArray[np.uint8], starts: I64, lo: int, hi: int) -> NDArray[np.uint8]:
    return np.lib.stride_tricks.sliding_window_view(arr, hi - lo)[starts + lo]


def column_rows(
    data: bytes,
    start: int,
    end: int,
    nl: NDArray[np.intp],
    base: int,
    cols: Columns,
    offset: int = -1,
) -> Block | None:
    """Input-section rows of data[start:end] (see `_gnu_rows.fixed_rows` for `nl`, `base`
    and `offset`); None when the segment needs the per-row reader."""
    arr = np.frombuffer(data, dtype=np.uint8)
    lo, hi = (int(x) for x in np.searchsorted(nl, [start, end]))
    k = np.arange(lo, min(hi, len(nl) - 1))
    name_col = cols.out + 8
    s = nl[k].astype(np.int64) + 1
    e = nl[k + 1].astype(np.int64)
    cand = np.flatnonzero(e - s > name_col)
    cs = s[cand]
    pad = _window(arr, cs, cols.out, name_col + 1)
    rows = (pad[:, :8] == 32).all(axis=1) & (pad[:, 8] != 32)
    idx, rs = cand[rows], cs[rows]
    if not len(idx):
        return _empty()
    addrs, ok_a = _values(_window(arr, rs, *cols.vma), 16)
    sizes, ok_s = _values(_window(arr, rs, *cols.size), cols.size_base)
    if not (ok_a.all() and ok_s.all()):
        return None
    names = _slices(data, rs + name_col, e[idx])
    cut = np.fromiter((n.rfind(b":(") for n in names), np.int64, len(names))
    internal = np.zeros(len(rs), dtype=bool)
    fits = np.flatnonzero(e[idx] - rs >= name_col + len(_INTERNAL))
    start_of = _window(arr, rs[fits], name_col, name_col + len(_INTERNAL))
    internal[fits] = (start_of == _INTERNAL_A).all(axis=1)
    take = np.flatnonzero((cut > 0) & (arr[e[idx] - 1] == 41) & ~internal)
    if not len(take):
        return _empty()
    cuts = cut[take]
    file_lo = rs[take] + name_col
    name_lo, name_hi = file_lo + cuts + 2, e[idx[take]] - 1
    starts, run_files = file_runs(data, file_lo, file_lo + cuts)
    out = Block(
        addrs[take],
        sizes[take].astype(np.int64),
        k[idx[take]] + base + 1,
        _unallocated(arr, name_lo, name_hi),
        starts,
        run_files,
    )
    if offset >= 0:
        out.name_lo, out.name_hi = name_lo + offset, name_hi + offset
    else:
        out.names = _slices(data, name_lo, name_hi)
    return out
