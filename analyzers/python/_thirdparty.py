"""Which import names a third-party Python target stands for.

Third-party packages reach a build graph in several shapes, none with sources slim can map
to modules: a `py_library` without `srcs` under `//third_party/py/numpy`, a rules_python
hub alias `@pip//numpy:pkg` whose `actual` is the spoke repo's `@pypi_numpy//:pkg` (or
`@@rules_python~~pip~pip_311_numpy//:pkg` under bzlmod), Buck2's
`//third-party/python:numpy` (often a `prebuilt_python_library`). Their import names are
found in this order, the first that answers wins:

1. the installed distribution's `*.dist-info/RECORD` (or `top_level.txt`) in the given
   site-packages dirs (`--site-packages`, config `site_packages`, the workspace's
   `.venv`/`venv`/`site-packages`), looked up by the distribution name (rules_python's
   `pypi_name=` tag, else the label), or by the label's name as an installed import name
   (`//third_party/py/sklearn`);
2. config `[modules]` (`[tool.slim.modules]`): `"//third_party/py/yaml" = ["yaml"]`;
3. a built-in table of the distributions whose import name differs from their name
   (Pillow -> PIL, PyYAML -> yaml, scikit-learn -> sklearn, ...), looked up by the
   `pypi_name=` tag, else the label;
4. a guess: the `pypi_name=` distribution name, else the label's last component, taken
   as the import name. A guess may show that a dependency is used (its module is
   imported); it never shows that one is unused, so its edges are not called dead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from slim.model.graph import CODE_KINDS, BuildGraph, EdgeKind
from slim.model.pymodules import (
    PIP_REPOS,
    is_python_kind,
    normalize_dist,
    parse_record,
    record_modules,
    split_label,
)

#: Distributions whose import names differ from their names (normalized name -> modules).
KNOWN_IMPORT_NAMES: dict[str, tuple[str, ...]] = {
    "pillow": ("PIL",),
    "pyyaml": ("yaml",),
    "scikit_learn": ("sklearn",),
    "scikit_image": ("skimage",),
    "protobuf": ("google.protobuf",),
    "python_dateutil": ("dateutil",),
    "opencv_python": ("cv2",),
    "opencv_python_headless": ("cv2",),
    "opencv_contrib_python": ("cv2",),
    "opencv_contrib_python_headless": ("cv2",),
    "beautifulsoup4": ("bs4",),
    "attrs": ("attr", "attrs"),
    "pyzmq": ("zmq",),
    "pyjwt": ("jwt",),
    "pycryptodome": ("Crypto",),
    "pycryptodomex": ("Cryptodome",),
    "pyopenssl": ("OpenSSL",),
    "grpcio": ("grpc",),
    "absl_py": ("absl",),
    "dnspython": ("dns",),
    "pyserial": ("serial",),
    "pymupdf": ("fitz",),
    "psycopg2_binary": ("psycopg2",),
    "mysqlclient": ("MySQLdb",),
    "msgpack_python": ("msgpack",),
    "websocket_client": ("websocket",),
    "faiss_cpu": ("faiss",),
    "faiss_gpu": ("faiss",),
    "pyelftools": ("elftools",),
    "ruamel_yaml": ("ruamel.yaml",),
    "google_cloud_storage": ("google.cloud.storage",),
    "setuptools": ("setuptools", "pkg_resources", "_distutils_hack"),
    "typing_extensions": ("typing_extensions",),
}

_THIRD_PARTY_DIR = re.compile(r"^(?:third[-_]?party|3rd[-_]?party)(?:[-_].*)?$", re.IGNORECASE)
_GENERIC_NAMES = frozenset({"pkg", "whl", "lib", "data", "dist_info", "library", "py", "all"})
_PY_VERSION_INFIX = re.compile(r"_\d{2,3}_(.+)$")
_PYPI_NAME = "pypi_name="
ALIAS_KINDS = frozenset({"alias", "configured_alias"})
_PREBUILT_KINDS = frozenset({"prebuilt_python_library", "python_wheel", "whl_library"})


def _repo_name(repo: str) -> str:
    """`@@rules_python~~pip~pip_311_numpy` -> `pip_311_numpy`; `@pypi_numpy` -> `pypi_numpy`."""
    r = repo.lstrip("@")
    for sep in ("~", "+"):
        if sep in r:
            r = r.rsplit(sep, 1)[1]
    return r


def is_pip_repo(repo: str) -> bool:
    """A rules_python hub or spoke repo (also bzlmod canonical names of the pip extension)."""
    if not repo:
        return False
    if PIP_REPOS.match(repo):
        return True
    raw = repo.lstrip("@")
    return ("~pip~" in raw or "+pip+" in raw) and bool(_repo_name(raw))


def is_third_party_dir(label: str) -> bool:
    _, pkg, _ = split_label(label)
    return any(_THIRD_PARTY_DIR.match(part) for part in pkg.split("/") if part)


def pypi_name(tags: Iterable[str]) -> str:
    """rules_python's `pypi_name=numpy` tag (whl_library targets), or ""."""
    for t in tags:
        if t.startswith(_PYPI_NAME):
            return t[len(_PYPI_NAME) :].strip()
    return ""


