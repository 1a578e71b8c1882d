"""The Python evidence of one root, joined: who owns which module, what the sources import
statically, what the traces loaded, and what leaves the closure with a cut.

Every Python rule reads this one view; building it scans the workspace sources once
(cached across roots) and merges the root's own traces.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from slim.model.context import AnalysisContext
from slim.model.findings import Evidence
from slim.model.graph import BUILD_KINDS, CODE_KINDS, BuildGraph, EdgeKind
from slim.model.pymodules import ModuleIndex, normalize_dist, shipped_files, split_label
from slim.model.pytrace import (
    ImportTrace,
    Loader,
    SourceImports,
    StaticImport,
    TracedModule,
    merge_traces,
    module_prefixes,
)

from ._data_names import MAX_DATA_FILES, MAX_TOTAL_BYTES, data_names, is_text_data
from ._details import FootprintDetails
from ._loaders import (
    Leaving,
    LoaderSite,
    ThirdPartyScan,
    entry_point_groups,
    importtime_blind,
    named_reaches,
    scan_loaded_third_party,
)
from ._ownership import MAX_LISTED, Owned, OwnershipReader, short
from ._script_dir import add_script_names, script_dir
from ._thirdparty import is_third_party, python_targets
from ._traces import own_traces, startup, stdlib_only
from .rules import NAME

if TYPE_CHECKING:
    from numpy.typing import NDArray

_CASCADE_LIMIT = 200_000
_JUDGED = frozenset(CODE_KINDS - {EdgeKind.RUNTIME_DEPS})
_EXPORTS = frozenset({EdgeKind.EXPORTS})

# Module-level cache: the analyzer runs once per root over the same workspace.
_SCAN_CACHE: dict[tuple[str, str, str], SourceImports] = {}

Edges = tuple["NDArray[np.int64]", "NDArray[np.int64]", "NDArray[np.int8]"]
#: A string naming a module: the target, file and line it is at, and its text.
_Named = tuple[int, str, int, str]
#: Third-party code that imports what leaves (label, file, line, name), and unread code.
_PackageUse = tuple[list[tuple[str, str, int, str]], list[str]]


_EVERYTHING: set[str] = set()


class _Reach:
    """The fixed point behind `ImportView.runnable`."""

    def __init__(self, view: ImportView) -> None:
        self.view = view
        self.seen: set[str] = set()
        self.todo: list[str] = []
        self.owned = sorted(view.index.owners)

    def add(self, names: Iterable[str]) -> None:
        for n in names:
            if n not in self.seen:
                self.seen.add(n)
                self.todo.append(n)

    def run(self) -> set[str]:
        v = self.view
        root = v.owned.get(v.root)
        self.add(p for m in (root.modules if root else ()) for p in module_prefixes(m))
        self.add(v.traced)
        while self.todo:
            m = self.todo.pop()
            src = v.by_module.get(m)
            if src is None:
                if m in v.index.owners:
                    return _EVERYTHING  # owned code whose imports were not read
                continue
            for imp in src.imports:
                self.add(p for c in v.cands(imp) for p in module_prefixes(c))
            for ld in src.loaders:
                if ld.kind == "dist":
                    continue  # reads metadata, runs no code
                if ld.kind != "computed" or not ld.prefix:
                    return _EVERYTHING
                self.add(self.under(ld.prefix))
            for _, text in src.named:
                if text.endswith("."):
                    self.add(self.under(text))
                else:
                    self.add(module_prefixes(text.split(":", 1)[0]))
        return self.seen

    def under(self, prefix: str) -> Iterator[str]:
        """The owned modules whose names start with `prefix`."""
        owned = self.owned
        for k in range(bisect_left(owned, prefix), len(owned)):
            if not owned[k].startswith(prefix):
                break
            yield owned[k]


def is_test(g: BuildGraph, i: int) -> bool:
    """`Target.is_test` without building the Target (called for every Python target)."""
    kind = g.kinds[i]
    if kind.endswith("_test") or kind in ("test_suite", "python_test", "cxx_test"):
        return True
    return g.attrs.get(i, {}).get("testonly") is True


class ImportView:
    """The joined Python evidence of `ctx.root` (see module docstring)."""

    def __init__(self, ctx: AnalysisContext) -> None:
        self.ctx = ctx
        self.g: BuildGraph = ctx.graph
        self.root = ctx.root
        self.root_label = ctx.root_label
        self.closure = [int(i) for i in ctx.closure.tolist()]
        self.in_closure = set(self.closure)
        self.ws = ctx.options.workspace
        self.py = python_targets(self.g, self.closure, ctx.options.module_map)
        self.reader = OwnershipReader(self.g, self.ws, ctx.options)
        self.owned: dict[int, Owned] = {i: self.reader.of(i) for i in self.py}
        where = script_dir(self.g, self.root)
        if where:
            add_script_names(self.owned.values(), where)
        self.index = ModuleIndex.build((i, o.modules) for i, o in self.owned.items())
        traces, self.foreign = own_traces(
            self.g, self.ws, self.index.owners, ctx.facts.of(ImportTrace)
        )
        self.trace_files = tuple(sorted({t.path for t in traces}))
        self.trace: ImportTrace | None = merge_traces(traces) if traces else None
        self.traced: dict[str, TracedModule] = dict(self.trace.by_name()) if self.trace else {}
        # `-X importtime` prints no row for a module loaded by importlib.import_module
        self.sees_importlib = self.trace is not None and self.trace.sees_importlib
        self.importtime_only = self.trace is not None and not self.sees_importlib
        self.test_root = is_test(self.g, self.root)
        self.scans: dict[int, list[SourceImports]] = {}
        self.static_ok: dict[int, str] = {}
        if self.ws is not None:
            self._scan_sources()
        self.by_module: dict[str, SourceImports] = {
            s.module: s for scans in self.scans.values() for s in scans if not s.error
        }
        self._add_other_names()
        self._all_sites: list[tuple[str, LoaderSite]] = [
            (s.module, LoaderSite(t, s.path, ld))
            for t in sorted(self.scans)
            for s in self.scans[t]
            for ld in s.loaders
        ]
        self._add_executed_files()
        self._sites: list[LoaderSite] | None = None
        self._runnable: set[str] | None = None
        self._unique: dict[int, set[str]] = {}
        self._used_by: dict[int, set[str]] = {}
        self._third_scan: ThirdPartyScan | None = None
        self._children: dict[str, list[str]] | None = None
        self._submodules: dict[str, list[str]] | None = None
        self._groups: dict[int, frozenset[str] | None] = {}
        self._dists: dict[int, frozenset[str] | None] = {}
        self._packages: set[int] | None = None
        self._named: tuple[dict[str, list[_Named]], list[_Named]] | None = None
        self._providers: dict[int, set[int]] = {}
        self._importers: dict[str, list[tuple[int, str, StaticImport]]] | None = None
        self._provided: dict[int, tuple[set[str], set[int]]] = {}
        self._tests: NDArray[np.bool_] | None = None
        self._edges: Edges | None = None

    # -- ownership ---------------------------------------------------------------------
    def _forwards(self, b: int, o: Owned) -> set[int]:
        """The targets whose modules B makes importable: its exports, and its code deps
        when B provides no modules of its own (a wrapper or an alias; an installed
        distribution provides its RECORD's modules, not its requirements')."""
        forward = {e.dep for e in self.g.out_edges(b, _EXPORTS)}
        if not o.modules and not o.unknown:
            forward |= {e.dep for e in self.g.out_edges(b, CODE_KINDS)}
        return forward

    def provided(self, b: int) -> tuple[set[str], set[int]]:
        """Modules B makes importable for its dependents (own, exported, or forwarded when
        B has no modules of its own), and the targets among them whose modules are unknown."""
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
        for d in sorted(self._forwards(b, o)):
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
        for d in sorted(self._forwards(b, o)):
            if d in self.owned:
                out |= self.providers(d)
        return out

    def evidence_for(self, b: int, module: str, used: set[str]) -> bool:
        """Whether a use of `module` (one of B's) is evidence that B is used."""
        owners = self.index.owners_of(module)
        if len(owners) <= 1:
            return True
        return bool(self.credited(module, used) & self.providers(b))

    def parents(self, a: int) -> set[str]:
        """Parent packages of A's own modules: importing A runs their `__init__`."""
        out: set[str] = set()
        for s in self.owned[a].sources:
            for m in s.modules:
                out.update(p for p in module_prefixes(m) if p != m)
        return out

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
            imported = self.eager_prefixes(src.imports)
        out = {o for o in owners if self.unique(o) & (used | imported)}
        return out or owners

    def footprint(self, b: int) -> FootprintDetails:
        o = self.owned[b]
        return FootprintDetails(len(o.files), sum(o.files.values()), len(o.modules))

    def looked_for(self, b: int, mods: set[str]) -> Evidence:
        """The modules of B an edge to it was judged by, and where they come from."""
        basis = self.owned[b].basis
        return Evidence(
            "ownership",
            f"modules of {self.g.labels[b]} looked for: {short(mods) or '(none)'}"
            + (f" ({basis})" if basis else ""),
            analyzer=NAME,
        )

    # -- static imports ----------------------------------------------------------------
    def _scan_sources(self) -> None:
        from ._workspace import SourceRequest, scan_files, workspace_file

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
                file = str(workspace_file(self.ws, s.path))
                req = SourceRequest(file, s.path, s.module, s.is_package)
                cached = _SCAN_CACHE.get((ws, s.path, s.module))
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

    def _add_other_names(self) -> None:
        """A source importable by several names (Bazel `imports`, a script's directory)
        is read once, under its first; its other names find the same scan."""
        others = {
            src.path: src.modules[1:]
            for o in self.owned.values()
            for src in o.sources
            if len(src.modules) > 1
        }
        if not others:
            return
        for s in [s for scans in self.scans.values() for s in scans if not s.error]:
            for name in others.get(s.path, ()):
                self.by_module.setdefault(name, s)

    def has_static(self, a: int) -> bool:
        return self.ws is not None and a in self.scans and a not in self.static_ok

    def cands(self, imp: StaticImport) -> tuple[str, ...]:
        """What `imp` may load: `from pkg import name` reads the attribute when the package's
        `__init__` binds `name` (and has no PEP 562 `__getattr__`), not `pkg.name`;
        `from pkg import *` loads the submodules `pkg.__all__` names."""
        if not imp.names:
            return (imp.module,)
        src = self.by_module.get(imp.module)
        names = imp.names
        if "*" in names:
            names = tuple(n for n in names if n != "*") + self._star_names(imp.module, src)
        if src is None or src.module_getattr or not src.defines:
            return (imp.module, *(f"{imp.module}.{n}" for n in names))
        return (imp.module, *(f"{imp.module}.{n}" for n in names if n not in src.defines))

    def _star_names(self, module: str, src: SourceImports | None) -> tuple[str, ...]:
        """The names `from module import *` may import as submodules: the literal
        `__all__`, or every known submodule when part of `__all__` is computed (or the
        package's source was not read)."""
        if src is not None and not src.all_computed:
            return src.all_names
        return tuple(self.submodules().get(module, ()))

    def submodules(self) -> dict[str, list[str]]:
        """Package -> the last names of its submodules owned in the closure."""
        if self._submodules is None:
            out: dict[str, list[str]] = {}
            for m in sorted(self.index.owners):
                parent, dot, last = m.rpartition(".")
                if dot:
                    out.setdefault(parent, []).append(last)
            self._submodules = out
        return self._submodules

    def loaded_by(self, imports: Iterable[StaticImport]) -> set[str]:
        """Every module (and parent package) these imports may load."""
        out: set[str] = set()
        for imp in imports:
            for c in self.cands(imp):
                out.update(module_prefixes(c))
        return out

    def eager_prefixes(self, imports: Iterable[StaticImport]) -> set[str]:
        """What the eager ones among `imports` load (see `loaded_by`)."""
        return self.loaded_by(imp for imp in imports if imp.eager)

    def used_by(self, a: int) -> set[str]:
        """Modules A's code loads: its static imports (any kind), its parent packages, and
        the modules the traces show A importing."""
        hit = self._used_by.get(a)
        if hit is None:
            hit = self.parents(a) | self.loaded_by(imp for _, imp in self.imports_of(a))
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
        """A's static imports that may load one of B's `mods` as evidence for B."""
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

    def loaded_evidence(self, hits: Sequence[TracedModule]) -> list[Evidence]:
        """One evidence row per traced module (the first few), with its importers."""
        return [
            Evidence(
                self.trace.path if self.trace else "trace",
                f"{tm.name} loaded (importers: {short(tm.importers) or 'unknown'})",
                line=tm.line if len(self.trace_files) == 1 else None,
                analyzer=NAME,
            )
            for tm in hits[:MAX_LISTED]
        ]

    def trace_evidence(self, b: int) -> list[Evidence]:
        """What the traces show of B's modules: the loaded ones, or that none loaded."""
        if self.trace is None:
            return [Evidence("trace", "no import trace given (pass --trace)", analyzer=NAME)]
        hits = self.trace_hits(self.provided(b)[0])
        if hits:
            return self.loaded_evidence(hits)
        return [
            Evidence(
                p,
                f"none of the modules of {self.g.labels[b]} loaded "
                f"({self.trace.runs} runs in all traces)",
                analyzer=NAME,
            )
            for p in self.trace_files
        ]

    # -- loaders -----------------------------------------------------------------------
    @property
    def sites(self) -> list[LoaderSite]:
        """The loader calls in code the program may run (see `runnable`). Those in the
        sources of third-party packages (spokes that list their files) count as in any
        other installed package's code: only under importtime-only traces, the loads that
        importtime misses, in modules the traces show loaded."""
        if self._sites is None:
            run = self.runnable()
            mm = self.ctx.options.module_map
            third = {t for t in self.scans if is_third_party(self.g, t, mm)}
            self._sites = [
                x
                for m, x in self._all_sites
                if (run is None or m in run)
                and (
                    x.target not in third
                    or (self.importtime_only and m in self.traced and importtime_blind(x.loader))
                )
            ]
        return self._sites

    def runnable(self) -> set[str] | None:
        """The modules the program may run: the root's, the traced ones, and what their
        imports (of any kind), loaders and strings naming modules can reach, to a fixed
        point; None when that is everything (code that was not read, a loader that can
        reach any module). A loader in code nothing reaches cannot run."""
        if self._runnable is None:
            self._runnable = _Reach(self).run()
        return self._runnable if self._runnable is not _EVERYTHING else None

    def third_party_loaded(self) -> ThirdPartyScan:
        """Loader sites in the third-party code the traces show loaded (read once)."""
        if self._third_scan is None:
            from ._workspace import site_packages_dirs

            first_party = {
                p
                for o in self.owned.values()
                if o.sources
                for m in o.modules
                for p in module_prefixes(m)
            }
            loaded = set(self.traced) - startup(self.traced)
            self._third_scan = scan_loaded_third_party(
                loaded,
                first_party,
                site_packages_dirs(self.ws, self._extra_site()),
                unfound_ok=stdlib_only(self.traced),
            )
        return self._third_scan

    def _extra_site(self) -> str:
        return os.pathsep.join(str(p) for p in self.ctx.options.site_packages)

    def groups(self, t: int) -> frozenset[str] | None:
        """Entry-point groups `t` declares (its dist-info; an alias or wrapper: those of
        what it stands for); None when not known."""
        if t not in self._groups:
            self._groups[t] = None  # a cycle knows nothing
            self._groups[t] = self._read_groups(t)
        return self._groups[t]

    def _read_groups(self, t: int) -> frozenset[str] | None:
        o = self.owned.get(t)
        if o is None:
            return None
        if not o.modules and not o.unknown and not o.sources:
            forward = self._forwards(t, o)
            found = [self.groups(d) for d in sorted(forward) if d in self.owned and d != t]
            if not found or any(x is None for x in found):
                return None
            return frozenset().union(*(x for x in found if x is not None))
        info = o.basis.split("/", 1)[0]
        if not info.endswith((".dist-info", ".egg-info")):
            return None
        from ._workspace import read_dist_text, site_packages_dirs

        for d in site_packages_dirs(self.ws, self._extra_site()):
            if (d / info).is_dir():
                return entry_point_groups(read_dist_text(d / info, "entry_points.txt"))
        return None

    def dists(self, t: int) -> frozenset[str] | None:
        """The installed distributions `t` stands for (its dist-info; an alias or wrapper:
        those of what it stands for); none for first-party code; None when not known (a
        third-party target mapped by a table, the config or a guess)."""
        if t not in self._dists:
            self._dists[t] = None  # a cycle knows nothing
            self._dists[t] = self._read_dists(t)
        return self._dists[t]

    def _read_dists(self, t: int) -> frozenset[str] | None:
        o = self.owned.get(t)
        if o is None or o.sources:
            return frozenset()
        if not o.modules and not o.unknown:
            forward = sorted(d for d in self._forwards(t, o) if d in self.owned and d != t)
            found = [self.dists(d) for d in forward]
            if any(x is None for x in found):
                return None
            return frozenset().union(*(x for x in found if x is not None))
        info = o.basis.split("/", 1)[0]
        if info.endswith((".dist-info", ".egg-info")):
            return frozenset({normalize_dist(info.split("-", 1)[0].rsplit(".", 1)[0])})
        return None if is_third_party(self.g, t, self.ctx.options.module_map) else frozenset()

    def what_leaves(self, gone: set[int], gone_mods: set[str]) -> Leaving:
        """What leaves with a cut, as the loaders judge it (see `Leaving`)."""
        packages = frozenset(
            s.module
            for t in gone
            if t in self.owned
            for s in self.owned[t].sources
            if s.is_package and s.module in gone_mods
        )
        renamed: frozenset[str] = frozenset()
        if any(s.loader.kind == "path" for s in self.sites):
            renamed = frozenset(self._renamed(gone, gone_mods))
        groups = {t: self.groups(t) for t in gone}
        dists = {t: self.dists(t) for t in gone}
        return Leaving(gone, gone_mods, groups, packages, renamed, dists)

    def _renamed(self, gone: set[int], gone_mods: set[str]) -> Iterator[str]:
        """Leaving modules that code staying in the build (or a trace) names by a proper
        suffix of their name (`import migrate` for `scripts.migrate`)."""
        importers = self.importers()
        for m in sorted(gone_mods):
            parts = m.split(".")
            for k in range(1, len(parts)):
                short_name = ".".join(parts[k:])
                if short_name in self.traced or any(
                    t not in gone for t, _, _ in importers.get(short_name, ())
                ):
                    yield m
                    break

    def named_sites(self, gone: set[int], gone_mods: set[str]) -> list[LoaderSite]:
        """Strings in code that stays which name a leaving module (`'handlers.custom.X'`
        for `handlers.custom`): loaders by name (logging configuration, plugin registries,
        `mock.patch`) may import it."""
        exact, prefixes = self._named_index()
        out: list[LoaderSite] = []
        for m in sorted(gone_mods):
            for t, path, line, text in exact.get(m, ()):
                if t not in gone:
                    out.append(LoaderSite(t, path, Loader(line, "named", text, repr(text))))
        for t, path, line, text in prefixes:
            if t not in gone and any(named_reaches(text, m) for m in gone_mods):
                out.append(LoaderSite(t, path, Loader(line, "named", text, repr(text))))
        return sorted(set(out), key=lambda x: (x.path, x.loader.line, x.loader.prefix))

    def _named_index(self) -> tuple[dict[str, list[_Named]], list[_Named]]:
        """Module name (and each dotted prefix) -> the strings that name it; the strings
        that end in a dot (`'plugins.'`), which name every module under them."""
        if self._named is None:
            exact: dict[str, list[_Named]] = {}
            prefixes: list[_Named] = []
            run = self.runnable()
            for t in sorted(self.scans):
                for s in self.scans[t]:
                    if run is not None and s.module not in run:
                        continue
                    for line, text in s.named:
                        if text.endswith("."):
                            prefixes.append((t, s.path, line, text))
                            continue
                        for p in module_prefixes(text.split(":", 1)[0]):
                            exact.setdefault(p, []).append((t, s.path, line, text))
            for t, path, line, text in self._data_names():
                for p in module_prefixes(text):
                    exact.setdefault(p, []).append((t, path, line, text))
            self._named = (exact, prefixes)
        return self._named

    def _data_names(self) -> Iterator[_Named]:
        """Dotted names in the text data files first-party targets of the closure ship
        (see `_data_names`), up to `MAX_DATA_FILES` files and `MAX_TOTAL_BYTES`."""
        if self.ws is None:
            return
        mm = self.ctx.options.module_map
        n = size = 0
        for t in sorted(self.in_closure):
            if is_third_party(self.g, t, mm):
                continue
            for rel in shipped_files(self.g, t):
                if rel.startswith("external/") or not is_text_data(rel):
                    continue
                n += 1
                if n > MAX_DATA_FILES or size > MAX_TOTAL_BYTES:
                    return
                names, read = data_names(self.ws / rel)
                size += read
                for line, text in names:
                    yield t, rel, line, text

    # -- the closure -------------------------------------------------------------------
    def leaving(self, a: int, b: int) -> list[int]:
        """Targets that leave the root's closure when the edge A -> B is cut.

        Build graphs of Python targets are acyclic (Bazel, Buck2), so B stays when another
        target of the closure depends on it; otherwise what leaves is B and the part of its
        closure whose every dependent leaves too."""
        g = self.g
        if self.parents_in_closure(b) - {a, b}:
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
                if self.parents_in_closure(c) <= leaving:
                    leaving.add(c)
                    queue.append(c)
        return sorted(leaving)

    def packages_importing(self, gone: set[int], gone_mods: set[str]) -> _PackageUse:
        """Installed third-party packages that stay in the build and whose code imports a
        third-party package that leaves (`pandas` naming `scipy` inside a function), as
        (label, file, line, name); and those whose code could not be read (mapped by a
        table, config or a guess: no files)."""
        from ._package_imports import package_imports

        mm = self.ctx.options.module_map
        tops = {
            m.split(".", 1)[0]
            for t in gone
            if t in self.owned and (self.owned[t].site or is_third_party(self.g, t, mm))
            for m in self.owned[t].modules
            if m in gone_mods
        }
        hits: list[tuple[str, str, int, str]] = []
        unread: list[str] = []
        if not tops:
            return hits, unread
        for c in sorted(self.imported_packages() - gone):
            o = self.owned[c]
            if not (o.site and o.files):
                unread.append(self.g.labels[c])
                continue
            own = {m.split(".", 1)[0] for m in o.modules}
            names = package_imports(o.site, o.files)
            for top in sorted(tops - own):
                if top in names:
                    hits.append((self.g.labels[c], *names[top], top))
        return hits, unread

    def imported_packages(self) -> set[int]:
        """Installed third-party packages whose code the program runs as far as sources
        show: those owning a module the read code imports (any kind), and their
        requirements (code deps) in turn."""
        if self._packages is None:
            mm = self.ctx.options.module_map
            imported = self.importers()
            todo = [
                c
                for c, o in self.owned.items()
                if not o.sources
                and o.modules
                and (o.site or is_third_party(self.g, c, mm))
                and any(m in imported for m in o.modules)
            ]
            seen: set[int] = set()
            while todo:
                c = todo.pop()
                if c in seen:
                    continue
                seen.add(c)
                for e in self.g.out_edges(c, CODE_KINDS):
                    d = e.dep
                    if d in self.owned and d in self.in_closure and not self.owned[d].sources:
                        todo.extend(self.providers(d))
            self._packages = {c for c in seen if self.owned[c].modules}
        return self._packages

    def modules_leaving(self, gone: set[int]) -> set[str]:
        """The modules only the `gone` targets provide in the closure."""
        return {
            m
            for t in gone
            if t in self.owned
            for m in self.owned[t].modules
            if self.index.owners_of(m) <= gone
        }

    def shipped(self, targets: Iterable[int]) -> list[str]:
        """Workspace files that leave with `targets` and are no module: the `data` and
        non-Python `srcs` of first-party Python targets and filegroups (third-party
        packages' files are read through their modules)."""
        out: list[str] = []
        for t in targets:
            if t not in self.owned and self.g.kinds[t] != "filegroup":
                continue
            if is_third_party(self.g, t, self.ctx.options.module_map):
                continue
            out.extend(shipped_files(self.g, t))
        return sorted(set(out))

    def parents_in_closure(self, b: int) -> set[int]:
        return {e.target for e in self.g.in_edges(b, BUILD_KINDS) if e.target in self.in_closure}

    def files_of(self, targets: Iterable[int]) -> tuple[int, int]:
        """Workspace files and bytes the `targets` ship."""
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
                sizes = self.reader.sizes(paths)
                files += len(sizes)
                size += sum(sizes.values())
        return files, size

    def edge_arrays(self) -> Edges:
        """(target, dep, kind) of every edge between two Python targets of the closure."""
        if self._edges is None:
            g = self.g
            m = self.python_mask()
            m = m[g.edge_src] & m[g.edge_dst] & (g.edge_src != g.edge_dst)
            self._edges = (
                g.edge_src[m].astype(np.int64),
                g.edge_dst[m].astype(np.int64),
                g.edge_kind[m],
            )
        return self._edges

    def python_mask(self) -> NDArray[np.bool_]:
        py = np.zeros(len(self.g), dtype=bool)
        py[np.asarray(self.py, dtype=np.int64)] = True
        return py

    def test_mask(self) -> NDArray[np.bool_]:
        if self._tests is None:
            self._tests = np.zeros(len(self.g), dtype=bool)
            self._tests[[i for i in self.py if is_test(self.g, i)]] = True
        return self._tests

    def candidate_pairs(self) -> NDArray[np.int64]:
        """Edges A -> B to judge, as an (n, 2) array: code edges (not runtime_deps, not data)
        from a non-test Python target with sources to a non-test Python target."""
        src, dst, kind = self.edge_arrays()
        b_test = self.test_mask()
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

    def fast_used(self, pairs: NDArray[np.int64]) -> NDArray[np.bool_]:
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
            eager = self.parents(t) | self.eager_prefixes(imp for _, imp in self.imports_of(t))
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
