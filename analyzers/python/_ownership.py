"""What each Python target provides: its modules, files and sizes, or why that is unknown.

First-party targets own the modules of their `srcs`; an alias provides what its `actual`
provides; a third-party package target gets its import names from site-packages, config
or a table (`_thirdparty`), and a wrapper without modules forwards to its deps.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from slim.model.graph import CODE_KINDS, BuildGraph
from slim.model.options import RootOptions
from slim.model.pymodules import PySource, graph_sources

from ._thirdparty import (
    ALIAS_KINDS,
    Installed,
    alias_targets,
    installed,
    is_third_party,
    resolve_target,
)

MAX_LISTED = 6

# Module-level cache: the analyzer runs once per root over the same site-packages.
_SITE_CACHE: dict[tuple[str, tuple[str, ...]], Installed] = {}


def short(items: Iterable[str], limit: int = MAX_LISTED) -> str:
    """`a, b, c, … (9 in all)`: a sorted, de-duplicated list cut at `limit`."""
    xs = sorted(set(items))
    head = ", ".join(xs[:limit])
    return head + (f", … ({len(xs)} in all)" if len(xs) > limit else "")


@dataclass
class Owned:
    """What one Python target provides: its modules (with files and sizes) or why unknown."""

    modules: set[str] = field(default_factory=set)
    files: dict[str, int] = field(default_factory=dict)
    module_bytes: dict[str, int] = field(default_factory=dict)
    sources: tuple[PySource, ...] = ()
    basis: str = ""
    unknown: str = ""
    guessed: bool = False
    #: An installed package's site-packages dir (its `files` are relative to it).
    site: str = ""


class OwnershipReader:
    """Reads `Owned` for targets of one graph, with one workspace and its site-packages."""

    def __init__(self, graph: BuildGraph, workspace: Path | None, options: RootOptions) -> None:
        self.g = graph
        self.ws = workspace
        self.options = options

    def of(self, i: int) -> Owned:
        o = Owned()
        srcs = graph_sources(self.g, i)
        if srcs:
            return self._first_party(o, srcs)
        kind = self.g.kinds[i]
        if kind in ALIAS_KINDS:
            # an alias provides what its `actual` provides (forwarded by `provided`)
            actual = alias_targets(self.g, i)
            o.basis = "alias of " + short(self.g.labels[d] for d in actual)
            o.guessed = any(self.of(d).guessed for d in actual)
            return o
        if kind == "" or is_third_party(self.g, i, self.options.module_map):
            return self._third_party(i, o)
        if self.g.srcs.get(i):
            o.unknown = f"none of its {len(self.g.srcs[i])} srcs is an importable Python file"
        return o

    def _first_party(self, o: Owned, srcs: tuple[PySource, ...]) -> Owned:
        o.sources = srcs
        o.basis = "srcs"
        for s in srcs:
            o.modules.update(s.modules)
        if self.ws is None:
            return o
        sizes = self.sizes([s.path for s in srcs])
        for s in srcs:
            if s.path in sizes:
                o.files[s.path] = sizes[s.path]
                o.module_bytes[s.module] = o.module_bytes.get(s.module, 0) + sizes[s.path]
        return o

    def _third_party(self, i: int, o: Owned) -> Owned:
        """A package target: its import names from site-packages, config or a table (see
        `_thirdparty`); a wrapper around other targets forwards to them."""
        from ._workspace import site_packages_dirs

        key = (str(self.ws), tuple(str(p) for p in self.options.site_packages))
        site = _SITE_CACHE.get(key)
        if site is None:
            extra = os.pathsep.join(key[1])
            site = _SITE_CACHE[key] = installed(site_packages_dirs(self.ws, extra))
        m = resolve_target(self.g, i, self.options.module_map, site)
        deps = sorted({e.dep for e in self.g.out_edges(i, CODE_KINDS)} - {i})
        if not m.modules and deps:
            o.basis = "forwards to " + short(self.g.labels[d] for d in deps)
            o.guessed = any(self.of(d).guessed for d in deps)
            return o
        o.modules.update(m.modules)
        for mod, path in m.modules.items():
            o.module_bytes[mod] = m.sizes.get(path, 0)
        o.files = dict(m.sizes)
        o.basis = m.basis
        o.unknown = m.unknown
        o.guessed = m.guessed
        o.site = m.site
        return o

    def sizes(self, paths: list[str]) -> dict[str, int]:
        """Workspace file sizes of `paths` (those that exist)."""
        if self.ws is None:
            return {}
        from ._workspace import file_sizes

        return file_sizes(self.ws, paths)
