"""What the names of one Python file stand for: the dotted names its imports bind.

A loader call is recognised by what its name is bound to, not by how it is spelled:
`import importlib as il; il.import_module(...)`, `from importlib import import_module as
load; load(...)`, `import importlib.resources as ir; ir.files(...)`, `loader =
importlib.import_module; loader(...)` all call `importlib.import_module`. A name bound
differently in different scopes keeps every binding (the scan then matches any of them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

Bindings = dict[str, tuple[str, ...]]


def dotted(node: ast.expr) -> str:
    """`a.b.c` for a chain of attributes on a name, "" for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _add(out: dict[str, list[str]], name: str, target: str) -> None:
    seen = out.setdefault(name, [])
    if target not in seen:
        seen.append(target)


def file_bindings(nodes: Iterable[ast.AST]) -> Bindings:
    """Local name -> the dotted names imports (and `x = a.b` assignments of an imported
    name) bind it to, over every scope of the file (`nodes`: all its nodes)."""
    out: dict[str, list[str]] = {}
    assigns: list[tuple[str, str]] = []
    for st in nodes:
        if isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    _add(out, a.asname, a.name)
                else:
                    head = a.name.split(".", 1)[0]
                    _add(out, head, head)
        elif isinstance(st, ast.ImportFrom) and not st.level and st.module:
            for a in st.names:
                if a.name != "*":
                    _add(out, a.asname or a.name, f"{st.module}.{a.name}")
        elif isinstance(st, ast.Assign) and len(st.targets) == 1:
            t = st.targets[0]
            if isinstance(t, ast.Name) and isinstance(st.value, ast.Name | ast.Attribute):
                value = dotted(st.value)
                if value:
                    assigns.append((t.id, value))
    for name, value in assigns:
        head, _, rest = value.partition(".")
        for q in out.get(head, ()):
            if q != name:
                _add(out, name, f"{q}.{rest}" if rest else q)
    return {k: tuple(v) for k, v in out.items()}


def qualified(func: ast.expr, bindings: Bindings, builtins: frozenset[str]) -> list[str]:
    """The dotted names a call's function may stand for: through the file's bindings for a
    name or the head of an attribute chain; a builtin by its own name; for a method of a
    computed value (`entry_points().select`) just `.select`."""
    if isinstance(func, ast.Name):
        bound = bindings.get(func.id)
        if bound:
            return list(bound)
        return [func.id] if func.id in builtins else []
    if not isinstance(func, ast.Attribute):
        return []
    d = dotted(func)
    if not d:
        return [f".{func.attr}"]
    head, _, rest = d.partition(".")
    return [f"{q}.{rest}" for q in bindings.get(head, (head,))]


def _literal_strings(node: ast.expr) -> tuple[str, ...] | None:
    if not isinstance(node, ast.Tuple | ast.List | ast.Set) or not node.elts:
        return None
    out = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return tuple(out) if len(out) == len(node.elts) else None


def loop_values(nodes: Iterable[ast.AST]) -> dict[str, tuple[str, ...]]:
    """Names bound only as the target of `for name in ("a", "b")` loops over literal strings
    (nowhere else in the file: no assignment, parameter, import or handler binds them) ->
    every value they take: `for lib in ("chardet", "charset_normalizer"):
    import_module(lib)` imports one of those two names."""
    values: dict[str, list[str]] = {}
    other: set[str] = set()
    loop_targets: set[int] = set()
    stores: list[ast.Name] = []
    for n in nodes:
        if isinstance(n, ast.For | ast.AsyncFor) and isinstance(n.target, ast.Name):
            lits = _literal_strings(n.iter)
            if lits is not None:
                values.setdefault(n.target.id, []).extend(lits)
                loop_targets.add(id(n.target))
                continue
            other.add(n.target.id)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            stores.append(n)
        elif isinstance(n, ast.arg):
            other.add(n.arg)
        elif isinstance(n, ast.alias):
            other.add((n.asname or n.name).split(".", 1)[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            other.add(n.name)
        elif isinstance(n, ast.Global | ast.Nonlocal):
            other.update(n.names)
    other.update(s.id for s in stores if id(s) not in loop_targets)
    return {k: tuple(dict.fromkeys(v)) for k, v in values.items() if k not in other}
