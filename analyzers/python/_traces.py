"""Which import traces are a root's own, and what interpreter start-up loaded.

Each root is judged on its own evidence: a trace that loads workspace modules outside the
root's closure was recorded from another program and is set aside.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from slim.model.graph import BuildGraph
from slim.model.pymodules import graph_sources, is_python_kind
from slim.model.pytrace import ImportTrace, TracedModule, module_prefixes

STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__main__"}

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
    if name.split(".", 1)[0] in STDLIB:
        return False
    base = ws.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def own_traces(
    g: BuildGraph, ws: Path | None, owned: Iterable[str], traces: Sequence[ImportTrace]
) -> tuple[list[ImportTrace], dict[str, str]]:
    """The traces of this root's program (`owned`: the modules of its closure), and the
    path of each trace set aside -> the module outside the closure that shows it."""
    if ws is None or not traces:
        return list(traces), {}
    prefixes = {p for m in owned for p in module_prefixes(m)}
    own: list[ImportTrace] = []
    foreign: dict[str, str] = {}
    elsewhere: dict[str, str] | None = None
    for t in traces:
        outside = [m.name for m in t.modules if m.name not in prefixes]
        outside = [m for m in outside if m.split(".", 1)[0] not in STDLIB]
        if (outside or t.files) and elsewhere is None:
            elsewhere = _graph_index(g)[0]
        outside.extend(m for m in _file_modules(t.files, _graph_index(g)[1]) if m not in prefixes)
        other = next(
            (m for m in outside if m in (elsewhere or {}) or _workspace_module(ws, m)),
            None,
        )
        if other is None:
            own.append(t)
        else:
            foreign[t.path] = other
    return own, foreign


def startup(traced: dict[str, TracedModule]) -> set[str]:
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


def stdlib_only(traced: dict[str, TracedModule]) -> set[str]:
    """Non-standard modules that only the standard library imported, each top-level group
    as a whole (`copy` importing `org.python.core` under `except ImportError`, with
    `org` and `org.python` nested in it): `-X importtime` prints rows for failed imports
    too, and the standard library imports no third-party code at import time."""
    groups: dict[str, list[TracedModule]] = {}
    for tm in traced.values():
        top = tm.name.split(".", 1)[0]
        if top not in STDLIB:
            groups.setdefault(top, []).append(tm)
    out: set[str] = set()
    for members in groups.values():
        names = {tm.name for tm in members}
        importers = {i for tm in members for i in tm.importers} - names
        if importers and all(i.split(".", 1)[0] in STDLIB and i != "__main__" for i in importers):
            out |= names
    return out
