"""CMake file API codemodel v2 (2.0 to 2.11): targets, their dependencies and artifacts.

Input is the reply directory (or a build directory holding `.cmake/api/v1/reply`, or an
`index-*.json`). The NEWEST index is read, then the `jsonFile` references it names (target
files are never globbed: stale ones from old runs can lie around).

Labels: a CMake target is `//<its directory, relative to the top source dir>:<name>`
(`//:app` for the top directory, `//util/sub:util`), so buildozer-style labels and package
collapsing work; `::` in names becomes `__` (`//:Threads__Threads`, as CMake names its reply
files). A directory outside the source tree uses its build-tree path. The CMake id, type and
real name are kept in attrs `cmake_id`, `cmake_type`, `cmake_name`.

Edges, codemodel 2.9+: `linkLibraries` -> DEPS, `interfaceLinkLibraries` only -> EXPORTS,
`objectDependencies` -> DEPS, `orderDependencies` -> ORDER_ONLY. Before 2.9 the target-level
`dependencies` are classified: `add_dependencies` (by backtrace) or a custom target ->
ORDER_ONLY; a library named by a link fragment (artifact path / nameOnDisk), an object
library, a `target_link_libraries` backtrace, or any library of a target without a link
step -> DEPS; anything else -> UNTYPED. CMake also lists there libraries a target links
only through another dependency (a static library's own deps): those edges are real
link edges but not declared by the target, so they become IMPLICIT: for a target with a
link step when every link fragment naming the library carries another call's backtrace
(the declaring `target_link_libraries` line), for one without (a static library) when
the library is reachable through another of its dependencies. 2.9+: a static library's
edge in both lists is PRIVATE or PUBLIC (its PRIVATE deps are in its interface as
`$<LINK_ONLY:>`), so its `link_visibility` is left for the declaring line to tell. Link
fragments that name no target are kept in attr `link_external`. Every edge gets the
CMakeLists line of its backtrace, every target the line of its `add_*` call (the first
frame inside the project). Imported and abstract
targets (2.9+) are external nodes (kind "") with `imported`/`abstract` attrs. Each target's
artifacts and object directory (`CMakeFiles/<name>.dir/`, attr `object_dir`) are
registered as its artifacts; `sources` that are not generated become `srcs` (paths as the
reply gives them: relative to the top source directory when inside it); the compile
groups' include directories become attr `include_dirs` (`system_include_dirs` for SYSTEM
ones), with the call that gave each (`include_dir_decls`: `dir<TAB>command<TAB>file:line`;
`target_include_directories` for a target's own, the consumer's `target_link_libraries`
line for one it gets from a dep); compile definitions and options a target gets from its
deps' usage requirements become attr `inherited_compile`
(`define|option<TAB>value<TAB>file:line`, the line of the `target_link_libraries` call
that brought them).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import TypeVar

import msgspec

from slim.errors import InputError, describe_found
from slim.ingest._io import read_limited
from slim.ingest._jsonpath import line_of
from slim.ingest.compile.forced import forced_includes
from slim.ingest.graph.cmake_reply import INDEX, reply_dir
from slim.model.graph import AttrValue, EdgeKind, GraphBuilder, Location

MAX_JSON_BYTES = 1024**3
KNOWN_MINOR = 11
TYPE_KINDS = {
    "EXECUTABLE": "executable",
    "STATIC_LIBRARY": "static_library",
    "SHARED_LIBRARY": "shared_library",
    "MODULE_LIBRARY": "module_library",
    "OBJECT_LIBRARY": "object_library",
    "INTERFACE_LIBRARY": "interface_library",
    "UNKNOWN_LIBRARY": "unknown_library",
    "UTILITY": "custom",
}
LIBRARY_TYPES = frozenset(
    {
        "STATIC_LIBRARY",
        "SHARED_LIBRARY",
        "MODULE_LIBRARY",
        "OBJECT_LIBRARY",
        "INTERFACE_LIBRARY",
        "UNKNOWN_LIBRARY",
    }
)
COMPILED_TYPES = frozenset(
    {"EXECUTABLE", "STATIC_LIBRARY", "SHARED_LIBRARY", "MODULE_LIBRARY", "OBJECT_LIBRARY"}
)
_LINK_KINDS = frozenset({EdgeKind.DEPS, EdgeKind.EXPORTS, EdgeKind.UNTYPED})
#: Commands whose backtrace on a compile definition or option says it came over a link
#: edge (a dep's usage requirements), declared on that line.
_LINK_COMMANDS = frozenset({"target_link_libraries", "link_libraries"})
#: Link fragments that are options of the link, not libraries (`-L` dirs included: a
#: dep's `target_link_directories(... INTERFACE ...)` is where another `-l` is found).
_LINK_OPTION_ROLES = frozenset({"flags", "libraryPath", "frameworkPath"})
_BYTE = re.compile(r"\(byte (\d+)\)")


def cmake_label(directory: str, name: str) -> str:
    """`//<directory>:<name>` with `::` (and any other `:`) made label-safe."""
    d = posixpath.normpath(directory.replace("\\", "/")).strip("/") if directory else ""
    if d == ".":
        d = ""
    return f"//{d}:{name.replace('::', '__').replace(':', '_')}"


# -- reply structures (unknown fields are ignored; missing ones default) -----------------
class Version(msgspec.Struct):
    major: int = 0
    minor: int = 0


class ObjectRef(msgspec.Struct, rename="camel"):
    kind: str = ""
    version: Version = msgspec.field(default_factory=Version)
    json_file: str = ""


class Index(msgspec.Struct):
    objects: list[ObjectRef] = []


class TargetRef(msgspec.Struct, rename="camel"):
    name: str
    id: str
    json_file: str
    directory_index: int = 0


class Directory(msgspec.Struct):
    source: str = "."
    build: str = "."


class Configuration(msgspec.Struct, rename="camel"):
    name: str = ""
    directories: list[Directory] = []
    targets: list[TargetRef] = []
    abstract_targets: list[TargetRef] = []


class Paths(msgspec.Struct):
    source: str = ""
    build: str = ""


class Codemodel(msgspec.Struct):
    configurations: list[Configuration] = []
    paths: Paths = msgspec.field(default_factory=Paths)
    version: Version = msgspec.field(default_factory=Version)


class BacktraceNode(msgspec.Struct):
    file: int = 0
    line: int | None = None
    command: int | None = None
    parent: int | None = None


class BacktraceGraph(msgspec.Struct):
    nodes: list[BacktraceNode] = []
    commands: list[str] = []
    files: list[str] = []


class DepRef(msgspec.Struct):
    id: str | None = None
    fragment: str | None = None
    backtrace: int | None = None


class Fragment(msgspec.Struct):
    fragment: str = ""
    role: str = ""
    backtrace: int | None = None


class Link(msgspec.Struct, rename="camel"):
    command_fragments: list[Fragment] = []


class Artifact(msgspec.Struct):
    path: str


class Source(msgspec.Struct, rename="camel"):
    path: str
    is_generated: bool = False
    compile_group_index: int | None = None
    backtrace: int | None = None


class Include(msgspec.Struct, rename="camel"):
    path: str = ""
    is_system: bool = False
    backtrace: int | None = None


class Define(msgspec.Struct):
    define: str = ""
    backtrace: int | None = None


class LanguageStandard(msgspec.Struct):
    """The standard a compile group gets (codemodel 2.2+), with where each requirement of
    it comes from (a dep's `target_compile_features(... PUBLIC cxx_std_20)` traces to the
    `target_link_libraries` line)."""

    backtraces: list[int] = []
    standard: str = ""


class PrecompileHeader(msgspec.Struct):
    header: str = ""
    backtrace: int | None = None


class CompileGroup(msgspec.Struct, rename="camel"):
    language: str = ""
    precompile_headers: list[PrecompileHeader] = []
    language_standard: LanguageStandard | None = None
    includes: list[Include] = []
    defines: list[Define] = []
    compile_command_fragments: list[Fragment] = []
    source_indexes: list[int] = []


class TargetPaths(msgspec.Struct):
    source: str = "."
    build: str = "."


class Target(msgspec.Struct, rename="camel"):
    name: str
    id: str
    type: str
    name_on_disk: str | None = None
    artifacts: list[Artifact] = []
    paths: TargetPaths = msgspec.field(default_factory=TargetPaths)
    backtrace: int | None = None
    backtrace_graph: BacktraceGraph = msgspec.field(default_factory=BacktraceGraph)
    dependencies: list[DepRef] = []
    link_libraries: list[DepRef] | None = None
    interface_link_libraries: list[DepRef] | None = None
    object_dependencies: list[DepRef] | None = None
    order_dependencies: list[DepRef] | None = None
    link: Link | None = None
    sources: list[Source] = []
    compile_groups: list[CompileGroup] = []
    imported: bool = False
    abstract: bool = False


_S = TypeVar("_S", bound=msgspec.Struct)


def _visibility(target_type: str, linked: bool, interface: bool) -> str:
    """The `target_link_libraries` keyword codemodel 2.9+ implies; "" when it cannot tell:
    a static library's PRIVATE deps are in its interface too (`$<LINK_ONLY:...>`)."""
    if linked and interface:
        return "" if target_type in ("STATIC_LIBRARY", "OBJECT_LIBRARY") else "PUBLIC"
    return "PRIVATE" if linked else "INTERFACE"


