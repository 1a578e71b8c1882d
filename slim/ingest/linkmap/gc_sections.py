"""`--print-gc-sections` output of bfd, gold, lld and mold: the sections GC removed.

bfd: `<argv0>: removing unused section '<sec>' in file '<file>'` (skips zero-size
sections); gold: `... removing unused section from '<sec>' in file '<file>'`; lld and
mold: `removing unused section <file>:(<sec>)` (mold in nondeterministic order, so
entries are sorted). Other linker chatter (warnings) is kept as notes, not parsed.
"""

from __future__ import annotations

import re
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_lines, looks_binary, open_input
from slim.ingest.linkmap._mapcommon import split_file_section
from slim.model.native import GcEntry, GcReport

_GNU = re.compile(r"^(.*?): removing unused section (from )?'(.*)' in file '(.*)'$")
_LLVM = "removing unused section "
_GNU_START = re.compile(r"^(.*?): removing unused section (from )?'")


def sniff(head: bytes, path: Path) -> bool:
    del path
    if looks_binary(head):
        return False
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    return first.startswith(_LLVM) or _GNU.match(first) is not None


def load(path: Path) -> list[object]:
    """A `--print-gc-sections` capture as one `GcReport`."""
    entries: list[GcEntry] = []
    linker = ""
    notes: list[str] = []
    name = str(path)
    with open_input(path) as f:
        for lineno, raw in iter_lines(f, name, whole=True):
            line = raw.decode("utf-8", "surrogateescape")  # paths are bytes to a linker
            if line.strip():
                named = _line(path, lineno, line, entries, notes)
                linker = linker or named
    if not entries:
        raise InputError(str(path), "--print-gc-sections lines", "an empty file", line=1)
    entries.sort(key=lambda e: (e.file, e.section, e.line))
    return [GcReport(str(path), linker, tuple(entries), tuple(notes))]


def _line(path: Path, lineno: int, line: str, entries: list[GcEntry], notes: list[str]) -> str:
    """Read one line into `entries` (or `notes`); returns the linker it names, if any."""
    if line.startswith(_LLVM):
        file, section = split_file_section(line[len(_LLVM) :])
        if not section:
            raise InputError(
                str(path),
                "'removing unused section FILE:(SECTION)'",
                describe_found(line),
                line=lineno,
            )
        entries.append(GcEntry(file, section, lineno))
        return "lld/mold"
    m = _GNU.match(line)
    if m is not None:
        entries.append(GcEntry(m.group(4), m.group(3), lineno))
        return "gold" if m.group(2) else "bfd"
    if _GNU_START.match(line) or (not entries and not notes):
        # a GNU line cut inside a quoted name, or not a GC report at all
        raise InputError(
            str(path),
            "'removing unused section ...' (--print-gc-sections)",
            describe_found(line),
            line=lineno,
        )
    notes.append(f"{lineno}: {line[:200]}")
    return ""
