"""The Python evidence of one root, joined: who owns which module, what the sources import
statically, what the traces loaded, and what leaves the closure with a cut.

Every Python rule reads this one view; building it scans the workspace sources once
(cached across roots) and merges the root's own traces.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from slim.model.context import AnalysisContext
from slim.model.findings import Evidence
from slim.model.graph import BUILD_KINDS, CODE_KINDS, BuildGraph, EdgeKind
from slim.model.pymodules import ModuleIndex, split_label
from slim.model.pytrace import (
    ImportTrace,
    SourceImports,
    StaticImport,
    TracedModule,
    merge_traces,
    module_prefixes,
)

from ._details import FootprintDetails
from ._loaders import LoaderSite, ThirdPartyScan, entry_point_groups, scan_loaded_third_party
from ._ownership import MAX_LISTED, Owned, OwnershipReader, short
from ._thirdparty import python_targets
from ._traces import own_traces, startup

if TYPE_CHECKING:
    from numpy.typing import NDArray

NAME = "python-imports"
_CASCADE_LIMIT = 200_000
_JUDGED = frozenset(CODE_KINDS - {EdgeKind.RUNTIME_DEPS})
_EXPORTS = frozenset({EdgeKind.EXPORTS})

# Module-level cache: the analyzer runs once per root over the same workspace.
_SCAN_CACHE: dict[tuple[str, str, str], SourceImports] = {}

Edges = tuple["NDArray[np.int64]", "NDArray[np.int64]", "NDArray[np.int8]"]


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
        self._edges: Edges | None = None

    # -- ownership ---------------------------------------------------------------------
    def _forwards(self, b: int, o: Owned) -> set[int]:
        """The targets whose modules B makes importable: its exports, and its code deps
        when B has no sources of its own (a wrapper or an alias)."""
        forward = {e.dep for e in self.g.out_edges(b, _EXPORTS)}
        if not o.sources and not o.unknown:
            forward |= {e.dep for e in self.g.out_edges(b, CODE_KINDS)}
        return forward

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
        from ._workspace import SourceRequest, scan_files

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
                loaded, first_party, site_packages_dirs(self.ws, self._extra_site())
            )
        return self._third_scan

    def _extra_site(self) -> str:
        return os.pathsep.join(str(p) for p in self.ctx.options.site_packages)

    def groups(self, t: int) -> frozenset[str] | None:
        """Entry-point groups `t` declares (its dist-info); None when not known."""
        o = self.owned.get(t)
        info = o.basis.split("/", 1)[0] if o is not None else ""
        if not info.endswith((".dist-info", ".egg-info")):
            return None
        from ._workspace import read_dist_text, site_packages_dirs

        for d in site_packages_dirs(self.ws, self._extra_site()):
            if (d / info).is_dir():
                return entry_point_groups(read_dist_text(d / info, "entry_points.txt"))
        return None

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
