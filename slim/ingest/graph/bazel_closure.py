"""The closure of a few roots read from a streamed_jsonproto export without decoding the rest.

One C-level pass over the memory-mapped file indexes every target line by its name (the
name is at a fixed place at the start of each line); then only the lines of the roots'
closure (every edge kind, files and generating rules included) are decoded by the real
reader, breadth first. The result is the same graph as the full parse restricted to that
closure. Whenever the index cannot be trusted to find every line of the closure (an
unusual line shape, a duplicate or non-canonical name, a label only named in srcs that
the full parse would classify by lines outside the closure, gzip), None is returned and
the caller parses the whole file.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from slim.errors import InputError
from slim.ingest._io import GZIP_MAGIC
from slim.model.graph import GraphBuilder
from slim.model.labels import normalize_label

if TYPE_CHECKING:
    from slim.model.graph import BuildGraph

FORMAT = "bazel-streamed-jsonproto"
PREFIXES = (
    b'{"type":"RULE","rule":{"name":"',
    b'{"type":"SOURCE_FILE","sourceFile":{"name":"',
    b'{"type":"GENERATED_FILE","generatedFile":{"name":"',
)
_HEAD = max(len(p) for p in PREFIXES)
_DROP_EVERY = 64 << 20
MIN_LIMIT = 20_000


def _odd_names_ok(names: list[bytes]) -> bool:
    """Names that are not plain `//pkg:name`: usable only when already canonical."""
    for raw in names:
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            return False
        if normalize_label(text) != text:
            return False
    return True


def _skippable(mm: mmap.mmap, start: int, end: int) -> bool:
    """A blank line or a log line the reader skips (looked at through its first bytes)."""
    from slim.ingest.graph.bazel_jsonproto import LOG_PREFIXES

    stripped = mm[start : min(end, start + 4096)].strip()
    if end - start > 4096:
        return stripped.startswith(LOG_PREFIXES)
    return not stripped or stripped.startswith(LOG_PREFIXES)


def _drop_pages(mm: mmap.mmap, start: int, end: int) -> int:
    """Unmap the pages already scanned (they stay in the page cache, not in our RSS)."""
    end &= ~(mmap.PAGESIZE - 1)
    if end > start and hasattr(mm, "madvise"):
        mm.madvise(mmap.MADV_DONTNEED, start, end - start)
    return max(start, end)


def _index_range(mm: mmap.mmap, pos: int, size: int) -> tuple[dict[bytes, int], list[bytes]] | None:
    """(name -> line offset, names to check) for the lines starting in [pos, size); None
    when a line has another shape or a name repeats."""
    find = mm.find
    rule, source, generated = PREFIXES
    out: dict[bytes, int] = {}
    odd: list[bytes] = []
    lines = 0
    drop = pos + _DROP_EVERY
    dropped = pos & ~(mmap.PAGESIZE - 1)
    while pos < size:
        nl = find(b"\n", pos)
        end = len(mm) if nl < 0 else nl
        head = mm[pos : pos + _HEAD]
        if head.startswith(rule):
            a = pos + len(rule)
        elif head.startswith(source):
            a = pos + len(source)
        elif head.startswith(generated):
            a = pos + len(generated)
        elif _skippable(mm, pos, end):
            pos = end + 1
            continue
        else:
            return None
        q = find(b'"', a, end)
        if q < 0 or mm[end - 1] != 0x7D:  # `}`
            return None
        name = mm[a:q]
        if name[:2] != b"//" or b":" not in name or name[-1:] == b"]" or b"\\" in name:
            odd.append(name)
        out[name] = pos
        lines += 1
        pos = end + 1
        if pos > drop:
            dropped = _drop_pages(mm, dropped, pos)
            drop = pos + _DROP_EVERY
    return (out, odd) if len(out) == lines else None


_FORKED: list[mmap.mmap] = []  # the mapping a forked worker inherits (not picklable)


def _child_index(args: tuple[int, int]) -> tuple[bytes, bytes, list[bytes]] | None:
    """A worker's half, packed as one names blob and an offsets buffer (fast to pickle)."""
    import numpy as np

    got = _index_range(_FORKED[0], *args)
    if got is None:
        return None
    names, odd = got
    offsets = np.fromiter(names.values(), dtype=np.int64, count=len(names))
    return b"\n".join(names), offsets.tobytes(), odd


def _merge(
    into: dict[bytes, int], part: tuple[bytes, bytes, list[bytes]], odd: list[bytes]
) -> bool:
    import numpy as np

    blob, offsets, more = part
    before = len(into)
    names = blob.split(b"\n") if blob else []
    into.update(zip(names, np.frombuffer(offsets, dtype=np.int64).tolist(), strict=True))
    odd.extend(more)
    return len(into) == before + len(names)


