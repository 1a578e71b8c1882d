"""Pieces every linker-map reader shares: bounded chunked reading and per-input tallies.

Maps reach hundreds of MB; readers scan newline-aligned chunks with compiled regexes
(the per-line Python loop is the bottleneck), and a chunk never grows past
`Limits.max_line_bytes` of unterminated text, so a 2 GB line is an error, not a hang.
"""

from __future__ import annotations

import gc
import mmap
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from slim.errors import InputError
from slim.ingest._io import (
    DEFAULT_LIMITS,
    GZIP_MAGIC,
    Limits,
    cut_short,
    open_input,
    open_regular,
)
from slim.ingest.linkmap._gnu_rows import UNALLOCATED
from slim.model.native import InputSection, LinkInput, PulledBy, SectionList, split_input

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

CHUNK_BYTES = 2 * 1024 * 1024


@contextmanager
def no_gc() -> Iterator[None]:
    """The cyclic GC off while a map is read: it makes hundreds of thousands of
    long-lived tuples and nothing cyclic, and each collection would rescan them all.
    They are frozen after (moved out of the collected generations) for the same reason."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


class Chunk(NamedTuple):
    """Newline-aligned text of a map: `data` starts with the newline that ends the
    previous line (a made-up one for the first) and ends at a newline."""

    line: int
    """Number of the first line in `data`."""
    data: bytes
    offset: int
    """File offset of data[0] (so data[i] is byte offset + i of the file), or -1 when
    `data` is not the file's own bytes (decompressed, or `\r\n` folded)."""
    unterminated: bool = False
    """The last chunk, and the file's last line had no newline (one was added)."""


def iter_chunks(
    path: Path, limits: Limits = DEFAULT_LIMITS, size: int | None = None, *, lines: bool = True
) -> Iterator[Chunk]:
    """The file as `Chunk`s; `\r\n` is folded to `\n`, a missing final newline added (and
    said). Plain files are sliced from an mmap (one copy per chunk); gzip is streamed.
    `lines=False`: a plain file's chunks say line 0 (the reader counts them itself)."""
    size = size or CHUNK_BYTES
    with open_regular(path) as f:
        plain = f.read(2) != GZIP_MAGIC and os.fstat(f.fileno()).st_size > 0
        if plain:
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                yield from _mapped_chunks(mm, path, limits, size, lines)
            return
    yield from _stream_chunks(path, limits, size)


def _line_at(mm: mmap.mmap, pos: int) -> int:
    """The number of the line holding byte `pos` (for errors: reads the file up to it)."""
    return mm[:pos].count(b"\n") + 1


def _mapped_chunks(
    mm: mmap.mmap, path: Path, limits: Limits, size: int, lines: bool
) -> Iterator[Chunk]:
    cap = limits.max_line_bytes
    n = len(mm)
    lineno = 1
    pos = 0  # the next chunk's first line starts here; mm[pos - 1] is a newline
    while pos < n:
        end = min(pos + size, n)
        last = mm.rfind(b"\n", pos, end)
        while last < 0 and end < n:
            if end - pos > cap:
                raise InputError(
                    str(path),
                    f"a line of at most {cap} bytes",
                    "a longer line",
                    line=_line_at(mm, pos),
                )
            end = min(end + size, n)
            last = mm.rfind(b"\n", pos, end)
        cut_short = False
        if end == n:
            data = mm[pos:n]
            if not data.endswith(b"\n"):
                if n - (last + 1 if last >= 0 else pos) > cap:
                    line = _line_at(mm, n)
                    raise InputError(
                        str(path), f"a line of at most {cap} bytes", "a longer line", line=line
                    )
                data += b"\n"
                cut_short = True
            chunk = b"\n" + data
        else:
            cut = _cut_mm(mm, pos, last)
            chunk = b"\n" + mm[pos : cut + 1] if pos == 0 else mm[pos - 1 : cut + 1]
            end = cut + 1
        offset = pos - 1
        if b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n")
            offset = -1
        yield Chunk(lineno if lines else 0, chunk, offset, cut_short)
        if lines:
            lineno += chunk.count(b"\n") - 1
        pos = end if end < n else n


