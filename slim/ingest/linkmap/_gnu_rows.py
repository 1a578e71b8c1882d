"""Input-section rows of bfd/gold maps, read column-wise with numpy (the hot path).

bfd and gold print every input section as ` name<pad to col 16>0xADDR<size right-aligned
in 11 columns> file`, wrapping the name onto its own line when it is too long; the
address (`0x` + 16 or 8 hex digits) always starts at column 16 of the line that carries
the numbers. Rows are found and their numbers decoded for a whole chunk at once; only
names and file names are sliced per row. When a segment has anything the fixed layout
does not explain, the regex reader (`regex_rows`) takes the segment instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

_HEX = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _HEX[_c] = _i
for _i, _c in enumerate(b"ABCDEF"):
    _HEX[_c] = 10 + _i
_SIZE_WIDTH = 11
_NAME_COL = 16
#: Sections that take no memory in the program (kept in the file, not loaded).
UNALLOCATED = (".comment", ".debug", ".note.GNU-stack", ".gnu.attributes", ".stab", ".zdebug")
_UNALLOCATED_B = tuple(p.encode() for p in UNALLOCATED)
_PREFIX_W = max(len(p) for p in _UNALLOCATED_B)

SECTION_RE = re.compile(
    rb"\n ([^ *\n][^ \n]*)(?:\n {16}| +)(?:0x)?([0-9a-fA-F]+) +(?:0x)?([0-9a-fA-F]+) ([^\n]+)"
)


@dataclass
class Rows:
    """Section rows in map order: raw names and files, numbers, 1-based lines."""

    names: list[bytes] = field(default_factory=list)
    addrs: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    files: list[bytes] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    unallocated: list[bool] = field(default_factory=list)

    def extend(self, other: Rows) -> None:
        self.names += other.names
        self.addrs += other.addrs
        self.sizes += other.sizes
        self.files += other.files
        self.lines += other.lines
        self.unallocated += other.unallocated


def regex_rows(data: bytes, start: int, end: int, nl: np.ndarray, base: int) -> Rows:
    """The general reader: any whitespace, hex with or without `0x`."""
    out = Rows()
    pos = []
    for m in SECTION_RE.finditer(data, start, end):
        name, addr, size, file = m.groups()
        out.names.append(name)
        out.addrs.append(int(addr, 16))
        out.sizes.append(int(size, 16))
        out.files.append(file)
        pos.append(m.start())
    if pos:
        out.lines = (np.searchsorted(nl, np.array(pos), side="right") + base).tolist()
    out.unallocated = [n.startswith(_UNALLOCATED_B) for n in out.names]
    return out


def _hex_value(chars: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of right-aligned hex fields (rows of chars, maybe ` 0x` prefixed) and validity."""
    v = _HEX[chars]
    is_x = chars == ord("x")
    has_x = is_x.any(axis=1)
    xpos = np.where(has_x, is_x.argmax(axis=1), -1)
    col = np.arange(chars.shape[1])
    after = col[None, :] > xpos[:, None]
    digits_ok = np.where(after, v < 16, True).all(axis=1)
    before = col[None, :] < (xpos[:, None] - 1)
    blank_ok = np.where(before, chars == 32, True).all(axis=1)
    zero_ok = np.where(has_x, chars[np.arange(len(chars)), np.maximum(xpos - 1, 0)] == 48, False)
    width = chars.shape[1]
    shifts = (4 * (width - 1 - col)).astype(np.uint64)
    vals = np.where(after, v, 0).astype(np.uint64) << shifts[None, :]
    value = np.bitwise_or.reduce(vals, axis=1) if width else np.zeros(len(chars), np.uint64)
    return value, digits_ok & blank_ok & zero_ok & (xpos < width - 1)


