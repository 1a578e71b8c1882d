"""SLIM001 unused-python-dep: Python deps a binary's code never imports, from traces + sources.

For every edge A -> B in a root's closure where B is a Python target, slim joins what A's
sources import (statically, with the kind of each import) and what the runtime traces
show loaded (with importers). Dead needs both silent and nothing else in the binary
relying on the edge; imports that are lazy, optional or typing-only and never traced give
`runtime-unused` (keep, downgrade). Unknown ownership or unreadable sources are findings
(SLIM901/SLIM902), never silence; SLIM903 says how much of the package the traces touch.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from slim.model.context import AnalysisContext, has_python_code
from slim.model.findings import Confidence, Evidence, Finding, Rule, Saving
from slim.model.graph import BUILD_KINDS, CODE_KINDS, BuildGraph, EdgeKind
from slim.model.plugin import AnalyzerSpec
from slim.model.pymodules import (
    ModuleIndex,
    PySource,
    graph_sources,
    is_python_kind,
    split_label,
)
from slim.model.pytrace import (
    ImportTrace,
    SourceImports,
    StaticImport,
    TracedModule,
    merge_traces,
    module_prefixes,
)

from ._details import CoverageDetails, FootprintDetails
from ._python_loaders import (
    LoaderSite,
    ThirdPartyScan,
    entry_point_groups,
    judge,
    scan_loaded_third_party,
)
from ._python_thirdparty import (
    ALIAS_KINDS,
    Installed,
    alias_targets,
    installed,
    is_third_party,
    python_targets,
    resolve_target,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

NAME = "python-imports"
UNUSED = Rule(
    code="SLIM001",
    name="unused-python-dep",
    summary="A Python dependency the code never imports (dead) or imports only lazily.",
    help=(
        "For each edge A -> B to a Python target, slim looks for B's modules in A's sources "
        "(static imports with their kind: top-level, lazy, optional, typing-only, importlib "
        "literal) and in the runtime import traces. dead: neither shows it and nothing else "
        "in the binary gets B through this edge (removable). runtime-unused: imported only "
        "lazily, optionally or for typing and never traced: keep it, but consider a lazy "
        "import, an optional extra or runtime_deps. Pass --trace and --workspace: with only "
        "one of them the verdict is never 'dead, high'."
    ),
)
OWNERSHIP = Rule(
    code="SLIM901",
    name="python-ownership-unknown",
    summary="The Python modules a dependency provides could not be determined.",
    help=(
        "slim maps modules to targets from srcs (path, Bazel imports, Buck2 base_module) and "
        "third-party requirements from installed *.dist-info RECORD files. Give the export "
        "with srcs, or a site-packages dir (workspace site-packages/.venv) to check the edge."
    ),
)
UNREADABLE = Rule(
    code="SLIM902",
    name="python-source-unreadable",
    summary="Some Python sources of a target could not be read or parsed.",
    help=(
        "A syntax error, a non-UTF-8 byte without a coding declaration, or a missing file "
        "makes the target's static imports incomplete: its edges are never marked dead."
    ),
)
COVERAGE = Rule(
    code="SLIM903",
    name="python-trace-coverage",
    summary="How much of a binary's packaged Python the given traces touch.",
    help=(
        "Packaged modules and bytes in the root's closure against those the traces loaded: "
        "what a lazily fetched executable would need for the traced runs."
    ),
)
MAX_LISTED = 6
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__main__"}
_CASCADE_LIMIT = 200_000
_JUDGED = frozenset(CODE_KINDS - {EdgeKind.RUNTIME_DEPS})
_HOW = {
    "lazy": "lazily (inside a function)",
    "optional": "optionally (under except ImportError)",
    "typing-only": "for typing (under if TYPE_CHECKING)",
    "importlib": "dynamically",
    "top-level": "at top level",
}


def _short(items: Iterable[str], limit: int = MAX_LISTED) -> str:
    xs = sorted(set(items))
    head = ", ".join(xs[:limit])
    return head + (f", … ({len(xs)} in all)" if len(xs) > limit else "")


@dataclass
class _Owned:
    """What one Python target provides: its modules (with files and sizes) or why unknown."""

    modules: set[str] = field(default_factory=set)
    files: dict[str, int] = field(default_factory=dict)
    module_bytes: dict[str, int] = field(default_factory=dict)
    sources: tuple[PySource, ...] = ()
    basis: str = ""
    unknown: str = ""
    guessed: bool = False


# Module-level caches: the analyzer runs once per root over the same workspace.
_SCAN_CACHE: dict[tuple[str, str, str], SourceImports] = {}
_SITE_CACHE: dict[tuple[str, tuple[str, ...]], Installed] = {}


@dataclass(frozen=True)
class _Blind:
    """What a blind spot makes of a would-be 'dead' edge (`used`: an entry-point read of a
    group the dep declares)."""

    used: bool = False
    verdict: str = ""
    message: str = ""
    evidence: tuple[Evidence, ...] = ()


_GRAPH_MODULES: dict[int, tuple[BuildGraph, dict[str, str], dict[str, str]]] = {}


def _graph_index(g: BuildGraph) -> tuple[dict[str, str], dict[str, str]]:
    """Module -> a first-party target of the whole graph that provides it, and source
    path -> its module (built once per graph): a trace that loads one outside the root's
    closure is another program's."""
    hit = _GRAPH_MODULES.get(id(g))
    if hit is not None and hit[0] is g:
        return hit[1], hit[2]
    mods: dict[str, str] = {}
    paths: dict[str, str] = {}
    kinds = g.kinds
    for i in range(len(g)):
        if is_python_kind(kinds[i]) and g.srcs.get(i):
            for s in graph_sources(g, i):
                mods.setdefault(s.module, g.labels[i])
                paths.setdefault(s.path, s.module)
    _GRAPH_MODULES.clear()
    _GRAPH_MODULES[id(g)] = (g, mods, paths)
    return mods, paths


