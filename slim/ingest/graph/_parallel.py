"""Read a large line-oriented export in parallel: one byte range per process, then merge.

Each range starts after a newline, so every line belongs to exactly one range; workers
feed their own `GraphBuilder`, which the parent merges (label interning is the cost
that parallelises: decoding and hashing millions of label strings). Line numbers in
errors are made absolute by counting the newlines before the failing range, which is
only done when an error happens.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from slim.errors import InputError
from slim.ingest._io import DEFAULT_LIMITS, GZIP_MAGIC
from slim.model.graph import GraphBuilder

CHUNK = 8 << 20
BATCH_LINES = 4096
RELEASE_BYTES = 32 << 20
BOUNDARY_BLOCK = 1 << 20
MIN_PARALLEL_BYTES = 48 << 20
#: The parent's share of the file relative to an even split, and how many pieces each
#: worker's share is cut into (see `plan_ranges`; measured on the 1M-target export).
PARENT_SHARE = 0.9
PIECES = 3

#: batch handler: (builder, first line number of the batch, the lines, path for errors)
BatchHandler = Callable[[GraphBuilder, int, Sequence[bytes | memoryview], str], None]


def worker_count() -> int:
    env = os.environ.get("SLIM_WORKERS")
    if env and env.isdecimal():
        return max(1, int(env))
    try:
        return max(1, min(len(os.sched_getaffinity(0)), 8))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, min(os.cpu_count() or 1, 8))


def iter_range_batches(path: Path, start: int, end: int) -> Iterator[tuple[int, list[memoryview]]]:
    """(line number relative to `start`, lines) for the lines beginning in [start, end).

    `start` must be a line start; a line that begins before `end` is read to its end.
    Lines are views of the memory-mapped file, not copies (copying and splitting 8 MB
    chunks cost 3x the time); a handler decodes them and keeps none.
    """
    cap = DEFAULT_LIMITS.max_line_bytes
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        if min(end, size) <= start:
            return
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    with contextlib.suppress(AttributeError, OSError):  # not on every platform
        mm.madvise(mmap.MADV_SEQUENTIAL)
    view = memoryview(mm)
    find = mm.find
    batch: list[memoryview] = []
    try:
        pos, lineno, stop = start, 1, min(end, size)
        done = start - start % mmap.PAGESIZE
        while pos < stop:
            nl = find(b"\n", pos, pos + cap + 1)
            if nl < 0:
                if size - pos > cap:
                    raise InputError(
                        str(path),
                        f"a line of at most {cap} bytes",
                        "a longer line",
                        line=lineno + len(batch),
                    )
                nl = size
            batch.append(view[pos:nl])
            pos = nl + 1
            if len(batch) >= BATCH_LINES:
                yield lineno, batch
                lineno += len(batch)
                batch = []
                done = _release(mm, done, pos)
        if batch:
            yield lineno, batch
    finally:
        batch = []
        view.release()
        with contextlib.suppress(BufferError):  # a caller kept a line: freed with it
            mm.close()


def _release(mm: mmap.mmap, done: int, pos: int) -> int:
    """Unmap the pages read since `done` (they stay in the page cache): mapped pages
    count in the process's RSS, and a worker reads a gigabyte."""
    upto = pos - pos % mmap.PAGESIZE
    if upto - done >= RELEASE_BYTES:
        with contextlib.suppress(AttributeError, OSError):
            mm.madvise(mmap.MADV_DONTNEED, done, upto - done)
        return upto
    return done


def next_line_start(f: BinaryIO, pos: int, size: int) -> int:
    """The offset after the first newline at or after `pos` (`size` if none), found in
    bounded blocks: a single-line export must not be read whole to find a cut."""
    f.seek(pos)
    while pos < size:
        block = f.read(BOUNDARY_BLOCK)
        if not block:
            break
        cut = block.find(b"\n")
        if cut >= 0:
            return pos + cut + 1
        pos += len(block)
    return size