def label_names(label: str) -> list[str]:
    """Distribution or import names the label spells, most specific first.

    `@pip//numpy:pkg` -> numpy; `@pypi_numpy//:pkg`, `@pip_311_numpy//:pkg`,
    `@@rules_python~~pip~pip_311_numpy//:pkg` -> numpy; `//third_party/py/numpy`,
    `//third-party/python:numpy`, `//third_party/py:numpy` -> numpy.
    """
    repo, pkg, name = split_label(label)
    out: list[str] = []
    if repo and is_pip_repo(repo):
        r = _repo_name(repo)
        m = PIP_REPOS.match("@" + r)
        if m and m.group(1):
            suffix = m.group(1)
            v = re.match(r"^\d{2,3}_(.+)$", suffix)
            out.append(v.group(1) if v else suffix)
        else:
            v = _PY_VERSION_INFIX.search(r)
            if v:
                out.append(v.group(1))
        if pkg:
            out.append(pkg.split("/")[0])
    if name and name not in _GENERIC_NAMES:
        out.append(name)
    if pkg:
        last = pkg.rsplit("/", 1)[-1]
        if last not in _GENERIC_NAMES and not _THIRD_PARTY_DIR.match(last):
            out.append(last)
    return list(dict.fromkeys(x for x in out if x))


# -- installed distributions -----------------------------------------------------------


@dataclass
class _Dist:
    """One installed distribution: its metadata dir and, once read, its modules."""

    info: Path
    modules: dict[str, str] | None = None
    sizes: dict[str, int] = field(default_factory=dict)
    source: str = ""


@dataclass
class Installed:
    """The distributions of some site-packages dirs, read lazily and cached."""

    dirs: tuple[Path, ...]
    dists: dict[str, _Dist] = field(default_factory=dict)
    _top: dict[str, list[str]] | None = None

    @staticmethod
    def scan(dirs: Sequence[Path]) -> Installed:
        out = Installed(tuple(dirs))
        for d in dirs:
            try:
                entries = sorted(os.listdir(d))
            except OSError:
                continue
            for e in entries:
                if e.endswith((".dist-info", ".egg-info")):
                    dist = e.rsplit(".", 1)[0].split("-", 1)[0]
                    out.dists.setdefault(normalize_dist(dist), _Dist(Path(d) / e))
        return out

    def read(self, name: str) -> _Dist | None:
        """The distribution `name` (any spelling) with its modules, None if not installed
        or its metadata names no module."""
        dist = self.dists.get(normalize_dist(name))
        if dist is None:
            return None
        if dist.modules is None:
            _load(dist)
        return dist if dist.modules else None

    def by_import_name(self, module: str) -> list[str]:
        """Installed distributions that provide the top-level module `module`."""
        if self._top is None:
            top: dict[str, list[str]] = {}
            for key in sorted(self.dists):
                dist = self.dists[key]
                for m in _top_level(dist):
                    top.setdefault(m, []).append(key)
            self._top = top
        return self._top.get(module.split(".")[0], [])


