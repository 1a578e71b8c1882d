"""`python -X importtime` stderr (CPython 3.7 to 3.14, `=2` cached rows) as an `ImportTrace`.

Rows are `import time: SELF | CUMULATIVE | <2*depth spaces>NAME`, written when an import
finishes (children before their parent), so the importer of a row is the next row one
level shallower. NAME is whatever CPython printed (`_sysconfigdata__linux_x86_64-linux-gnu`,
non-ASCII names): any token without whitespace. Lines that are not rows are the
program's own stderr and are skipped; each header line starts a new run, so several runs
appended to one file merge.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_lines, open_input, split_lines
from slim.ingest.python._names import valid_module_name
from slim.model.pytrace import NO_IMPORTER, ImportTrace, TraceAccumulator

FORMAT = "python-importtime"
PREFIX = b"import time:"
_HEADER = re.compile(rb"^import time:\s+self \[us\] \| cumulative \| imported package\s*$")
_SNIFF = re.compile(rb"(?m)^import time:\s+(?:\d+|cached|self \[us\])\s+\|")
FAST_READ_BYTES = 64 << 20
_ROW_SHAPE = "a row `import time: SELF | CUMULATIVE | NAME`"
_ROW = re.compile(
    rb"import time: *(\d+|cached) *\| *(?:\d+|cached) *\| "
    rb"((?:  )*)([!-~]+) *$"
)


def sniff(head: bytes, path: Path) -> bool:
    return _SNIFF.search(head) is not None


def _number(field: bytes) -> bool:
    f = field.strip()
    return f.isdigit() or f == b"cached"


def load(path: Path) -> ImportTrace:
    name = str(path)
    acc = TraceAccumulator(name, FORMAT)
    # pending[d] = rows at depth d still waiting for their parent: (module, line)
    pending: list[list[tuple[str, int, bool]]] = []
    rows = 0
    other = 0
    first_other = b""
    last_line = 0
    last_raw = b""
    for lineno, raw in _lines(path, name):
        last_line, last_raw = lineno, raw
        if not raw.startswith(PREFIX):
            if raw.strip():
                other += 1
                if not first_other:
                    first_other = raw
            continue
        m = _ROW.match(raw)
        if m is not None:
            cached = m.group(1) == b"cached"
            depth = len(m.group(2)) >> 1
            module = m.group(3).decode("ascii")
        elif _HEADER.match(raw):
            _close_run(acc, pending)
            pending = []
            acc.start_run()
            continue
        else:
            module, depth, cached = _slow_row(raw, name, lineno)
        rows += 1
        while len(pending) <= depth + 1:
            pending.append([])
        children = pending[depth + 1]
        for child, at, was_cached in children:
            acc.add(child, module, at, cached=was_cached)
        children.clear()
        deeper = [c for level in pending[depth + 2 :] for c in level]
        if deeper:
            acc.notes.append(
                f"line {lineno}: rows nested more than one level below {module} "
                "(interleaved threads?): their importer is unknown"
            )
            for level in pending[depth + 2 :]:
                for child, at, was_cached in level:
                    acc.add(child, NO_IMPORTER, at, cached=was_cached)
                level.clear()
        pending[depth].append((module, lineno, cached))
    if rows == 0:
        found = describe_found(first_other) if first_other else "an empty file"
        if last_line:
            found = f"no such row in {last_line} lines (first: {found})"
        raise InputError(name, f"`-X importtime` output ({_ROW_SHAPE})", found, line=1)
    open_rows = [c for level in pending[1:] for c in level]
    if open_rows and last_raw.startswith(PREFIX):
        # The file stops inside an import: a complete run ends with a depth-0 row.
        raise InputError(
            name,
            "a complete trace (the last row at depth 0)",
            f"it ends inside the import of {open_rows[-1][0]} (truncated?)",
            line=last_line,
        )
    _close_run(acc, pending)
    if other:
        acc.notes.append(f"{other} lines that are not importtime rows were skipped")
    return acc.freeze()


def _lines(path: Path, name: str) -> Iterator[tuple[int, bytes]]:
    """(line number, line): one read for the usual trace, bounded streaming for a huge one."""
    with open_input(path) as f:
        try:
            small = os.fstat(f.fileno()).st_size <= FAST_READ_BYTES
        except OSError:
            small = False  # gzip: streamed
        if not small:
            yield from iter_lines(f, name, whole=_is_row)
            return
        data = f.read()
    yield from enumerate(split_lines(data, name, whole=_is_row), 1)


def _is_row(line: bytes) -> bool:
    """A row, or the start of one: a last line like this without newline was cut short
    (other lines are the program's own stderr, which may end without one)."""
    return line.startswith(PREFIX) or PREFIX.startswith(line)


def _slow_row(raw: bytes, name: str, lineno: int) -> tuple[str, int, bool]:
    """A row the fast pattern missed: non-ASCII names, odd spacing, or bad input."""
    parts = raw[len(PREFIX) :].split(b"|", 2)
    if len(parts) != 3 or not _number(parts[0]) or not _number(parts[1]):
        raise InputError(name, _ROW_SHAPE, describe_found(raw), line=lineno)
    field = parts[2]
    if not field.startswith(b" "):
        raise InputError(name, _ROW_SHAPE, describe_found(raw), line=lineno)
    stripped = field.lstrip(b" ")
    depth = (len(field) - len(stripped) - 1) // 2
    try:
        module = stripped.rstrip().decode("utf-8")
    except UnicodeDecodeError:
        module = ""
    if not valid_module_name(module):
        raise InputError(
            name, "a module name in an importtime row", describe_found(raw), line=lineno
        )
    return module, depth, parts[0].strip() == b"cached"


def _close_run(acc: TraceAccumulator, pending: list[list[tuple[str, int, bool]]]) -> None:
    """Rows still waiting for a parent when a run ends: top-level ones, or orphans."""
    orphans = [c for level in pending[1:] for c in level]
    for level in pending:
        for module, at, cached in level:
            acc.add(module, NO_IMPORTER, at, cached=cached)
    if orphans:
        acc.notes.append(
            f"run {acc.runs}: {len(orphans)} rows never got their parent row "
            "(run cut short?): their importer is unknown"
        )
