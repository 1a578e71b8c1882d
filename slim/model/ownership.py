"""Which target owns a file: sources, objects, archives, shared libraries, executables.

Readers that know ownership exactly (aquery outputs, the CMake file API) record it in
`graph.artifacts`; otherwise the path conventions of each build system decide:
Bazel `bazel-out/<cfg>/bin/<pkg>/_objs/<name>/x.o`, `<pkg>/lib<name>.a` and the
`_solib_<cpu>/` symlinks dynamically linked tests and binaries load, Buck2
`buck-out/v2/gen/<cell>/<hash>/<pkg>/__<name>__/…`, CMake `<dir>/CMakeFiles/<name>.dir/…`
and `<dir>/lib<name>.a`. A path no rule matches has no owner (callers must say so).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from slim.model.graph import BuildGraph

_LIB_SUFFIXES = (".pic.a", ".pic.lo", ".a", ".lo", ".so", ".ifso", ".dylib")
_SO_VERSION = re.compile(r"\.so(\.\d+)+$")
_BAZEL_OUT = re.compile(r"^(?:.*/)?bazel-out/[^/]+/(?:bin|genfiles)/(.*)$")
_BUCK_OUT = re.compile(r"^(?:.*/)?buck-out/v2/(?:gen|art)/([^/]+)/[0-9a-f]+/(.*)$")
_BAZEL_OBJS = re.compile(r"^(.*?)/?_objs/([^/]+)/")
_BAZEL_SOLIB = re.compile(r"^_solib_[^/]+/(?:_U(.+?)___U[^/]*/)?(lib[^/]+)$")
_BAZEL_UNESCAPE = {"U": "_", "S": "/", "C": ":", "A": "@", "B": "\\"}
_BUCK_NAME = re.compile(r"^(.*?)/?__([^/]+?)__/")
_CMAKE_OBJS = re.compile(r"^(.*?)/?CMakeFiles/([^/]+)\.dir/")


def unversioned(path: str) -> str:
    """A shared library's file name or path without the version after `.so`."""
    return _SO_VERSION.sub(".so", path)


_CACHE: WeakKeyDictionary[BuildGraph, Ownership] = WeakKeyDictionary()


def _solib_owner(p: str) -> str | None:
    """The label behind a Bazel `_solib_<cpu>/` symlink: `lib<escaped path of the
    library, lib<name>>.so` for a library Bazel built (`liba_Ub_Sc_Slibmy_Ulib.so` is
    `a_b/c/libmy_lib.so`, of `//a_b/c:my_lib`), `_U<escaped label>___U<escaped
    package>/<file>` for a `cc_import`ed one. Escapes: `_U` `_`, `_S` `/`, `_C` `:`, `_A`
    `@`, `_B` backslash."""
    m = _BAZEL_SOLIB.match(p)
    if m is None:
        return None
    imported, base = m.groups()
    if imported is not None:
        label = _unescape(imported)
        return label if label is not None and "//" in label else None
    stem = unversioned(base)[3:]
    for suf in (".so", ".dylib", ".ifso"):
        if stem.endswith(suf):
            path = _unescape(stem[: -len(suf)])
            if path is None:
                return None
            pkg, lib = posixpath.split(path)
            name = _lib_name(lib + suf)
            return _label("", pkg, name) if name else None
    return None


def _unescape(text: str) -> str | None:
    """Bazel's path escaping undone; None when `text` is not such an escape."""
    out, k = [], 0
    while (j := text.find("_", k)) >= 0:
        ch = _BAZEL_UNESCAPE.get(text[j + 1 : j + 2])
        if ch is None:
            return None
        out += [text[k:j], ch]
        k = j + 2
    return "".join([*out, text[k:]])


def split_member(path: str) -> tuple[str, str | None]:
    """`libx.a(y.o)` -> (`libx.a`, `y.o`); a plain path -> (path, None)."""
    if path.endswith(")"):
        cut = path.rfind("(")
        if cut > 0:
            return path[:cut], path[cut + 1 : -1]
    return path, None


def _clean(path: str) -> str:
    p = path.replace("\\", "/")
    if len(p) > 2 and p[1] == ":" and p[0].isalpha():
        p = p[2:]
    p = posixpath.normpath(p) if p else p
    return p[2:] if p.startswith("./") else p


def _lib_name(base: str) -> str | None:
    base = unversioned(base)
    for suf in _LIB_SUFFIXES:
        if base.endswith(suf):
            stem = base[: -len(suf)]
            return stem[3:] if stem.startswith("lib") and len(stem) > 3 else stem
    return None


def _label(repo: str, pkg: str, name: str) -> str:
    pkg = pkg.strip("/")
    if pkg.startswith("external/") and not repo:
        rest = pkg[len("external/") :]
        r, _, p = rest.partition("/")
        return f"@{r}//{p}:{name}"
    return f"{repo}//{pkg}:{name}"


