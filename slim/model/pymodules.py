"""Which target owns which Python module: from the graph's `srcs`, and from dist RECORDs.

First-party names come from each source's path (the repo-root form), Bazel `imports`
(directories relative to the package put on `sys.path`) and Buck2 `base_module`;
`__init__.py` makes a package, a directory without one is a PEP 420 namespace that no
target owns. Third-party names come from an installed distribution's `RECORD` (the
import name is not the distribution name: PyYAML installs `yaml`). Pure: no I/O.
"""

from __future__ import annotations

import csv
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from slim.model.graph import BuildGraph

_EXTENSIONS = (".py", ".pyi", ".pyw", ".so", ".pyd")
_SO_TAG = re.compile(r"\.(?:cpython-\d+[^.]*|abi3|cp\d+[^.]*|pypy[^.]*)$")
_IDENT_PATH = re.compile(r"[^\W\d]\w*(?:/[^\W\d]\w*)*")
_NORMALIZE = re.compile(r"[-_.]+")
PIP_REPOS = re.compile(r"^@+(?:pip|pypi|py_deps|python_deps|pip_deps)(?:_(.+))?$")


@dataclass(frozen=True, slots=True)
class PySource:
    """One importable file of a target: its path and every module name it is importable as."""

    path: str
    modules: tuple[str, ...]
    is_package: bool

    @property
    def module(self) -> str:
        return self.modules[0]


def normalize_dist(name: str) -> str:
    """PEP 503 normalization with `_`: `PyYAML` -> `pyyaml`, `scikit-learn` -> `scikit_learn`."""
    return _NORMALIZE.sub("_", name).lower()


def is_python_kind(kind: str) -> bool:
    return kind.startswith(("py_", "python_", "pex_")) or kind in ("pytest_test",)


def split_label(label: str) -> tuple[str, str, str]:
    """`@repo//pkg:file` -> (`@repo`, `pkg`, `file`); Buck2 `cell//pkg:file` keeps the cell."""
    head, sep, rest = label.partition("//")
    if not sep:
        return "", "", label
    pkg, colon, name = rest.partition(":")
    if not colon:
        pkg, _, name = rest.rpartition("/")
    return head, pkg, name


def module_from_path(path: str) -> tuple[str, bool] | None:
    """`a/b/c.py` -> (`a.b.c`, False); `a/b/__init__.py` -> (`a.b`, True); None if not a module."""
    if not path.endswith(_EXTENSIONS):
        return None
    stem = path.rsplit(".", 1)[0]
    if path.endswith((".so", ".pyd")):
        stem = _SO_TAG.sub("", stem)
    is_pkg = stem == "__init__" or stem.endswith("/__init__")
    if is_pkg:
        stem = stem[: -len("__init__")].rstrip("/")
    if not stem:
        return None
    if _IDENT_PATH.fullmatch(stem) is None:
        return None
    return stem.replace("/", "."), is_pkg


def _strip_prefix(path: str, prefix: str) -> str | None:
    prefix = posixpath.normpath(prefix) if prefix else ""
    if prefix in ("", "."):
        return path
    if prefix.startswith(".."):
        return None
    return path[len(prefix) + 1 :] if path.startswith(prefix + "/") else None


def _plain_sources(srcs: Iterable[str]) -> tuple[PySource, ...] | None:
    """Fast path for main-repo `//pkg:file.py` sources with no `imports`/`base_module`."""
    out = []
    for src in srcs:
        colon = src.find(":")
        if not src.startswith("//") or colon < 0 or "site-packages/" in src:
            return None
        pkg = src[2:colon]
        rel = f"{pkg}/{src[colon + 1 :]}" if pkg else src[colon + 1 :]
        m = module_from_path(rel)
        if m is not None:
            out.append(PySource(rel, (m[0],), m[1]))
    return tuple(out)


def target_sources(
    label: str,
    srcs: Iterable[str],
    attrs: Mapping[str, object],
) -> tuple[PySource, ...]:
    """The importable files among a target's `srcs`, each with all its module names."""
    if label.startswith("//") and "imports" not in attrs and "base_module" not in attrs:
        fast = _plain_sources(srcs)
        if fast is not None:
            return fast
    _, pkg, _ = split_label(label)
    imports = attrs.get("imports", ())
    import_dirs = [imports] if isinstance(imports, str) else list(imports or ())  # type: ignore[call-overload]
    base_module = attrs.get("base_module")
    roots = _ImportRoots(pkg, import_dirs, base_module if isinstance(base_module, str) else None)
    out: list[PySource] = []
    for src in srcs:
        repo, spkg, name = split_label(src)
        rel = f"{spkg}/{name}" if spkg else name
        names, is_pkg = _module_names(roots.paths(repo, rel))
        if names:
            ext = repo.strip("@") if repo.startswith("@") else ""
            out.append(PySource(f"external/{ext}/{rel}" if ext else rel, tuple(names), is_pkg))
    return tuple(out)


