"""Entry points of a group, remembered per interpreter and installed metadata.

Reading every installed distribution's metadata costs tens of milliseconds on each warm
query (and more with hundreds of packages); the answer changes only when a distribution
is added, removed or rewritten. So the cache key is the interpreter, `sys.path`, and for
each path entry the name of every `*.dist-info`/`*.egg-info` in it with the stat of its
`entry_points.txt` (a zip entry: its own stat): one directory scan per path entry.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

KEYS_KEPT = 16
"""Stamps remembered per group (`sys.path[0]` is the working directory of `python -m`)."""

EntryPoints = list[tuple[str, str]]


def metadata_stamp(paths: Sequence[str]) -> str:
    """A digest of what `importlib.metadata` would read entry points from."""
    h = hashlib.blake2b(sys.executable.encode(errors="replace"), digest_size=16)
    for p in paths:
        h.update(b"\0path\0" + p.encode(errors="replace"))
        try:
            names = sorted(
                e.name for e in os.scandir(p or ".") if e.name.endswith((".dist-info", ".egg-info"))
            )
        except OSError:
            h.update(_stat(p or "."))
            continue
        for name in names:
            h.update(b"\0" + name.encode(errors="replace") + b"\0")
            h.update(_stat(os.path.join(p or ".", name, "entry_points.txt")))
    return h.hexdigest()


def _stat(path: str) -> bytes:
    try:
        st = os.stat(path)
    except OSError:
        return b"-"
    return f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}".encode()


def cached_entry_points(
    group: str, cache: Path, read: Callable[[], EntryPoints], paths: Sequence[str] | None = None
) -> EntryPoints:
    """`read()`'s (name, value) pairs, from `cache` when the metadata stamp is unchanged;
    a cache that cannot be read or written only costs the read."""
    stamp = metadata_stamp(sys.path if paths is None else paths)
    file = cache / "entry-points" / f"{group}.json"
    try:
        kept = json.loads(file.read_text(encoding="utf-8"))
        if not isinstance(kept, dict):
            kept = {}
    except (OSError, ValueError):
        kept = {}
    hit = kept.get(stamp)
    if isinstance(hit, list) and all(
        isinstance(x, list) and len(x) == 2 and all(isinstance(s, str) for s in x) for x in hit
    ):
        return [(name, value) for name, value in hit]
    entries = read()
    kept.pop(stamp, None)
    kept[stamp] = [list(e) for e in entries]
    _save(file, dict(list(kept.items())[-KEYS_KEPT:]))
    return entries


def _save(file: Path, kept: dict[str, object]) -> None:
    tmp = file.with_name(f".{file.name}.{os.getpid()}")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(kept, sort_keys=False), encoding="utf-8")
        os.replace(tmp, file)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
