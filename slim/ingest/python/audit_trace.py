"""Audit-hook import recordings: slim's own JSON lines (`slim trace`) and the tab form.

The JSON-lines format `slim trace` writes, one object per line:

    {"slim-import-trace": 1, "python": "3.11.7", "argv": ["-m", "app"]}   a run starts
    {"import": "json", "importer": "app.main", "importer_line": 3}        a module loads
    {"extension": "_json", "file": ".../_json.cpython-311-x86_64-linux-gnu.so"}
    {"end": true, "exit_code": 0, "failed": ["missing_mod"]}             the run ended

The `tsv` variant reads `import<TAB>module<TAB>filename=...` lines printed by a plain
`sys.addaudithook` script (the samples under tests/data/python/audit/): no importers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from slim.errors import InputError, describe_found, describe_value
from slim.ingest._io import iter_lines, open_input
from slim.ingest.python._names import valid_module_name
from slim.model.pytrace import NO_IMPORTER, ImportTrace, TraceAccumulator, source_file

FORMAT = "slim-import-trace"
FORMAT_TSV = "python-audit-tsv"
MAGIC = "slim-import-trace"
_TSV_SNIFF = re.compile(rb"(?m)^import\t[^\t\s]+\tfilename=")
_TSV_ROW = re.compile(r"^import\t([^\t]+)\tfilename=(None|'.*'|\".*\")(?:\t.*)?$")
_VERSION = re.compile(r"^python (\d+\.\d+(?:\.\d+)?)\s*$")


def sniff(head: bytes, path: Path) -> bool:
    return head.lstrip().startswith(b'{"' + MAGIC.encode() + b'"')


def sniff_tsv(head: bytes, path: Path) -> bool:
    return _TSV_SNIFF.search(head) is not None


def _module(value: Any, name: str, lineno: int, what: str) -> str:
    if not isinstance(value, str) or not valid_module_name(value):
        raise InputError(name, f"a module name in {what}", describe_found(repr(value)), line=lineno)
    return value


Where = tuple[str, int]
"""(file, line) of a record, for its errors."""


def _typed(
    rec: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str, at: Where
) -> Any:
    """`rec[key]` when present and not null, which must be of `kind` (bool is not int)."""
    value = rec.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise InputError(
            at[0],
            f'"{key}": {what}',
            describe_value(value),
            line=at[1],
        )
    return value


class _Recording:
    """The records of `slim trace` runs; each run starts with a header record and ends
    with its end record (`slim trace` writes one even for a killed program)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.acc = TraceAccumulator(name, FORMAT)
        self.open_line = 0  # the header line of the run still open (0: none)
        self.seen_header = False

    def record(self, rec: dict[str, Any], raw: bytes, lineno: int) -> None:
        at = (self.name, lineno)
        if MAGIC in rec:
            self.header(rec, at)
            return
        if not self.seen_header:
            raise InputError(
                self.name, f'a {{"{MAGIC}": 1, ...}} header line', describe_found(raw), line=lineno
            )
        if self.open_line == 0:
            raise InputError(
                self.name,
                f'a {{"{MAGIC}": 1, ...}} header starting the next run',
                describe_found(raw),
                line=lineno,
            )
        for key, handler in self._handlers():
            if key in rec:
                handler(rec, at)
                return
        if "error" in rec:
            raise InputError(
                self.name, "a recorded run", f"the recorder's error: {rec['error']}", line=lineno
            )
        raise InputError(
            self.name,
            'a record with "import", "exec", "extension" or "end"',
            describe_found(raw),
            line=lineno,
        )

    def _handlers(self) -> tuple[tuple[str, Callable[[dict[str, Any], Where], None]], ...]:
        return (
            ("import", self.imported),
            ("exec", self.executed),
            ("extension", self.extension),
            ("end", self.end),
        )

    def header(self, rec: dict[str, Any], at: Where) -> None:
        if rec[MAGIC] != 1 or isinstance(rec[MAGIC], bool):
            raise InputError(
                at[0], f"{MAGIC} version 1", describe_found(repr(rec[MAGIC])), line=at[1]
            )
        if self.open_line:
            raise InputError(
                at[0],
                f"the end record of the run started at line {self.open_line} before a new run",
                "a new run's header (the recording was cut short?)",
                line=at[1],
            )
        self.acc.start_run()
        self.seen_header = True
        self.open_line = at[1]
        py = _typed(rec, "python", str, "a version string", at)
        argv = _typed(rec, "argv", list, "a list of strings", at)
        if argv is not None and not all(isinstance(a, str) for a in argv):
            raise InputError(
                at[0], '"argv": a list of strings', describe_found(repr(argv)), line=at[1]
            )
        if py and py not in self.acc.python.split(","):
            self.acc.python = ",".join(filter(None, [self.acc.python, py]))

    def imported(self, rec: dict[str, Any], at: Where) -> None:
        module = _module(rec["import"], at[0], at[1], '"import"')
        importer = _typed(rec, "importer", str, 'a module name (or "")', at) or NO_IMPORTER
        if importer:
            importer = _module(importer, at[0], at[1], '"importer"')
        line = _typed(rec, "importer_line", int, "a line number", at)
        self.acc.add(module, importer, at[1], import_line=line)

    def executed(self, rec: dict[str, Any], at: Where) -> None:
        file = _typed(rec, "exec", str, "a file name", at)
        if not file:
            raise InputError(at[0], '"exec": a file name', describe_found(repr(file)), line=at[1])
        self.acc.files.add(source_file(file))

    def extension(self, rec: dict[str, Any], at: Where) -> None:
        module = _module(rec["extension"], at[0], at[1], '"extension"')
        self.acc.set_file(module, _typed(rec, "file", str, "a file name", at) or "")

    def end(self, rec: dict[str, Any], at: Where) -> None:
        if rec["end"] is not True:
            raise InputError(at[0], '"end": true', describe_found(repr(rec["end"])), line=at[1])
        code = _typed(rec, "exit_code", int, "an exit status", at)
        if code is not None:
            self.acc.exit_codes.append(code)
        failed = _typed(rec, "failed", list, "a list of module names", at) or []
        for m in failed:
            self.acc.mark_failed(_module(m, at[0], at[1], '"failed"'), at[1])
        note = _typed(rec, "note", str, "a string", at)
        if note:
            self.acc.notes.append(note)
        self.open_line = 0