def _declared_here(t: Target, r: DepRef, linked: dict[str, set[Location | None]]) -> bool | None:
    """Whether `t`'s own `target_link_libraries` names `r` (before 2.9): each link fragment
    carries the backtrace of the call that put the library on the link line, `t`'s own
    line when `t` declares it, another target's line when `t` links it only through that
    target. None when no fragment with a backtrace names it (no link step)."""
    assert r.id is not None
    locs = linked.get(r.id)
    if not locs or None in locs:
        return None
    return _location(t, r.backtrace)[0] in locs


# -- locating and reading the reply -----------------------------------------------------
def sniff(head: bytes, path: Path) -> bool:
    if path.is_dir():
        return reply_dir(path) is not None
    return bool(INDEX.fullmatch(path.name)) and b'"objects"' in head and b'"cmake"' in head


def _read(path: Path) -> bytes:
    if not path.exists():
        raise InputError(str(path), "a CMake file API reply file", "no such file")
    return read_limited(path, MAX_JSON_BYTES, "a reply file")


def _decode(path: Path, data: bytes, typ: type[_S], what: str) -> _S:
    try:
        return msgspec.json.decode(data, type=typ)
    except msgspec.ValidationError as exc:
        line = line_of(data, str(exc))
        start = sum(len(x) + 1 for x in data.split(b"\n", line - 1)[: line - 1])
        found = describe_found(data[start : data.find(b"\n", start)].strip())
        raise InputError(str(path), f"{what} ({exc})", found, line=line) from None
    except msgspec.DecodeError as exc:
        m = _BYTE.search(str(exc))
        off = int(m.group(1)) if m else len(data)
        line = data.count(b"\n", 0, off) + 1
        found = describe_found(data[off : off + 40]) if data.strip() else "an empty file"
        raise InputError(str(path), f"{what} as JSON ({exc})", found, line=line) from None


