"""Loaded code that can import modules no static import names: SLIM001's blind spots.

A computed `import_module(...)`, a file loader or an entry-point read anywhere in the code
a binary loads may reach a dependency that neither the sources nor an `-X importtime`
trace name. Each such site blocks "dead" for the edges it could reach; an entry-point read
of a group a dependency declares is a use. Under importtime-only traces the third-party
code the trace shows loaded is scanned too: importtime does not record its importlib loads.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from slim.ingest.python.pystatic import scan_source
from slim.model.pytrace import Loader

MAX_SOURCE_BYTES = 16 * 1024 * 1024
#: Loads `-X importtime` cannot see (`__import__` goes through the C import and is seen).
_BLIND_BYTES = re.compile(
    rb"import_module|find_spec|_from_file_location|FileLoader|run_path|run_module|"
    rb"load_source|entry_points|\bexec\("
)
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
            "file": "loads code from a file",
            "entry-points": "loads entry points"
            + (f" of group {ld.prefix!r}" if ld.prefix else " of any group"),
        }[ld.kind]
        return f"{ld.text}: {what}"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the loaders say about one edge: entry-point reads that use it, sites that
    block a 'dead' verdict."""

    uses: tuple[LoaderSite, ...]
    blocks: tuple[LoaderSite, ...]


def judge(
    sites: Sequence[LoaderSite],
    leaving: set[int],
    modules: set[str],
    groups: dict[int, frozenset[str] | None],
    sees_importlib: bool,
) -> Verdict:
    """The loaders that use or may reach the code that leaves with a cut.

    `leaving`: the targets that leave the build; `modules`: the modules that go with them;
    `groups`: each leaving target's declared entry-point groups (None: not known, as for
    first-party code). Loaders in leaving code go with it and are ignored."""
    uses: list[LoaderSite] = []
    blocks: list[LoaderSite] = []
    for s in sites:
        if s.target in leaving:
            continue
        ld = s.loader
        if ld.kind == "computed":
            if any(m.startswith(ld.prefix) for m in modules):
                blocks.append(s)
        elif ld.kind == "file":
            blocks.append(s)
        else:
            declared = [groups.get(t) for t in leaving]
            if ld.prefix and any(g is not None and ld.prefix in g for g in declared):
                uses.append(s)
            elif any(g is None for g in declared) and not sees_importlib:
                blocks.append(s)  # first-party declarations unknown, loads not traced
            elif not ld.prefix and any(g for g in declared):
                blocks.append(s)
    return Verdict(tuple(uses), tuple(blocks))


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
    loaded: Iterable[str], first_party: set[str], site_dirs: Sequence[Path]
) -> ThirdPartyScan:
    """Scan the loaded modules that are neither first-party nor standard library for loads
    `-X importtime` cannot see. Extension modules are not scanned (their imports go through
    the C import, which importtime records)."""
    sites: list[LoaderSite] = []
    missing: list[str] = []
    scanned = 0
    for name in sorted(set(loaded)):
        if name in first_party or name.split(".", 1)[0] in _STDLIB:
            continue
        found = _locate(name, site_dirs)
        if found is None:
            missing.append(name)
            continue
        if not found:
            continue  # an extension module
        scanned += 1
        for ld in _blind_loaders(found, name):
            if ld.text.startswith("__import__"):
                continue
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
