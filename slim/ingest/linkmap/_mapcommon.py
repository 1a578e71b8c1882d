"""Pieces every linker-map reader shares: bounded chunked reading and per-input tallies.

Maps reach hundreds of MB; readers scan newline-aligned chunks with compiled regexes
(the per-line Python loop is the bottleneck), and a chunk never grows past
`Limits.max_line_bytes` of unterminated text, so a 2 GB line is an error, not a hang.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import DEFAULT_LIMITS, GZIP_MAGIC, Limits, open_input, open_regular
from slim.ingest.linkmap._gnu_rows import UNALLOCATED
from slim.model.native import InputSection, LinkInput, PulledBy, SectionList, split_input

CHUNK_BYTES = 8 * 1024 * 1024


def iter_chunks(
    path: Path, limits: Limits = DEFAULT_LIMITS, size: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """(number of the chunk's first line, chunk): each chunk starts with the newline that
    ends the previous line (a made-up one for the first) and ends at a newline.

    `\r\n` is folded to `\n`; a missing final newline is added. Plain files are sliced
    from an mmap (one copy per chunk); compressed ones are streamed.
    """
    size = size or CHUNK_BYTES
    with open_regular(path) as f:
        plain = f.read(2) != GZIP_MAGIC and os.fstat(f.fileno()).st_size > 0
        if plain:
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                yield from _mapped_chunks(mm, path, limits, size)
            return
    yield from _stream_chunks(path, limits, size)


def _mapped_chunks(
    mm: mmap.mmap, path: Path, limits: Limits, size: int
) -> Iterator[tuple[int, bytes]]:
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
                    str(path), f"a line of at most {cap} bytes", "a longer line", line=lineno
                )
            end = min(end + size, n)
            last = mm.rfind(b"\n", pos, end)
        if end == n:
            data = mm[pos:n]
            if not data.endswith(b"\n"):
                if n - (last + 1 if last >= 0 else pos) > cap:
                    line = lineno + data.count(b"\n")
                    raise InputError(
                        str(path), f"a line of at most {cap} bytes", "a longer line", line=line
                    )
                data += b"\n"
            chunk = b"\n" + data
        else:
            cut = _cut_mm(mm, pos, last)
            chunk = b"\n" + mm[pos : cut + 1] if pos == 0 else mm[pos - 1 : cut + 1]
            end = cut + 1
        if b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n")
        yield lineno, chunk
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


def _stream_chunks(path: Path, limits: Limits, size: int) -> Iterator[tuple[int, bytes]]:
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
            yield lineno, chunk
            lineno += chunk.count(b"\n") - 1
    if len(pending) > 1:
        tail = pending.replace(b"\r\n", b"\n")
        yield lineno, tail if tail.endswith(b"\n") else tail + b"\n"


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
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            str(path), "UTF-8 text", describe_found(raw[exc.start : exc.start + 8]), line=line
        ) from None


def check_text(path: Path, head: bytes) -> None:
    """Refuse binary data early (a NUL in the first chunk) with a byte offset."""
    nul = head.find(b"\x00")
    if nul >= 0:
        raise InputError(str(path), "a text linker map", "binary data (a NUL byte)", offset=nul)


def split_file_section(text: str) -> tuple[str, str]:
    """`C:\\x\\lib.a(m.o):(.text.f)` -> (`C:\\x\\lib.a(m.o)`, `.text.f`); split at the last `:(`."""
    cut = text.rfind(":(")
    if cut < 0 or not text.endswith(")"):
        return text, ""
    return text[:cut], text[cut + 2 : -1]


def is_unallocated(section: str) -> bool:
    """Sections that occupy no memory in the loaded program (metadata, debug info)."""
    return section.startswith(UNALLOCATED)


@dataclass
class _Tally:
    kept: list[InputSection] = field(default_factory=list)
    discarded: list[InputSection] = field(default_factory=list)
    line: int = 0
    linked: bool = False
    kept_bytes: int = 0
    discarded_bytes: int = 0
    summed: bool = False
    lazy_kept: SectionList | None = None
    lazy_discarded: SectionList | None = None


@dataclass
class InputTally:
    """Accumulates what a map says about each input file; `build()` gives `LinkInput`s."""

    files: dict[str, _Tally] = field(default_factory=dict)
    pulled: dict[str, PulledBy] = field(default_factory=dict)

    def _get(self, file: str, line: int) -> _Tally:
        t = self.files.get(file)
        if t is None:
            t = self.files[file] = _Tally(line=line)
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
            kept: Sequence[InputSection] = t.lazy_kept or tuple(t.kept)
            disc: Sequence[InputSection] = t.lazy_discarded or tuple(t.discarded)
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