def _referenced(directory: Path, referrer: Path, data: bytes, json_file: str) -> Path:
    """The file a `jsonFile` names; a missing or escaping one is an InputError at its line
    (found only then: a search per reference would make a large reply quadratic)."""

    def line() -> int | None:
        pos = data.find(b'"' + json_file.encode() + b'"')
        return data.count(b"\n", 0, pos) + 1 if pos >= 0 else None

    if not json_file or "/" in json_file or "\\" in json_file or json_file.startswith("."):
        raise InputError(
            str(referrer),
            "a jsonFile naming a file in the reply directory",
            describe_found(json_file),
            line=line(),
        )
    target = directory / json_file
    if not target.is_file():
        raise InputError(
            str(referrer),
            f"{json_file} (referenced by jsonFile) in the reply directory",
            "no such file (a stale or partial reply: re-run cmake)",
            line=line(),
        )
    return target


def _in_project(file: str) -> bool:
    return not (file.startswith(("/", "<", "\\")) or (len(file) > 1 and file[1] == ":"))


def _inherited_compile(t: Target) -> list[str]:
    """`define|option|link option|source<TAB>value<TAB>file:line` of each compile
    definition and option of `t`'s compile groups, each option of its link and each of its
    sources that a `target_link_libraries` call brought (a dep's usage requirements), with
    that call's line."""
    out = []
    for src in t.sources:
        # a dep's INTERFACE source is compiled into `t`; the objects of an OBJECT library
        # `t` links are sources without a compile group (charged to that library)
        if src.compile_group_index is None:
            continue
        loc, command = _location(t, src.backtrace)
        if loc is not None and command in _LINK_COMMANDS:
            out.append(f"source\t{src.path}\t{loc}")
    for f in t.link.command_fragments if t.link is not None else ():
        if f.role in _LINK_OPTION_ROLES and f.fragment.strip():
            loc, command = _location(t, f.backtrace)
            if loc is not None and command in _LINK_COMMANDS:
                out.append(f"link option\t{f.fragment.strip()}\t{loc}")
    for cg in t.compile_groups:
        given = [("define", d.define, d.backtrace) for d in cg.defines]
        given += [("option", f.fragment, f.backtrace) for f in cg.compile_command_fragments]
        given += [("precompiled header", h.header, h.backtrace) for h in cg.precompile_headers]
        if cg.language_standard is not None and cg.language_standard.standard:
            std = _standard(cg)
            given += [("option", std, b) for b in cg.language_standard.backtraces]
        for what, value, backtrace in given:
            loc, command = _location(t, backtrace)
            if loc is not None and command in _LINK_COMMANDS and value:
                out.append(f"{what}\t{value}\t{loc}")
    return out


