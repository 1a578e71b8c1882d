"""Where a CMake file API reply lives, found without reading it or importing the reader:
the cache stamps a reply by its files on every query, the reader reads it once."""

from __future__ import annotations

import os
import re
from pathlib import Path

INDEX = re.compile(r"index-.*\.json")


def has_index(directory: Path) -> bool:
    """Whether `directory` holds a reply index (one pass over its names, no stat)."""
    try:
        with os.scandir(directory) as it:
            return any(INDEX.fullmatch(e.name) for e in it if e.name.startswith("index-"))
    except OSError:
        return False


def reply_dir(path: Path) -> Path | None:
    """The reply directory `path` names (itself, its `.cmake/api/v1/reply`, an index's dir)."""
    if path.is_file():
        return path.parent if INDEX.fullmatch(path.name) else None
    if not path.is_dir():
        return None
    for d in (path, path / ".cmake" / "api" / "v1" / "reply"):
        if d.is_dir() and has_index(d):
            return d
    return None