def _text(p: Path) -> str | None:
    from ._workspace import MAX_RECORD_BYTES

    try:
        if p.stat().st_size > MAX_RECORD_BYTES:
            return None
        return p.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _load(dist: _Dist) -> None:
    record = _text(dist.info / "RECORD")
    if record is None and dist.info.name.endswith(".egg-info"):
        record = _installed_files(dist.info)
    if record is not None:
        rows = parse_record(record)
        mods = record_modules(rows)
        if mods:
            dist.modules = mods
            dist.sizes = {
                p: s
                for p, s in rows
                if s is not None and not p.startswith("../") and ".dist-info/" not in p
            }
            dist.source = f"{dist.info.name}/RECORD"
            return
    top = _text(dist.info / "top_level.txt")
    names = [t.strip() for t in (top or "").splitlines() if t.strip()]
    dist.modules = {n.replace("/", "."): "" for n in names}
    dist.source = f"{dist.info.name}/top_level.txt" if names else ""


def _installed_files(info: Path) -> str | None:
    """An egg-info's installed-files.txt (paths relative to the egg-info) as RECORD rows."""
    text = _text(info / "installed-files.txt")
    if text is None:
        return None
    rows = []
    for line in text.splitlines():
        p = line.strip()
        if p.startswith("../"):
            p = p[3:]
        elif p:
            continue  # files of the egg-info itself
        if p:
            rows.append(f"{p},,")
    return "\n".join(rows)


def _top_level(dist: _Dist) -> set[str]:
    top = _text(dist.info / "top_level.txt")
    if top is not None:
        return {t.strip().replace("/", ".").split(".")[0] for t in top.splitlines() if t.strip()}
    if dist.modules is None:
        _load(dist)
    return {m.split(".")[0] for m in dist.modules or {}}


_INSTALLED: dict[tuple[str, ...], Installed] = {}


def installed(dirs: Sequence[Path]) -> Installed:
    key = tuple(str(d) for d in dirs)
    hit = _INSTALLED.get(key)
    if hit is None:
        hit = _INSTALLED[key] = Installed.scan(dirs)
    return hit


# -- resolution ------------------------------------------------------------------------


@dataclass(frozen=True)
class Mapping3P:
    """The import names of one third-party target and where they come from."""

    modules: dict[str, str]  # module -> its file in RECORD ("" when not known)
    sizes: dict[str, int]  # file -> bytes (RECORD)
    basis: str
    guessed: bool = False
    unknown: str = ""
    site: str = ""  # the site-packages dir the RECORD's paths are relative to


def is_third_party(graph: BuildGraph, i: int, module_map: Mapping[str, object]) -> bool:
    """A target that stands for an installed package rather than for sources."""
    label = graph.labels[i]
    repo = split_label(label)[0]
    kind = graph.kinds[i]
    return (
        is_pip_repo(repo)
        or kind in _PREBUILT_KINDS
        or label in module_map
        or bool(pypi_name(graph.tags.get(i, ())))
        or (is_python_kind(kind) and is_third_party_dir(label))
    )


def resolve(
    label: str,
    tags: Iterable[str],
    module_map: Mapping[str, tuple[str, ...]],
    site: Installed | None,
    *,
    guess: bool = True,
) -> Mapping3P:
    """The import names of a third-party target (see the module docstring for the order)."""
    tag = pypi_name(tags)
    names = label_names(label)
    dist_names = list(dict.fromkeys([tag, *names] if tag else names))
    looked = ", ".join(dist_names) or "(no name in the label)"
    if site is not None:
        for n in dist_names:
            d = site.read(n)
            if d is not None and d.modules:
                return Mapping3P(dict(d.modules), dict(d.sizes), d.source, site=str(d.info.parent))
        if not tag:
            for n in names:
                owners = site.by_import_name(n)
                if len(owners) == 1:
                    d = site.read(owners[0])
                    if d is not None and d.modules:
                        basis = f"{d.source} (installs the module `{n}` the label names)"
                        return Mapping3P(
                            dict(d.modules), dict(d.sizes), basis, site=str(d.info.parent)
                        )
    configured = module_map.get(label)
    if configured:
        return Mapping3P(dict.fromkeys(configured, ""), {}, f"[modules] in the config: {label}")
    for n in dist_names:
        known = KNOWN_IMPORT_NAMES.get(normalize_dist(n))
        if known:
            how = f"pypi_name={tag} tag" if n == tag else f"label name `{n}`"
            return Mapping3P(
                dict.fromkeys(known, ""),
                {},
                f"built-in table of import names ({how}: {n} installs {', '.join(known)})",
            )
    where = (
        f"no dist-info for {looked} in {len(site.dirs)} site-packages dir(s)"
        if site is not None and site.dirs
        else "no site-packages given (--site-packages, config site_packages or a .venv)"
    )
    if guess:
        for n, how in ([(tag, f"the pypi_name={tag} tag")] if tag else []) + [
            (x, "the label's last component") for x in names[-1:]
        ]:
            cand = normalize_dist(n)
            if cand.isidentifier():
                why = (
                    f"{where}, no [modules] entry, not in the built-in table: "
                    f"`{cand}` guessed from {how}, and a guessed name that is never imported "
                    "does not show the dep unused"
                )
                return Mapping3P({cand: ""}, {}, f"guessed from {how}", True, why)
    return Mapping3P({}, {}, "", False, f"{where}, no [modules] entry, no name to guess from")