def _standard(cg: CompileGroup) -> str:
    """The language standard of a compile group as its flag shows it (`-std=gnu++20 (the
    CXX 20 standard)`)."""
    assert cg.language_standard is not None
    what = f"the {cg.language or 'language'} {cg.language_standard.standard} standard"
    flags = [
        w
        for f in cg.compile_command_fragments
        for w in f.fragment.split()
        if w.startswith(("-std=", "/std:"))
    ]
    return f"{flags[-1]} ({what})" if flags else what


def _quote_dir_off(t: Target) -> bool:
    """Whether a compile of `t` passes gcc's obsolete `-I-`, which stops a quoted
    `#include` from searching the includer's own directory first."""
    return any(
        "-I-" in f.fragment.split() for cg in t.compile_groups for f in cg.compile_command_fragments
    )


def _forced(t: Target) -> tuple[str, ...]:
    """The files `t`'s compile options force into every source (`-include cfg.h`)."""
    return forced_includes(
        f.fragment for cg in t.compile_groups for f in cg.compile_command_fragments
    )


def _location(t: Target, backtrace: int | None) -> tuple[Location | None, str]:
    """The innermost project frame of a backtrace (file:line) and its command name."""
    g = t.backtrace_graph
    if backtrace is None or not 0 <= backtrace < len(g.nodes):
        return None, ""
    first = g.nodes[backtrace]
    command = (
        g.commands[first.command]
        if first.command is not None and 0 <= first.command < len(g.commands)
        else ""
    )
    idx: int | None = backtrace
    seen = 0
    fallback: Location | None = None
    while idx is not None and 0 <= idx < len(g.nodes) and seen < 1000:
        node = g.nodes[idx]
        file = g.files[node.file] if 0 <= node.file < len(g.files) else ""
        if node.line is not None and file:
            if fallback is None:
                fallback = Location(file, node.line)
            if _in_project(file):
                return Location(file, node.line), command
        idx = node.parent
        seen += 1
    return fallback, command


# -- loading ------------------------------------------------------------------------------
class _Loaded(msgspec.Struct):
    """One target as read from one configuration."""

    config: str
    directory: str
    target: Target


