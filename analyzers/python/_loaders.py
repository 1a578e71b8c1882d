"""Loaded code that can import modules no static import names: SLIM001's blind spots.

A computed `import_module(...)`, a file loader or an entry-point read anywhere in the code
a binary loads may reach a dependency that neither the sources nor an `-X importtime`
trace name. Each such site blocks "dead" for the edges it could reach; an entry-point read
of a group a dependency declares is a use. Under importtime-only traces the third-party
code the trace shows loaded is scanned too: importtime does not record its importlib loads.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from slim.ingest.python.pystatic import scan_source
from slim.model.pytrace import Loader
from slim.model.stdlib_loads import stdlib_loader

MAX_SOURCE_BYTES = 16 * 1024 * 1024
#: Loads `-X importtime` cannot see (`__import__` goes through the C import and is seen).
_BLIND_BYTES = re.compile(
    rb"import_module|find_spec|_from_file_location|FileLoader|run_path|run_module|"
    rb"load_source|entry_points|\bexec\(|zoneinfo"
)
#: Loader kinds whose loads `-X importtime` does not record (unpickling, discovery and
#: the like import through `__import__`, which it does).
_IMPORTTIME_BLIND = frozenset({"computed", "file", "entry-points"})


def importtime_blind(ld: Loader) -> bool:
    """Whether `-X importtime` misses what this loader loads (`__import__` it records)."""
    return ld.kind in _IMPORTTIME_BLIND and not ld.text.startswith("__import__")


_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__main__", "_frozen_importlib"}
_FILE_CACHE: dict[str, tuple[Loader, ...]] = {}


@dataclass(frozen=True, slots=True)
class LoaderSite:
    """One loader in the loaded code: the target whose source has it (-1: third-party code
    outside the graph), the file, the call."""

    target: int
    path: str
    loader: Loader

    def describe(self) -> str:
        ld = self.loader
        what = {
            "computed": "imports a module by computed name"
            + (f" starting {ld.prefix!r}" if ld.prefix else ""),
            "file": "runs code from a file or a string",
            "entry-points": "loads entry points"
            + (f" of group {ld.prefix!r}" if ld.prefix else " of any group"),
            "by-data": "imports whatever modules its input names",
            "discover": f"imports the test modules whose files match {ld.prefix!r}",
            "path": "changes sys.path: an import may load a file by a shorter name",
            "named": "names it as a string: code that loads by name may import it",
            "spawn": "starts a Python process, whose imports no trace follows",
            "dist": "reads the installed metadata of "
            + (f"the distribution {ld.prefix!r}" if ld.prefix else "a computed distribution"),
        }[ld.kind]
        return f"{ld.text}: {what}"


@dataclass(frozen=True, slots=True)
class Leaving:
    """What leaves the build with a cut: targets, their modules (and which are packages),
    each target's declared entry-point groups (None: not known, as for first-party code),
    and the modules some import names by a shorter name (after a `sys.path` change)."""

    targets: set[int]
    modules: set[str]
    groups: dict[int, frozenset[str] | None]
    packages: frozenset[str] = frozenset()
    renamed: frozenset[str] = frozenset()
    #: each target's installed distribution names (None: not known, a third-party target
    #: mapped without its dist-info; first-party code: none)
    dists: dict[int, frozenset[str] | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the loaders say about one edge: entry-point reads that use it, sites that
    block a 'dead' verdict."""

    uses: tuple[LoaderSite, ...]
    blocks: tuple[LoaderSite, ...]


def _reaches(ld: Loader, gone: Leaving) -> bool:
    """Whether a loader other than an entry-point read may load what leaves."""
    if ld.kind == "computed":
        return any(m.startswith(ld.prefix) for m in gone.modules)
    if ld.kind == "discover":
        return any(
            m in gone.packages or fnmatch.fnmatchcase(m.rpartition(".")[2] + ".py", ld.prefix)
            for m in gone.modules
        )
    if ld.kind == "path":
        return bool(gone.renamed)
    if ld.kind == "named":
        return any(named_reaches(ld.prefix, m) for m in gone.modules)
    return True  # file, by-data, spawn: anything


def named_reaches(text: str, module: str) -> bool:
    """Whether the string `text` names `module` (`a.b`, `a.b.C`, `a.b:f`, `a.`)."""
    if text.endswith("."):
        return module.startswith(text) or text == module + "."
    return text == module or text.startswith((module + ".", module + ":"))


