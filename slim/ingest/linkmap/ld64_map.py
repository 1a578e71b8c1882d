"""Apple ld64 `-map` files (and ld64.lld's copy of the layout).

`# Path:`, `# Arch:`, `# Object files:` (`[  N] path`, members as `lib.a(m.o)`),
`# Sections:`, `# Symbols:` (address, size, `[  N]`, name: the rest of the line) and,
with `-dead_strip`, `# Dead Stripped Symbols:` (`<<dead>>`, size, file, name). Fields are
tab-separated; symbol names are never demangled and may contain spaces (Objective-C).
Symbols stand in for input sections: ld64 places atoms, not sections.
"""

from __future__ import annotations

import re
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_text_lines
from slim.ingest.linkmap._mapcommon import InputTally
from slim.model.native import InputSection, LinkMap

_FILE = re.compile(r"^\[\s*(\d+)\]\s(.*)$")
_SYMBOL = re.compile(r"^(0x[0-9A-Fa-f]+|<<dead>>)\t(0x[0-9A-Fa-f]+)\t\[\s*(\d+)\]\s(.*)$")
_SECTION = re.compile(r"^0x[0-9A-Fa-f]+\t0x[0-9A-Fa-f]+\t\S+\t\S+$")


def sniff(head: bytes, path: Path) -> bool:
    del path
    return head.startswith(b"# Path: ") and b"\n# Object files:" in head


def load(path: Path) -> list[object]:
    """An ld64 map as one `LinkMap` (linker `ld64`)."""
    files: dict[int, str] = {}
    tally = InputTally()
    output = ""
    part = ""
    has_dead = False
    lineno = 1
    for lineno, line in iter_text_lines(path, whole=True):
        if line.startswith("# "):
            if line.startswith("# Path: "):
                output = line[len("# Path: ") :]
            elif line.endswith(":"):
                part = line[2:-1]
                has_dead = has_dead or part == "Dead Stripped Symbols"
            continue
        if not line.strip():
            continue
        if part == "Object files":
            m = _FILE.match(line)
            if m is None:
                raise InputError(str(path), "'[  N] file'", describe_found(line), line=lineno)
            files[int(m.group(1))] = m.group(2)
            continue
        if part in ("Symbols", "Dead Stripped Symbols"):
            m = _SYMBOL.match(line)
            if m is None:
                raise InputError(
                    str(path),
                    "'ADDRESS<TAB>SIZE<TAB>[  N] name'",
                    describe_found(line),
                    line=lineno,
                )
            addr, size, idx, name = m.groups()
            file = files.get(int(idx))
            if file is None:
                raise InputError(
                    str(path),
                    "a file index listed under '# Object files'",
                    f"[{idx}]",
                    line=lineno,
                )
            if int(idx) == 0 or file == "linker synthesized":
                continue
            sec = InputSection(
                name, 0 if addr == "<<dead>>" else int(addr, 16), int(size, 16), file, lineno
            )
            if addr == "<<dead>>":
                tally.discarded(sec)
            else:
                tally.kept(sec)
            continue
        if part == "Sections" and _SECTION.match(line):
            continue
        if part not in ("Sections", "Arch"):
            raise InputError(str(path), "an ld64 map line", describe_found(line), line=lineno)
    if not files:
        raise InputError(str(path), "an ld64 map ('# Object files:')", "none", line=1)
    if part not in ("Symbols", "Dead Stripped Symbols"):  # every map lists its symbols
        raise InputError(
            str(path),
            "the map's '# Symbols:' list",
            "the end of the file (truncated?)",
            line=lineno,
        )
    for i, f in sorted(files.items()):
        if i and f != "linker synthesized":
            tally.linked(f, 0)
    notes = ["ld64 maps list atoms (symbols), not sections; no reasons for extraction"]
    if not has_dead:
        notes.append("no '# Dead Stripped Symbols': link with -dead_strip for GC evidence")
    return [
        LinkMap(
            path=str(path),
            linker="ld64",
            output=output,
            has_cref=False,
            has_gc_info=has_dead,
            inputs=tally.build(),
            notes=tuple(notes),
        )
    ]
