"""Pieces every linker-map reader shares: bounded chunked reading and per-input tallies.

Maps reach hundreds of MB; readers scan newline-aligned chunks with compiled regexes
(the per-line Python loop is the bottleneck), and a chunk never grows past
`Limits.max_line_bytes` of unterminated text, so a 2 GB line is an error, not a hang.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import DEFAULT_LIMITS, Limits, open_input
from slim.model.native import InputSection, LinkInput, PulledBy, split_input

CHUNK_BYTES = 8 * 1024 * 1024


def iter_chunks(
    path: Path, limits: Limits = DEFAULT_LIMITS, size: int = CHUNK_BYTES
) -> Iterator[tuple[int, bytes]]:
    """(1-based number of the chunk's first line, chunk) with every chunk ending at `\\n`.

    `\\r\\n` is folded to `\\n`. The last chunk gets a final newline if the file lacks one.
    """
    cap = limits.max_line_bytes
    lineno = 1
    pending = b""
    with open_input(path, limits) as f:
        while True:
            block = f.read(size)
            if not block:
                break
            data = pending + block if pending else block
            last = data.rfind(b"\n")
            if len(data) - (last + 1) > cap:
                line = lineno + data.count(b"\n", 0, last + 1)
                raise InputError(
                    str(path), f"a line of at most {cap} bytes", "a longer line", line=line
                )
            if last < 0:
                pending = data
                continue
            cut = _cut(data, last)
            chunk, pending = data[: cut + 1], data[cut + 1 :]
            if b"\r" in chunk:
                chunk = chunk.replace(b"\r\n", b"\n")
            yield lineno, chunk
            lineno += chunk.count(b"\n")
    if pending:
        yield lineno, pending.replace(b"\r\n", b"\n") + b"\n"


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


UNALLOCATED = (".comment", ".debug", ".note.GNU-stack", ".gnu.attributes", ".stab", ".zdebug")


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
        kept: list[InputSection],
        discarded: list[InputSection],
        kept_bytes: int,
        discarded_bytes: int,
    ) -> None:
        """Sections of `file` with their byte totals already summed (kept: loaded ones)."""
        first = min(x[0].line for x in (kept, discarded) if x)
        t = self._get(file, first)
        t.kept_bytes += kept_bytes
        t.discarded_bytes += discarded_bytes
        t.summed = True
        t.kept.extend(kept)
        t.discarded.extend(discarded)
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
            kept = tuple(t.kept)
            disc = tuple(t.discarded)
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