def judge(sites: Sequence[LoaderSite], gone: Leaving, sees_importlib: bool) -> Verdict:
    """The loaders that use or may reach the code that leaves with a cut. Loaders in
    leaving code go with it and are ignored."""
    uses: list[LoaderSite] = []
    blocks: list[LoaderSite] = []
    for s in sites:
        if s.target in gone.targets:
            continue
        ld = s.loader
        if ld.kind == "dist":
            _judge_dist_read(s, gone, uses, blocks)
            continue
        if ld.kind != "entry-points":
            if _reaches(ld, gone):
                blocks.append(s)
            continue
        declared = [gone.groups.get(t) for t in gone.targets]
        if ld.prefix and any(g is not None and ld.prefix in g for g in declared):
            uses.append(s)
        elif any(g is None for g in declared) and not sees_importlib:
            blocks.append(s)  # first-party declarations unknown, loads not traced
        elif not ld.prefix and any(g for g in declared):
            blocks.append(s)
    return Verdict(tuple(uses), tuple(blocks))


def _judge_dist_read(
    s: LoaderSite, gone: Leaving, uses: list[LoaderSite], blocks: list[LoaderSite]
) -> None:
    """A dist-info read is a use of the leaving distribution it names; a computed name,
    or a leaving third-party target whose distribution is not known, blocks."""
    names = [gone.dists.get(t, frozenset()) for t in gone.targets]
    if s.loader.prefix and any(d is not None and s.loader.prefix in d for d in names):
        uses.append(s)
    elif any(d is None for d in names) or (not s.loader.prefix and any(names)):
        blocks.append(s)


def entry_point_groups(text: str | None) -> frozenset[str]:
    """The `[group]` headers of a dist-info `entry_points.txt`."""
    if not text:
        return frozenset()
    out = set()
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("[") and s.endswith("]"):
            out.add(s[1:-1].strip())
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class ThirdPartyScan:
    """Loaded third-party code as far as it could be read: its blind loaders, and the
    modules whose source was not found (then the scan proves nothing)."""

    sites: tuple[LoaderSite, ...]
    scanned: int
    missing: tuple[str, ...]


def scan_loaded_third_party(
    loaded: Iterable[str],
    first_party: set[str],
    site_dirs: Sequence[Path],
    unfound_ok: set[str] | frozenset[str] = frozenset(),
) -> ThirdPartyScan:
    """Scan the loaded modules that are neither first-party nor standard library for loads
    `-X importtime` cannot see. Extension modules are not scanned (their imports go through
    the C import, which importtime records). A module of `unfound_ok` that is found
    nowhere is a failed optional import, not code that could not be read."""
    sites: list[LoaderSite] = []
    missing: list[str] = []
    scanned = 0
    for name in sorted(set(loaded)):
        if name in first_party:
            continue
        if name.split(".", 1)[0] in _STDLIB:
            ld = stdlib_loader(name, 0) if "." not in name else None
            if ld is not None:
                sites.append(LoaderSite(-1, f"{name} (standard library)", ld))
            continue
        found = _locate(name, site_dirs)
        if found is None:
            if name not in unfound_ok:
                missing.append(name)
            continue
        if not found:
            continue  # an extension module
        scanned += 1
        for ld in _blind_loaders(found, name):
            if importtime_blind(ld):
                sites.append(LoaderSite(-1, found, ld))
    return ThirdPartyScan(tuple(sites), scanned, tuple(missing))


def _locate(module: str, site_dirs: Sequence[Path]) -> str | None:
    """The source file of `module` in the site dirs; "" for an extension module; None if
    not found."""
    rel = module.replace(".", "/")
    for d in site_dirs:
        base = d / rel
        for cand in (base.with_suffix(".py"), base / "__init__.py"):
            if cand.is_file():
                return str(cand)
        parent = base.parent
        if parent.is_dir():
            stem = base.name + "."
            try:
                names = os.listdir(parent)
            except OSError:
                continue
            if any(n.startswith(stem) and n.endswith((".so", ".pyd")) for n in names):
                return ""
    return None


def _blind_loaders(path: str, module: str) -> tuple[Loader, ...]:
    hit = _FILE_CACHE.get(path)
    if hit is not None:
        return hit
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SOURCE_BYTES)
    except OSError:
        data = b""
    out: tuple[Loader, ...] = ()
    if _BLIND_BYTES.search(data):
        res = scan_source(data, path, module, path.endswith("__init__.py"))
        out = res.loaders
    _FILE_CACHE[path] = out
    return out