def _cut_mm(mm: mmap.mmap, pos: int, last: int) -> int:
    """`_cut` on an mmap window [pos, last]: hold back the last line and continuations."""
    cut = last
    for _ in range(256):
        prev = mm.rfind(b"\n", pos, cut)
        if prev < 0:
            return last
        if cut != last and mm[cut + 1 : cut + 17] != _CONTINUATION:
            return cut
        cut = prev
    return last


def _stream_chunks(path: Path, limits: Limits, size: int) -> Iterator[Chunk]:
    cap = limits.max_line_bytes
    lineno = 1
    pending = b"\n"
    with open_input(path, limits) as f:
        while True:
            block = f.read(size)
            if not block:
                break
            data = pending + block
            last = data.rfind(b"\n")
            if len(data) - (last + 1) > cap:
                line = lineno + data.count(b"\n", 1, last + 1)
                raise InputError(
                    str(path), f"a line of at most {cap} bytes", "a longer line", line=line
                )
            cut = _cut(data, last)
            if cut <= 0:
                pending = data
                continue
            chunk, pending = data[: cut + 1], data[cut:]
            if b"\r" in chunk:
                chunk = chunk.replace(b"\r\n", b"\n")
            yield Chunk(lineno, chunk, -1)
            lineno += chunk.count(b"\n") - 1
    if len(pending) > 1:
        tail = pending.replace(b"\r\n", b"\n")
        cut_short = not tail.endswith(b"\n")
        yield Chunk(lineno, tail + b"\n" if cut_short else tail, -1, cut_short)


_CONTINUATION = b" " * 16


def _cut(data: bytes, last: int) -> int:
    """A newline at or before `last` whose next line starts a new entry.

    Holds back the final line, and any run of lines indented 16+ columns before it, so a
    wrapped entry (section name, then its numbers on the next line) is never split.
    """
    cut = last
    for _ in range(256):
        prev = data.rfind(b"\n", 0, cut)
        if prev < 0:
            return last
        if not data.startswith(_CONTINUATION, cut + 1) and cut != last:
            return cut
        cut = prev
    return last


def decode(path: Path, raw: bytes, line: int) -> str:
    """Map text as str: linkers print symbol and path bytes as they are, so bytes that
    are not UTF-8 (a Latin-1 file name) are kept losslessly (`surrogateescape`)."""
    del path, line
    return raw.decode("utf-8", "surrogateescape")


def check_text(path: Path, chunk: Chunk) -> None:
    """Refuse binary data (a NUL byte) with its line and column."""
    nul = chunk.data.find(b"\x00")
    if nul >= 0:
        start = chunk.data.rfind(b"\n", 0, nul) + 1
        raise InputError(
            str(path),
            "a text linker map",
            f"a NUL byte at column {nul - start + 1} (bytes {chunk.data[nul : nul + 8].hex(' ')})",
            line=chunk.line + chunk.data.count(b"\n", 0, nul) - 1,
        )


def check_complete(path: Path, last: Chunk, line: int, missing: str) -> None:
    """A map cut short is refused: its last line has no newline (cut mid-line), or a part
    every complete map of its linker has is `missing` (cut at a line boundary)."""
    if last.unterminated:
        tail = last.data[last.data.rfind(b"\n", 0, len(last.data) - 1) + 1 : -1]
        raise cut_short(str(path), line, tail)
    if missing:
        raise InputError(str(path), missing, "the end of the file (truncated?)", line=line)


class FileSlices:
    """Byte ranges of a map file, read when first needed (section names stay on disk
    until a section list is looked at); the file must not have changed meanwhile."""

    def __init__(self, path: Path) -> None:
        self.path = path
        st = os.stat(path)
        self.stamp = (st.st_size, st.st_mtime_ns, st.st_ino)

    def __call__(self, lo: NDArray[np.int64], hi: NDArray[np.int64]) -> list[bytes]:
        with open_regular(self.path) as f:
            st = os.fstat(f.fileno())
            if (st.st_size, st.st_mtime_ns, st.st_ino) != self.stamp:
                raise InputError(
                    str(self.path),
                    "the map unchanged while slim reads it",
                    "a file changed since it was parsed",
                )
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                return [mm[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True)]


