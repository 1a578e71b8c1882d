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
from typing import TYPE_CHECKING, BinaryIO

from slim.errors import InputError
from slim.ingest._io import DEFAULT_LIMITS, GZIP_MAGIC
from slim.model.graph import GraphBuilder

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

CHUNK = 8 << 20
BATCH_LINES = 4096
RELEASE_BYTES = 32 << 20
BOUNDARY_BLOCK = 1 << 20
MIN_PARALLEL_BYTES = 48 << 20
#: The parent's share of the file relative to an even split, and how many pieces each
#: worker's share is cut into (see `plan_ranges`; measured on the 1M-target export).
PARENT_SHARE = 0.99
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


def _read_range(path: Path, start: int, end: int, handler: BatchHandler, b: GraphBuilder) -> None:
    """Feed the lines of [start, end) to `handler`; an error names its absolute line."""
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


def _worker(
    path: Path,
    pieces: Sequence[tuple[int, int]],
    handler: BatchHandler,
    scratch: str,
    conn: Connection,
) -> None:
    """Read `pieces` in order into one builder, sending what each added as a part.

    A part goes back as a file in `scratch`, its name through `conn`: the parent's
    reading of a pipe 64 KiB at a time would wait for the GIL its main thread holds
    while parsing (a 20 MB part took seconds). One builder for all pieces: a later part
    names a label already sent by its id, so the parent looks up each label once."""
    import gc
    import pickle

    gc.disable()
    b = GraphBuilder()
    try:
        for start, end in pieces:
            _read_range(path, start, end, handler, b)
            part = b.take_part()
            out = os.path.join(scratch, f"{start}.part")
            try:
                with open(out, "wb") as f:
                    pickle.dump(part, f, protocol=pickle.HIGHEST_PROTOCOL)
            except OSError:  # no room there (a small /dev/shm): through the pipe, slower
                with contextlib.suppress(OSError):
                    os.unlink(out)
                conn.send(part)
            else:
                conn.send(out)
    except Exception as exc:  # noqa: BLE001 - the parent raises it, as for its own range
        try:
            conn.send(exc)
        except Exception:  # noqa: BLE001 - not picklable: its description
            conn.send(RuntimeError(f"a parsing worker failed: {exc!r}"))
    finally:
        conn.close()


def _received(name: str | GraphBuilder) -> GraphBuilder:
    """A worker's part: read from the file it names (and removed), or as sent."""
    import pickle

    if isinstance(name, GraphBuilder):
        return name
    with open(name, "rb") as f:
        data = f.read()
    os.unlink(name)
    part = pickle.loads(data)
    assert isinstance(part, GraphBuilder)
    return part


def _scratch_dir(need: int) -> str | None:
    """Where worker parts are written: memory-backed /dev/shm when it has `need` bytes
    free (a container's is often 64 MiB), else the temporary directory."""
    shm = "/dev/shm"
    try:
        st = os.statvfs(shm)
    except OSError:
        return None
    roomy = st.f_bavail * st.f_frsize >= need
    return shm if roomy and os.access(shm, os.W_OK | os.X_OK) else None


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
    mine, theirs = plan_ranges(path, workers)
    if not theirs:
        for lineno, lines in iter_range_batches(path, *mine):
            handler(builder, lineno, lines, str(path))
        return
    _in_parallel(path, builder, handler, mine, _groups(theirs, workers - 1))


def _groups(pieces: list[tuple[int, int]], n: int) -> list[list[tuple[int, int]]]:
    """`pieces` in `n` runs of consecutive pieces (as even as can be), none empty."""
    n = min(n, len(pieces))
    cuts = [len(pieces) * k // n for k in range(n + 1)]
    return [pieces[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def _in_parallel(
    path: Path,
    builder: GraphBuilder,
    handler: BatchHandler,
    mine: tuple[int, int],
    groups: list[list[tuple[int, int]]],
) -> None:
    """Read `mine` here while one worker per group reads its pieces; merge every part in
    file order, each as it arrives (the later pieces are still being read)."""
    import multiprocessing
    import tempfile

    ctx = multiprocessing.get_context("fork")
    workers: list[tuple[BaseProcess, Connection, int]] = []
    # Parts held at once take a few percent of the file (5% on the 1M-target export).
    need = max(path.stat().st_size // 8, 64 << 20)
    with tempfile.TemporaryDirectory(prefix="slim-parts-", dir=_scratch_dir(need)) as scratch:
        try:
            for group in groups:
                receive, send = ctx.Pipe(duplex=False)
                proc: BaseProcess = ctx.Process(
                    target=_worker, args=(path, group, handler, scratch, send), daemon=True
                )
                proc.start()
                send.close()
                workers.append((proc, receive, len(group)))
            builder.hash_labels()
            for lineno, lines in iter_range_batches(path, *mine):
                handler(builder, lineno, lines, str(path))
            for proc, receive, n in workers:
                earlier = None
                for _ in range(n):
                    earlier = builder.merge(_received(_message(receive)), earlier)
                proc.join()
        finally:
            for proc, receive, _ in workers:
                if proc.is_alive():
                    proc.terminate()
                proc.join()
                receive.close()


def _message(conn: Connection) -> str | GraphBuilder:
    """A part (its file's name, or itself) from a worker, or the error it ended with,
    raised here."""
    try:
        msg = conn.recv()
    except EOFError:
        raise RuntimeError("a parsing worker ended without sending its part") from None
    if isinstance(msg, BaseException):
        raise msg
    assert isinstance(msg, (str, GraphBuilder))
    return msg
