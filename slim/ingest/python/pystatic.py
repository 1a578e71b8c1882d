"""Static imports of Python source bytes (with `ast`: the code is never imported or run).

Each import gets its line and its context: top level, inside a function (lazy), under
`try/except ImportError` (optional), under `if TYPE_CHECKING` (typing only), or an
`importlib.import_module("literal")` / `__import__("literal")` call. Bytes that cannot
be decoded or parsed give a `SourceImports` with `error` set, never an exception, so one
bad file makes its target's evidence incomplete instead of failing the run. Pure: the
file reading (and the process pool) is in `analyzers/python/_workspace.py`.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from bisect import bisect_left
from collections.abc import Sequence
from typing import cast

from slim.errors import InputError, describe_found
from slim.model.pytrace import Loader, SourceImports, StaticImport

_STMT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)
# ast.TryStar (3.11+) has the fields of ast.Try
_TRY = cast("tuple[type[ast.Try], ...]", (ast.Try, getattr(ast, "TryStar", ast.Try)))
_DYNAMIC = re.compile(
    r"import_module|__import__|find_spec|run_module|lazy_|import_optional|import_string|"
    r"resources|files|get_data|resource_|_from_file_location|FileLoader|run_path|load_|"
    r"exec|entry_points|select"
)
_NEWLINE = re.compile(r"\r\n|\r|\n")
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _catches_import_error(handlers: Sequence[ast.ExceptHandler]) -> bool:
    for h in handlers:
        if h.type is None:
            return True
        types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        for t in types:
            name = t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", "")
            if name in _IMPORT_ERRORS:
                return True
    return False


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _literal(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


_Walk = tuple[ast.AST, bool, bool, bool]
"""A statement and its context: lazy (in a function), optional (under except
ImportError), typing-only (under if TYPE_CHECKING)."""


_NESTING = (ast.FunctionDef, ast.AsyncFunctionDef, ast.If, *_TRY)
_IMPORTS = (ast.Import, ast.ImportFrom)


def _inner(n: ast.AST, lz: bool, op: bool, ty: bool) -> list[_Walk]:
    """The statements nested in a function, `try` or `if` statement `n`, each with the
    context it runs in."""
    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
        return [(c, True, op, ty) for c in n.body]
    if isinstance(n, _TRY):
        guarded = op or _catches_import_error(n.handlers)
        out: list[_Walk] = [(c, lz, guarded, ty) for c in n.body]
        out += [(h, lz, guarded, ty) for h in n.handlers]
        out += [(c, lz, op, ty) for c in [*n.orelse, *n.finalbody]]
        return out
    if isinstance(n, ast.If):
        neg = isinstance(n.test, ast.UnaryOp) and isinstance(n.test.op, ast.Not)
        target = n.test.operand if isinstance(n.test, ast.UnaryOp) else n.test
        tc = _is_type_checking(target)
        branches: list[_Walk] = [(c, lz, op, ty or (tc and not neg)) for c in n.body]
        branches += [(c, lz, op, ty or (tc and neg)) for c in n.orelse]
        return branches
    return []


class _Scanner:
    """Walks one module's AST keeping the (lazy, optional, typing) context of each node."""

    def __init__(self, module: str, is_package: bool, hits: list[int]) -> None:
        self.hits = hits
        self.package = module if is_package else module.rpartition(".")[0]
        self.imports: list[StaticImport] = []
        self.unresolved: list[int] = []
        self.loaders: list[Loader] = []
        self.handled: set[int] = set()
        self.bare: set[str] = set()

    def resolve(self, module: str | None, level: int) -> str | None:
        if level == 0:
            return module
        base = self.package.split(".") if self.package else []
        if level - 1 > len(base):
            return None
        base = base[: len(base) - (level - 1)]
        parts = [*base, *([module] if module else [])]
        return ".".join(parts) or None

    def scan(self, node: ast.AST, lazy: bool, optional: bool, typing: bool) -> None:
        """Walk statements only; expressions are searched for `import_module(...)` calls
        just in the statements whose lines mention it (`self.hits`)."""
        stack: list[_Walk] = [(node, lazy, optional, typing)]
        push = stack.append
        while stack:
            n, lz, op, ty = stack.pop()
            if isinstance(n, _IMPORTS):
                self._import(n, lz, op, ty)
                continue
            if self.hits:
                self._calls_in(n, lz, op, ty)
            if isinstance(n, _NESTING):
                stack.extend(_inner(n, lz, op, ty))
                continue
            for name in _STMT_FIELDS:
                for c in getattr(n, name, ()):
                    push((c, lz, op, ty))

    def _import(self, n: ast.Import | ast.ImportFrom, lz: bool, op: bool, ty: bool) -> None:
        if isinstance(n, ast.Import):
            for a in n.names:
                self.imports.append(StaticImport(a.name, n.lineno, (), lz, op, ty))
            return
        mod = self.resolve(n.module, n.level)
        if mod is None:
            self.unresolved.append(n.lineno)
            return
        names = tuple(sorted({a.name for a in n.names if a.name != "*"}))
        self.imports.append(StaticImport(mod, n.lineno, names, lz, op, ty))

    def _calls_in(self, n: ast.AST, lz: bool, op: bool, ty: bool) -> None:
        """The loading calls in the expressions of statement `n`, when its lines mention
        one (`self.hits`)."""
        lo = getattr(n, "lineno", None)
        if lo is None:
            return
        hi = getattr(n, "end_lineno", None) or lo
        hits = self.hits
        at = bisect_left(hits, lo)
        if at < len(hits) and hits[at] <= hi:
            for c in ast.iter_child_nodes(n):
                if not isinstance(c, _BLOCKS):
                    self._expressions(c, lz, op, ty)

    def _expressions(self, node: ast.AST, lz: bool, op: bool, ty: bool) -> None:
        stack: list[tuple[ast.AST, bool]] = [(node, lz)]
        while stack:
            n, lazy = stack.pop()
            if isinstance(n, ast.Call):
                self._call(n, lazy, op, ty)
            elif isinstance(n, ast.Lambda):
                stack.append((n.body, True))
                continue
            stack.extend((c, lazy) for c in ast.iter_child_nodes(n))

    def _call(self, n: ast.Call, lz: bool, op: bool, ty: bool) -> None:
        if id(n) in self.handled:
            return
        f = n.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        owner = _dotted(f.value) if isinstance(f, ast.Attribute) else ""
        if isinstance(f, ast.Name) and name not in self.bare and name not in _BUILTINS:
            return
        if name in _IMPORTERS:
            if name == "import_module" and owner not in ("", "importlib"):
                return
            self._named(n, name, _first(n, "name"), lz, op, ty, computed_blocks=True)
        elif name in _HELPERS:
            self._named(n, name, _first(n, "name"), lz, op, ty, computed_blocks=False)
        elif name in _RESOURCES and (owner.endswith("resources") or not owner):
            self._named(n, name, _first(n, "package", "anchor"), lz, op, ty, True)
        elif name in _PKG_RESOURCES and owner in ("", "pkg_resources"):
            self._named(n, name, _first(n, "package_or_requirement"), lz, op, ty, True)
        elif name == "get_data" and owner in ("", "pkgutil"):
            self._named(n, name, _first(n, "package"), lz, op, ty, True)
        elif name in _FILE_LOADERS or (name == "exec" and _literal(_first(n)) is None):
            self.loaders.append(Loader(n.lineno, "file", "", f"{_shown(owner, name)}(...)"))
        elif name in _ENTRY_POINTS or (name == "select" and _kw(n, "group") is not None):
            self._entry_points(n, name, owner)

    def _named(
        self,
        n: ast.Call,
        via: str,
        arg: ast.expr | None,
        lz: bool,
        op: bool,
        ty: bool,
        computed_blocks: bool,
    ) -> None:
        """A call that loads the module `arg` names: a literal is an import; anything else is
        a computed import (a `Loader` with the literal head of the name, if any)."""
        if arg is None:
            return
        if _is_own_name(arg):
            return
        lit = _literal(arg)
        if lit is None:
            if computed_blocks:
                head = _head(arg)
                if head.startswith("."):
                    rel = self._relative(head, n, via)
                    head = rel + "." if rel and not head.lstrip(".") else rel
                self.loaders.append(Loader(n.lineno, "computed", head or "", f"{via}(...)"))
            return
        mod = self._relative(lit, n, via) if lit.startswith(".") else lit
        if mod and all(p.isidentifier() for p in mod.split(".")):
            self.imports.append(StaticImport(mod, n.lineno, (), lz, op, ty, dynamic=True, via=via))
        elif computed_blocks:
            self.loaders.append(Loader(n.lineno, "computed", "", f"{via}({lit!r})"))

    def _relative(self, name: str, n: ast.Call, via: str) -> str:
        """`import_module(".x", package=...)` as an absolute name ("" when unknown)."""
        if not name.startswith("."):
            return name
        level = len(name) - len(name.lstrip("."))
        rest = name[level:]
        pkg_node = n.args[1] if via == "import_module" and len(n.args) > 1 else _kw(n, "package")
        pkg = _literal(pkg_node) if pkg_node is not None else None
        if pkg is None and pkg_node is not None and _is_own_name(pkg_node):
            pkg = self.package
        if pkg:
            base = pkg.split(".")
            return ".".join([*base[: len(base) - (level - 1)], *([rest] if rest else [])])
        return self.resolve(rest or None, level) or ""

    def _entry_points(self, n: ast.Call, name: str, owner: str) -> None:
        group = _kw(n, "group")
        if group is None and name == "iter_entry_points" and n.args:
            group = n.args[0]
        if name == "select" and isinstance(n.func, ast.Attribute):
            inner = n.func.value
            if isinstance(inner, ast.Call):
                self.handled.add(id(inner))
        lit = _literal(group) if group is not None else None
        text = f"{_shown(owner, name)}({'group=' + repr(lit) if lit else '...'})"
        self.loaders.append(Loader(n.lineno, "entry-points", lit or "", text))


