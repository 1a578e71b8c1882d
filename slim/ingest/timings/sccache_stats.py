"""sccache `--show-stats --stats-format=json`: the compiler cache's hits and misses.

sccache counts per language (`C/C++`, `CUDA`, `Rust`, …) over everything its server
compiled since it started (or since `--zero-stats`): no per-target figure, so the ratio of
a language applies to every target of that language, and the basis says so. Read from
the real output of sccache 0.16 (`stats.cache_hits.counts`, `stats.cache_misses.counts`).
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from slim.errors import InputError, describe_found
from slim.ingest._io import open_input
from slim.model.timing import CacheStats

MAX_BYTES = 16 << 20


class _Counts(msgspec.Struct):
    counts: dict[str, int] = {}


class _Stats(msgspec.Struct):
    cache_hits: _Counts
    cache_misses: _Counts
    compile_requests: int = 0
    requests_not_cacheable: int = 0
    non_cacheable_compilations: int = 0


class _Doc(msgspec.Struct):
    stats: _Stats
    cache_location: str = ""
    version: str = ""


_DECODE = msgspec.json.Decoder(_Doc)


def sniff(head: bytes, path: Path) -> bool:
    del path
    return (
        head.lstrip().startswith(b"{")
        and b'"cache_hits"' in head
        and b'"cache_misses"' in head
        and b'"stats"' in head
    )


def load(path: Path) -> list[CacheStats]:
    return [read_sccache_stats(path)]


def read_sccache_stats(path: Path) -> CacheStats:
    name = str(path)
    with open_input(path) as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise InputError(name, f"sccache stats of at most {MAX_BYTES} bytes", "a larger file")
    try:
        doc = _DECODE.decode(data)
    except msgspec.DecodeError as exc:
        line = data[: _byte_of(str(exc))].count(b"\n") + 1
        raise InputError(
            name,
            f"sccache --show-stats --stats-format=json ({exc})",
            describe_found(data[:40]),
            line=line,
        ) from None
    st = doc.stats
    langs = sorted(set(st.cache_hits.counts) | set(st.cache_misses.counts))
    rows = tuple(
        (lang, int(st.cache_hits.counts.get(lang, 0)), int(st.cache_misses.counts.get(lang, 0)))
        for lang in langs
    )
    for lang, h, m in rows:
        if h < 0 or m < 0:
            raise InputError(name, "counts >= 0", f"{lang}: {h} hits, {m} misses", line=1)
    hits, misses = sum(r[1] for r in rows), sum(r[2] for r in rows)
    notes = [f"sccache {doc.version or '?'}: {hits} hits, {misses} misses ({doc.cache_location})"]
    if st.non_cacheable_compilations or st.requests_not_cacheable:
        notes.append(
            f"{st.requests_not_cacheable} requests not cacheable, "
            f"{st.non_cacheable_compilations} non-cacheable compilations (not in the ratio)"
        )
    return CacheStats(source=name, format="sccache-stats", by_language=rows, notes=tuple(notes))


def _byte_of(message: str) -> int:
    at = message.rfind("at byte ")
    digits = "".join(ch for ch in message[at + 8 :] if ch.isdigit()) if at >= 0 else ""
    return int(digits) if digits else 0
