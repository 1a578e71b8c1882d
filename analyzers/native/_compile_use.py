"""Compile-time use of a native dep: which headers each target's compiles read.

Sources of evidence, best first: compiler depfiles and `ninja -t deps` (`CompileDeps`
facts: exactly what the compiler read), the `ninja_headers` attrs a `ninja -t deps` graph
input leaves on targets, and, with a workspace, a static `#include` scan of a target's
sources resolved against its include directories (the CMake file API's compile groups,
Bazel `includes`, the including file's directory, the workspace root), followed into
the headers it finds. Who provides a header is `_header_owners`' job. Paths are made
workspace-relative, or stay absolute in a directory the project's CMake targets name
outside every root; other files (system headers) belong to nobody.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from weakref import WeakKeyDictionary

from slim.ingest.compile.forced import forced_includes
from slim.model.compile import CompileDeps, CompiledObject
from slim.model.findings import Evidence
from slim.model.graph import CODE_KINDS, BuildGraph
from slim.model.ownership import Ownership, source_path

from ._bazel_includes import (
    HEADER_SUFFIXES,
    SearchPaths,
    includes_dirs,
    listed_headers,
    prefixed_names,
    search_paths,
    virtual_owner,
)
from ._header_owners import HeaderOwners
from ._link_view import ANALYZER
from ._propagation import exported_dirs

C_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".m", ".mm", *HEADER_SUFFIXES)
_INCLUDE = re.compile(r'^\s*#\s*(include_next|include|import)\s*([<"])([^>"]+)[>"]')
_MACRO_INCLUDE = re.compile(r"^\s*#\s*(?:include|import)\s+([A-Za-z_]\w*)")
#: `__has_include(<x.h>)`: a probe, which compiler depfiles do not list.
_PROBE = re.compile(r'__has_include(_next)?\s*\(\s*([<"])([^>"]+)[>"]\s*\)')
_BAZEL_GEN = re.compile(r"^(?:.*/)?bazel-out/[^/]+/(?:bin|genfiles)/")
MAX_SCAN_FILES = 5000
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Entries of the workspace walked for a header the graph does not list (`_listed_as`).
MAX_WALK_FILES = 200_000


def forced(graph: BuildGraph, t: int) -> tuple[str, ...]:
    """The files `t`'s compile options force into every source (CMake compile fragments,
    Bazel `copts`): no `#include` shows them."""
    attrs = graph.target(t).attrs
    given = attrs.get("forced_includes")
    if isinstance(given, tuple):
        return tuple(map(str, given))
    copts = attrs.get("copts")
    return forced_includes(map(str, copts)) if isinstance(copts, tuple) else ()


def _delimiter(directive: str, delimiter: str) -> str:
    """How an include is searched for: `"` from the includer's own directory first, `<`
    not; an `include_next` (or `__has_include_next`) searches on from the directory the
    includer was found in, never the includer's own first, so it is `<` whatever it is
    spelled with."""
    return "<" if directive.endswith("_next") else delimiter


@dataclass(frozen=True)
class _GraphPaths:
    """What every root's `CompileIndex` reads from all of a graph's attrs, read once."""

    source_roots: list[str]
    """CMake source roots, longest first."""
    cmake: list[int]
    """The targets that have one."""
    ninja_headers: list[tuple[int, tuple[object, ...]]]
    """(target, headers) a `ninja -t deps` graph input recorded, by target."""


_PATHS: WeakKeyDictionary[BuildGraph, _GraphPaths] = WeakKeyDictionary()
#: Per graph: `CompileIndex.outside`.
_OUTSIDE: WeakKeyDictionary[BuildGraph, frozenset[str]] = WeakKeyDictionary()


def _graph_paths(graph: BuildGraph) -> _GraphPaths:
    hit = _PATHS.get(graph)
    if hit is None:
        roots: set[str] = set()
        cmake: list[int] = []
        ninja: list[tuple[int, tuple[object, ...]]] = []
        for i, attrs in graph.attrs.items():
            r = attrs.get("source_root")
            if isinstance(r, str) and r:
                roots.add(r.rstrip("/"))
                cmake.append(i)
            hdrs = attrs.get("ninja_headers")
            if isinstance(hdrs, tuple):
                ninja.append((i, hdrs))
        hit = _PATHS[graph] = _GraphPaths(
            sorted(roots, key=len, reverse=True), cmake, sorted(ninja, key=lambda x: x[0])
        )
    return hit


def _outside_dirs(graph: BuildGraph, roots: list[str], targets: list[int]) -> frozenset[str]:
    """Absolute directories outside every CMake source root that its targets list sources
    in or declare as include directories (zstd's `build/cmake` names `lib/` so): the file
    API gives such paths absolute, and the graph keeps them so. A directory a target only
    gets from a dependency (an imported one's `/usr/include`) is not one."""
    out: set[str] = set()
    for i in targets:
        srcs = graph.srcs.get(i, ())
        out.update(posixpath.dirname(posixpath.normpath(s)) for s in srcs if s[:1] == "/")
        attrs = graph.attrs.get(i, {})
        decls = attrs.get("include_dir_decls")
        commands = dict(
            str(row).split("\t")[:2]
            for row in (decls if isinstance(decls, tuple) else ())
            if str(row).count("\t") >= 2
        )
        system = attrs.get("system_include_dirs")
        for attr in ("include_dirs", "system_include_dirs"):
            dirs = attrs.get(attr)
            for d in map(str, dirs if isinstance(dirs, tuple) else ()):
                command = commands.get(d)
                if command is None and isinstance(system, tuple) and d in system:
                    continue
                if d[:1] == "/" and (command is None or command.endswith("include_directories")):
                    out.add(posixpath.normpath(d))
    return frozenset(d for d in out if not any(d == r or d.startswith(r + "/") for r in roots))


def _dirs_up(path: str) -> list[str]:
    """The directories holding absolute `path`: `/a/b/c.h` -> [`/a/b`, `/a`]."""
    out = []
    d = posixpath.dirname(path)
    while d not in ("/", ""):
        out.append(d)
        d = posixpath.dirname(d)
    return out


@dataclass(frozen=True)
class HeaderUse:
    """`source` (a file of the target's compile) read `header` (workspace-relative)."""

    header: str
    source: str
    evidence: Evidence
    probe: bool = False
    """Only probed (`__has_include`), not included: no depfile lists such a read."""


@dataclass
class TargetCompile:
    """What is known of one target's compiles."""

    how: str  # "depfile", "ninja -t deps", "static #include scan"
    headers: list[HeaderUse] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)  # includes a scan could not resolve
    maybe: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    """Angled includes a scan did not resolve that may be project headers: (the include,
    the headers it may be); unknown only for the edges that take one of those away."""
    sources: list[str] = field(default_factory=list)
    """The files compiled (workspace-relative where they can be)."""

    @property
    def read(self) -> list[str]:
        """Every file the compiles read: the sources, then the headers, each once."""
        return list(dict.fromkeys([*self.sources, *(h.header for h in self.headers)]))

    @property
    def exact(self) -> bool:
        return self.how != "static #include scan"


class CompileIndex:
    """Compile-time evidence per target of one graph, and the owners of each header."""

    def __init__(
        self,
        graph: BuildGraph,
        own: Ownership,
        deps: Iterable[CompileDeps],
        workspace: Path | None,
    ) -> None:
        self.g = graph
        self.own = own
        self.workspace = workspace.resolve() if workspace is not None else None
        self._paths = paths = _graph_paths(graph)
        self.source_roots, self._cmake = paths.source_roots, paths.cmake
        ws = {str(self.workspace)} if self.workspace is not None else set()
        self.roots = sorted({*self.source_roots, *ws}, key=len, reverse=True)
        self.by_target: dict[int, TargetCompile] = {}
        self.unowned: list[str] = []
        self.foreign: list[str] = []
        """Objects compiled from a source outside the workspace and every source root
        (evidence of another tree): their target's compile is not known from it."""
        self.given = False
        self._prefixed: dict[int, dict[str, str]] = {}
        """Per Bazel target with an include prefix: include name -> its header."""
        seen: set[str] = set()
        strangers: set[int] = set()
        for d in deps:
            if d.path in seen:
                continue
            seen.add(d.path)
            self.given = True
            how = "depfile" if d.format == "depfile" else "ninja -t deps"
            for o in d.objects:
                t = self._record(d, how, o)
                if t is not None:
                    strangers.add(t)
        for t in strangers:
            self.by_target.pop(t, None)
        self._ninja_attrs()
        self.headers = HeaderOwners(
            graph, self.declared_dirs, self._exact_readers, self._exported_at
        )
        self._scan_cache: dict[str, tuple[list[tuple[str, int, str, str]], bool]] = {}
        self._probes: dict[int, list[HeaderUse]] = {}
        self._searches: dict[int, SearchPaths] = {}
        self._closure_headers: dict[int, dict[str, list[str]]] = {}
        self._walked: dict[str, list[str]] | Literal[False] | None = False

    def _ninja_attrs(self) -> None:
        """Headers a `ninja -t deps` graph input recorded per target."""
        for i, hdrs in self._paths.ninja_headers:
            if i in self.by_target:
                continue
            self.given = True
            tc = self.by_target.setdefault(i, TargetCompile("ninja -t deps"))
            label = self.g.labels[i]
            for h in hdrs:
                rel = self.rel(str(h))
                if rel is not None:
                    ev = Evidence(
                        "graph (ninja -t deps)",
                        f"{label} compiled reading {h}",
                        None,
                        None,
                        ANALYZER,
                    )
                    tc.headers.append(HeaderUse(rel, label, ev))

    # -- paths ---------------------------------------------------------------------------
    @property
    def outside(self) -> frozenset[str]:
        """Directories outside every CMake source root that the project's own targets name
        (absolute, as the graph names them): a header in one is a project header."""
        hit = _OUTSIDE.get(self.g)
        if hit is None:
            hit = _OUTSIDE[self.g] = _outside_dirs(self.g, self.source_roots, self._cmake)
        return hit

    def rel(self, path: str) -> str | None:
        """`path` as the graph names it: relative to a CMake source root, else absolute
        in a directory of `outside`, else relative to the workspace; None when outside
        all of these (a system or third-party header)."""
        p = posixpath.normpath(path.replace("\\", "/"))
        if p.startswith("/"):
            for r in self.source_roots:
                if p.startswith(r + "/"):
                    return p[len(r) + 1 :]
            outside = self.outside if self._cmake else frozenset()
            if outside and (p in outside or any(d in outside for d in _dirs_up(p))):
                return p
            w = str(self.workspace) if self.workspace is not None else None
            if w is not None and p.startswith(w.rstrip("/") + "/"):
                return p[len(w.rstrip("/")) + 1 :]
            return None
        p = _BAZEL_GEN.sub("", p)
        while p.startswith("../"):
            p = p[3:]
        if "_virtual_includes/" in p:
            return self._unvirtual(p)
        return None if p in (".", "") else p

    def _unvirtual(self, path: str) -> str:
        """The workspace header a `_virtual_includes` path of Bazel's links to (the path
        itself when its target or the header is not known)."""
        owner = virtual_owner(path)
        t = None if owner is None else self.g.lookup(owner[0])
        if owner is None or t is None:
            return path
        names = self._prefixed.get(t)
        if names is None:
            names = self._prefixed[t] = prefixed_names(self.g, t)
        return names.get(owner[1], path)

    # -- per target ----------------------------------------------------------------------
    def of(self, t: int) -> TargetCompile | None:
        """The target's compile evidence (a scan of its sources when nothing else is
        known and a workspace is given); None when there is none."""
        hit = self.by_target.get(t)
        if hit is not None:
            return hit
        if self.workspace is None:
            return None
        tgt = self.g.target(t)
        srcs = [source_path(s) for s in tgt.srcs]
        srcs = [s for s in srcs if s.endswith(C_SUFFIXES)]
        if not srcs:
            return None
        rel = [self.rel(s) if posixpath.isabs(s) else s for s in srcs]
        tc = self.by_target[t] = self._scan(tgt.id, [s for s in rel if s is not None])
        outside = [s for s, r in zip(srcs, rel, strict=True) if r is None]
        tc.unresolved += [f"{s} (outside the workspace: not scanned)" for s in outside[:3]]
        return tc

    def _record(self, d: CompileDeps, how: str, o: CompiledObject) -> int | None:
        """Charge one compiled object's headers to its target; the target when the object
        was compiled from outside every known root (its evidence is then not used)."""
        t = self.own.artifact_owner(o.output)
        if t is None:
            t = self.own.source_owner(self.rel(o.source) or o.source)
        if t is None:
            self.unowned.append(o.output)
            return None
        src = self.rel(o.source)
        if src is None and posixpath.isabs(o.source.replace("\\", "/")):
            self.foreign.append(o.output)
            return t
        tc = self.by_target.setdefault(t, TargetCompile(how))
        tc.sources.append(src or o.source)
        for h in o.headers:
            rel = self.rel(h)
            if rel is not None:
                ev = Evidence(d.path, f"{o.output}: {o.source} read {h}", o.line, None, ANALYZER)
                tc.headers.append(HeaderUse(rel, src or o.source, ev))
        return None

    def _exported_at(self, path: str, line: int) -> bool | None:
        dirs = [Path(r) for r in self.roots]
        return exported_dirs(dirs, path, line)

    def _exact_readers(self) -> dict[str, set[int]]:
        """Header -> the targets whose compiles read it (depfiles, `ninja -t deps`)."""
        out: dict[str, set[int]] = {}
        for t, tc in self.by_target.items():
            if tc.exact:
                for h in tc.headers:
                    out.setdefault(h.header, set()).add(t)
        return out

    def declared_dirs(self, t: int) -> list[str]:
        """The workspace include directories `t` compiles with (CMake compile groups,
        SYSTEM ones too; Bazel `includes`)."""
        tgt = self.g.target(t)
        dirs: list[str] = []
        for attr in ("include_dirs", "system_include_dirs"):
            inc = tgt.attrs.get(attr)
            if isinstance(inc, tuple):
                for d in inc:
                    r = self.rel(str(d)) if str(d).startswith("/") else str(d)
                    if r is not None:
                        dirs.append("" if r == "." else r)
        dirs += includes_dirs(tgt.label, tgt.attrs.get("includes"))
        return list(dict.fromkeys(dirs))

    def _search(self, t: int) -> SearchPaths:
        """Where `t`'s compile looks for an include: its declared directories, those its
        Bazel deps pass on (`includes`, prefixed header names), then the workspace root."""
        hit = self._searches.get(t)
        if hit is None:
            bazel = search_paths(self.g, t)
            dirs = [*self.declared_dirs(t), *bazel.dirs, ""]
            hit = self._searches[t] = SearchPaths(list(dict.fromkeys(dirs)), bazel.names)
        return hit

    def _maybe(self, tc: TargetCompile, t: int, name: str, where: str) -> None:
        """Record an unresolved angled include that may be a project header."""
        listed = self._listed_as(t, name)
        if listed is None:
            tc.unresolved.append(
                f"{where}, which may be a header of the workspace (over {MAX_WALK_FILES} "
                "entries: not searched)"
            )
        elif listed:
            why = (
                f"{where}, which may be {listed[0]} through an include path the graph does not show"
            )
            tc.maybe.append((why, tuple(listed)))

    def _listed_as(self, t: int, name: str) -> list[str] | None:
        """Headers of `t`'s code closure that an include of `name` may find through an
        include path the graph does not show (a project header, not a system one); None
        when the workspace is too large to tell."""
        by_base = self._closure_headers.get(t)
        if by_base is None:
            by_base = self._closure_headers[t] = {}
            for d in self.g.closure([t], CODE_KINDS).tolist():
                for h in listed_headers(self.g, d):
                    by_base.setdefault(posixpath.basename(h), []).append(h)
        if not by_base:  # a graph that lists no header (`ninja -t graph`): the workspace's
            walked = self._workspace_headers()
            if walked is None:
                return None
            by_base = walked
        norm = posixpath.normpath(name)
        return [
            h
            for h in by_base.get(posixpath.basename(norm), [])
            if h == norm or h.endswith("/" + norm)
        ]

    def _workspace_headers(self) -> dict[str, list[str]] | None:
        """Basename -> the headers in the workspace (hidden directories and symbolic links
        not followed), found once; None past `MAX_WALK_FILES` entries (files and directories)."""
        if self._walked is not False:
            return self._walked
        assert self.workspace is not None
        out: dict[str, list[str]] = {}
        seen = 0
        for top, dirs, files in os.walk(self.workspace):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            seen += len(files) + len(dirs)
            if seen > MAX_WALK_FILES:
                self._walked = None
                return None
            rel = posixpath.relpath(top, str(self.workspace))
            for f in sorted(files):
                if f.endswith(HEADER_SUFFIXES):
                    out.setdefault(f, []).append(f if rel == "." else posixpath.join(rel, f))
        self._walked = out
        return out

    def _scan(self, t: int, srcs: list[str]) -> TargetCompile:
        assert self.workspace is not None
        tc = TargetCompile("static #include scan")
        search = self._search(t)
        todo = list(srcs)
        done: set[str] = set()
        for name in forced(self.g, t) if srcs else ():
            path = self.rel(name) if posixpath.isabs(name) else name
            found = None if path is None else self._resolve("", '"', path, search)
            if found is None:
                tc.unresolved.append(f"{self.g.labels[t]}: -include {name} (a compile option)")
                continue
            ev = Evidence(srcs[0], f"-include {name} (a compile option)", None, None, ANALYZER)
            tc.headers.append(HeaderUse(found, srcs[0], ev))
            todo.append(found)
        while todo and len(done) < MAX_SCAN_FILES:
            f = todo.pop()
            if f in done:
                continue
            done.add(f)
            rows, _ = self._includes(f)
            for line, row_kind, name, text in rows:
                kind = row_kind.removeprefix("probe")
                if kind == "macro":
                    tc.unresolved.append(f"{f}:{line}: {text.strip()} (computed include)")
                    continue
                found = self._resolve(f, kind, name, search)
                if found is None:
                    if kind == '"' and row_kind == kind:  # (a probe may find nothing)
                        tc.unresolved.append(f"{f}:{line}: {text.strip()}")
                    elif kind == "<":
                        self._maybe(tc, t, name, f"{f}:{line}: {text.strip()}")
                    continue
                tc.headers.append(
                    HeaderUse(found, f, Evidence(f, text.strip(), line, None, ANALYZER))
                )
                todo.append(found)
        return tc

    def _includes(self, f: str) -> tuple[list[tuple[int, str, str, str]], bool]:
        hit = self._scan_cache.get(f)
        if hit is not None:
            return hit  # type: ignore[return-value]
        assert self.workspace is not None
        rows: list[tuple[int, str, str, str]] = []
        p = self.workspace / f
        ok = p.is_file()
        if ok:
            with p.open("rb") as fh:
                raw = fh.read(MAX_FILE_BYTES + 1)
            ok = len(raw) <= MAX_FILE_BYTES  # the rest unread: what it includes is not known
            data = raw[:MAX_FILE_BYTES].decode("utf-8", "replace")
            for n, line in enumerate(data.splitlines(), 1):
                if "include" not in line and "import" not in line:
                    continue
                m = _INCLUDE.match(line)
                if m is not None:
                    rows.append((n, _delimiter(m.group(1), m.group(2)), m.group(3), line))
                    continue
                rows.extend(
                    (n, f"probe{_delimiter(nx, d)}", name, line)
                    for nx, d, name in _PROBE.findall(line)
                )
                m2 = _MACRO_INCLUDE.match(line)
                if m2 is not None:
                    rows.append((n, "macro", m2.group(1), line))
        out = (rows, ok)
        self._scan_cache[f] = out  # type: ignore[assignment]
        return out

    def probes(self, t: int, tc: TargetCompile) -> list[HeaderUse]:
        """The headers `t`'s compile only probes (`__has_include`) in the workspace files
        it reads, resolved as its includes are (none without a workspace, or when `tc`
        is a scan, which counts them as includes already)."""
        if self.workspace is None or not tc.exact:
            return []
        hit = self._probes.get(t)
        if hit is None:
            hit = self._probes[t] = self._probed(t, tc)
        return hit

    def _probed(self, t: int, tc: TargetCompile) -> list[HeaderUse]:
        files = [f for f in tc.read if not posixpath.isabs(f)]
        search = self._search(t)
        out = []
        for f in files:  # (what the depfiles list: no cap that would hide a probe)
            for line, kind, name, text in self._includes(f)[0]:
                if kind.startswith("probe"):
                    found = self._resolve(f, kind.removeprefix("probe"), name, search)
                    if found is not None:
                        ev = Evidence(f, text.strip(), line, None, ANALYZER)
                        out.append(HeaderUse(found, f, ev, probe=True))
        return out

    def beside(self, tc: TargetCompile, header: str) -> Evidence | None:
        """How the compile of `tc` finds `header` without any include directory: every
        `#include`/`__has_include` in the files it read that may name the header is a
        quoted one naming it from the includer's own directory, which the compiler
        searches first (an `#include "utils.h"` in `test/x.c` for `test/utils.h`); None
        when one is not, may not be (`#include MACRO`), or cannot be told (no sources, a
        scan, a file not read or outside the workspace)."""
        if self.workspace is None or not tc.exact:
            return None
        base = posixpath.basename(header)
        found: Evidence | None = None
        for f in tc.read:
            if posixpath.isabs(f):
                return None
            rows, ok = self._includes(f)
            if not ok:
                return None
            for line, kind, name, text in rows:
                if kind == "macro":
                    return None
                if posixpath.basename(name) != base:
                    continue
                here = posixpath.normpath(posixpath.join(posixpath.dirname(f), name))
                if kind.removeprefix("probe") != '"' or here != header:
                    return None
                found = found or Evidence(f, text.strip(), line, None, ANALYZER)
        return found

    def _resolve(self, f: str, kind: str, name: str, search: SearchPaths) -> str | None:
        assert self.workspace is not None
        cands = [posixpath.dirname(f)] if kind == '"' else []
        for d in [*cands, *search.dirs]:
            rel = posixpath.normpath(posixpath.join(d, name)) if d else posixpath.normpath(name)
            if rel.startswith("../"):
                continue
            if (self.workspace / rel).is_file():
                return rel
        named = search.names.get(posixpath.normpath(name))
        return named if named is not None and (self.workspace / named).is_file() else None
