"""Python import traces as facts: which modules one or more runs loaded, and who imported them.

Every trace reader (`-X importtime`, `python -v`, slim's own audit-hook recording) returns
an `ImportTrace`; several traces of the same binary merge with `merge_traces` (union over
runs, with the number of runs that loaded each module).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

#: The importer of a module loaded at top level, or whose importer the trace does not say.
NO_IMPORTER = ""


class TracedModule(NamedTuple):
    """One module a trace shows loaded: by whom, in how many runs, first seen at `line`.

    A NamedTuple rather than a frozen dataclass: a trace has tens of thousands of them
    and building frozen dataclasses dominated the time to read one.
    """

    name: str
    importers: tuple[str, ...]
    runs: int
    line: int
    failed: bool = False
    cached_only: bool = False
    file: str = ""
    import_line: int | None = None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "name": self.name,
            "importers": list(self.importers),
            "runs": self.runs,
            "line": self.line,
        }
        if self.failed:
            out["failed"] = True
        if self.cached_only:
            out["cached_only"] = True
        if self.file:
            out["file"] = self.file
        if self.import_line is not None:
            out["import_line"] = self.import_line
        return out


@dataclass(frozen=True, slots=True)
class ImportTrace:
    """The imports of one or more runs of a program, read from `path` as `format`."""

    path: str
    format: str
    runs: int
    modules: tuple[TracedModule, ...]
    python: str = ""
    exit_codes: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()
    #: Python files the runs executed (`-v` code objects, `exec` audit events), with or
    #: without an import: a plugin loaded from a path shows up only here.
    files: tuple[str, ...] = ()

    @property
    def sees_importlib(self) -> bool:
        """`-X importtime` prints no row for `importlib.import_module` loads or executed files."""
        return all(f != "python-importtime" for f in self.format.split("+"))

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.modules if m.failed)

    def names(self) -> frozenset[str]:
        """Modules loaded (or imported again from cache) in at least one run."""
        return frozenset(m.name for m in self.modules if not m.failed)

    def by_name(self) -> dict[str, TracedModule]:
        return {m.name: m for m in self.modules}

    def as_dict(self) -> dict[str, object]:
        """Canonical JSON-ready form (golden files, `slim dump`)."""
        return {
            "path": self.path,
            "format": self.format,
            "runs": self.runs,
            "python": self.python,
            "exit_codes": list(self.exit_codes),
            "notes": list(self.notes),
            "failed": list(self.failed),
            "modules": [m.as_dict() for m in self.modules],
        }


@dataclass
class TraceAccumulator:
    """Collects rows of one trace file run by run; `freeze()` gives the `ImportTrace`."""

    path: str
    format: str
    runs: int = 0
    python: str = ""

    def __post_init__(self) -> None:
        self._importers: dict[str, set[str]] = {}
        self._runs: dict[str, int] = {}
        self._last_run: dict[str, int] = {}
        self._line: dict[str, int] = {}
        self._loaded: set[str] = set()
        self._failed: set[str] = set()
        self._ok: set[str] = set()
        self._files: dict[str, str] = {}
        self._import_line: dict[str, int] = {}
        self.exit_codes: list[int] = []
        self.notes: list[str] = []
        self.files: set[str] = set()

    def start_run(self) -> None:
        self.runs += 1

    def add(
        self,
        name: str,
        importer: str,
        line: int,
        *,
        cached: bool = False,
        failed: bool | None = None,
        file: str = "",
        import_line: int | None = None,
    ) -> None:
        """One module seen in the current run (`failed=None`: the trace does not say)."""
        runs = self.runs
        if runs == 0:
            self.runs = runs = 1
        imps = self._importers.get(name)
        if imps is None:
            self._line[name] = line
            self._importers[name] = {importer}
            self._last_run[name] = runs
            self._runs[name] = 1
        else:
            imps.add(importer)
            if line < self._line[name]:
                self._line[name] = line
            if self._last_run[name] != runs:
                self._last_run[name] = runs
                self._runs[name] += 1
        if not cached:
            self._loaded.add(name)
        if failed is not None:
            (self._failed if failed else self._ok).add(name)
        if file and name not in self._files:
            self._files[name] = file
        if import_line is not None and name not in self._import_line:
            self._import_line[name] = import_line

    def mark_failed(self, name: str, line: int) -> None:
        """The run reports that importing `name` failed."""
        if name in self._line:
            self._failed.add(name)
        else:
            self.add(name, NO_IMPORTER, line, failed=True)

    def set_importer(self, name: str, old: str, new: str) -> None:
        imps = self._importers.get(name)
        if imps is not None and old in imps and old != new:
            imps.discard(old)
            imps.add(new)

    def set_file(self, name: str, file: str) -> None:
        if name in self._line and file:
            self._files.setdefault(name, file)

    def freeze(self) -> ImportTrace:
        mods = tuple(
            TracedModule(
                name=n,
                importers=tuple(sorted(self._importers[n])),
                runs=self._runs[n],
                line=self._line[n],
                failed=n in self._failed and n not in self._ok,
                cached_only=n not in self._loaded,
                file=self._files.get(n, ""),
                import_line=self._import_line.get(n),
            )
            for n in sorted(self._line)
        )
        return ImportTrace(
            path=self.path,
            format=self.format,
            runs=self.runs,
            modules=mods,
            python=self.python,
            exit_codes=tuple(self.exit_codes),
            notes=tuple(dict.fromkeys(self.notes)),
            files=tuple(sorted(self.files)),
        )


def merge_traces(traces: Sequence[ImportTrace], path: str = "") -> ImportTrace:
    """Union of several traces of one binary: runs add up, importers unite."""
    if len(traces) == 1 and not path:
        return traces[0]
    by_name: dict[str, list[TracedModule]] = {}
    for t in traces:
        for m in t.modules:
            by_name.setdefault(m.name, []).append(m)
    mods = []
    for name in sorted(by_name):
        ms = by_name[name]
        mods.append(
            TracedModule(
                name=name,
                importers=tuple(sorted({i for m in ms for i in m.importers})),
                runs=sum(m.runs for m in ms),
                line=ms[0].line,
                failed=all(m.failed for m in ms),
                cached_only=all(m.cached_only for m in ms),
                file=next((m.file for m in ms if m.file), ""),
                import_line=ms[0].import_line,
            )
        )
    return ImportTrace(
        path=path or ",".join(t.path for t in traces),
        format="+".join(sorted({t.format for t in traces})),
        runs=sum(t.runs for t in traces),
        modules=tuple(mods),
        python=",".join(sorted({t.python for t in traces if t.python})),
        exit_codes=tuple(c for t in traces for c in t.exit_codes),
        notes=tuple(dict.fromkeys(n for t in traces for n in t.notes)),
        files=tuple(sorted({f for t in traces for f in t.files})),
    )


def source_file(path: str) -> str:
    """The source a trace's file names: `/x/pkg/__pycache__/m.cpython-311.pyc` -> `/x/pkg/m.py`."""
    p = path.replace("\\", "/")
    if "/__pycache__/" in p:
        d, _, fname = p.rpartition("/__pycache__/")
        return f"{d}/{fname.split('.', 1)[0]}.py"
    if p.endswith(".pyc"):
        return p[:-1]
    return p


