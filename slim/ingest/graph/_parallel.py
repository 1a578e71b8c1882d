"""Read a large line-oriented export in parallel: one byte range per process, then merge.

Each range starts after a newline, so every line belongs to exactly one range; workers
feed their own `GraphBuilder`, which the parent merges (label interning is the cost
that parallelises: decoding and hashing millions of label strings). A worker claims its
pieces one by one; the parent, done with its own range, claims the last unclaimed ones
itself, so a worker slowed down (by a busy neighbour on a shared machine) does not keep
it waiting. Line numbers in errors are made absolute by counting the newlines before the
failing range, which is only done when an error happens.
"""

from __future__ import annotations

import contextlib
import itertools
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
    from multiprocessing.context import BaseContext
    from multiprocessing.process import BaseProcess

    from slim.model.graph import PartIds

CHUNK = 8 << 20
BATCH_LINES = 4096
RELEASE_BYTES = 32 << 20
BOUNDARY_BLOCK = 1 << 20
MIN_PARALLEL_BYTES = 48 << 20
#: The parent's share of the file relative to an even split, and how many pieces each
#: worker's share is cut into (see `plan_ranges`; measured on the 1M-target export). The
#: parent reads less than its share and takes the last pieces of a slower worker.
PARENT_SHARE = 0.92
PIECES = 12

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
    merges every worker's part, and each worker's span is cut into `PIECES` pieces, each
    sent back as soon as it is read, so the parent merges the first pieces while the
    workers still read the last ones instead of waiting for one large part. The pieces
    of a span shrink (sizes PIECES, ..., 2, 1): the last ones, which the parent takes over
    from a worker that is behind, are small, so the two end close together.
    """
    size = path.stat().st_size
    first = int(size * PARENT_SHARE / workers)
    spans = workers - 1
    total = PIECES * (PIECES + 1) // 2
    done = [0, *itertools.accumulate(range(PIECES, 1, -1))]
    at = [
        first + (size - first) * (g * total + d) // (spans * total)
        for g in range(spans)
        for d in done
    ]
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


class _Claims:
    """Which pieces of each worker's group are still unclaimed, shared by the processes:
    a worker claims the next piece of its group, the parent the last one of a group."""

    def __init__(self, ctx: BaseContext, groups: Sequence[Sequence[tuple[int, int]]]) -> None:
        self._lock = ctx.Lock()
        # [next piece, end of the unclaimed pieces] of each group
        self._bounds = ctx.RawArray("i", [n for g in groups for n in (0, len(g))])

    def next(self, group: int) -> int | None:
        """The index of the next piece of `group` for its worker, None when none is left."""
        with self._lock:
            k, end = self._bounds[2 * group], self._bounds[2 * group + 1]
            if k >= end:
                return None
            self._bounds[2 * group] = k + 1
            return int(k)

    def last(self) -> tuple[int, int] | None:
        """(group, index) of the last unclaimed piece of the group with the most of them
        (a later group on ties), for the parent; None when every piece is claimed."""
        with self._lock:
            bounds = self._bounds
            left = [(bounds[2 * g + 1] - bounds[2 * g], g) for g in range(len(bounds) // 2)]
            n, g = max(left, default=(0, 0))
            if n <= 0:
                return None
            bounds[2 * g + 1] -= 1
            return g, int(bounds[2 * g + 1])


def _worker(
    path: Path,
    pieces: Sequence[tuple[int, int]],
    group: int,
    claims: _Claims,
    handler: BatchHandler,
    scratch: str,
    conn: Connection,
) -> None:
    """Read the pieces of `group` it claims, in order, into one builder, sending what each
    added as a part, then `None`.

    A part goes back as a file in `scratch`, its name through `conn`: the parent's
    reading of a pipe 64 KiB at a time would wait for the GIL its main thread holds
    while parsing (a 20 MB part took seconds). One builder for all pieces: a later part
    names a label already sent by its id, so the parent looks up each label once."""
    import gc

    gc.disable()
    b = GraphBuilder()
    try:
        while (k := claims.next(group)) is not None:
            start, end = pieces[k]
            _read_range(path, start, end, handler, b)
            conn.send(_part_message(b.take_part(), os.path.join(scratch, f"{start}.part")))
        conn.send(None)
    except Exception as exc:  # noqa: BLE001 - the parent raises it, as for its own range
        try:
            conn.send(exc)
        except Exception:  # noqa: BLE001 - not picklable: its description
            conn.send(RuntimeError(f"a parsing worker failed: {exc!r}"))
    finally:
        conn.close()


def _part_message(part: GraphBuilder, out: str) -> str | GraphBuilder:
    """What to send for `part`: the file `out` it was written to, or itself when there is
    no room there (a small /dev/shm: through the pipe, slower)."""
    import pickle

    try:
        with open(out, "wb") as f:
            pickle.dump(part, f, protocol=pickle.HIGHEST_PROTOCOL)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(out)
        return part
    return out


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
    """Read `mine` here while one worker per group reads the pieces of its group it
    claims; then claim the last unclaimed pieces here (see `_Stolen`), merging the
    workers' parts as they arrive, and every part in file order."""
    import multiprocessing
    import tempfile

    ctx = multiprocessing.get_context("fork")
    claims = _Claims(ctx, groups)
    workers: list[tuple[BaseProcess, Connection]] = []
    # Parts held at once take a few percent of the file (5% on the 1M-target export).
    need = max(path.stat().st_size // 8, 64 << 20)
    with tempfile.TemporaryDirectory(prefix="slim-parts-", dir=_scratch_dir(need)) as scratch:
        try:
            for g, group in enumerate(groups):
                receive, send = ctx.Pipe(duplex=False)
                proc: BaseProcess = ctx.Process(
                    target=_worker,
                    args=(path, group, g, claims, handler, scratch, send),
                    daemon=True,
                )
                proc.start()
                send.close()
                workers.append((proc, receive))
            builder.hash_labels()
            for lineno, lines in iter_range_batches(path, *mine):
                handler(builder, lineno, lines, str(path))
            stolen = _Stolen(path, handler, groups)
            merging = _Merging(builder, [receive for _, receive in workers], stolen)
            merging.take_arrived()
            while stolen.read(claims):
                merging.take_arrived()
            for g, (proc, _) in enumerate(workers):
                merging.take_all(g)
                proc.join()
        finally:
            for proc, receive in workers:
                if proc.is_alive():
                    proc.terminate()
                proc.join()
                receive.close()


class _Merging:
    """Merges the parts into `builder` in file order: group by group, each group's parts
    as its worker sends them, then (at its `None`: every piece of the group is claimed)
    the pieces of the group the parent read."""

    def __init__(self, builder: GraphBuilder, conns: Sequence[Connection], stolen: _Stolen) -> None:
        self._builder, self._conns, self._stolen = builder, conns, stolen
        self._group = 0
        self._earlier: PartIds | None = None

    def take_arrived(self) -> None:
        """Merge what has arrived and can be merged now."""
        while self._group < len(self._conns) and self._conns[self._group].poll():
            self._take_one()

    def take_all(self, group: int) -> None:
        """Merge every part of `group` (and of those before it), waiting for them."""
        while self._group <= group:
            self._take_one()

    def _take_one(self) -> None:
        msg = _message(self._conns[self._group])
        if msg is None:
            for part in self._stolen.of_group(self._group):
                self._builder.merge(part)
            self._group, self._earlier = self._group + 1, None
        else:
            self._earlier = self._builder.merge(_received(msg), self._earlier)


class _Stolen:
    """Pieces the parent claimed from the end of a worker's group, each read into a
    builder of its own and merged after that worker's parts. An error in one is raised
    when its turn comes, after any earlier piece's: the first bad line in file order."""

    def __init__(
        self, path: Path, handler: BatchHandler, groups: Sequence[Sequence[tuple[int, int]]]
    ) -> None:
        self._path, self._handler, self._groups = path, handler, groups
        self._parts: dict[int, list[tuple[int, GraphBuilder | InputError]]] = {}
        self._failed = False

    def read(self, claims: _Claims) -> bool:
        """Claim and read one piece; False when none is left (or one failed)."""
        got = None if self._failed else claims.last()
        if got is None:
            return False
        g, k = got
        b = GraphBuilder()
        try:
            _read_range(self._path, *self._groups[g][k], self._handler, b)
        except InputError as exc:
            self._failed = True
            self._parts.setdefault(g, []).append((k, exc))
        else:
            self._parts.setdefault(g, []).append((k, b.take_part()))
        return True

    def of_group(self, g: int) -> Iterator[GraphBuilder]:
        for _, part in sorted(self._parts.pop(g, []), key=lambda kp: kp[0]):
            if isinstance(part, InputError):
                raise part
            yield part


def _message(conn: Connection) -> str | GraphBuilder | None:
    """A part (its file's name, or itself) from a worker, None when it has sent them all,
    or the error it ended with, raised here."""
    try:
        msg = conn.recv()
    except EOFError:
        raise RuntimeError("a parsing worker ended without sending its part") from None
    if isinstance(msg, BaseException):
        raise msg
    assert msg is None or isinstance(msg, (str, GraphBuilder))
    return msg
