"""A package `__init__` that hands its attribute lookups to code the scan does not read:
a PEP 562 `def __getattr__` (which may call `lazy_loader.load(f"{__name__}.{name}")` or
any other helper), `__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, ...)`
(or `attach_stub`),
`apipkg.initpkg(__name__, {...})`, `sys.modules[__name__] = _LazyModule(...)`. Any
attribute access may then import any of its submodules, whose names only that code (or a
`.pyi` stub) holds: a computed load of `<package>.` for SLIM001."""

from __future__ import annotations

import ast

from slim.model.pytrace import Loader

from ._bindings import dotted

_OWN = frozenset({"__name__", "__spec__", "__package__"})
#: Calls given the package's name that load nothing (`__path__ = extend_path(__path__, __name__)`).
_LOADS_NOTHING = frozenset({"extend_path", "declare_namespace"})


def lazy_package_loaders(tree: ast.Module, package: str) -> list[Loader]:
    """The top-level statements of `package`'s `__init__` that make its submodules load
    on attribute access, as computed loaders of `package.`."""
    out: list[Loader] = []
    prefix = package + "."
    for st in tree.body:
        text = _lazy_binding(st)
        if text:
            out.append(Loader(st.lineno, "computed", prefix, text))
    return out


def _lazy_binding(st: ast.stmt) -> str:
    """How `st` hands the package's lookups away ("" when it does not)."""
    value: ast.expr | None = None
    if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef):
        return "def __getattr__(...)" if st.name == "__getattr__" else ""
    if isinstance(st, ast.Assign):
        for t in st.targets:
            if any(isinstance(x, ast.Name) and x.id == "__getattr__" for x in ast.walk(t)):
                return "__getattr__ = ..."
            if isinstance(t, ast.Subscript) and dotted(t.value) == "sys.modules":
                return "sys.modules[...] = ..."
        value = st.value
    elif isinstance(st, ast.AnnAssign | ast.Expr):
        value = st.value
    if isinstance(value, ast.Call) and _passes_own_name(value):
        f = value.func
        tail = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if tail in _LOADS_NOTHING:
            return ""  # also `__import__('pkgutil').extend_path(__path__, __name__)`
        name = dotted(f) or tail or "a call"
        return f"{name}(__name__, ...)"
    return ""


def _passes_own_name(call: ast.Call) -> bool:
    """A call given the package's own name and something more (`getLogger(__name__)`
    alone hands over nothing to load)."""
    args = [*call.args, *(k.value for k in call.keywords)]
    own = any(isinstance(a, ast.Name) and a.id in _OWN for a in args)
    return own and len(args) > 1