def _graph_modules(g: BuildGraph) -> dict[str, str]:
    return _graph_index(g)[0]


def _file_modules(files: Iterable[str], paths: dict[str, str]) -> Iterator[str]:
    """The graph modules whose source files (workspace paths) end the executed `files`: a
    trace records absolute paths of wherever the program ran."""
    for f in files:
        parts = f.split("/")
        for k in range(1, len(parts)):
            m = paths.get("/".join(parts[k:]))
            if m is not None:
                yield m
                break


def _workspace_module(ws: Path, name: str) -> bool:
    """Whether `name` is a Python file of the workspace (`a/b.py`, `a/b/__init__.py`)."""
    if name.split(".", 1)[0] in _STDLIB:
        return False
    base = ws.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _startup(traced: dict[str, TracedModule]) -> set[str]:
    """Modules only interpreter start-up imported (`site`: `.pth` hooks, `sitecustomize`):
    the environment's, not the program's."""
    out = {"site"} if "site" in traced else set()
    changed = bool(out)
    while changed:
        changed = False
        for tm in traced.values():
            if tm.name not in out and tm.importers and set(tm.importers) <= out:
                out.add(tm.name)
                changed = True
    return out


def _is_test(g: BuildGraph, i: int) -> bool:
    """`Target.is_test` without building the Target (called for every Python target)."""
    kind = g.kinds[i]
    if kind.endswith("_test") or kind in ("test_suite", "python_test", "cxx_test"):
        return True
    return g.attrs.get(i, {}).get("testonly") is True


class PythonImportsAnalyzer:
    """One verdict per Python edge of the root's closure (see module docstring)."""

    def analyze(self, ctx: AnalysisContext) -> Iterable[Finding]:
        # Hundreds of thousands of small objects on top of a million-target graph: the
        # cyclic GC would rescan the whole heap again and again (none of them form cycles).
        enabled = gc.isenabled()
        gc.disable()
        try:
            return list(_Run(ctx).findings())
        finally:
            if enabled:
                gc.enable()