def split_file_section(text: str) -> tuple[str, str]:
    """`C:\\x\\lib.a(m.o):(.text.f)` -> (`C:\\x\\lib.a(m.o)`, `.text.f`); split at the last `:(`."""
    cut = text.rfind(":(")
    if cut < 0 or not text.endswith(")"):
        return text, ""
    return text[:cut], text[cut + 2 : -1]


def is_unallocated(section: str) -> bool:
    """Sections that occupy no memory in the loaded program (metadata, debug info)."""
    return section.startswith(UNALLOCATED)


class _Tally:
    """What a map says about one input file (a plain class: a map has one per input)."""

    __slots__ = (
        "discarded",
        "discarded_bytes",
        "kept",
        "kept_bytes",
        "lazy_discarded",
        "lazy_kept",
        "line",
        "linked",
        "summed",
    )

    def __init__(self, line: int) -> None:
        self.kept: list[InputSection] = []
        self.discarded: list[InputSection] = []
        self.line = line
        self.linked = False
        self.kept_bytes = self.discarded_bytes = 0
        self.summed = False
        self.lazy_kept: SectionList | None = None
        self.lazy_discarded: SectionList | None = None


@dataclass
class InputTally:
    """Accumulates what a map says about each input file; `build()` gives `LinkInput`s."""

    files: dict[str, _Tally] = field(default_factory=dict)
    pulled: dict[str, PulledBy] = field(default_factory=dict)

    def _get(self, file: str, line: int) -> _Tally:
        t = self.files.get(file)
        if t is None:
            t = self.files[file] = _Tally(line)
        return t

    def kept(self, sec: InputSection) -> None:
        t = self._get(sec.file, sec.line)
        t.kept.append(sec)
        t.linked = True

    def discarded(self, sec: InputSection) -> None:
        t = self._get(sec.file, sec.line)
        t.discarded.append(sec)
        t.linked = True

    def add(
        self,
        file: str,
        kept: SectionList | None,
        discarded: SectionList | None,
        sums: tuple[int, int],
        first: int,
    ) -> None:
        """Lazily built sections of `file`, their byte totals and first line (bfd/gold)."""
        t = self._get(file, first)
        t.kept_bytes, t.discarded_bytes = sums
        t.summed = True
        t.lazy_kept, t.lazy_discarded = kept, discarded
        t.linked = True
        t.line = min(t.line, first) if t.line else first

    def linked(self, file: str, line: int) -> None:
        self._get(file, line).linked = True

    def pulled_by(self, member: str, by: PulledBy) -> None:
        self.pulled.setdefault(member, by)
        self._get(member, by.line).linked = True

    def build(self) -> tuple[LinkInput, ...]:
        out = []
        for file in sorted(self.files):
            t = self.files[file]
            archive, member = split_input(file)
            kept: Sequence[InputSection] = t.lazy_kept if t.lazy_kept is not None else tuple(t.kept)
            disc: Sequence[InputSection] = (
                t.lazy_discarded if t.lazy_discarded is not None else tuple(t.discarded)
            )
            out.append(
                LinkInput(
                    file=file,
                    archive=archive,
                    member=member,
                    linked=t.linked,
                    pulled_by=self.pulled.get(file),
                    kept_bytes=t.kept_bytes
                    if t.summed
                    else sum(s[2] for s in kept if not s[0].startswith(UNALLOCATED)),
                    discarded_bytes=t.discarded_bytes if t.summed else sum(s[2] for s in disc),
                    sections=kept,
                    discarded=disc,
                    line=t.line,
                )
            )
        return tuple(out)


def whole_archive_members(inputs: tuple[LinkInput, ...], pulled: dict[str, PulledBy]) -> list[str]:
    """Archives with members linked although no reference pulled them (bfd/gold maps).

    Such members come from `--whole-archive` (Bazel `alwayslink`); the archive is listed.
    """
    out = set()
    for i in inputs:
        if i.archive and i.linked and i.file not in pulled:
            out.add(i.archive)
    return sorted(out)