def load(path: Path, builder: GraphBuilder) -> None:
    """Read a CMake file API reply into `builder` (model in the module docstring)."""
    directory = reply_dir(path)
    if directory is None:
        raise InputError(
            str(path), "a CMake file API reply directory (with index-*.json)", "none found"
        )
    indexes = sorted(p for p in directory.iterdir() if INDEX.fullmatch(p.name))
    index_path = indexes[-1]
    index_data = _read(index_path)
    index = _decode(index_path, index_data, Index, "a file API index object")
    refs = [o for o in index.objects if o.kind == "codemodel" and o.version.major == 2]
    if not refs:
        kinds = ", ".join(sorted({o.kind for o in index.objects})) or "none"
        raise InputError(
            str(index_path),
            "a codemodel v2 object (touch .cmake/api/v1/query/codemodel-v2 and re-run cmake)",
            f"objects of kind {kinds}",
        )
    cm_path = _referenced(directory, index_path, index_data, refs[0].json_file)
    cm_data = _read(cm_path)
    cm = _decode(cm_path, cm_data, Codemodel, "a codemodel v2 object")
    minor = cm.version.minor or refs[0].version.minor
    by_id: dict[str, list[_Loaded]] = {}
    cache: dict[str, Target] = {}
    for conf in cm.configurations:
        for ref in [*conf.targets, *conf.abstract_targets]:
            t = cache.get(ref.json_file)
            if t is None:
                tp = _referenced(directory, cm_path, cm_data, ref.json_file)
                t = cache[ref.json_file] = _decode(tp, _read(tp), Target, "a target object")
            if not 0 <= ref.directory_index < len(conf.directories):
                raise InputError(
                    str(cm_path),
                    f"a directoryIndex below {len(conf.directories)} for target {ref.name}",
                    str(ref.directory_index),
                )
            d = conf.directories[ref.directory_index]
            rel = d.source if _in_project(d.source) else d.build
            by_id.setdefault(t.id, []).append(_Loaded(conf.name, rel, t))
    _Builder(builder, by_id, cm.paths.build, cm.paths.source).run()
    builder.notes.append(f"cmake file API: codemodel 2.{minor}")
    if minor < 9:
        builder.notes.append(
            f"cmake file API codemodel 2.{minor} (< 2.9, CMake < 4.2): imported and interface "
            "targets are not reported; link edges inferred from link fragments and backtraces"
        )
    elif minor > KNOWN_MINOR:
        builder.notes.append(
            f"cmake file API codemodel 2.{minor} is newer than 2.{KNOWN_MINOR}: unknown fields "
            "ignored"
        )


class _EdgeSet:
    """The edges of one target, a kind and a location per dependency: a later, stronger
    kind replaces an order-only one; the first known location is kept."""

    def __init__(self, t: Target, labels: dict[str, str]) -> None:
        self.t = t
        self.labels = labels
        self.typed: dict[str, EdgeKind] = {}
        self.locs: dict[str, Location | None] = {}

    def put(self, ref: DepRef, kind: EdgeKind) -> None:
        assert ref.id is not None
        if ref.id not in self.labels:
            return
        prev = self.typed.get(ref.id)
        if prev is None or (prev is EdgeKind.ORDER_ONLY and kind is not EdgeKind.ORDER_ONLY):
            self.typed[ref.id] = kind
        if self.locs.get(ref.id) is None:
            self.locs[ref.id] = _location(self.t, ref.backtrace)[0]


