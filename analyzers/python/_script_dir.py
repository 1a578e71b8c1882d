"""A Bazel `py_binary` or `py_test` runs its main file as a script, and Python puts the
script's directory first on `sys.path` (unless run with `-P`/`PYTHONSAFEPATH`): a module
beside the main file is importable by its name relative to that directory too (`import
util` beside `app/main.py` loads `app/util.py`). Those names are added to what a target
owns, so such an import is a use and never read as absence."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from slim.model.graph import BuildGraph
from slim.model.pymodules import PySource, split_label

from ._ownership import Owned

#: Rules whose main file the interpreter runs as a script (Bazel's and rules_python's).
SCRIPT_KINDS = frozenset({"py_binary", "py_test"})


def script_dir(g: BuildGraph, root: int) -> str | None:
    """The workspace directory of `root`'s main file when it runs as a script; None when
    it does not (another kind, an external repository) or the main file is not known."""
    if g.kinds[root] not in SCRIPT_KINDS:
        return None
    label = g.labels[root]
    if not label.startswith("//"):
        return None
    main = g.attrs.get(root, {}).get("main")
    if isinstance(main, str) and main:
        repo, pkg, name = split_label(main if "//" in main else f"{label.split(':')[0]}:{main}")
    else:
        name = label.rpartition(":")[2] + ".py"
        hits = [s for s in g.srcs.get(root, ()) if split_label(s)[2] == name]
        if len(hits) != 1:
            return None
        repo, pkg, name = split_label(hits[0])
    if repo:
        return None
    return posixpath.dirname(f"{pkg}/{name}" if pkg else name)


def _alias(s: PySource, where: str) -> str | None:
    """`s`'s module name as seen from the directory `where` ("" at the workspace top)."""
    if not where or not s.path.startswith(where + "/"):
        return None
    depth = s.path[len(where) + 1 :].count("/") + (0 if s.is_package else 1)
    parts = s.module.split(".")
    if depth < 1 or depth > len(parts):
        return None
    return ".".join(parts[-depth:])


def add_script_names(owned: Iterable[Owned], where: str) -> None:
    """Give each source under `where` its name relative to that directory as well."""
    for o in owned:
        if not o.sources:
            continue
        out = []
        for s in o.sources:
            alias = _alias(s, where)
            if alias is not None and alias not in s.modules:
                s = PySource(s.path, (*s.modules, alias), s.is_package)
                o.modules.add(alias)
            out.append(s)
        o.sources = tuple(out)
