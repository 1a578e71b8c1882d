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
from slim.ingest._io import iter_text_lines, looks_binary
from slim.ingest.linkmap._mapcommon import split_file_section
from slim.model.native import GcEntry, GcReport

_GNU = re.compile(r"^(.*?): removing unused section (from )?'(.*)' in file '(.*)'$")
_LLVM = "removing unused section "


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
    for lineno, line in iter_text_lines(path):
        if not line.strip():
            continue
        if line.startswith(_LLVM):
            file, section = split_file_section(line[len(_LLVM) :])
            if not section:
                raise InputError(
                    str(path),
                    "'removing unused section FILE:(SECTION)'",
                    describe_found(line),
                    line=lineno,
                )
            linker = linker or "lld/mold"
            entries.append(GcEntry(file, section, lineno))
            continue
        m = _GNU.match(line)
        if m is not None:
            linker = linker or ("gold" if m.group(2) else "bfd")
            entries.append(GcEntry(m.group(4), m.group(3), lineno))
            continue
        if not entries and not notes:
            raise InputError(
                str(path),
                "'removing unused section ...' (--print-gc-sections)",
                describe_found(line),
                line=lineno,
            )
        notes.append(f"{lineno}: {line[:200]}")
    if not entries:
        raise InputError(str(path), "--print-gc-sections lines", "an empty file", line=1)
    entries.sort(key=lambda e: (e.file, e.section, e.line))
    return [GcReport(str(path), linker, tuple(entries), tuple(notes))]