class _Builder:
    """Turns the targets of every configuration into nodes, edges and artifacts."""

    def __init__(
        self, b: GraphBuilder, by_id: dict[str, list[_Loaded]], build_root: str, source_root: str
    ) -> None:
        self.b = b
        self.by_id = by_id
        self.build_root = build_root.rstrip("/")
        self.source_root = source_root.rstrip("/")
        self.labels = {
            tid: cmake_label(ls[0].directory, ls[0].target.name) for tid, ls in by_id.items()
        }
        self.types = {tid: ls[0].target.type for tid, ls in by_id.items()}
        self.edge_map: dict[str, dict[tuple[str, EdgeKind], Location | None]] = {}
        self.inferred: dict[str, set[str]] = {}
        self.external_at: dict[str, set[str]] = {}
        """Per target id, before 2.9: `fragment<TAB>file:line` of each library its link
        line names by path or -l, at the call that put it there (its own or a dep's)."""
        self.by_path: dict[str, set[str]] = {}
        self.by_base: dict[str, set[str]] = {}
        for tid, loaded in by_id.items():
            for ld in loaded:
                t = ld.target
                for a in t.artifacts:
                    p = posixpath.normpath(a.path)
                    self.by_path.setdefault(p, set()).add(tid)
                    self.by_base.setdefault(posixpath.basename(p), set()).add(tid)
                if t.name_on_disk:
                    self.by_base.setdefault(t.name_on_disk, set()).add(tid)

    def run(self) -> None:
        ids = {tid: self.target(tid) for tid in sorted(self.by_id)}
        self.demote_transitive()
        for tid in sorted(self.by_id):
            edges = self.edge_map[tid]
            i = ids[tid]
            for (dep, ekind), loc in sorted(
                edges.items(), key=lambda kv: (kv[0][0], int(kv[0][1]))
            ):
                self.b.add_edge(i, self.b.intern(self.labels[dep]), ekind, location=loc)

    def demote_transitive(self) -> None:
        """`dependencies` (before 2.9) also names libraries linked only through another
        dependency; such an edge is not declared by the target: make it IMPLICIT. CMake
        gives a dependency the backtrace of the call that brought it: one on a line of its
        own (not the line of the dependency it is reachable through) is declared there."""
        link = {
            tid: {d for d, k in edges if k in _LINK_KINDS} for tid, edges in self.edge_map.items()
        }
        reach: dict[str, set[str]] = {}

        def closure(d: str) -> set[str]:
            hit = reach.get(d)
            if hit is None:
                hit = reach[d] = set()
                stack = list(link.get(d, ()))
                while stack:
                    x = stack.pop()
                    if x not in hit:
                        hit.add(x)
                        stack.extend(link.get(x, ()))
            return hit

        for tid, inferred in self.inferred.items():
            edges = self.edge_map[tid]
            locs = {d: loc for (d, k), loc in edges.items() if k in _LINK_KINDS}
            for dep in sorted(inferred):
                vias = [d for d in sorted(link[tid]) if d != dep and dep in closure(d)]
                own = locs.get(dep)
                if not vias or (own is not None and all(locs.get(d) != own for d in vias)):
                    continue
                for k in (EdgeKind.DEPS, EdgeKind.UNTYPED):
                    if (dep, k) in edges:
                        loc = edges.pop((dep, k))
                        edges.setdefault((dep, EdgeKind.IMPLICIT), loc)

    def relative(self, path: str) -> str:
        """An include directory relative to the top source directory when inside it."""
        p = posixpath.normpath(path.replace("\\", "/"))
        root = self.source_root
        if root and (p == root or p.startswith(root + "/")):
            return p[len(root) + 1 :] or "."
        return p

    def fragment_target(self, fragment: str) -> str | None:
        text = fragment.strip().strip('"')
        if not text or text.startswith("-"):
            return None
        if self.build_root and text.startswith(self.build_root + "/"):
            text = text[len(self.build_root) + 1 :]
        p = posixpath.normpath(text)
        hits = self.by_path.get(p)
        if hits is None and not posixpath.isabs(p):
            hits = self.by_base.get(posixpath.basename(p))
        if hits is not None and len(hits) == 1:
            return next(iter(hits))
        return None

    def target(self, tid: str) -> int:
        b = self.b
        loaded = self.by_id[tid]
        first = loaded[0].target
        label = self.labels[tid]
        attrs: dict[str, AttrValue] = {
            "cmake_id": tid,
            "cmake_type": first.type,
            "cmake_name": first.name,
        }
        if first.imported:
            attrs["imported"] = True
        if first.abstract:
            attrs["abstract"] = True
        if first.name_on_disk:
            attrs["name_on_disk"] = first.name_on_disk
        kind = "" if first.imported else TYPE_KINDS.get(first.type, first.type.lower())
        location, _ = _location(first, first.backtrace)
        srcs: dict[str, None] = {}
        includes: dict[str, None] = {}
        inherited: dict[str, None] = {}
        system: dict[str, None] = {}
        declared: dict[str, str] = {}
        edges: dict[tuple[str, EdgeKind], Location | None] = {}
        self.edge_map[tid] = edges
        inferred = self.inferred[tid] = set()
        external: set[str] = set()
        visibility: set[str] = set()
        for ld in loaded:
            t = ld.target
            for s in t.sources:
                if not s.is_generated:
                    srcs[s.path] = None
            inherited.update(dict.fromkeys(_inherited_compile(t)))
            for cg in t.compile_groups:
                for inc in cg.includes:
                    if inc.path:
                        rel = self.relative(inc.path)
                        (system if inc.is_system else includes)[rel] = None
                        loc, command = _location(t, inc.backtrace)
                        if loc is not None and rel not in declared:
                            declared[rel] = f"{rel}\t{command}\t{loc}"
            for a in t.artifacts:
                b.add_artifact(posixpath.normpath(a.path), label)
            self.edges(t, edges, external, visibility, inferred)
        partial = self.partial_deps(loaded)
        if partial:
            attrs["config_deps"] = partial
        i = b.add_target(label, kind, location=location, srcs=sorted(srcs), attrs=attrs)
        for ld in loaded:
            if ld.config:
                b.add_configuration(i, ld.config)
        compiled = first.type in COMPILED_TYPES and not first.imported
        if compiled:
            build_dir = first.paths.build if first.paths.build not in (".", "") else ""
            obj_dir = posixpath.join(build_dir, "CMakeFiles", f"{first.name}.dir") + "/"
            b.set_attr(i, "object_dir", obj_dir)
            b.add_artifact(obj_dir, label)
        values: tuple[tuple[str, AttrValue], ...] = (
            ("include_dirs", tuple(includes)),
            ("system_include_dirs", tuple(system)),
            ("include_dir_decls", tuple(declared.values())),
            ("inherited_compile", tuple(inherited)),
            ("quote_dir_off", any(_quote_dir_off(ld.target) for ld in loaded)),
            (
                "forced_includes",
                tuple(dict.fromkeys(f for ld in loaded for f in _forced(ld.target))),
            ),
            ("source_root", self.source_root if compiled else ""),
            ("link_external", tuple(sorted(external))),
            ("link_external_at", tuple(sorted(self.external_at.get(tid, ())))),
            ("link_visibility", tuple(sorted(visibility))),
        )
        for name, value in values:
            if value:
                b.set_attr(i, name, value)
        return i

    def partial_deps(self, loaded: list[_Loaded]) -> tuple[str, ...]:
        """`dep<TAB>configurations` of each dep the target links in some of the reply's
        configurations only (`$<$<CONFIG:Debug>:dbglib>` in a multi-config build; the
        others still list it among their build-order `dependencies`)."""
        if len({ld.config for ld in loaded}) < 2:
            return ()
        by_conf: dict[str, set[str]] = {}
        for ld in loaded:
            t = ld.target
            if t.link is not None:  # what this configuration's link line names
                deps = set(self.linked(t, True, set()))
            elif t.link_libraries is not None or t.interface_link_libraries is not None:
                refs = [*(t.link_libraries or ()), *(t.interface_link_libraries or ())]
                deps = {r.id for r in refs if r.id in self.labels}
            else:
                continue
            by_conf.setdefault(ld.config, set()).update(deps)
        if len(by_conf) < 2:
            return ()
        every = set.intersection(*by_conf.values())
        out = []
        for dep in sorted(set.union(*by_conf.values()) - every, key=self.labels.__getitem__):
            confs = ",".join(sorted(c for c, deps in by_conf.items() if dep in deps))
            out.append(f"{self.labels[dep]}\t{confs}")
        return tuple(out)

    def edges(
        self,
        t: Target,
        out: dict[tuple[str, EdgeKind], Location | None],
        external: set[str],
        visibility: set[str],
        inferred: set[str],
    ) -> None:
        """The edges one configuration's target declares, into `out`: from the 2.9+ link
        lists, else from `dependencies` classified by backtraces and link fragments."""
        acc = _EdgeSet(t, self.labels)
        modern = any(
            x is not None
            for x in (
                t.link_libraries,
                t.interface_link_libraries,
                t.object_dependencies,
                t.order_dependencies,
            )
        )
        if modern:
            self.modern_edges(t, acc, external, visibility)
        linked = self.linked(t, modern, external)
        for r in t.dependencies:
            if r.id is None or r.id in acc.typed:
                continue
            kind = self.classify(t, r, linked)
            declared = _declared_here(t, r, linked)
            if kind is EdgeKind.DEPS and declared is False:
                kind = EdgeKind.IMPLICIT
            elif kind is not EdgeKind.ORDER_ONLY and declared is None:
                inferred.add(r.id)
            acc.put(r, kind)
        for dep, kind in acc.typed.items():
            key = (dep, kind)
            if key not in out or out[key] is None:
                out[key] = acc.locs.get(dep)

    def modern_edges(
        self, t: Target, acc: _EdgeSet, external: set[str], visibility: set[str]
    ) -> None:
        """Edges of the 2.9+ lists (`linkLibraries`, `interfaceLinkLibraries`, object and
        order dependencies) and each library edge's visibility."""
        link = [r for r in t.link_libraries or () if r.id is not None]
        iface = [r for r in t.interface_link_libraries or () if r.id is not None]
        link_ids = {r.id for r in link}
        iface_ids = {r.id for r in iface}
        for r in link:
            acc.put(r, EdgeKind.DEPS)
        for r in iface:
            if r.id not in link_ids:
                acc.put(r, EdgeKind.EXPORTS)
        for refs, kind in (
            (t.object_dependencies, EdgeKind.DEPS),
            (t.order_dependencies, EdgeKind.ORDER_ONLY),
        ):
            for r in refs or ():
                if r.id is not None:
                    acc.put(r, kind)
        for r in [*(t.link_libraries or ()), *(t.interface_link_libraries or ())]:
            if r.id is None and r.fragment:
                external.add(r.fragment.strip())
        for dep in link_ids | iface_ids:
            vis = _visibility(t.type, dep in link_ids, dep in iface_ids)
            if dep is not None and dep in self.labels and vis:
                visibility.add(f"{self.labels[dep]} {vis}")

    def linked(
        self, t: Target, modern: bool, external: set[str]
    ) -> dict[str, set[Location | None]]:
        """Targets named by the link line's library fragments, each with the declaring
        lines of its fragments (other fragments: external libs)."""
        linked: dict[str, set[Location | None]] = {}
        for f in t.link.command_fragments if t.link is not None else ():
            if f.role != "libraries":
                continue
            hit = self.fragment_target(f.fragment)
            if hit is not None:
                linked.setdefault(hit, set()).add(_location(t, f.backtrace)[0])
            elif not modern and f.fragment.strip() and not f.fragment.startswith("-Wl,"):
                external.add(f.fragment.strip())
                at = _location(t, f.backtrace)[0]
                if at is not None and at.line is not None:
                    self.external_at.setdefault(t.id, set()).add(f"{f.fragment.strip()}\t{at}")
        return linked

    def classify(self, t: Target, r: DepRef, linked: dict[str, set[Location | None]]) -> EdgeKind:
        """The kind of a target-level `dependencies` entry the newer lists do not cover."""
        assert r.id is not None
        dep_type = self.types.get(r.id, "")
        _, command = _location(t, r.backtrace)
        if command == "add_dependencies" or dep_type == "UTILITY":
            return EdgeKind.ORDER_ONLY
        if r.id in linked or dep_type == "OBJECT_LIBRARY":
            return EdgeKind.DEPS
        if command in _LINK_COMMANDS:
            return EdgeKind.DEPS
        if t.link is None and dep_type in LIBRARY_TYPES:
            return EdgeKind.DEPS
        return EdgeKind.UNTYPED