@dataclass
class Ownership:
    """File → target lookups over one graph (build with `Ownership.of(graph)`)."""

    graph: BuildGraph
    _artifacts: dict[str, int] = field(default_factory=dict)
    _sources: dict[str, int] | None = None
    _cmake_names: dict[str, list[int]] | None = None
    _shared_names: dict[str, set[int]] | None = None

    @staticmethod
    def of(graph: BuildGraph) -> Ownership:
        own = _CACHE.get(graph)
        if own is None:
            own = Ownership(graph, {_clean(p): t for p, t in graph.artifacts.items()})
            _CACHE[graph] = own
        return own

    # -- artifacts -------------------------------------------------------------------
    def artifact_owner(self, path: str) -> int | None:
        """The target that produced an object, archive (or `archive(member)`), .so or binary."""
        archive, member = split_member(path)
        if member is not None:
            owner = self._artifact(_clean(archive))
            if owner is not None:
                return owner
            return self._artifact(_clean(member))
        return self._artifact(_clean(path))

    def shared_library_owners(self, name: str) -> set[int]:
        """The targets whose artifact is a shared library of file name `name` (a DT_NEEDED
        entry: `libx.so.1` matches `lib/libx.so` and `lib/libx.so.1.0.0`); without such an
        artifact (a Bazel query lists none), the target a `_solib_<cpu>/` name stands for
        (`liba_Sb_Slibc.so`: `//a/b:c`), when the graph has it."""
        if self._shared_names is None:
            self._shared_names = {}
            for path, t in self._artifacts.items():
                base = unversioned(posixpath.basename(path))
                if base.endswith(".so"):
                    self._shared_names.setdefault(base, set()).add(t)
        hit = self._shared_names.get(unversioned(name))
        if hit:
            return set(hit)
        label = _solib_owner(f"_solib_k8/{posixpath.basename(name)}")
        i = self.graph.lookup(label) if label is not None else None
        return {i} if i is not None else set()

    def _registered(self, p: str) -> int | None:
        """The producer of artifact `p`; a shared library's versioned file, the one a link
        names (`lib/libx.so.1.0.0`), is the unversioned one the build lists."""
        hit = self._artifacts.get(p)
        if hit is None and unversioned(p) != p:
            hit = self._artifacts.get(unversioned(p))
        return hit

    def _artifact(self, p: str) -> int | None:
        hit = self._registered(p)
        if hit is not None:
            return hit
        for cand in self._candidates(p):
            i = self.graph.lookup(cand)
            if i is not None:
                return i
        cm = _CMAKE_OBJS.match(p)
        if cm:
            return self._cmake_by_name(cm.group(2), cm.group(1))
        # An absolute or prefixed path: retry with leading components dropped.
        parts = p.split("/")
        for k in range(1, min(len(parts) - 1, 12)):
            rest = "/".join(parts[k:])
            hit = self._registered(rest)
            if hit is not None:
                return hit
            for cand in self._candidates(rest):
                i = self.graph.lookup(cand)
                if i is not None:
                    return i
        # an artifact at the top of the build directory (`libx.so` of a CMake build named
        # absolute): only as the build lists it, never by a label guessed from the name
        return self._registered(parts[-1]) if len(parts) > 1 else None

    def _candidates(self, p: str) -> list[str]:
        out: list[str] = []
        repo = ""
        m = _BAZEL_OUT.match(p)
        if m:
            p = m.group(1)
        else:
            b = _BUCK_OUT.match(p)
            if b:
                repo, p = b.group(1), b.group(2)
                bn = _BUCK_NAME.match(p)
                if bn:
                    out.append(_label(repo, bn.group(1), bn.group(2)))
        if m and (so := _solib_owner(p)) is not None:
            out.append(so)
        om = _BAZEL_OBJS.match(p)
        if om:
            out.append(_label(repo, om.group(1), om.group(2)))
        cm = _CMAKE_OBJS.match(p)
        if cm:
            out.append(_label(repo, cm.group(1), cm.group(2)))
        pkg, base = posixpath.split(p)
        name = _lib_name(base)
        if name:
            out.append(_label(repo, pkg, name))
        if base:
            out.append(_label(repo, pkg, base))
        return out

    def _cmake_by_name(self, name: str, directory: str) -> int | None:
        if self._cmake_names is None:
            self._cmake_names = {}
            for i, lab in enumerate(self.graph.labels):
                self._cmake_names.setdefault(lab.rsplit(":", 1)[-1], []).append(i)
        hits = self._cmake_names.get(name, [])
        if len(hits) == 1:
            return hits[0]
        for i in hits:
            if self.graph.labels[i].startswith(f"//{directory}:"):
                return i
        return None

    # -- sources ---------------------------------------------------------------------
    def source_owner(self, path: str) -> int | None:
        """The target listing a source file (`a/b/x.cc`, or its label `//a/b:x.cc`)."""
        if self._sources is None:
            self._sources = {}
            for i, srcs in sorted(self.graph.srcs.items()):
                for s in srcs:
                    self._sources.setdefault(source_path(s), i)
        p = source_path(path)
        hit = self._sources.get(p)
        if hit is not None:
            return hit
        parts = p.split("/")
        for k in range(1, min(len(parts), 12)):
            hit = self._sources.get("/".join(parts[k:]))
            if hit is not None:
                return hit
        return None


def source_path(src: str) -> str:
    """A source label `//a/b:c/d.py` (or `@r//a:x`) as a workspace path `a/b/c/d.py`."""
    if "//" in src and ":" in src.split("//", 1)[1]:
        repo, _, rest = src.partition("//")
        pkg, _, name = rest.partition(":")
        path = f"{pkg}/{name}" if pkg else name
        repo = repo.lstrip("@")
        return f"external/{repo}/{path}" if repo else path
    return _clean(src)
