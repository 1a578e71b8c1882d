"""MSVC `link.exe /MAP` files (and `lld-link /map`): publics by value per object.

Header (module name, `Timestamp is`, preferred load address), the section groups
(`0001:00000000 00000056H .text CODE`) and `Publics by Value` rows
`SSSS:OOOOOOOO  name  RVA+BASE  [f] [i]  lib:object` (`lib` is the library's base
name; plain objects have no `lib:`). There is no discarded list: `/VERBOSE:REF` has it.
"""

from __future__ import annotations

import re
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_text_lines
from slim.ingest.linkmap._mapcommon import InputTally
from slim.model.native import InputSection, LinkMap

_PUBLIC = re.compile(
    r"^ ([0-9A-Fa-f]{4}):([0-9A-Fa-f]{8})\s+(\S+)\s+([0-9A-Fa-f]{8,16})(?:\s+[fi])*\s+(\S.*?)\s*$"
)


def sniff(head: bytes, path: Path) -> bool:
    del path
    lines = head.split(b"\n", 4)
    return len(lines) > 2 and lines[0].startswith(b" ") and lines[2].startswith(b" Timestamp is")


def load(path: Path) -> list[object]:
    """A `/MAP` file as one `LinkMap` (linker `msvc`); archive members become `lib.lib(obj)`."""
    tally = InputTally()
    module = ""
    in_publics = False
    seen_header = publics_seen = False
    lineno = 1
    for lineno, line in iter_text_lines(path, whole=True):
        if lineno == 1:
            module = line.strip()
            continue
        if line.startswith(" Timestamp is"):
            seen_header = True
            continue
        if "Publics by Value" in line:
            in_publics = publics_seen = True
            continue
        if line.startswith(" entry point at") or line.startswith(" Static symbols"):
            in_publics = False
            continue
        if not in_publics or not line.strip():
            continue
        m = _PUBLIC.match(line)
        if m is None:
            raise InputError(
                str(path),
                "'SSSS:OOOOOOOO name RVA+BASE lib:object'",
                describe_found(line),
                line=lineno,
            )
        _, _, name, rva, obj = m.groups()
        lib, sep, member = obj.partition(":")
        file = f"{lib}.lib({member})" if sep and member else obj
        tally.kept(InputSection(name, int(rva, 16), 0, file, lineno))
    if not seen_header:
        raise InputError(str(path), "an MSVC map (' Timestamp is' on line 3)", "none", line=1)
    if in_publics or not publics_seen:  # the publics list ends at ` entry point at`
        raise InputError(
            str(path),
            "the end of the 'Publics by Value' list (' entry point at' or ' Static symbols')",
            "the end of the file (truncated?)",
            line=lineno,
        )
    return [
        LinkMap(
            path=str(path),
            linker="msvc",
            output=module,
            has_cref=False,
            has_gc_info=False,
            inputs=tally.build(),
            notes=(
                "MSVC maps list publics only (no sizes, no discarded list): "
                "link with /VERBOSE:REF for what /OPT:REF removed",
            ),
        )
    ]
