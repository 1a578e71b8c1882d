"""Where a value sits in JSON text, for errors about it: the line of `$.a[0].b`.

msgspec reports a field of the wrong type by its path, not its position; readers turn
that path into the `FILE:LINE` of the offending value with `line_of`. Only errors pay
for this scan.
"""

from __future__ import annotations

import json
import re

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_ATOM = re.compile(rb"[^ \t\r\n{}\[\]:,\"]+")
_NESTED = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]]', re.S)
_SEGMENT = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_WS = b" \t\r\n"


def _ws(data: bytes, pos: int) -> int:
    while pos < len(data) and data[pos] in _WS:
        pos += 1
    return pos


def _skip(data: bytes, pos: int) -> int:
    """The end of the value starting at `pos`."""
    head = data[pos : pos + 1]
    if head == b'"':
        m = _STRING.match(data, pos)
        return m.end() if m else len(data)
    if head not in (b"{", b"["):
        m = _ATOM.match(data, pos)
        return m.end() if m else pos + 1
    depth = 0
    for m in _NESTED.finditer(data, pos):
        tok = m.group()
        if tok in (b"{", b"["):
            depth += 1
        elif tok in (b"}", b"]"):
            depth -= 1
            if depth == 0:
                return m.end()
    return len(data)


def _member(data: bytes, pos: int, key: str) -> int | None:
    """The start of `key`'s value in the object at `pos`."""
    pos = _ws(data, pos + 1)
    while pos < len(data) and data[pos : pos + 1] == b'"':
        m = _STRING.match(data, pos)
        if m is None:
            return None
        name = json.loads(m.group())
        pos = _ws(data, m.end())
        if data[pos : pos + 1] != b":":
            return None
        value = _ws(data, pos + 1)
        if name == key:
            return value
        pos = _ws(data, _skip(data, value))
        if data[pos : pos + 1] != b",":
            return None
        pos = _ws(data, pos + 1)
    return None


def _item(data: bytes, pos: int, index: int) -> int | None:
    """The start of item `index` of the array at `pos`."""
    pos = _ws(data, pos + 1)
    for _ in range(index):
        if data[pos : pos + 1] in (b"]", b""):
            return None
        pos = _ws(data, _skip(data, pos))
        if data[pos : pos + 1] != b",":
            return None
        pos = _ws(data, pos + 1)
    return pos if data[pos : pos + 1] not in (b"]", b"") else None


def offset_of(data: bytes, path: str) -> int | None:
    """The byte offset of the value at `path` (msgspec's `$.key[2].other`), None when the
    text does not have it."""
    if not path.startswith("$"):
        return None
    pos: int | None = _ws(data, 0)
    for m in _SEGMENT.finditer(path, 1):
        if pos is None:
            return None
        key, index = m.groups()
        head = data[pos : pos + 1]
        if key is not None and head == b"{":
            pos = _member(data, pos, key)
        elif index is not None and head == b"[":
            pos = _item(data, pos, int(index))
        else:
            return None
    return pos


_PATH = re.compile(r" - at `(\$[^`]*)`")


_BYTE = re.compile(r"\(byte (\d+)\)|at byte (\d+)")


def line_of(data: bytes, message: str) -> int:
    """The 1-based line a msgspec error `message` is about: its byte position (malformed
    JSON), else the line of its path's deepest value found (a wrong type); else 1."""
    b = _BYTE.search(message)
    if b is not None:
        return data.count(b"\n", 0, int(b.group(1) or b.group(2))) + 1
    m = _PATH.search(message)
    path = m.group(1) if m else "$"
    while True:
        at = offset_of(data, path)
        if at is not None:
            return data.count(b"\n", 0, at) + 1
        cut = max(path.rfind("."), path.rfind("["))
        if cut <= 0:
            return 1
        path = path[:cut]