def _boundaries(path: Path, parts: int) -> list[int]:
    size = path.stat().st_size
    return _cuts(path, [size * k // parts for k in range(1, parts)])


def _cuts(path: Path, at: Sequence[int]) -> list[int]:
    """0, the line start at or after each offset of `at`, and the file's size: range
    boundaries (repeats dropped)."""
    size = path.stat().st_size
    cuts = [0]
    with path.open("rb") as f:
        cuts.extend(next_line_start(f, pos, size) for pos in at)
    cuts.append(size)
    return sorted(set(cuts))


def plan_ranges(path: Path, workers: int) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """The parent's range and the workers' pieces, in file order.

    The parent reads a little less than its share (`PARENT_SHARE`): it also receives and
    merges every worker's part, and a worker's range is cut into `PIECES` pieces per
    worker, each sent back as soon as it is read, so the parent merges the first pieces
    while the workers still read the last ones instead of waiting for one large part.
    """
    size = path.stat().st_size
    first = int(size * PARENT_SHARE / workers)
    pieces = (workers - 1) * PIECES
    at = [first + (size - first) * k // pieces for k in range(pieces)]
    cuts = _cuts(path, at)
    ranges = list(zip(cuts, cuts[1:], strict=False)) or [(0, size)]
    return ranges[0], ranges[1:]


def count_newlines(path: Path, end: int) -> int:
    n = 0
    with path.open("rb") as f:
        left = end
        while left > 0:
            block = f.read(min(CHUNK, left))
            if not block:
                break
            n += block.count(b"\n")
            left -= len(block)
    return n


def _run_range(path: Path, start: int, end: int, handler: BatchHandler) -> GraphBuilder:
    b = GraphBuilder()
    try:
        for lineno, lines in iter_range_batches(path, start, end):
            handler(b, lineno, lines, str(path))
    except InputError as exc:
        if exc.line is not None and start > 0:
            exc = InputError(
                exc.path, exc.expected, exc.found, line=exc.line + count_newlines(path, start)
            )
        raise exc from None
    b.flush()
    return b


def _child(args: tuple[Path, int, int, BatchHandler, str]) -> str:
    """Read one piece in a worker; its part goes back as a file in `args[4]`, not through
    the pool's pipe: the parent's result thread would read a pipe 64 KiB at a time, each
    read waiting for the GIL its main thread holds while parsing (a 20 MB part took
    seconds)."""
    import gc
    import pickle

    gc.disable()
    path, start, end, handler, scratch = args
    part = _run_range(path, start, end, handler).as_part()
    out = os.path.join(scratch, f"{start}.part")
    with open(out, "wb") as f:
        pickle.dump(part, f, protocol=pickle.HIGHEST_PROTOCOL)
    return out


def _received(name: str) -> GraphBuilder:
    import pickle

    with open(name, "rb") as f:
        data = f.read()
    os.unlink(name)
    part = pickle.loads(data)
    assert isinstance(part, GraphBuilder)
    return part


def _scratch_dir() -> str | None:
    """Where worker parts are written: memory-backed /dev/shm when there is one."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def load_lines(path: Path, builder: GraphBuilder, handler: BatchHandler) -> None:
    """Feed every line of `path` to `handler` in batches, in parallel when it pays off."""
    with path.open("rb") as f:
        compressed = f.read(2) == GZIP_MAGIC
    workers = worker_count()
    if compressed or workers < 2 or path.stat().st_size < MIN_PARALLEL_BYTES:
        if compressed:
            from slim.ingest._io import iter_lines, open_input

            with open_input(path) as stream:
                batch: list[bytes] = []
                first = 1
                for lineno, raw in iter_lines(stream, str(path)):
                    if not batch:
                        first = lineno
                    batch.append(raw)
                    if len(batch) >= 4096:
                        handler(builder, first, batch, str(path))
                        batch = []
                if batch:
                    handler(builder, first, batch, str(path))
            return
        for lineno, lines in iter_range_batches(path, 0, path.stat().st_size):
            handler(builder, lineno, lines, str(path))
        return
    import multiprocessing

    mine, theirs = plan_ranges(path, workers)
    if not theirs:
        for lineno, lines in iter_range_batches(path, *mine):
            handler(builder, lineno, lines, str(path))
        return
    import tempfile

    ctx = multiprocessing.get_context("fork")
    with (
        tempfile.TemporaryDirectory(prefix="slim-parts-", dir=_scratch_dir()) as scratch,
        ctx.Pool(min(workers - 1, len(theirs))) as pool,
    ):
        parts = pool.imap(_child, [(path, a, b, handler, scratch) for a, b in theirs])
        for lineno, lines in iter_range_batches(path, *mine):
            handler(builder, lineno, lines, str(path))
        # In file order, each as it arrives: the later pieces are still being read.
        for name in parts:
            builder.merge(_received(name))