def load(path: Path) -> ImportTrace:
    """A `slim trace` recording: JSON lines, each run from its header to its end record;
    a recording cut short (a last line without newline, a run without end) is refused."""
    name = str(path)
    rec_ = _Recording(name)
    last = 0
    with open_input(path) as f:
        for lineno, raw in iter_lines(f, name, whole=True):
            last = lineno
            if raw.strip():
                rec_.record(_json_object(raw, name, lineno), raw, lineno)
    if not rec_.seen_header:
        raise InputError(name, f'a {{"{MAGIC}": 1, ...}} header line', "an empty file", line=1)
    if rec_.open_line:
        raise InputError(
            name,
            f'the end record ({{"end": true, ...}}) of the run started at line {rec_.open_line}',
            "the end of the file (the recording was cut short?)",
            line=last,
        )
    return rec_.acc.freeze()


def _json_object(raw: bytes, name: str, lineno: int) -> dict[str, Any]:
    try:
        rec = json.loads(raw)
    except (ValueError, RecursionError):
        raise InputError(name, "a JSON object per line", describe_found(raw), line=lineno) from None
    if not isinstance(rec, dict):
        raise InputError(name, "a JSON object per line", describe_found(raw), line=lineno)
    return rec


def load_tsv(path: Path) -> ImportTrace:
    name = str(path)
    acc = TraceAccumulator(name, FORMAT_TSV)
    acc.start_run()
    rows = 0
    first = b""
    last = 0
    with open_input(path) as f:
        for lineno, raw in iter_lines(f, name, whole=_is_tsv_row):
            last = lineno
            if not first and raw.strip():
                first = raw
            text = raw.decode("utf-8", "surrogateescape")
            v = _VERSION.match(text)
            if v:
                acc.python = v.group(1)
                continue
            if not text.startswith("import\t"):
                continue
            m = _TSV_ROW.match(text)
            if m is None:
                raise InputError(
                    name,
                    "`import<TAB>module<TAB>filename=...`",
                    describe_found(raw),
                    line=lineno,
                )
            module = _module(m.group(1), name, lineno, "an audit row")
            rows += 1
            file = m.group(2)
            acc.add(module, NO_IMPORTER, lineno, file=file[1:-1] if file != "None" else "")
    if rows == 0:
        found = describe_found(first) if first else "an empty file"
        if last:
            found = f"no such row in {last} lines (first: {found})"
        raise InputError(name, "audit-hook `import` rows", found, line=1)
    acc.notes.append("audit events are in load order without nesting: importers unknown")
    return acc.freeze()


def _is_tsv_row(line: bytes) -> bool:
    """An audit row or the start of one: cut short when it is the last line unterminated."""
    return line.startswith(b"import\t") or b"import\t".startswith(line)