def index_lines(mm: mmap.mmap) -> dict[bytes, int] | None:
    """Name -> offset of its line, for every target line (the second half in a forked
    worker for large files); None when a line has another shape, a name repeats or is
    not canonical (the full parse then reads, or rejects, the file)."""
    from slim.ingest.graph._parallel import MIN_PARALLEL_BYTES, worker_count

    size = len(mm)
    if size < MIN_PARALLEL_BYTES or worker_count() < 2 or not hasattr(os, "fork"):
        got = _index_range(mm, 0, size)
        return got[0] if got is not None and _odd_names_ok(got[1]) else None
    import multiprocessing

    cut = mm.find(b"\n", size // 2) + 1 or size
    _FORKED[:] = [mm]
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            pending = pool.apply_async(_child_index, ((cut, size),))
            got = _index_range(mm, 0, cut)
            part = pending.get()
    finally:
        _FORKED.clear()
    if got is None or part is None:
        return None
    out, odd = got
    if not _merge(out, part, odd) or not _odd_names_ok(odd):
        return None
    return out


def _line_number(path: Path, offset: int) -> int:
    from slim.ingest.graph._parallel import count_newlines

    return count_newlines(path, offset) + 1


def _read_line(fd: int, offset: int, path: Path) -> bytes:
    """The line at `offset`, read with pread (mapping its pages would count in RSS)."""
    from slim.ingest._io import DEFAULT_LIMITS

    cap = DEFAULT_LIMITS.max_line_bytes
    parts: list[bytes] = []
    size = 0
    while size <= cap:
        block = os.pread(fd, 1 << 16, offset + size)
        cut = block.find(b"\n")
        if cut >= 0 or not block:
            parts.append(block[:cut] if cut >= 0 else block)
            return b"".join(parts)
        parts.append(block)
        size += len(block)
    raise InputError(
        str(path),
        f"a line of at most {cap} bytes",
        "a longer line",
        line=_line_number(path, offset),
    )


class LineIndex(Protocol):
    """name -> line offset (a dict from the scan, or a cached index)."""

    def get(self, key: bytes, /) -> int | None: ...
    def __len__(self) -> int: ...


class _Closure:
    """Breadth-first reading of the closure lines into one builder."""

    def __init__(self, path: Path, fd: int, index: LineIndex, limit: int) -> None:
        self.path, self.fd, self.index, self.limit = path, fd, index, limit
        self.b = GraphBuilder()

    def decode(self, offset: int) -> None:
        from slim.ingest.graph.bazel_jsonproto import streamed_lines

        raw = _read_line(self.fd, offset, self.path)
        try:
            streamed_lines(self.b, 1, [raw], str(self.path))
        except InputError as exc:
            line = _line_number(self.path, offset)
            raise InputError(exc.path, exc.expected, exc.found, line=line) from None

    def _offsets(self, labels: list[str]) -> set[int]:
        get = self.index.get
        found = (get(k) for k in map(str.encode, labels))
        return {x for x in found if x is not None}

    def run(self, roots: Sequence[str]) -> GraphBuilder | None:
        b = self.b
        for root in roots:
            label = normalize_label(root)
            if self.index.get(label.encode()) is None:
                return None
            b.intern(label)
        done = 0
        decoded: set[int] = set()
        while done < len(b):
            new = b.labels_since(done)
            done = len(b)
            offsets = self._offsets(new) - decoded
            if len(decoded) + len(offsets) > self.limit:
                return None
            for offset in sorted(offsets):
                self.decode(offset)
            decoded |= offsets
            b.flush()
        if b.has_srcs_only_unknowns():
            return None
        b.formats.append(FORMAT)
        return b


def closure_limit(lines: int) -> int:
    """Past this many closure lines the full parse (batched, parallel) is the faster way."""
    return max(MIN_LIMIT, lines // 20)


def _scan(path: Path) -> dict[bytes, int] | None:
    with path.open("rb") as f:
        if f.read(2) == GZIP_MAGIC or path.stat().st_size == 0:
            return None
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        return index_lines(mm)
    finally:
        mm.close()


def load_closure(
    path: Path,
    roots: Sequence[str],
    *,
    cached_index: Callable[[], LineIndex | None] | None = None,
    keep_index: Callable[[dict[bytes, int]], None] | None = None,
) -> BuildGraph | None:
    """The graph of `roots`' closure, or None (the caller parses the whole file).

    `cached_index` gives a line index kept from an earlier scan of this very file (the
    caller keys it by content); `keep_index` is handed a fresh scan's index to keep.
    """
    index: LineIndex | None = cached_index() if cached_index is not None else None
    if index is None:
        scanned = _scan(path)
        if scanned is None:
            return None
        if keep_index is not None:
            keep_index(scanned)
        index = scanned
    with path.open("rb") as f:
        b = _Closure(path, f.fileno(), index, closure_limit(len(index))).run(roots)
    if b is None:
        return None
    graph = b.build()
    graph.closure_of = tuple(normalize_label(r) for r in roots)
    return graph
