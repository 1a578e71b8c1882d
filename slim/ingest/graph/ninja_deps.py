"""`ninja -t deps`: the source and headers each object was compiled from (.ninja_deps).

Records are `<output>: #deps N, deps mtime T (VALID|STALE)`, N lines indented by 4 spaces
and a blank line, or `<output>: deps not found`; outputs may contain spaces. This is not a
graph between targets: it tells which object came from which source. An object under
`<dir>/CMakeFiles/<name>.dir/` belongs to the CMake target `//<dir>:<name>` (labels as in
`slim.ingest.graph.cmake_fileapi`): it is registered as that target's artifact, and the target
gets attrs `ninja_sources` (the first dep of each object, its source) and `ninja_headers`
(the other deps). Objects of no recognisable target, STALE records and `deps not found`
are counted in notes.
"""

from __future__ import annotations

import re
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_text_lines, looks_binary
from slim.ingest.graph.cmake_fileapi import cmake_label
from slim.model.graph import GraphBuilder

_RECORD = re.compile(r"^(.+): #deps (\d+), deps mtime (-?\d+) \((VALID|STALE)\)$")
_NOT_FOUND = re.compile(r"^(.+): deps not found$")
_CMAKE_OBJDIR = re.compile(r"^(?:(.*)/)?CMakeFiles/([^/]+)\.dir/")
INDENT = "    "


def sniff(head: bytes, path: Path) -> bool:
    if looks_binary(head):
        return False
    for raw in head.split(b"\n", 8)[:8]:
        line = raw.rstrip(b"\r").decode("utf-8", "replace")
        if not line.strip():
            continue
        return bool(_RECORD.match(line) or _NOT_FOUND.match(line))
    return False


def read_records(path: Path) -> tuple[list[tuple[str, list[str], bool]], int]:
    """(output, deps, stale) per record, and the number of `deps not found` outputs."""
    name = str(path)
    records: list[tuple[str, list[str], bool]] = []
    missing = 0
    current: tuple[str, list[str], bool] | None = None
    expected = 0
    start = 0
    lineno = 0
    for lineno, line in iter_text_lines(path, whole=True):
        if current is not None and len(current[1]) < expected:
            if not line.startswith(INDENT):
                raise InputError(
                    name,
                    f"dep {len(current[1]) + 1} of {expected} for {current[0]!r} "
                    f"(line {start}), indented by 4 spaces",
                    describe_found(line),
                    line=lineno,
                )
            current[1].append(line[len(INDENT) :])
            continue
        if not line.strip():
            current = None
            continue
        m = _RECORD.match(line)
        if m is not None:
            current = (m.group(1), [], m.group(4) == "STALE")
            expected = int(m.group(2))
            start = lineno
            records.append(current)
            continue
        m = _NOT_FOUND.match(line)
        if m is not None:
            missing += 1
            current = None
            continue
        what = "a blank line after the record's deps" if current is not None else "a record"
        raise InputError(
            name,
            f"{what} (`<output>: #deps N, deps mtime T (VALID|STALE)`)",
            describe_found(line),
            line=lineno,
        )
    if current is not None and len(current[1]) < expected:
        raise InputError(
            name,
            f"{expected} deps for {current[0]!r} (line {start})",
            f"end of file after {len(current[1])}",
            line=max(lineno, 1),
        )
    if current is not None:  # ninja ends every record with deps with a blank line
        raise InputError(
            name,
            f"the blank line ending the record of {current[0]!r} (line {start})",
            "the end of the file (truncated?)",
            line=lineno,
        )
    if not records and not missing:
        raise InputError(name, "a `ninja -t deps` record", "an empty file", line=1)
    return records, missing


def load(path: Path, builder: GraphBuilder) -> None:
    """Register each CMake object as its target's artifact with its sources and headers."""
    records, missing = read_records(path)
    sources: dict[str, set[str]] = {}
    headers: dict[str, set[str]] = {}
    unowned = stale = 0
    for output, deps, is_stale in records:
        stale += is_stale
        m = _CMAKE_OBJDIR.match(output)
        if m is None:
            unowned += 1
            continue
        label = cmake_label(m.group(1) or "", m.group(2))
        builder.add_artifact(output, label)
        srcs = sources.setdefault(label, set())
        hdrs = headers.setdefault(label, set())
        if deps:
            srcs.add(deps[0])
            hdrs.update(deps[1:])
    for label in sorted(sources):
        i = builder.intern(label)
        if sources[label]:
            builder.set_attr(i, "ninja_sources", tuple(sorted(sources[label])))
        if headers[label]:
            builder.set_attr(i, "ninja_headers", tuple(sorted(headers[label])))
    builder.notes.append(
        f"ninja deps {path.name}: object -> source/header records only, no target edges"
    )
    if unowned:
        builder.notes.append(
            f"ninja deps {path.name}: {unowned} output(s) outside CMakeFiles/<target>.dir/, "
            "owner unknown"
        )
    if stale:
        builder.notes.append(f"ninja deps {path.name}: {stale} STALE record(s) (rebuild needed)")
    if missing:
        builder.notes.append(f"ninja deps {path.name}: {missing} output(s) with deps not found")
