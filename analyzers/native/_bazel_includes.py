"""Where a Bazel compile finds headers besides the workspace root: the `includes`
directories of the target and of every dep (`-isystem`, passed to all dependants), and the
headers of a dep with `strip_include_prefix` or `include_prefix` under the name those give
them (a `_virtual_includes` tree). A static `#include` scan resolves names with these.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from slim.model.graph import CODE_KINDS, BuildGraph
from slim.model.ownership import source_path

HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".ipp", ".tcc", ".cuh", ".inl")


def package_dir(label: str) -> str:
    """`//a/b:x` -> `a/b`; `@r//a:x` -> `external/r/a` (where Bazel puts its sources)."""
    repo, _, rest = label.partition("//")
    pkg = rest.partition(":")[0]
    repo = repo.lstrip("@")
    return f"external/{repo}/{pkg}".rstrip("/") if repo else pkg


def _repo_root(label: str) -> str:
    repo = label.partition("//")[0].lstrip("@")
    return f"external/{repo}" if repo else ""


def virtual_name(header: str, label: str, strip: str, prefix: str) -> str | None:
    """The name a header of `label` is included by under `strip_include_prefix` (relative to
    the package, or to the repository when it starts with `/`) and `include_prefix`
    (prepended to what is left, which is the repository-relative path when nothing is
    stripped); None for a header outside the stripped prefix (Bazel refuses it)."""
    root = _repo_root(label)
    if strip:
        base = (
            posixpath.join(root, strip[1:])
            if strip.startswith("/")
            else posixpath.join(package_dir(label), strip)
        )
    else:
        base = root
    base = posixpath.normpath(base) if base else ""
    if base in ("", "."):
        rel = header
    elif header.startswith(base + "/"):
        rel = header[len(base) + 1 :]
    else:
        return None
    name = posixpath.join(prefix.strip("/"), rel) if prefix.strip("/") else rel
    return posixpath.normpath(name)


@dataclass(frozen=True)
class SearchPaths:
    """What a Bazel target's compile searches besides its own directory and the root."""

    dirs: list[str] = field(default_factory=list)
    """Workspace-relative `includes` directories of the target and its deps."""
    names: dict[str, str] = field(default_factory=dict)
    """Include name -> workspace path, for the headers of deps with an include prefix."""


def includes_dirs(label: str, includes: object) -> list[str]:
    """A Bazel target's `includes` as workspace directories (relative to its package)."""
    if not isinstance(includes, tuple):
        return []
    paths = (posixpath.normpath(posixpath.join(package_dir(label), str(d))) for d in includes)
    return ["" if p == "." else p for p in paths]


def listed_headers(g: BuildGraph, t: int) -> list[str]:
    """The headers target `t` lists (`srcs`, `hdrs`), as workspace paths."""
    tgt = g.target(t)
    listed = [source_path(s) for s in tgt.srcs]
    hdrs = tgt.attrs.get("hdrs")
    if isinstance(hdrs, tuple):
        listed += [source_path(str(h)) for h in hdrs]
    return [h for h in dict.fromkeys(listed) if h.endswith(HEADER_SUFFIXES)]


def search_paths(g: BuildGraph, t: int) -> SearchPaths:
    """The `SearchPaths` of `t`, read from the Bazel attributes of its code closure."""
    out = SearchPaths()
    for d in g.closure([t], CODE_KINDS).tolist():
        out.dirs.extend(includes_dirs(g.labels[d], g.target(d).attrs.get("includes")))
        for name, h in prefixed_names(g, d).items():
            out.names.setdefault(name, h)
    return SearchPaths(list(dict.fromkeys(out.dirs)), out.names)


def prefixed_names(g: BuildGraph, t: int) -> dict[str, str]:
    """Include name -> workspace path of the headers of `t` when it has an include prefix
    (empty otherwise)."""
    attrs = g.target(t).attrs
    strip, prefix = attrs.get("strip_include_prefix"), attrs.get("include_prefix")
    strip = strip if isinstance(strip, str) else ""
    prefix = prefix if isinstance(prefix, str) else ""
    if not strip and not prefix:
        return {}
    label = g.labels[t]
    out: dict[str, str] = {}
    for h in listed_headers(g, t):
        name = virtual_name(h, label, strip, prefix)
        if name is not None:
            out.setdefault(name, h)
    return out


def virtual_owner(path: str) -> tuple[str, str] | None:
    """(label, include name) of a header's path in a `_virtual_includes` tree, as a depfile
    names it once its `bazel-out/<config>/bin/` is cut: `lib/_virtual_includes/vinc/vinc/
    v.h` -> (`//lib:vinc`, `vinc/v.h`); `external/r/...` is in repository `@r`."""
    pkg, sep, rest = path.partition("/_virtual_includes/")
    if not sep:
        if not path.startswith("_virtual_includes/"):
            return None
        pkg, rest = "", path.removeprefix("_virtual_includes/")
    name, _, header = rest.partition("/")
    if not name or not header:
        return None
    repo = ""
    if pkg == "external" or pkg.startswith("external/"):
        parts = pkg.split("/", 2)
        if len(parts) < 2:
            return None
        repo, pkg = "@" + parts[1], parts[2] if len(parts) > 2 else ""
    return f"{repo}//{pkg}:{name}", header
