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
from pathlib import Path
from typing import Any

from slim.errors import InputError, describe_found
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


def load(path: Path) -> ImportTrace:
    name = str(path)
    acc = TraceAccumulator(name, FORMAT)
    open_run = False
    seen_header = False
    with open_input(path) as f:
        for lineno, raw in iter_lines(f, name):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except (ValueError, RecursionError):
                raise InputError(
                    name, "a JSON object per line", describe_found(raw), line=lineno
                ) from None
            if not isinstance(rec, dict):
                raise InputError(name, "a JSON object per line", describe_found(raw), line=lineno)
            if MAGIC in rec:
                if rec[MAGIC] != 1:
                    raise InputError(
                        name,
                        f"{MAGIC} version 1",
                        describe_found(repr(rec[MAGIC])),
                        line=lineno,
                    )
                if open_run:
                    acc.notes.append(f"run {acc.runs} has no end record (the program was killed?)")
                acc.start_run()
                seen_header = open_run = True
                py = rec.get("python")
                if isinstance(py, str) and py and py not in acc.python.split(","):
                    acc.python = ",".join(filter(None, [acc.python, py]))
                continue
            if not seen_header:
                raise InputError(
                    name, f'a {{"{MAGIC}": 1, ...}} header line', describe_found(raw), line=lineno
                )
            if "import" in rec:
                module = _module(rec["import"], name, lineno, '"import"')
                importer = rec.get("importer") or NO_IMPORTER
                importer = _module(importer, name, lineno, '"importer"') if importer else ""
                at = rec.get("importer_line")
                acc.add(
                    module,
                    importer,
                    lineno,
                    import_line=at if isinstance(at, int) and not isinstance(at, bool) else None,
                )
            elif "exec" in rec:
                file = rec["exec"]
                if not isinstance(file, str) or not file:
                    raise InputError(name, '"exec": a file name', describe_found(raw), line=lineno)
                acc.files.add(source_file(file))
            elif "extension" in rec:
                module = _module(rec["extension"], name, lineno, '"extension"')
                file = rec.get("file")
                acc.set_file(module, file if isinstance(file, str) else "")
            elif rec.get("end") is True:
                code = rec.get("exit_code")
                if isinstance(code, int) and not isinstance(code, bool):
                    acc.exit_codes.append(code)
                failed = rec.get("failed", [])
                if not isinstance(failed, list):
                    raise InputError(
                        name, '"failed": a list of module names', describe_found(raw), line=lineno
                    )
                for m in failed:
                    acc.mark_failed(_module(m, name, lineno, '"failed"'), lineno)
                note = rec.get("note")
                if isinstance(note, str) and note:
                    acc.notes.append(note)
                open_run = False
            elif "error" in rec:
                raise InputError(
                    name, "a recorded run", f"the recorder's error: {rec['error']}", line=lineno
                )
            else:
                raise InputError(
                    name,
                    'a record with "import", "exec", "extension" or "end"',
                    describe_found(raw),
                    line=lineno,
                )
    if not seen_header:
        raise InputError(name, f'a {{"{MAGIC}": 1, ...}} header line', "an empty file", line=1)
    if open_run:
        acc.notes.append(f"run {acc.runs} has no end record (the program was killed?)")
    return acc.freeze()


def load_tsv(path: Path) -> ImportTrace:
    name = str(path)
    acc = TraceAccumulator(name, FORMAT_TSV)
    acc.start_run()
    rows = 0
    first = b""
    last = 0
    with open_input(path) as f:
        for lineno, raw in iter_lines(f, name):
            last = lineno
            if not first and raw.strip():
                first = raw
            text = raw.decode("utf-8", "replace")
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