def module_prefixes(name: str) -> Iterable[str]:
    """`a.b.c` -> `a`, `a.b`, `a.b.c`: importing a submodule runs every parent package."""
    pos = name.find(".")
    while pos >= 0:
        yield name[:pos]
        pos = name.find(".", pos + 1)
    yield name


class StaticImport(NamedTuple):
    """One import a source file makes, resolved to an absolute module name, with its context.

    `names` are the names of a `from m import a, b` (each may be a submodule `m.a`);
    `lazy` = inside a function, `optional` = guarded by `except ImportError`,
    `typing` = under `if TYPE_CHECKING`, `dynamic` = `importlib.import_module("literal")`
    or `__import__("literal")`. A NamedTuple: tens of thousands are built per scan.
    """

    module: str
    line: int
    names: tuple[str, ...] = ()
    lazy: bool = False
    optional: bool = False
    typing: bool = False
    dynamic: bool = False
    via: str = ""

    @property
    def kind(self) -> str:
        if self.typing:
            return "typing-only"
        if self.optional:
            return "optional"
        if self.lazy:
            return "lazy"
        if self.dynamic:
            return "importlib"
        return "top-level"

    @property
    def eager(self) -> bool:
        """Runs whenever the importing module is imported."""
        return not (self.lazy or self.optional or self.typing)

    def candidates(self) -> tuple[str, ...]:
        """Module names this statement may load: `m`, and `m.a` for `from m import a`
        (`from m import *` loads what `m.__all__` names: see the import view)."""
        return (self.module, *(f"{self.module}.{n}" for n in self.names if n != "*"))

    def describe(self) -> str:
        text = f"from {self.module} import {', '.join(self.names)}" if self.names else self.module
        if self.dynamic:
            text = f'{self.via or "import_module"}("{self.module}")'
        elif not self.names:
            text = f"import {text}"
        return f"{text} ({self.kind})"

    def as_dict(self) -> dict[str, object]:
        return {
            "module": self.module,
            "line": self.line,
            "names": list(self.names),
            "kind": self.kind,
            "lazy": self.lazy,
            "optional": self.optional,
            "typing": self.typing,
            "dynamic": self.dynamic,
        }


