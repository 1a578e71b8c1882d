"""`python -v` stderr as an `ImportTrace`: `import 'name' # <loader>` lines, with importers.

`-v` prints `# code object from FILE` when a module's code starts (`# extension module
'name' loaded from FILE` for an extension, whose module code runs next) and
`import 'name'` (the name's repr: any name CPython can load, `-` and non-ASCII included)
when it has finished, so a stack of open code objects gives the importer of every
module. Failed imports print no `import` line (their open code object is dropped when
an enclosing module finishes). Other lines (`# trying`, `# cleanup`, program output)
are skipped. A complete trace ends with the interpreter's exit (`# clear builtins._`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_lines, open_input
from slim.ingest.python._names import unquote_repr, valid_module_name
from slim.model.pytrace import NO_IMPORTER, ImportTrace, TraceAccumulator, source_file

FORMAT = "python-verbose"
# `import {name!r} # {loader!r}`: the name is a repr, quoted with ' or " (and escaped).
_IMPORT = re.compile(rb"^import ('.*?'|\".*?\") # (.*)$")
_BOOT = re.compile(rb"^import (\S+) # (frozen|builtin|previously loaded .*)$")
_CODE = re.compile(rb"^# code object from '?([^']+?)'?$")
_EXT = re.compile(rb"^# extension module ('[^']+'|\"[^\"]+\") loaded from '?([^']+?)'?$")
_SNIFF = re.compile(
    rb"(?m)^(?:import (?:'[^'\s]+'|\"[^\"\s]+\") # <|# code object from |import _frozen_importlib )"
)


def sniff(head: bytes, path: Path) -> bool:
    return _SNIFF.search(head) is not None


@dataclass
class _Frame:
    """A module whose code is running: its file and the modules it imported so far."""

    stem: str
    children: list[str] = field(default_factory=list)


def _stem(path: str) -> str:
    """`/x/json/__pycache__/decoder.cpython-313.pyc` -> `/x/json/decoder`; `__init__` dropped."""
    p = path.replace("\\", "/")
    if "/__pycache__/" in p:
        d, _, fname = p.rpartition("/__pycache__/")
        p = d + "/" + fname.split(".", 1)[0]
    elif p.endswith((".py", ".pyc", ".pyw")):
        p = p.rsplit(".", 1)[0]
    if p.endswith("/__init__"):
        p = p[: -len("/__init__")]
    return p


def _matches(stem: str, module: str) -> bool:
    tail = module.replace(".", "/")
    return stem == tail or stem.endswith("/" + tail)


#: The first line of the interpreter's exit (`finalize_modules`, CPython 3.7-3.14): a
#: complete `-v` trace has it, one cut short (or of a killed program) does not.
SHUTDOWN = b"# clear builtins._"


class _Reader:
    """One pass over `-v` lines: a stack of running code objects gives each import's
    importer (the module whose code was running when it finished)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.acc = TraceAccumulator(name, FORMAT)
        self.acc.start_run()
        self.stack: list[_Frame] = []
        self.ext_files: dict[str, str] = {}
        self.imports = 0
        self.shutdown = False

    def line(self, lineno: int, raw: bytes) -> None:
        if raw.startswith(b"# code object from "):
            self.code_object(raw)
        elif raw.startswith(b"# extension module "):
            self.extension(raw)
        elif raw.startswith(b"import "):
            self.imported(lineno, raw)
        elif raw.startswith(SHUTDOWN):
            self.shutdown = True

    def code_object(self, raw: bytes) -> None:
        m = _CODE.match(raw)
        if m:
            code_file = m.group(1).decode("utf-8", "surrogateescape")
            self.acc.files.add(source_file(code_file))
            self.stack.append(_Frame(_stem(code_file)))

    def extension(self, raw: bytes) -> None:
        m = _EXT.match(raw)
        ext = unquote_repr(m.group(1).decode("utf-8", "surrogateescape")) if m else None
        if m and ext:
            self.ext_files[ext] = m.group(2).decode("utf-8", "surrogateescape")
            # A multi-phase extension (Cython, pybind11 >= 2.13) runs its code between
            # `loaded from` and its `import` line: it imports what follows, like a code
            # object would.
            self.stack.append(_Frame(ext.replace(".", "/")))

    def imported(self, lineno: int, raw: bytes) -> None:
        m = _IMPORT.match(raw) or _BOOT.match(raw)
        if m is None:
            return
        try:
            text = m.group(1).decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(
                self.name, "a UTF-8 module name", describe_found(raw), line=lineno
            ) from None
        module = unquote_repr(text) if m.re is _IMPORT else text
        if module is None or not valid_module_name(module):
            raise InputError(
                self.name, "a module name in `import '...'`", describe_found(raw), line=lineno
            )
        self.imports += 1
        file = self.ext_files.pop(module, "")
        stack = self.stack
        pos = next(
            (i for i in range(len(stack) - 1, -1, -1) if _matches(stack[i].stem, module)), -1
        )
        if pos >= 0:
            frame = stack[pos]
            file = file or frame.stem
            for child in frame.children:
                self.acc.set_importer(child, NO_IMPORTER, module)
            # Frames above it are modules whose import failed: their children stay
            # without a known importer.
            del stack[pos:]
        self.acc.add(module, NO_IMPORTER, lineno, file=file)
        if stack:
            stack[-1].children.append(module)


def load(path: Path) -> ImportTrace:
    """A `python -v` stderr capture; one cut short (mid-line, or before the interpreter's
    exit) is refused: its last imports and their importers would be missing."""
    name = str(path)
    reader = _Reader(name)
    last_line = 0
    first = b""
    with open_input(path) as f:
        for lineno, raw in iter_lines(f, name, whole=True):
            last_line = lineno
            if not first and raw.strip():
                first = raw
            reader.line(lineno, raw)
    if reader.imports == 0:
        found = describe_found(first) if first else "an empty file"
        if last_line:
            found = f"no such line in {last_line} lines (first: {found})"
        raise InputError(name, "`python -v` output (`import 'name' # <loader>`)", found, line=1)
    if not reader.shutdown:
        raise InputError(
            name,
            f"the interpreter's exit (`{SHUTDOWN.decode()}` and the cleanup after it: a "
            "complete -v trace ends with them)",
            "the end of the file (truncated, or the program was killed?)",
            line=last_line,
        )
    if reader.stack:
        reader.acc.notes.append(
            f"{len(reader.stack)} modules started but never finished importing "
            "(failed, or the main script): their imports have no known importer"
        )
    return reader.acc.freeze()
