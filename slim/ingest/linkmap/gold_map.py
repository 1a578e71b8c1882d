"""gold `-Map` files: bfd's layout with gold's headings and `** synthetic` rows.

gold writes `Archive member included because of file (symbol)`, `Discarded input
sections`, `Memory map` and (with `--cref`) a cross-reference table limited to the
inputs' own symbols; the shared GNU-map parser in `ld_map` reads all of it.
"""

from __future__ import annotations

from pathlib import Path

from slim.ingest.linkmap.ld_map import DISCARDED, GOLD_MEMBERS, GOLD_MEMMAP, gold_memory_map, parse


def sniff(head: bytes, path: Path) -> bool:
    first = head.lstrip(b"\n").split(b"\n", 1)[0].rstrip()
    if first in (GOLD_MEMBERS, GOLD_MEMMAP):
        return True
    return first == DISCARDED and gold_memory_map(head, path)


def load(path: Path) -> list[object]:
    """A gold `-Map` file as one `LinkMap`."""
    return [parse(path, "gold")]