class _Run:
    def __init__(self, ctx: AnalysisContext) -> None:
        self.ctx = ctx
        self.g: BuildGraph = ctx.graph
        self.root = ctx.root
        self.root_label = ctx.root_label
        self.closure = [int(i) for i in ctx.closure.tolist()]
        self.in_closure = set(self.closure)
        self.ws = ctx.options.workspace
        self.py = python_targets(self.g, self.closure, ctx.options.module_map)
        self._unknown_edges: dict[tuple[int, ...], list[tuple[int, int, str, Evidence]]] = {}
        self.owned: dict[int, _Owned] = {i: self._ownership(i) for i in self.py}
        self.index = ModuleIndex.build((i, o.modules) for i, o in self.owned.items())
        traces, self.foreign = self._own_traces(ctx.facts.of(ImportTrace))
        self.trace_files = tuple(sorted({t.path for t in traces}))
        self.trace: ImportTrace | None = merge_traces(traces) if traces else None
        self.traced: dict[str, TracedModule] = dict(self.trace.by_name()) if self.trace else {}
        # `-X importtime` prints no row for a module loaded by importlib.import_module
        self.sees_importlib = self.trace is not None and self.trace.sees_importlib
        self.importtime_only = self.trace is not None and not self.sees_importlib
        self.test_root = _is_test(self.g, self.root)
        self.scans: dict[int, list[SourceImports]] = {}
        self.static_ok: dict[int, str] = {}
        if self.ws is not None:
            self._scan_sources()
        self.by_module: dict[str, SourceImports] = {
            s.module: s for scans in self.scans.values() for s in scans if not s.error
        }
        self.sites: list[LoaderSite] = [
            LoaderSite(t, s.path, ld)
            for t in sorted(self.scans)
            for s in self.scans[t]
            for ld in s.loaders
        ]
        self._add_executed_files()
        self._unique: dict[int, set[str]] = {}
        self._used_by: dict[int, set[str]] = {}
        self._third_scan: ThirdPartyScan | None = None
        self._children: dict[str, list[str]] | None = None
        self._providers: dict[int, set[int]] = {}
        self._importers: dict[str, list[tuple[int, str, StaticImport]]] | None = None
        self._provided: dict[int, tuple[set[str], set[int]]] = {}
        self._tests: NDArray[np.bool_] | None = None
        self._edges: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int8]] | None = None

    def _own_traces(
        self, traces: Sequence[ImportTrace]
    ) -> tuple[list[ImportTrace], dict[str, str]]:
        """The traces of this root's program: a trace that loads workspace modules outside
        the root's closure was recorded from another program (each root is judged on its
        own evidence); it is set aside, with the module that shows it."""
        if self.ws is None or not traces:
            return list(traces), {}
        owned = set(self.index.owners)
        prefixes = {p for m in owned for p in module_prefixes(m)}
        own: list[ImportTrace] = []
        foreign: dict[str, str] = {}
        elsewhere: dict[str, str] | None = None
        for t in traces:
            outside = [m.name for m in t.modules if m.name not in prefixes]
            outside = [m for m in outside if m.split(".", 1)[0] not in _STDLIB]
            if (outside or t.files) and elsewhere is None:
                elsewhere = _graph_modules(self.g)
            outside.extend(
                m for m in _file_modules(t.files, _graph_index(self.g)[1]) if m not in prefixes
            )
            other = next(
                (m for m in outside if m in (elsewhere or {}) or _workspace_module(self.ws, m)),
                None,
            )
            if other is None:
                own.append(t)
            else:
                foreign[t.path] = other
        return own, foreign

    # -- targets and ownership ---------------------------------------------------------
    def _ownership(self, i: int) -> _Owned:
        o = _Owned()
        srcs = graph_sources(self.g, i)
        if srcs:
            o.sources = srcs
            o.basis = "srcs"
            for s in srcs:
                o.modules.update(s.modules)
            if self.ws is None:
                return o
            sizes = self._sizes([s.path for s in srcs])
            for s in srcs:
                if s.path in sizes:
                    o.files[s.path] = sizes[s.path]
                    o.module_bytes[s.module] = o.module_bytes.get(s.module, 0) + sizes[s.path]
            return o
        kind = self.g.kinds[i]
        if kind in ALIAS_KINDS:
            # an alias provides what its `actual` provides (forwarded by `provided`)
            actual = alias_targets(self.g, i)
            o.basis = "alias of " + _short(self.g.labels[d] for d in actual)
            o.guessed = any(self._ownership(d).guessed for d in actual)
            return o
        if kind == "" or is_third_party(self.g, i, self.ctx.options.module_map):
            return self._third_party(i, o)
        if self.g.srcs.get(i):
            o.unknown = f"none of its {len(self.g.srcs[i])} srcs is an importable Python file"
        return o

    def _third_party(self, i: int, o: _Owned) -> _Owned:
        """A package target: its import names from site-packages, config or a table (see
        `_python_thirdparty`); a wrapper around other targets forwards to them."""
        from ._python_workspace import site_packages_dirs

        key = (str(self.ws), tuple(str(p) for p in self.ctx.options.site_packages))
        site = _SITE_CACHE.get(key)
        if site is None:
            extra = os.pathsep.join(key[1])
            site = _SITE_CACHE[key] = installed(site_packages_dirs(self.ws, extra))
        m = resolve_target(self.g, i, self.ctx.options.module_map, site)
        deps = sorted({e.dep for e in self.g.out_edges(i, CODE_KINDS)} - {i})
        if not m.modules and deps:
            o.basis = "forwards to " + _short(self.g.labels[d] for d in deps)
            o.guessed = any(self._ownership(d).guessed for d in deps)
            return o
        o.modules.update(m.modules)
        for mod, path in m.modules.items():
            o.module_bytes[mod] = m.sizes.get(path, 0)
        o.files = dict(m.sizes)
        o.basis = m.basis
        o.unknown = m.unknown
        o.guessed = m.guessed
        return o

    def _sizes(self, paths: list[str]) -> dict[str, int]:
        if self.ws is None:
            return {}
        from ._python_workspace import file_sizes

        return file_sizes(self.ws, paths)

    def provided(self, b: int) -> tuple[set[str], set[int]]:
        """Modules B makes importable for its dependents (own, exported, or forwarded when
        B has no sources of its own), and the targets among them whose modules are unknown."""
        hit = self._provided.get(b)
        if hit is not None:
            return hit
        self._provided[b] = (set(), set())
        o = self.owned.get(b)
        mods: set[str] = set()
        unknown: set[int] = set()
        if o is None:
            return mods, unknown
        if o.unknown:
            unknown.add(b)
        mods |= o.modules
        forward = {e.dep for e in self.g.out_edges(b, frozenset({EdgeKind.EXPORTS}))}
        if not o.sources and not o.unknown:
            forward |= {e.dep for e in self.g.out_edges(b, CODE_KINDS)}
        for d in sorted(forward):
            if d in self.owned:
                m, u = self.provided(d)
                mods |= m
                unknown |= u
        self._provided[b] = (mods, unknown)
        return mods, unknown

    def providers(self, b: int) -> set[int]:
        """B and the targets whose modules B makes importable (see `provided`)."""
        hit = self._providers.get(b)
        if hit is not None:
            return hit
        self._providers[b] = out = {b}
        o = self.owned.get(b)
        if o is None:
            return out
        forward = {e.dep for e in self.g.out_edges(b, frozenset({EdgeKind.EXPORTS}))}
        if not o.sources and not o.unknown:
            forward |= {e.dep for e in self.g.out_edges(b, CODE_KINDS)}
        for d in sorted(forward):
            if d in self.owned:
                out |= self.providers(d)
        return out

    def evidence_for(self, b: int, module: str, used: set[str]) -> bool:
        """Whether a use of `module` (one of B's) is evidence that B is used."""
        owners = self.index.owners_of(module)
        if len(owners) <= 1:
            return True
        return bool(self.credited(module, used) & self.providers(b))

    def _parents(self, a: int) -> set[str]:
        """Parent packages of A's own modules: importing A runs their `__init__`."""
        out: set[str] = set()
        for s in self.owned[a].sources:
            for m in s.modules:
                out.update(p for p in module_prefixes(m) if p != m)
        return out

    # -- static imports ----------------------------------------------------------------
    def _scan_sources(self) -> None:
        from ._python_workspace import SourceRequest, scan_files

        assert self.ws is not None
        ws = str(self.ws)
        todo: list[tuple[int, SourceRequest]] = []
        for i in self.py:
            o = self.owned[i]
            if not o.sources:
                continue
            py_srcs = [s for s in o.sources if s.path.endswith((".py", ".pyw"))]
            if len(py_srcs) < len(o.sources) and not py_srcs:
                self.static_ok[i] = "only native/stub modules: their imports are not visible"
            self.scans[i] = []
            for s in py_srcs:
                req = SourceRequest(str(self.ws / s.path), s.path, s.module, s.is_package)
                key = (ws, s.path, s.module)
                cached = _SCAN_CACHE.get(key)
                if cached is not None:
                    self.scans[i].append(cached)
                else:
                    todo.append((i, req))
        results = scan_files([r for _, r in todo])
        for (i, req), res in zip(todo, results, strict=True):
            _SCAN_CACHE[(ws, req.path, req.module)] = res
            self.scans[i].append(res)
        for i, scans in self.scans.items():
            bad = [s for s in scans if s.error]
            if bad and i not in self.static_ok:
                self.static_ok[i] = f"{len(bad)} of {len(scans)} sources unreadable"

    def has_static(self, a: int) -> bool:
        return self.ws is not None and a in self.scans and a not in self.static_ok

    def cands(self, imp: StaticImport) -> tuple[str, ...]:
        """What `imp` may load: `from pkg import name` reads the attribute when the package's
        `__init__` binds `name` (and has no PEP 562 `__getattr__`), not `pkg.name`."""
        if not imp.names:
            return (imp.module,)
        src = self.by_module.get(imp.module)
        if src is None or src.module_getattr or not src.defines:
            return imp.candidates()
        return (imp.module, *(f"{imp.module}.{n}" for n in imp.names if n not in src.defines))

    def unique(self, o: int) -> set[str]:
        """The modules only `o` provides in the closure."""
        hit = self._unique.get(o)
        if hit is None:
            hit = self._unique[o] = {
                m for m in self.index.modules.get(o, ()) if len(self.index.owners_of(m)) == 1
            }
        return hit

    def credited(self, module: str, used: set[str]) -> set[int]:
        """The owners a use of `module` is evidence for. A module several targets provide
        (a shared `__init__.py`) is evidence only for the owners whose own modules are used
        or which it imports itself; when it credits none, every owner (the module is still
        needed and nothing says which owner to keep)."""
        owners = self.index.owners_of(module)
        if len(owners) <= 1:
            return owners
        src = self.by_module.get(module)
        imported: set[str] = set()
        if src is not None:
            for imp in src.imports:
                if imp.eager:
                    for c in self.cands(imp):
                        imported.update(module_prefixes(c))
        out = {o for o in owners if self.unique(o) & (used | imported)}
        return out or owners

    def used_by(self, a: int) -> set[str]:
        """Modules A's code loads: its static imports (any kind), its parent packages, and
        the modules the traces show A importing."""
        hit = self._used_by.get(a)
        if hit is None:
            hit = set(self._parents(a))
            for _, imp in self.imports_of(a):
                for c in self.cands(imp):
                    hit.update(module_prefixes(c))
            own = self.owned[a].modules if a in self.owned else set()
            children = self.trace_children()
            for m in own | ({"__main__"} if a == self.root else set()):
                hit.update(children.get(m, ()))
            self._used_by[a] = hit
        return hit

    def imports_of(self, a: int) -> Iterator[tuple[str, StaticImport]]:
        for s in self.scans.get(a, ()):
            for imp in s.imports:
                yield s.path, imp

    def matching(self, a: int, b: int, mods: set[str]) -> list[tuple[str, StaticImport]]:
        out = []
        used = self.used_by(a)
        for path, imp in self.imports_of(a):
            if any(
                p in mods and self.evidence_for(b, p, used)
                for c in self.cands(imp)
                for p in module_prefixes(c)
            ):
                out.append((path, imp))
        return out

    def importers(self) -> dict[str, list[tuple[int, str, StaticImport]]]:
        """Module (and every parent package) -> the static imports that load it."""
        if self._importers is None:
            idx: dict[str, list[tuple[int, str, StaticImport]]] = {}
            for t in self.scans:
                for path, imp in self.imports_of(t):
                    for c in self.cands(imp):
                        for p in module_prefixes(c):
                            idx.setdefault(p, []).append((t, path, imp))
            self._importers = idx
        return self._importers

    # -- traces ------------------------------------------------------------------------
    def trace_children(self) -> dict[str, list[str]]:
        """Importer module -> the modules the traces show it importing."""
        if self._children is None:
            out: dict[str, list[str]] = {}
            for tm in self.traced.values():
                for i in tm.importers:
                    out.setdefault(i, []).append(tm.name)
            self._children = out
        return self._children

    def _add_executed_files(self) -> None:
        """Files the runs executed (a plugin loaded from a path) count as loaded modules of
        the targets whose sources they are."""
        if self.trace is None or not self.trace.files:
            return
        by_path = {s.path: s.module for o in self.owned.values() for s in o.sources}
        for f in self.trace.files:
            parts = f.split("/")
            for k in range(len(parts)):
                mod = by_path.get("/".join(parts[k:]))
                if mod is not None:
                    if mod not in self.traced:
                        self.traced[mod] = TracedModule(mod, ("<executed file>",), 1, 0, file=f)
                    break

    def trace_hits(self, mods: set[str]) -> list[TracedModule]:
        if not self.traced:
            return []
        small, big = (mods, self.traced) if len(mods) < len(self.traced) else (self.traced, mods)
        return [self.traced[m] for m in sorted(small) if m in big]

    def importer_is(self, tm: TracedModule, a: int) -> bool:
        mods = self.owned[a].modules if a in self.owned else set()
        return any(i in mods or (i == "__main__" and a == self.root) for i in tm.importers)

    # -- findings ----------------------------------------------------------------------
    def findings(self) -> Iterator[Finding]:
        yield from self._unreadable()
        pairs = self._candidate_pairs()
        fast = self._fast_used(pairs)
        for a, b in pairs[~fast].tolist():
            f = self._edge(a, b)
            if f is not None:
                yield f
        yield from self._unknown_findings()
        if self.trace is not None and self.py:
            yield self._coverage()

    def _edge_arrays(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int8]]:
        """(target, dep, kind) of every edge between two Python targets of the closure."""
        if self._edges is None:
            self._edges = self._python_edges()
        return self._edges

    def _python_edges(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int8]]:
        g = self.g
        py = np.zeros(len(g), dtype=bool)
        py[np.asarray(self.py, dtype=np.int64)] = True
        m = py[g.edge_src] & py[g.edge_dst] & (g.edge_src != g.edge_dst)
        return (
            g.edge_src[m].astype(np.int64),
            g.edge_dst[m].astype(np.int64),
            g.edge_kind[m],
        )

    def _test_mask(self) -> NDArray[np.bool_]:
        if self._tests is None:
            self._tests = np.zeros(len(self.g), dtype=bool)
            self._tests[[i for i in self.py if _is_test(self.g, i)]] = True
        return self._tests

    def _candidate_pairs(self) -> NDArray[np.int64]:
        """Edges A -> B to judge, as an (n, 2) array: code edges (not runtime_deps, not data)
        from a non-test Python target with sources to a non-test Python target."""
        src, dst, kind = self._edge_arrays()
        b_test = self._test_mask()
        a_ok = np.zeros(len(self.g), dtype=bool)
        a_ok[[i for i in self.py if self.owned[i].sources]] = True
        if self.test_root:
            b_test = np.zeros(len(self.g), dtype=bool)  # a test's own deps are judged
        a_ok &= ~b_test
        keys = (src << 32) | dst
        code = np.isin(kind, np.array([int(k) for k in _JUDGED], dtype=np.int8))
        data = keys[kind == int(EdgeKind.DATA)]
        sel = code & a_ok[src] & ~b_test[dst] & ~np.isin(keys, data)
        uniq = np.unique(keys[sel])
        return np.stack([uniq >> 32, uniq & 0xFFFFFFFF], axis=1)

    def _fast_used(self, pairs: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Pairs certainly used (an eager static import, a parent package, the trace shows
        A importing B, or, without A's sources, the trace shows B loaded): no finding."""
        n = len(self.g)
        if not len(pairs):
            return np.zeros(0, dtype=bool)
        a, b = pairs[:, 0], pairs[:, 1]
        used_keys: list[int] = []
        static = np.zeros(n, dtype=bool)
        for t in sorted({int(x) for x in a.tolist()}):
            if not self.has_static(t):
                continue
            static[t] = True
            eager = set(self._parents(t))
            for _, imp in self.imports_of(t):
                if imp.eager:
                    for c in self.cands(imp):
                        eager.update(module_prefixes(c))
            used = self.used_by(t)
            owners: set[int] = set()
            for p in eager:
                owners |= self.credited(p, used)
            used_keys.extend((t << 32) | o for o in owners)
        traced = np.zeros(n, dtype=bool)
        names = set(self.traced)
        for tm in self.traced.values():
            for o in self.credited(tm.name, names):
                traced[o] = True
                for who in tm.importers:
                    for ia in self.index.owners_of(who):
                        used_keys.append((ia << 32) | o)
        keys = (a << 32) | b
        by_pair = np.isin(keys, np.array(sorted(set(used_keys)), dtype=np.int64))
        return by_pair | (~static[a] & traced[b])

    def _unreadable(self) -> Iterator[Finding]:
        for a, why in sorted(self.static_ok.items()):
            ev = [
                Evidence(s.path, s.error, line=s.error_line, analyzer=NAME)
                for s in self.scans.get(a, ())
                if s.error
            ]
            yield Finding(
                code=UNREADABLE.code,
                name=UNREADABLE.name,
                target=self.g.labels[a],
                dep="",
                verdict="evidence-incomplete",
                message=(
                    f"static imports of {self.g.labels[a]} are incomplete ({why}): "
                    "its Python deps are never marked dead"
                ),
                confidence=Confidence.HIGH,
                removable=False,
                root=self.root_label,
                location=self.g.locations.get(a),
                evidence=tuple(ev),
            )

    def _base(self, a: int, b: int, attribute: str, **kw: object) -> Finding:
        return Finding(
            target=self.g.labels[a],
            dep=self.g.labels[b],
            root=self.root_label,
            attribute=attribute,
            location=self.g.edge_location(a, b),
            **kw,  # type: ignore[arg-type]
        )

    def _edge(self, a: int, b: int) -> Finding | None:
        g = self.g
        kinds = set(g.edge_kinds(a, b))
        if EdgeKind.DATA in kinds or not kinds & CODE_KINDS:
            return None  # data edges ship files read at run time: never proposed
        code = [k for k in kinds if k in CODE_KINDS and k is not EdgeKind.RUNTIME_DEPS]
        if not code:
            return None  # runtime_deps is where never-imported deps belong
        attribute = sorted(k.attribute for k in code)[0]
        if g.target(b).is_test and not self.test_root:
            return None  # test-only targets are judged only for a test root
        exports = EdgeKind.EXPORTS in kinds
        mods, unknown = self.provided(b)
        lb = g.labels[b]
        looked = Evidence(
            "ownership",
            f"modules of {lb} looked for: {_short(mods) or '(none)'}"
            + (f" ({self.owned[b].basis})" if self.owned[b].basis else ""),
            analyzer=NAME,
        )
        if (not mods or unknown) and not self.owned[b].guessed:
            return self._ownership_unknown(a, b, attribute, unknown or {b}, looked)
        used = self.used_by(a)
        if any(self.evidence_for(b, p, used) for p in self._parents(a) & mods):
            return None  # B provides a parent package of A's own modules
        matches = self.matching(a, b, mods)
        if self.importtime_only and any(i.dynamic for _, i in matches):
            return None  # -X importtime has no rows for importlib-loaded modules
        eager = [(p, i) for p, i in matches if i.eager]
        names = set(self.traced)
        hits = [t for t in self.trace_hits(mods) if self.evidence_for(b, t.name, names)]
        by_a = [t for t in hits if self.importer_is(t, a)]
        if eager or by_a:
            return None
        soft = [(p, i) for p, i in matches if not i.eager]
        if soft:
            if hits:
                return None
            return self._runtime_unused(a, b, attribute, soft, looked)
        if exports and (hits or any(m in self.importers() for m in mods)):
            return None  # re-exported and used through the re-export
        if unknown:
            return self._ownership_unknown(a, b, attribute, unknown, looked)
        return self._not_imported(a, b, attribute, mods, hits, looked, exports)

    def _ownership_unknown(
        self, a: int, b: int, attribute: str, unknown: set[int], looked: Evidence
    ) -> Finding | None:
        """Noted here, reported once per unknown target by `_unknown_findings`."""
        self._unknown_edges.setdefault(tuple(sorted(unknown)), []).append((a, b, attribute, looked))
        return None

    def _unknown_findings(self) -> Iterator[Finding]:
        """One SLIM901 per target whose modules are unknown, listing every edge that
        could not be judged because of it."""
        g = self.g
        for unknown, edges in sorted(self._unknown_edges.items()):
            edges.sort(key=lambda e: (g.labels[e[0]], g.labels[e[1]]))
            a, b, attribute, looked = edges[0]
            why = "; ".join(
                f"{g.labels[u]}: {self.owned[u].unknown or 'provides no Python modules'}"
                for u in unknown
            )
            names = _short(g.labels[u] for u in unknown)
            users = _short(g.labels[x] for x, _, _, _ in edges)
            ev = [
                Evidence(
                    str(loc.path) if (loc := g.edge_location(x, y)) else g.labels[x],
                    f"{g.labels[x]} -> {g.labels[y]} ({attr}) not judged",
                    line=loc.line if loc else None,
                    analyzer=NAME,
                )
                for x, y, attr, _ in edges
            ]
            yield self._base(
                a,
                b,
                attribute,
                code=OWNERSHIP.code,
                name=OWNERSHIP.name,
                verdict="evidence-missing",
                message=(
                    f"cannot tell whether {users} use{'s' if len(edges) == 1 else ''} "
                    f"{names}: its Python modules are unknown ({why})"
                ),
                confidence=Confidence.HIGH,
                removable=False,
                evidence=(*ev, looked),
            )

    def _runtime_unused(
        self,
        a: int,
        b: int,
        attribute: str,
        soft: list[tuple[str, StaticImport]],
        looked: Evidence,
    ) -> Finding:
        kinds = {i.kind for _, i in soft}
        ev = [Evidence(p, i.describe(), line=i.line, analyzer=NAME) for p, i in soft]
        if kinds == {"typing-only"}:
            advice = (
                "it is imported only under `if TYPE_CHECKING`: a type-checking-only dep "
                "(stubs, a typing target) keeps it out of the runtime package"
            )
            conf = Confidence.HIGH
        else:
            advice = {
                "optional": "it is imported only under `except ImportError`: make it an "
                "optional extra instead of a hard dep",
                "lazy": "it is imported only inside functions: move it to runtime_deps or an "
                "optional extra, or keep the lazy import and fetch it on demand",
            }.get(
                sorted(kinds - {"typing-only"})[0],
                "it is imported only conditionally: consider an optional extra",
            )
            conf = Confidence.MEDIUM if self.trace is not None else Confidence.LOW
        ev.extend(self._trace_evidence(b))
        ev.append(looked)
        seen = "never loaded in the traces" if self.trace is not None else "no trace given"
        return self._base(
            a,
            b,
            attribute,
            code=UNUSED.code,
            name=UNUSED.name,
            verdict="runtime-unused",
            message=(
                f"{self.g.labels[a]} imports {self.g.labels[b]} only "
                f"{' or '.join(_HOW[k] for k in sorted(kinds))} ({seen}); keep the edge: {advice}"
            ),
            confidence=conf,
            removable=False,
            evidence=tuple(ev),
            details=self._footprint(b),
        )

    def _trace_evidence(self, b: int) -> list[Evidence]:
        if self.trace is None:
            return [Evidence("trace", "no import trace given (pass --trace)", analyzer=NAME)]
        runs = self.trace.runs
        hits = self.trace_hits(self.provided(b)[0])
        if hits:
            return [
                Evidence(
                    self.trace.path,
                    f"{tm.name} loaded (importers: {_short(tm.importers) or 'unknown'})",
                    line=tm.line if len(self.trace_files) == 1 else None,
                    analyzer=NAME,
                )
                for tm in hits[:MAX_LISTED]
            ]
        return [
            Evidence(
                p,
                f"none of the modules of {self.g.labels[b]} loaded ({runs} runs in all traces)",
                analyzer=NAME,
            )
            for p in self.trace_files
        ]

    def _not_imported(
        self,
        a: int,
        b: int,
        attribute: str,
        mods: set[str],
        hits: list[TracedModule],
        looked: Evidence,
        exports: bool,
    ) -> Finding | None:
        g = self.g
        la, lb = g.labels[a], g.labels[b]
        n_files = len(self.scans.get(a, ()))
        static = self.has_static(a)
        if not static:
            if hits:
                return None  # loaded at run time, and A's sources cannot say by whom
            why = self.static_ok.get(a) or (
                "no --workspace given" if self.ws is None else "no sources read"
            )
            return self._base(
                a,
                b,
                attribute,
                code=UNUSED.code,
                name=UNUSED.name,
                verdict="unused-in-traces",
                message=(
                    f"no module of {lb} was loaded in the traces, but the sources of {la} "
                    f"were not read ({why}): a lazy or static-only import may be missed, "
                    "so the edge is not proposed for removal"
                ),
                confidence=Confidence.LOW,
                removable=False,
                evidence=(*self._trace_evidence(b), looked),
                details=self._footprint(b),
            )
        src_ev = Evidence(
            f"{la} sources",
            f"{n_files} files scanned; none imports {_short(mods)}",
            analyzer=NAME,
        )
        leaving = self._leaving(a, b)
        if not leaving and hits:
            return self._redundant(a, b, attribute, hits, src_ev, looked)
        gone = set(leaving)
        leaving_mods: set[str] = set()
        guessed: list[int] = []
        for t in leaving:
            if t in self.owned:
                leaving_mods |= {
                    m for m in self.owned[t].modules if self.index.owners_of(m) <= gone
                }
                if self.owned[t].guessed:
                    guessed.append(t)
        users = [
            (t, p, imp)
            for m in sorted(leaving_mods)
            for t, p, imp in self.importers().get(m, ())
            if t not in leaving and t != a
        ]
        if self._entry_point_use(gone):
            return None  # the program reads an entry-point group the dep declares
        traced_leaving = self.trace_hits(leaving_mods)
        if users or traced_leaving:
            ev = [
                Evidence(p, f"{g.labels[t]}: {imp.describe()}", line=imp.line, analyzer=NAME)
                for t, p, imp in users[:MAX_LISTED]
            ]
            ev.extend(
                Evidence(
                    self.trace.path if self.trace else "trace",
                    f"{tm.name} loaded (importers: {_short(tm.importers) or 'unknown'})",
                    line=tm.line if len(self.trace_files) == 1 else None,
                    analyzer=NAME,
                )
                for tm in traced_leaving[:MAX_LISTED]
            )
            if exports:
                return None
            who = _short(g.labels[t] for t, _, _ in users) or "code seen in the traces"
            return self._base(
                a,
                b,
                attribute,
                code=UNUSED.code,
                name=UNUSED.name,
                verdict="used-transitively",
                message=(
                    f"{la} does not import {lb}, but {who} does and gets it only through "
                    f"this edge: declare the dep where it is imported before cutting it"
                ),
                confidence=Confidence.HIGH,
                removable=False,
                evidence=(src_ev, *ev, looked),
            )
        blind = self._blind_spot(la, lb, gone, leaving_mods)
        if blind is not None:
            if blind.used:
                return None
            return self._base(
                a,
                b,
                attribute,
                code=UNUSED.code,
                name=UNUSED.name,
                verdict=blind.verdict,
                message=blind.message,
                confidence=Confidence.LOW,
                removable=False,
                evidence=(src_ev, *blind.evidence, *self._trace_evidence(b), looked),
            )
        conf = Confidence.HIGH if self.trace is not None else Confidence.MEDIUM
        caveat = ""
        if self.trace is None:
            caveat = " (no trace given: sources only)"
        if guessed:
            conf = Confidence.MEDIUM
            caveat += f"; modules of {_short(g.labels[t] for t in guessed)} guessed from names"
        files, size = self._files_of(leaving)
        return self._base(
            a,
            b,
            attribute,
            code=UNUSED.code,
            name=UNUSED.name,
            verdict="dead",
            message=(
                f"{la} never imports {lb}: none of its modules appears in {n_files} source "
                f"files or in {len(self.trace_files)} traces{caveat}"
            ),
            confidence=conf,
            removable=True,
            evidence=(src_ev, *self._trace_evidence(b), looked),
            saving=Saving(
                bytes=size,
                bytes_basis=f"python package footprint: {files} files leave the binary",
            ),
            details=dataclasses.replace(
                self._footprint(b), package_files_removed=files, package_bytes_removed=size
            ),
        )

    def _entry_point_use(self, gone: set[int]) -> bool:
        sites = [s for s in self.sites if s.loader.kind == "entry-points"]
        if self.importtime_only:
            sites.extend(
                s for s in self._third_party_loaded().sites if s.loader.kind == "entry-points"
            )
        if not sites:
            return False
        groups = {t: self._groups(t) for t in gone}
        return bool(judge(sites, gone, set(), groups, sees_importlib=True).uses)

    def _blind_spot(self, la: str, lb: str, gone: set[int], gone_mods: set[str]) -> _Blind | None:
        """Loaded code that could load what leaves with the cut although nothing names it
        (a computed import, a file loader, an entry-point read), or, under importtime-only
        traces, loaded third-party code that could not be read to rule that out."""
        sites = list(self.sites)
        third = self._third_party_loaded() if self.importtime_only else None
        if third is not None:
            sites.extend(third.sites)
        groups = {t: self._groups(t) for t in gone}
        v = judge(sites, gone, gone_mods, groups, self.sees_importlib)
        if v.uses:
            return _Blind(used=True)
        if v.blocks:
            first = v.blocks[0]
            more = f", and {len(v.blocks) - 1} more" if len(v.blocks) > 1 else ""
            where = f"{first.path}:{first.loader.line}"
            return _Blind(
                verdict="possibly-dead",
                message=(
                    f"{la} never imports {lb} by name, but code the binary loads can load "
                    f"modules no import names ({first.describe()} at {where}{more}): "
                    "not proposed for removal"
                ),
                evidence=tuple(
                    Evidence(x.path, x.describe(), line=x.loader.line, analyzer=NAME)
                    for x in v.blocks[:MAX_LISTED]
                ),
            )
        if third is not None and third.missing:
            return _Blind(
                verdict="unused-in-traces",
                message=(
                    f"no module of {lb} was imported by name or in the traces, but the traces "
                    "are `-X importtime`, which records no importlib loads, and the loaded "
                    f"third-party code could not be read to rule them out ({len(third.missing)} "
                    f"modules, e.g. {_short(third.missing, 3)}): record with `slim trace` or "
                    "`python -v`, or pass --site-packages"
                ),
                evidence=(
                    Evidence(
                        "site-packages",
                        f"sources not found for {_short(third.missing)}",
                        analyzer=NAME,
                    ),
                ),
            )
        return None

    def _third_party_loaded(self) -> ThirdPartyScan:
        if self._third_scan is None:
            from ._python_workspace import site_packages_dirs

            extra = os.pathsep.join(str(p) for p in self.ctx.options.site_packages)
            first_party = {
                p
                for o in self.owned.values()
                if o.sources
                for m in o.modules
                for p in module_prefixes(m)
            }
            loaded = set(self.traced) - _startup(self.traced)
            self._third_scan = scan_loaded_third_party(
                loaded, first_party, site_packages_dirs(self.ws, extra)
            )
        return self._third_scan

    def _groups(self, t: int) -> frozenset[str] | None:
        """Entry-point groups `t` declares (its dist-info); None when not known."""
        o = self.owned.get(t)
        info = o.basis.split("/", 1)[0] if o is not None else ""
        if not info.endswith((".dist-info", ".egg-info")):
            return None
        from ._python_workspace import read_dist_text, site_packages_dirs

        extra = os.pathsep.join(str(p) for p in self.ctx.options.site_packages)
        for d in site_packages_dirs(self.ws, extra):
            if (d / info).is_dir():
                return entry_point_groups(read_dist_text(d / info, "entry_points.txt"))
        return None

    def _redundant(
        self,
        a: int,
        b: int,
        attribute: str,
        hits: list[TracedModule],
        src_ev: Evidence,
        looked: Evidence,
    ) -> Finding:
        """A does not import B, but B stays in the build through other targets: the cut
        is harmless for A and saves nothing."""
        g = self.g
        la, lb = g.labels[a], g.labels[b]
        via = sorted(
            {g.labels[e.target] for e in g.in_edges(b, BUILD_KINDS) if e.target in self.in_closure}
            - {la}
        )
        ev = [
            Evidence(
                self.trace.path if self.trace else "trace",
                f"{tm.name} loaded (importers: {_short(tm.importers) or 'unknown'})",
                line=tm.line if len(self.trace_files) == 1 else None,
                analyzer=NAME,
            )
            for tm in hits[:MAX_LISTED]
        ]
        return self._base(
            a,
            b,
            attribute,
            code=UNUSED.code,
            name=UNUSED.name,
            verdict="redundant-direct-dep",
            message=(
                f"{la} does not import {lb} itself; {lb} stays in the build through "
                f"{_short(via)}, so cutting this edge saves nothing"
                + (f" ({len(hits)} of its modules are loaded through them)" if hits else "")
            ),
            confidence=Confidence.MEDIUM if self.trace is not None else Confidence.LOW,
            removable=False,
            evidence=(src_ev, *ev, looked),
        )

    def _leaving(self, a: int, b: int) -> list[int]:
        """Targets that leave the root's closure when the edge A -> B is cut.

        Build graphs of Python targets are acyclic (Bazel, Buck2), so B stays when another
        target of the closure depends on it; otherwise what leaves is B and the part of its
        closure whose every dependent leaves too."""
        g = self.g
        parents = {e.target for e in g.in_edges(b, BUILD_KINDS) if e.target in self.in_closure}
        if parents - {a, b}:
            return []
        leaving = {b}
        queue = [b]
        visited = 0
        while queue:
            x = queue.pop()
            for c in {e.dep for e in g.out_edges(x, BUILD_KINDS)}:
                visited += 1
                if c in leaving or c not in self.in_closure:
                    continue
                if visited > _CASCADE_LIMIT:
                    after = set(g.closure_without(self.root, [(a, b)], BUILD_KINDS).tolist())
                    return sorted(self.in_closure - after)
                ps = {e.target for e in g.in_edges(c, BUILD_KINDS) if e.target in self.in_closure}
                if ps <= leaving:
                    leaving.add(c)
                    queue.append(c)
        return sorted(leaving)

    def _files_of(self, targets: Iterable[int]) -> tuple[int, int]:
        files = 0
        size = 0
        for t in targets:
            o = self.owned.get(t)
            if o is not None and o.files:
                files += len(o.files)
                size += sum(o.files.values())
            elif o is None and self.ws is not None:
                paths = [
                    f"{p}/{n}" if p else n
                    for p, n in (split_label(s)[1:] for s in self.g.srcs.get(t, ()))
                ]
                sizes = self._sizes(paths)
                files += len(sizes)
                size += sum(sizes.values())
        return files, size

    def _footprint(self, b: int) -> FootprintDetails:
        o = self.owned[b]
        return FootprintDetails(len(o.files), sum(o.files.values()), len(o.modules))

    def _coverage(self) -> Finding:
        assert self.trace is not None
        mods: dict[str, int] = {}
        for o in self.owned.values():
            for s in o.sources:
                mods.setdefault(s.module, o.module_bytes.get(s.module, 0))
            if not o.sources:
                for m in o.modules:
                    mods.setdefault(m, o.module_bytes.get(m, 0))
        names = self.trace.names()
        touched = {m: s for m, s in mods.items() if m in names}
        total_b = sum(mods.values())
        touched_b = sum(touched.values())
        share_m = round(100.0 * len(touched) / len(mods), 1) if mods else 0.0
        share_b = round(100.0 * touched_b / total_b, 1) if total_b else 0.0
        src, dst, _ = self._edge_arrays()
        tests = self._test_mask()[dst]
        skipped_test = len(np.unique(((src << 32) | dst)[tests]))
        py = np.zeros(len(self.g), dtype=bool)
        py[np.asarray(self.py, dtype=np.int64)] = True
        g = self.g
        skipped_data = int(np.count_nonzero(py[g.edge_src] & (g.edge_kind == int(EdgeKind.DATA))))
        return Finding(
            code=COVERAGE.code,
            name=COVERAGE.name,
            target=self.root_label,
            dep="",
            root=self.root_label,
            verdict="coverage",
            message=(
                f"the traces load {len(touched)} of {len(mods)} packaged Python modules "
                f"({share_m}%), {touched_b} of {total_b} bytes ({share_b}%)"
            ),
            confidence=Confidence.HIGH,
            removable=False,
            evidence=(
                *(
                    Evidence(p, f"{self.trace.runs} runs in all traces", analyzer=NAME)
                    for p in self.trace_files
                ),
                *(
                    Evidence(
                        p,
                        f"set aside: another program's trace (loads {m}, which is not in "
                        f"the closure of {self.root_label})",
                        analyzer=NAME,
                    )
                    for p, m in sorted(self.foreign.items())
                ),
            ),
            details=CoverageDetails(
                packaged_modules=len(mods),
                packaged_bytes=total_b,
                traced_modules=len(touched),
                traced_bytes=touched_b,
                traced_module_share=share_m,
                traced_byte_share=share_b,
                python_targets=len(self.py),
                test_only_edges=skipped_test,
                data_edges=skipped_data,
            ),
        )


SPEC = AnalyzerSpec(
    name=NAME,
    rules=(UNUSED, OWNERSHIP, UNREADABLE, COVERAGE),
    requires=frozenset({"trace", "source"}),
    factory=PythonImportsAnalyzer,
    missing_hint=(
        "Pass --trace (slim trace -o FILE -- python -m app, or python -X importtime) "
        "and/or --workspace (the source tree) to check Python deps."
    ),
    applies=has_python_code,
)
