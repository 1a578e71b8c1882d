"""Dotted names in the text data files a program ships: `{"py/object": "models.point.Point"}`
for jsonpickle, `_target_: models.net.Net` for hydra, a registry's config. Loaders by name
in library code import what such a file names, and no source string shows it; the files
are read as bytes (never parsed or run), each up to a bound."""

from __future__ import annotations

import re
from pathlib import Path

MAX_DATA_BYTES = 1 << 20
MAX_DATA_FILES = 5000
#: What all the files of one closure may add up to (larger data is datasets, not config).
MAX_TOTAL_BYTES = 64 << 20
#: Files read for names: configuration and serialized-object formats.
TEXT_SUFFIXES = (
    ".json", ".jsonl", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".txt", ".xml",
    ".properties",
)  # fmt: skip
_DOTTED = re.compile(rb"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?::[A-Za-z_]\w*)?(?![\w])")
_CACHE: dict[str, tuple[tuple[int, str], ...]] = {}


def is_text_data(rel: str) -> bool:
    return rel.lower().endswith(TEXT_SUFFIXES)


def data_names(path: Path) -> tuple[tuple[tuple[int, str], ...], int]:
    """(line, dotted name) of each name with a dot in the file's first bytes (nothing
    when it cannot be read), and how many bytes were read."""
    key = str(path)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit, 0
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_DATA_BYTES)
    except OSError:
        data = b""
    out: set[tuple[int, str]] = set()
    line, last = 1, 0
    for m in _DOTTED.finditer(data):
        line += data.count(b"\n", last, m.start())
        last = m.start()
        out.add((line, m.group(1).decode("ascii")))
    found = tuple(sorted(out))
    _CACHE[key] = found
    return found, len(data)
