"""mold `-Map` files: lld's columns without LMA, VMA in hex with `0x`, Size/Align decimal.

`VMA Size Align Out In Symbol`; input rows are `file:(section)` indented 8 past `Out`.
Pseudo-chunks (`EHDR`, `PHDR`, `SHDR`, `.relro_padding`) are output rows. mold normalizes
paths and lists only inputs that contributed a section.
"""

from __future__ import annotations

from pathlib import Path

from slim.ingest.linkmap.lld_map import _HEADER_RE, ColumnMap


def sniff(head: bytes, path: Path) -> bool:
    del path
    first = head.split(b"\n", 1)[0].rstrip()
    return _HEADER_RE.match(first) is not None and b"LMA" not in first


def load(path: Path) -> list[object]:
    """A mold `-Map` file as one `LinkMap`."""
    return [ColumnMap(path, "mold", 10).run()]