def fixed_rows(data: bytes, start: int, end: int, nl: np.ndarray, base: int) -> Rows | None:
    """Rows of data[start:end] by columns; None when the segment needs the regex reader.

    `nl` holds every newline position of `data` (data[0] is a newline); line k of the
    chunk starts at nl[k-1] + 1 and is numbered base + k. A row is a line starting with
    one space and a name (the regex's anchor): every such line must decode as a row.
    """
    arr = np.frombuffer(data, dtype=np.uint8)
    top = len(arr) - 1
    lo, hi = (int(x) for x in np.searchsorted(nl, [start, end]))
    k = np.arange(lo, min(hi, len(nl) - 1))
    if not len(k):
        return Rows()
    s = nl[k] + 1
    e = nl[k + 1]
    length = e - s
    c0 = arr[np.minimum(s, top)]
    c1 = arr[np.minimum(s + 1, top)]
    named = (c0 == 32) & (c1 != 32) & (c1 != 42) & (c1 != 10) & (length > 1)
    longer = np.flatnonzero(length > _NAME_COL + 3)
    sl = s[longer]
    numbers = np.zeros(len(k), dtype=bool)
    numbers[longer] = (arr[sl + _NAME_COL] == 48) & (arr[sl + _NAME_COL + 1] == 120)
    if not numbers.any():
        return Rows() if not named.any() else None
    first = int(np.flatnonzero(numbers)[0])
    sp = data.find(b" ", int(s[first]) + _NAME_COL, int(e[first]))
    if sp < 0:
        return None
    addr_w = sp - int(s[first]) - _NAME_COL
    file_col = _NAME_COL + addr_w + _SIZE_WIDTH + 1
    ci = np.flatnonzero(numbers & (length > file_col))
    sc = s[ci]
    ok = (
        (arr[sc + _NAME_COL + addr_w] == 32)
        & (arr[sc + file_col - 1] == 32)
        & (arr[sc + file_col] != 32)
        & (_HEX[arr[sc + file_col - 2]] < 16)
    )
    ci, sc = ci[ok], sc[ok]
    # One row-wise copy of each candidate's first `file_col` bytes; fields are columns.
    windows = np.lib.stride_tricks.sliding_window_view(arr, file_col)
    block = windows[sc]
    single = named[ci]
    blank16 = (block[:, :_NAME_COL] == 32).all(axis=1)
    prev = np.maximum(ci - 1, 0)
    wrapped = blank16 & (ci > 0) & named[prev] & ~numbers[prev]
    keep = single | wrapped
    idx, rs, is_wrapped = ci[keep], sc[keep], wrapped[keep]
    if len(idx) != int(named.sum()):
        return None
    if not len(idx):
        return Rows()
    block = block[keep]
    grid = np.arange(addr_w - 2)
    addr_v = _HEX[block[:, _NAME_COL + 2 : _NAME_COL + addr_w]]
    if (addr_v >= 16).any():
        return None
    shifts = (4 * (addr_w - 3 - grid)).astype(np.uint64)
    addrs = np.bitwise_or.reduce(addr_v.astype(np.uint64) << shifts[None, :], axis=1)
    size_chars = block[:, _NAME_COL + addr_w : _NAME_COL + addr_w + _SIZE_WIDTH]
    sizes, valid = _hex_value(size_chars)
    if not valid.all():
        return None
    # Names: single rows end at the first space after column 1; wrapped rows take the
    # whole previous line.
    pi = np.maximum(idx - 1, 0)
    head = block[:, 1:_NAME_COL] == 32
    first_sp = np.where(head.any(axis=1), head.argmax(axis=1), _NAME_COL - 1)
    name_lo = np.where(is_wrapped, s[pi] + 1, rs + 1)
    name_hi = np.where(is_wrapped, e[pi], rs + 1 + first_sp)
    out = Rows()
    out.names = [data[a:b] for a, b in zip(name_lo.tolist(), name_hi.tolist(), strict=True)]
    out.files = [data[a:b] for a, b in zip((rs + file_col).tolist(), e[idx].tolist(), strict=True)]
    out.addrs = addrs.tolist()
    out.sizes = sizes.tolist()
    out.lines = (np.where(is_wrapped, k[idx] - 1, k[idx]) + base + 1).tolist()
    lead = np.lib.stride_tricks.sliding_window_view(arr, _PREFIX_W)[
        np.minimum(name_lo, len(arr) - _PREFIX_W)
    ]
    unalloc = np.zeros(len(idx), dtype=bool)
    for p in _UNALLOCATED_B:
        unalloc |= (lead[:, : len(p)] == np.frombuffer(p, dtype=np.uint8)).all(axis=1)
    out.unallocated = unalloc.tolist()
    return out