@dataclass(frozen=True)
class _ImportRoots:
    """Where a target's files are importable from: its package, its `imports` dirs
    (Bazel), its `base_module` (Buck2)."""

    pkg: str
    import_dirs: list[object]
    base_module: str | None

    def paths(self, repo: str, rel: str) -> list[str]:
        """The import paths of the file `rel` (of `repo`), most specific first."""
        cands: list[str] = []
        if self.base_module is not None:
            in_pkg = _strip_prefix(rel, self.pkg)
            if in_pkg is not None:
                prefix = self.base_module.replace(".", "/")
                cands.append(f"{prefix}/{in_pkg}" if prefix else in_pkg)
        if "site-packages/" in rel:
            cands.append(rel.split("site-packages/", 1)[1])
        for d in self.import_dirs:
            if isinstance(d, str):
                stripped = _strip_prefix(rel, posixpath.join(self.pkg, d) if self.pkg else d)
                if stripped:
                    cands.append(stripped)
        cands.append(rel)
        if repo.startswith("@") and repo.strip("@"):
            cands.append(f"{repo.strip('@')}/{rel}")
        return cands


def _module_names(paths: Iterable[str]) -> tuple[list[str], bool]:
    """The distinct module names of these import paths, and whether one is a package."""
    names: list[str] = []
    is_pkg = False
    for c in paths:
        m = module_from_path(c)
        if m is not None and m[0] not in names:
            names.append(m[0])
            is_pkg = is_pkg or m[1]
    return names, is_pkg


def graph_sources(graph: BuildGraph, target: int) -> tuple[PySource, ...]:
    """The importable files of a target: its `srcs` (through the filegroups they name),
    and the extension modules (`.so`, `.pyd`) its `data` ships (a pybind11 or Cython
    module built elsewhere)."""
    srcs = graph.files(target)
    data = graph.data_files.get(target, ())
    if data:
        srcs = (*srcs, *(d for d in data if d.endswith((".so", ".pyd"))))
    return target_sources(graph.labels[target], srcs, graph.attrs.get(target, {}))


def shipped_files(graph: BuildGraph, target: int) -> list[str]:
    """Files a target ships that a program may open by path, as workspace paths: its
    `data` (a `.so` there too: an extension module, or a library `ctypes` loads) and its
    `srcs` that are no importable module."""
    srcs = [s for s in graph.files(target) if not s.endswith((".so", ".pyd"))]
    out = []
    for label in srcs:
        repo, pkg, name = split_label(label)
        rel = f"{pkg}/{name}" if pkg else name
        if module_from_path(rel) is None:
            out.append(f"external/{repo.strip('@')}/{rel}" if repo.strip("@") else rel)
    for label in graph.data_files.get(target, ()):
        repo, pkg, name = split_label(label)
        rel = f"{pkg}/{name}" if pkg else name
        out.append(f"external/{repo.strip('@')}/{rel}" if repo.strip("@") else rel)
    return out


def parse_record(text: str) -> list[tuple[str, int | None]]:
    """RECORD rows as (path, size); size None when the row has none (RECORD itself, .pyc)."""
    out: list[tuple[str, int | None]] = []
    for row in csv.reader(text.splitlines()):
        if not row or not row[0]:
            continue
        size = row[2] if len(row) > 2 else ""
        out.append((row[0], int(size) if size.isdecimal() else None))
    return out


def record_modules(rows: Iterable[tuple[str, int | None]]) -> dict[str, str]:
    """Module -> file for each importable RECORD row (dist-info, data and `../` rows skipped)."""
    out: dict[str, str] = {}
    for path, _ in rows:
        if path.startswith(("../", "/")) or "__pycache__/" in path:
            continue
        first = path.split("/", 1)[0]
        if first.endswith((".dist-info", ".data", ".egg-info")):
            continue
        m = module_from_path(path)
        if m is not None:
            out.setdefault(m[0], path)
    return out


def dist_candidates(label: str) -> list[str]:
    """Normalized distribution names a third-party label may stand for.

    `@pypi//pyyaml:pkg`, `@pip_pyyaml//:pkg`, `@pypi_pyyaml//:pkg`, `//third_party:pyyaml`.
    """
    repo, pkg, name = split_label(label)
    out: list[str] = []
    m = PIP_REPOS.match(repo) if repo else None
    if m and m.group(1):
        out.append(m.group(1))
    if pkg:
        out.append(pkg.split("/")[0])
        out.append(pkg.split("/")[-1])
    if name not in ("pkg", "whl", "lib", "data", "dist_info"):
        out.append(name)
    return list(dict.fromkeys(normalize_dist(x) for x in out if x))


def is_third_party_label(label: str) -> bool:
    repo = split_label(label)[0]
    return bool(repo) and PIP_REPOS.match(repo) is not None


@dataclass
class ModuleIndex:
    """Module -> owning targets, and target -> its modules (sorted tuples)."""

    owners: dict[str, set[int]]
    modules: dict[int, tuple[str, ...]]

    @staticmethod
    def build(items: Iterable[tuple[int, set[str] | frozenset[str]]]) -> ModuleIndex:
        owners: dict[str, set[int]] = {}
        mods: dict[int, tuple[str, ...]] = {}
        for t, names in items:
            ns = tuple(sorted(names)) if len(names) > 1 else tuple(names)
            mods[t] = ns
            for n in ns:
                o = owners.get(n)
                if o is None:
                    owners[n] = {t}
                else:
                    o.add(t)
        return ModuleIndex(owners, mods)

    def owners_of(self, module: str) -> set[int]:
        return self.owners.get(module, set())
