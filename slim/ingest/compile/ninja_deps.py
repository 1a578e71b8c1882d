"""`ninja -t deps` as compile-time evidence: each object, its source and its headers.

The same text the graph reader `slim.ingest.graph.ninja_deps` reads (it registers objects
as artifacts); here every VALID record becomes a `CompiledObject` (first dep the source,
the rest headers), with the line its record starts on. STALE records are kept (the
headers of the last successful compile) and counted in notes.
"""

from __future__ import annotations

from pathlib import Path

from slim.ingest.graph import ninja_deps as _graph
from slim.model.compile import CompileDeps, CompiledObject


def sniff(head: bytes, path: Path) -> bool:
    return _graph.sniff(head, path)


def load(path: Path) -> list[CompileDeps]:
    records, missing = _graph.read_records(path)
    lines = _record_lines(path)
    objects = []
    stale = 0
    for n, (output, deps, is_stale) in enumerate(records):
        stale += is_stale
        if deps:
            objects.append(CompiledObject(output, deps[0], tuple(deps[1:]), lines[n]))
    notes = []
    if stale:
        notes.append(f"{stale} STALE record(s) (rebuild needed)")
    if missing:
        notes.append(f"{missing} output(s) with deps not found")
    return [CompileDeps(str(path), "ninja-deps", tuple(objects), "", tuple(notes))]


def _record_lines(path: Path) -> list[int]:
    from slim.ingest._io import iter_text_lines

    return [n for n, line in iter_text_lines(path) if _graph._RECORD.match(line)]
