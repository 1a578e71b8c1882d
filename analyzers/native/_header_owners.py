"""Which targets may give a compile a header: the ones listing it (srcs, hdrs), else the
ones whose own include directory holds it, else the targets of its package directory (for
a CMake project's sources outside its source directory, named absolute: the targets
listing a source in the header's directory).

The deepest claim wins (a header under `include/` is the include directory's, not the top
directory's targets'); an include directory is held by every target compiling with it,
so only its origins count (holders none of whose deps holds it: where it comes from).
A header no rule gives to a target (a graph without include directories: `ninja -t
graph`) is guessed to be its first readers' (compiles that read it, none of whose deps'
compiles do): a guess that can only make a header a use, never clear one. Otherwise its
providers are unknown: never "no use".
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from slim.model.graph import CODE_KINDS, BuildGraph
from slim.model.ownership import source_path

from ._bazel_includes import package_dir

_NOT_OWNERS = frozenset(
    {"", "source file", "generated file", "custom", "filegroup", "package_group"}
)
#: Dependants looked at to tell that an origin passes its include directory on.
MAX_EXPORT_CHECKS = 50


def _depth(d: str) -> int:
    return d.count("/") + 1 if d else 0


def _parents(path: str) -> list[str]:
    """`a/b/c.h` -> [`a/b`, `a`, ``]; an absolute path ends at `/` (never loops)."""
    out = []
    d = posixpath.dirname(path)
    while True:
        out.append(d)
        up = posixpath.dirname(d)
        if not d or up == d:
            return out
        d = up


@dataclass(frozen=True)
class Providers:
    """The targets that may give a compile `header`, and by which rule."""

    targets: frozenset[int]
    rule: str
    """`lists it`, `include directory <d>`, `package <p>` (or both, at equal depth)."""
    include_dir: str | None = None
    """The include directory of the rule (origins must pass it on to count as kept)."""
    guessed: bool = False
    """Only the compiles that read it say so: a use when they are the dep's, else unknown."""

    @property
    def exact(self) -> bool:
        return self.rule == "lists it"


class HeaderOwners:
    """Providers of workspace headers over one graph (indexed on first use)."""

    def __init__(
        self,
        graph: BuildGraph,
        include_dirs: Callable[[int], list[str]],
        readers: Callable[[], dict[str, set[int]]],
        exported: Callable[[str, int], bool | None] = lambda _path, _line: None,
    ) -> None:
        self.g = graph
        self._dirs_of = include_dirs
        self._readers_of = readers
        self._exported = exported
        self._readers: dict[str, set[int]] | None = None
        self._listed: dict[str, set[int]] = defaultdict(set)
        self._pkg: dict[str, set[int]] = defaultdict(set)
        self._holders: dict[str, set[int]] = defaultdict(set)
        self._origins: dict[str, frozenset[int]] = {}
        self._exports: dict[tuple[int, str], bool] = {}
        self._indexed = False

    def _index(self) -> None:
        self._indexed = True
        for t in self.g.targets():
            if t.kind in _NOT_OWNERS or t.kind.startswith(("py_", "python_")):
                continue
            for s in t.srcs:
                path = source_path(s)
                self._listed[path].add(t.id)
                if path.startswith("/"):  # a CMake source outside the source directory
                    self._pkg[posixpath.dirname(path)].add(t.id)
            hdrs = t.attrs.get("hdrs")
            if isinstance(hdrs, tuple):
                for h in hdrs:
                    self._listed[source_path(str(h))].add(t.id)
            self._pkg[package_dir(t.label)].add(t.id)
            for d in self._dirs_of(t.id):
                self._holders[d].add(t.id)

    def providers(self, header: str) -> Providers | None:
        """Who may provide `header` (workspace-relative); None when no rule says."""
        if not self._indexed:
            self._index()
        hit = self._listed.get(header)
        if hit:
            return Providers(frozenset(hit), "lists it")
        parents = _parents(header)
        inc = next((d for d in parents if d in self._holders), None)
        pkg = next((d for d in parents if self._pkg.get(d)), None)
        if inc is None and pkg is None:
            return self._first_readers(header)
        if pkg is None or (inc is not None and _depth(inc) > _depth(pkg)):
            assert inc is not None
            return Providers(self.origins(inc), f"include directory {inc or '.'}", inc)
        if inc is None or _depth(pkg) > _depth(inc):
            return Providers(frozenset(self._pkg[pkg]), f"package {pkg or '.'}")
        both = self.origins(inc) | self._pkg[pkg]
        return Providers(frozenset(both), f"include directory {inc or '.'}, package {pkg}", inc)

    def _first_readers(self, header: str) -> Providers | None:
        if self._readers is None:
            self._readers = self._readers_of()
        readers = self._readers.get(header)
        if not readers:
            return None
        first = self._minimal(readers)
        return Providers(first, "read by its compile", guessed=True) if first else None

    def _minimal(self, among: set[int]) -> frozenset[int]:
        """Members of `among` none of whose deps (transitively) is a member."""
        reach = set(self.g.reverse_closure(sorted(among), CODE_KINDS).tolist())
        return frozenset(
            t
            for t in among
            if not any(e.dep in reach and e.dep != t for e in self.g.out_edges(t, CODE_KINDS))
        )

    def _decl(self, t: int, d: str) -> tuple[str, str, int] | None:
        """(command, file, line) of the call that gave `t` include directory `d` (the CMake
        file API's backtrace), None when unknown."""
        decls = self.g.target(t).attrs.get("include_dir_decls")
        if not isinstance(decls, tuple):
            return None
        for row in decls:
            name, _, rest = str(row).partition("\t")
            if name == d:
                command, _, where = rest.partition("\t")
                path, _, line = where.rpartition(":")
                return command, path, int(line) if line.isdigit() else 0
        return None

    def origins(self, d: str) -> frozenset[int]:
        """Holders of include directory `d` that hold it of their own: they declare it
        (`target_include_directories`, `include_directories`), or none of their deps
        (transitively) holds it."""
        hit = self._origins.get(d)
        if hit is None:
            holders = self._holders.get(d, set())
            own = {
                t
                for t in holders
                if (x := self._decl(t, d)) is not None and x[0].endswith("include_directories")
            }
            hit = self._origins[d] = self._minimal(holders) | own
        return hit

    def exports(self, origin: int, d: str) -> bool:
        """Whether `origin` passes include directory `d` on: its `target_include_directories`
        call says PUBLIC/INTERFACE, or a dependant compiles with `d` and has no other
        origin of it among its deps."""
        key = (origin, d)
        hit = self._exports.get(key)
        decl = self._decl(origin, d)
        if hit is None and decl is not None and decl[0] == "include_directories":
            hit = self._exports[key] = False
        if hit is None and decl is not None and decl[0] == "target_include_directories":
            said = self._exported(decl[1], decl[2])
            if said is not None:
                hit = self._exports[key] = said
        if hit is None:
            holders = self._holders.get(d, set())
            others = self.origins(d) - {origin}
            up = self.g.reverse_closure([origin], CODE_KINDS).tolist()
            hit = False
            for w in [x for x in up if x != origin and x in holders][:MAX_EXPORT_CHECKS]:
                inside = set(self.g.closure([w], CODE_KINDS).tolist())
                if not inside & others:
                    hit = True
                    break
            self._exports[key] = hit
        return hit