class Loader(NamedTuple):
    """Code that loads modules no static import names: the static scan cannot say which.

    `kind`: `computed` (`import_module(f"plugins.{x}")`: `prefix` is the literal head of
    the name, "" when nothing is literal), `file` (`spec_from_file_location`, `runpy.
    run_path`, `SourceFileLoader`, `exec` of a computed string: any file), `entry-points`
    (`entry_points(group=...)`: `prefix` is the group, "" when computed), `by-data`
    (`pickle.load`, `logging.config.fileConfig`: imports whatever its input names),
    `discover` (unittest discovery: `prefix` is the file pattern, `*` when computed),
    `path` (a `sys.path` change: an import may then load a file by a shorter name),
    `spawn` (a process running the interpreter: its imports are in no trace), `dist`
    (`importlib.metadata.version("PyYAML")`: reads a distribution's dist-info, no module;
    `prefix` is the normalized distribution name, "" when computed).
    `text` quotes the call for evidence.
    """

    line: int
    kind: str
    prefix: str
    text: str

    def reaches(self, module: str) -> bool:
        """Whether a computed import with this literal head could load `module`."""
        return self.kind == "computed" and module.startswith(self.prefix)

    def as_dict(self) -> dict[str, object]:
        return {"line": self.line, "kind": self.kind, "prefix": self.prefix, "text": self.text}


@dataclass(frozen=True, slots=True)
class SourceImports:
    """The static imports of one Python source file (never imported or run to find them).

    `error` is set when the file could not be read or parsed: its imports are then
    unknown and the owning target's evidence is incomplete. `unresolved` lists lines of
    relative imports that climb above the top-level package. `loaders` are the calls that
    load modules or files by a name the scan cannot read (see `Loader`). `defines` are
    the names a package's `__init__` binds unconditionally at top level (`from pkg import
    name` then reads the attribute, not the submodule), unless `module_getattr` (PEP 562
    `__getattr__`, which may import submodules on attribute access).
    """

    path: str
    module: str
    imports: tuple[StaticImport, ...]
    unresolved: tuple[int, ...] = ()
    error: str = ""
    error_line: int | None = None
    loaders: tuple[Loader, ...] = ()
    defines: frozenset[str] = frozenset()
    module_getattr: bool = False
    all_names: tuple[str, ...] = ()
    all_computed: bool = False
    named: tuple[tuple[int, str], ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "module": self.module,
            "imports": [i.as_dict() for i in self.imports],
            "unresolved": list(self.unresolved),
            "error": self.error,
            "error_line": self.error_line,
            "loaders": [ld.as_dict() for ld in self.loaders],
            "defines": sorted(self.defines),
            "module_getattr": self.module_getattr,
            "all_names": list(self.all_names),
            "all_computed": self.all_computed,
            "named": [list(x) for x in self.named],
        }