_IMPORTERS = frozenset({"import_module", "__import__", "find_spec", "run_module"})
#: Helpers that take a module name and import it (their own body holds the computed call).
_HELPERS = frozenset(
    {"lazy_import", "_lazy_import", "lazy_module", "import_optional_dependency", "import_string"}
)
_RESOURCES = frozenset(
    {"files", "read_text", "read_binary", "open_text", "open_binary", "path", "contents"}
)
_PKG_RESOURCES = frozenset(
    {"resource_filename", "resource_string", "resource_stream", "resource_exists"}
)
_FILE_LOADERS = frozenset(
    {
        "spec_from_file_location",
        "SourceFileLoader",
        "SourcelessFileLoader",
        "ExtensionFileLoader",
        "run_path",
        "load_source",
        "load_compiled",
        "load_dynamic",
    }
)
_ENTRY_POINTS = frozenset({"entry_points", "iter_entry_points"})
#: Modules whose functions, imported by name (`from importlib import import_module`), load.
_LOADING_MODULES = frozenset(
    {
        "importlib",
        "importlib.util",
        "importlib.machinery",
        "importlib.resources",
        "importlib_resources",
        "importlib.metadata",
        "importlib_metadata",
        "pkgutil",
        "pkg_resources",
        "runpy",
        "imp",
    }
)
_BUILTINS = frozenset({"__import__", "exec", "import_module", *_HELPERS})
_OWN_NAMES = frozenset({"__name__", "__package__"})


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _shown(owner: str, name: str) -> str:
    return f"{owner}.{name}" if owner else name