def resolve_target(
    graph: BuildGraph,
    i: int,
    module_map: Mapping[str, tuple[str, ...]],
    site: Installed | None,
) -> Mapping3P:
    """`resolve` for target `i`: a wrapper that forwards to the target of the same
    package (`//third_party/py/numpy` around `@pip//numpy:pkg`) is not guessed; a package
    target whose deps are other packages (its requirements) is."""
    label = graph.labels[i]
    repo = split_label(label)[0]
    guess = is_pip_repo(repo) or not _wraps_same_package(graph, i)
    return resolve(label, graph.tags.get(i, ()), module_map, site, guess=guess)


def _wraps_same_package(graph: BuildGraph, i: int) -> bool:
    """Whether `i` wraps another target of its package: a dep names the same package
    (`//third_party/py/requests` -> `@pip//requests:pkg`), a dep is a pip repository's
    target (`//third_party/py/toolz_wrapper` -> `@pip//toolz:pkg`), or `i` has deps but
    no name. Deps that are other packages' targets in the same tree are requirements."""
    deps = {e.dep for e in graph.out_edges(i, CODE_KINDS)} - {i}
    if not deps:
        return False
    own = {normalize_dist(n) for n in label_names(graph.labels[i])}
    if not own:
        return True
    for d in deps:
        label = graph.labels[d]
        if is_pip_repo(split_label(label)[0]) or graph.kinds[d] in _PREBUILT_KINDS:
            return True
        if own & {normalize_dist(n) for n in label_names(label)}:
            return True
    return False


def alias_targets(graph: BuildGraph, i: int) -> list[int]:
    """What an alias stands for: its `actual` (followed through alias chains)."""
    out: list[int] = []
    seen = {i}
    todo = [i]
    while todo:
        x = todo.pop()
        for e in graph.out_edges(x, frozenset({EdgeKind.DEPS, EdgeKind.UNTYPED})):
            d = e.dep
            if d in seen:
                continue
            seen.add(d)
            if graph.kinds[d] in ALIAS_KINDS:
                todo.append(d)
            else:
                out.append(d)
    return sorted(out)


def python_targets(
    graph: BuildGraph, closure: Iterable[int], module_map: Mapping[str, object]
) -> list[int]:
    """The targets of a closure the Python analyzer judges: Python rules, third-party
    package targets (also without a kind), and aliases that stand for one of them."""
    kinds = graph.kinds
    closure = list(closure)
    py_kind = {k: is_python_kind(k) or k in _PREBUILT_KINDS for k in {kinds[i] for i in closure}}
    out = []
    for i in closure:
        k = kinds[i]
        if py_kind[k]:
            out.append(i)
        elif k in ALIAS_KINDS:
            if any(
                is_python_kind(kinds[d])
                or kinds[d] in _PREBUILT_KINDS
                or (not kinds[d] and is_third_party(graph, d, module_map))
                for d in alias_targets(graph, i)
            ):
                out.append(i)
        elif not k and is_third_party(graph, i, module_map):
            out.append(i)
    return out