def _kw(n: ast.Call, *names: str) -> ast.expr | None:
    return next((k.value for k in n.keywords if k.arg in names), None)


def _first(n: ast.Call, *names: str) -> ast.expr | None:
    """The first positional argument, or the keyword of that name."""
    if n.args and not isinstance(n.args[0], ast.Starred):
        return n.args[0]
    return _kw(n, *names)


def _is_own_name(node: ast.expr) -> bool:
    """`__name__`, `__package__`, `__spec__.parent`: the calling module's own package."""
    if isinstance(node, ast.Name):
        return node.id in _OWN_NAMES
    return _dotted(node) == "__spec__.parent"


def _head(node: ast.expr) -> str:
    """The literal beginning of a computed string: `f"plugins.{x}"`, `"plugins." + x`,
    `"plugins.%s" % x`, `"plugins.{}".format(x)`; "" when it starts with a value."""
    if isinstance(node, ast.JoinedStr):
        first = node.values[0] if node.values else None
        return _literal(first) or "" if isinstance(first, ast.Constant) else ""
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Add):
            return _literal(node.left) or _head(node.left)
        if isinstance(node.op, ast.Mod):
            lit = _literal(node.left) or ""
            return lit.split("%", 1)[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        lit = _literal(node.func.value) or "" if node.func.attr == "format" else ""
        return lit.split("{", 1)[0]
    return ""


def _top_level_names(tree: ast.Module) -> tuple[frozenset[str], bool]:
    """Names a module binds unconditionally at top level, and whether it has a PEP 562
    module `__getattr__`."""
    names: set[str] = set()
    getattr_ = False
    for st in tree.body:
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(st.name)
            getattr_ = getattr_ or st.name == "__getattr__"
        elif isinstance(st, ast.Assign):
            for t in st.targets:
                names.update(x.id for x in ast.walk(t) if isinstance(x, ast.Name))
        elif isinstance(st, ast.AnnAssign | ast.AugAssign) and isinstance(st.target, ast.Name):
            if not isinstance(st, ast.AnnAssign) or st.value is not None:
                names.add(st.target.id)
        elif isinstance(st, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in st.names)
        elif isinstance(st, ast.ImportFrom):
            names.update(a.asname or a.name for a in st.names if a.name != "*")
    return frozenset(names), getattr_


def _decode(data: bytes, path: str) -> str:
    """Source text per PEP 263 (a coding cookie, else UTF-8); InputError on bad bytes."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise InputError(path, "a valid coding declaration", str(exc), line=1) from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 8]
        raise InputError(path, f"{encoding} text", describe_found(bad), line=line) from None
    except LookupError:
        raise InputError(path, "a known source encoding", repr(encoding), line=1) from None


def scan_source(data: bytes, path: str, module: str, is_package: bool = False) -> SourceImports:
    """The imports of one file's bytes; errors are returned in the result, never raised."""
    try:
        text = _decode(data, path)
        if "\x00" in text:
            pos = text.index("\x00")
            raise InputError(
                path, "Python source text", "a NUL byte", line=text.count("\n", 0, pos) + 1
            )
        try:
            tree = ast.parse(text, filename=path)
        except SyntaxError as exc:
            found = f"a syntax error ({exc.msg})"
            raise InputError(path, "valid Python syntax", found, line=exc.lineno or 1) from None
        except (RecursionError, MemoryError, ValueError) as exc:
            raise InputError(path, "parseable Python", type(exc).__name__, line=1) from None
    except InputError as exc:
        return SourceImports(
            path, module, (), (), f"expected {exc.expected}, found {exc.found}", exc.line
        )
    hits: list[int] = []
    if _DYNAMIC.search(text):
        lines = _NEWLINE.split(text)
        hits = [n for n, ln in enumerate(lines, 1) if _DYNAMIC.search(ln)]
    sc = _Scanner(module, is_package, hits)
    if hits:
        sc.bare.update(
            a.asname or a.name
            for st in ast.walk(tree)
            if isinstance(st, ast.ImportFrom) and st.module in _LOADING_MODULES and not st.level
            for a in st.names
        )
    try:
        sc.scan(tree, False, False, False)
    except RecursionError:
        return SourceImports(
            path, module, (), (), "expected scannable code, found nesting too deep", 1
        )
    imports = tuple(sorted(set(sc.imports), key=lambda i: (i.line, i.module, i.names)))
    defines, module_getattr = _top_level_names(tree) if is_package else (frozenset(), False)
    if not is_package and any(
        isinstance(st, ast.FunctionDef) and st.name == "__getattr__" for st in tree.body
    ):
        module_getattr = True
    return SourceImports(
        path,
        module,
        imports,
        tuple(sorted(set(sc.unresolved))),
        loaders=tuple(sorted(set(sc.loaders))),
        defines=defines,
        module_getattr=module_getattr,
    )
