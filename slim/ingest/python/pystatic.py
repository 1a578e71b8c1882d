"""Static imports of Python source bytes (with `ast`: the code is never imported or run).

Each import gets its line and its context: top level, inside a function (lazy), under
`try/except ImportError` (optional), under `if TYPE_CHECKING` (typing only), or a loading
call with a literal name (`importlib.import_module("a.b")`, `__import__`, `find_spec`,
`importlib.resources.files("pkg")`, ... recognised by what the call's name is bound to, so
`import importlib as il; il.import_module(...)` counts). Calls that load by a name the scan
cannot read become `Loader`s; strings that spell a dotted name are kept (`named`): code
that loads by name (logging configuration, plugin registries) may import them. Bytes that
cannot be decoded or parsed give a `SourceImports` with `error` set, never an exception,
so one bad file makes its target's evidence incomplete instead of failing the run. Pure:
the file reading (and the process pool) is in `analyzers/python/_workspace.py`.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from typing import cast

from slim.errors import InputError, describe_found
from slim.model.pymodules import normalize_dist
from slim.model.pytrace import Loader, SourceImports, StaticImport
from slim.model.stdlib_loads import stdlib_loader

from ._bindings import Bindings, dotted, file_bindings, loop_values, qualified
from ._lazy_package import lazy_package_loaders
from ._loader_calls import (
    BUILTINS,
    STEVEDORE_MANAGERS,
    Call,
    classify,
    may_load,
    runs_python,
    writes_sys_path,
)

_STMT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)
# ast.TryStar (3.11+) has the fields of ast.Try
_TRY = cast("tuple[type[ast.Try], ...]", (ast.Try, getattr(ast, "TryStar", ast.Try)))
_DYNAMIC = re.compile(
    r"import_module|__import__|find_spec|find_loader|run_module|lazy_|import_optional|"
    r"import_string|resources|files|get_data|resource_|_from_file_location|FileLoader|"
    r"run_path|load_|exec|(?<![.\w])(?:eval|compile)\(|entry_points|select|pickle|Unpickler|"
    r"shelve|joblib|unsafe_load|\bload\(|Loader|dictConfig|fileConfig|discover|"
    r"loadTestsFrom|sys\.path|\bpath\.(?:insert|append|extend)|addsitedir|locate\(|"
    r"resolve_name|pytest\.main|sys\.executable|python|version\(|distribution|metadata|"
    r"requires\(|require\(|from_name\(|load_setuptools_entrypoints|stevedore|Manager\("
)
#: A string literal that spells a dotted name (`'handlers.custom.Shout'`, `"app_ext.shout"`,
#: `'pkg.mod:attr'`, `'plugins.'`): what loaders by name are given.
_NAMED = re.compile(
    r"""(?<![\w'"])(['"])([^\W\d]\w*(?:\.[^\W\d]\w*)*(?:\.|:[^\W\d][\w.]*)?)\1(?![\w'"])"""
)
_NEWLINE = re.compile(r"\r\n|\r|\n")
#: The distribution name at the start of a requirement (`PyYAML>=6` -> `PyYAML`).
_DIST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_OWN_NAMES = frozenset({"__name__", "__package__"})
_MAX_EXEC_CODE = 100_000


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

    def __init__(self, module: str, is_package: bool, hits: list[int], bindings: Bindings) -> None:
        self.module = module
        self.is_package = is_package
        self.hits = hits
        self.bindings = bindings
        self.package = module if is_package else module.rpartition(".")[0]
        self.imports: list[StaticImport] = []
        self.unresolved: list[int] = []
        self.loaders: list[Loader] = []
        self.handled: set[int] = set()
        self.depth = 0
        self.tree: ast.AST | None = None
        self._loops: dict[str, tuple[str, ...]] | None = None

    def loop_names(self) -> dict[str, tuple[str, ...]]:
        """See `_bindings.loop_values` (read once, on the first computed name)."""
        if self._loops is None:
            self._loops = loop_values(ast.walk(self.tree)) if self.tree is not None else {}
        return self._loops

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
        """Walk statements only; expressions are searched for loading calls just in the
        statements whose lines mention one (`self.hits`)."""
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
        names = tuple(sorted({a.name for a in n.names}))
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
            if isinstance(n, ast.stmt) and writes_sys_path(n):
                self.loaders.append(Loader(n.lineno, "path", "", "sys.path = ..."))
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
        for q in qualified(n.func, self.bindings, BUILTINS):
            owner, _, name = q.rpartition(".")
            what = classify(owner, name, n)
            if what is not None:
                self._loading_call(what, n, owner, name, (lz, op, ty))
                return

    def _loading_call(
        self, what: Call, n: ast.Call, owner: str, name: str, ctx: tuple[bool, bool, bool]
    ) -> None:
        lz, op, ty = ctx
        shown = f"{owner}.{name}" if owner else name
        if what is Call.IMPORT or what is Call.HELPER:
            arg = _first(n, "name", "mod_name", "path")
            self._named(n, name, arg, lz, op, ty, computed_blocks=what is Call.IMPORT)
        elif what is Call.RESOURCE:
            arg = _first(n, "package", "anchor", "package_or_requirement")
            self._named(n, name, arg, lz, op, ty, computed_blocks=True)
        elif what is Call.NAMES:
            self._test_names(n, name, lz, op, ty)
        elif what is Call.EXEC:
            self._exec(n, shown, ctx)
        elif what is Call.ENTRY_POINTS:
            self._entry_points(n, name, owner)
        elif what is Call.DISCOVER:
            pattern = _kw(n, "pattern") or (n.args[1] if len(n.args) > 1 else None)
            glob = "test*.py" if pattern is None else (_literal(pattern) or "*")
            self.loaders.append(Loader(n.lineno, "discover", glob, f"{shown}(...)"))
        elif what is Call.SPAWN:
            if runs_python(n):
                self.loaders.append(Loader(n.lineno, "spawn", "", f"{shown}(...)"))
        elif what is Call.DIST:
            self.loaders.append(_dist_read(n, shown, self.module))
        else:
            kind = {Call.FILE: "file", Call.BY_DATA: "by-data", Call.PATH: "path"}[what]
            self.loaders.append(Loader(n.lineno, kind, "", f"{shown}(...)"))

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
            if computed_blocks and _spread(n):  # `import_module(*args)`: any name
                self.loaders.append(Loader(n.lineno, "computed", "", f"{via}(*...)"))
            return
        if via == "__import__" and not (isinstance(arg, ast.Name) and arg.id in self.loop_names()):
            self._dunder_import(n, arg, lz, op, ty)
            return
        if _is_own_name(arg):
            return
        lit = _literal(arg)
        if lit is None and isinstance(arg, ast.Name) and arg.id in self.loop_names():
            for value in self.loop_names()[arg.id]:
                self._named(n, via, ast.Constant(value), lz, op, ty, computed_blocks)
            return
        if lit is None:
            if computed_blocks:
                head = _head(arg)
                if head.startswith("."):
                    rel = self._relative(head, n, via)
                    head = rel + "." if rel and not head.lstrip(".") else rel
                self.loaders.append(Loader(n.lineno, "computed", head or "", f"{via}(...)"))
            return
        lit = lit.split(":", 1)[0]
        mod = self._relative(lit, n, via) if lit.startswith(".") else lit
        if mod and all(p.isidentifier() for p in mod.split(".")):
            self.imports.append(StaticImport(mod, n.lineno, (), lz, op, ty, dynamic=True, via=via))
        elif computed_blocks:
            self.loaders.append(Loader(n.lineno, "computed", "", f"{via}({lit!r})"))

    def _dunder_import(self, n: ast.Call, arg: ast.expr, lz: bool, op: bool, ty: bool) -> None:
        """`__import__(name, globals, locals, fromlist, level)`: a `level` above 0 makes
        `name` relative to the caller's package (as `from .. import` does), and each name
        of `fromlist` may be a submodule (as in `from m import a`); a computed level,
        name or fromlist may load any module under what is literal."""
        level_node, from_node = _nth(n, 4, "level"), _nth(n, 3, "fromlist")
        level = 0 if level_node is None else _int_literal(level_node)
        if level is None or level < 0:
            self.loaders.append(Loader(n.lineno, "computed", "", "__import__(..., level=...)"))
            return
        if _is_own_name(arg):
            lit: str | None = self.module if dotted(arg) == "__name__" else self.package
        else:
            lit = _literal(arg)
        if lit is None:
            head = (self.resolve(None, level) or "") + "." if level else _head(arg)
            self.loaders.append(Loader(n.lineno, "computed", head.lstrip("."), "__import__(...)"))
            return
        mod = self.resolve(lit or None, level) if level else lit
        if not mod or not all(p.isidentifier() for p in mod.split(".")):
            self.loaders.append(Loader(n.lineno, "computed", "", f"__import__({lit!r})"))
            return
        names = _names(from_node)
        if names is None:
            self.loaders.append(Loader(n.lineno, "computed", f"{mod}.", "__import__(fromlist=...)"))
            names = ()
        self.imports.append(
            StaticImport(mod, n.lineno, names, lz, op, ty, dynamic=True, via="__import__")
        )

    def _test_names(self, n: ast.Call, via: str, lz: bool, op: bool, ty: bool) -> None:
        """`loadTestsFromName("a.b.C")` imports module `a.b`; a list of literal names each;
        anything computed may reach any module."""
        arg = _first(n, "name", "names")
        items = arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg]
        for item in items:
            if item is None or isinstance(item, ast.Starred):
                self.loaders.append(Loader(n.lineno, "computed", "", f"{via}(...)"))
            else:
                self._named(n, via, item, lz, op, ty, computed_blocks=True)

    def _exec(self, n: ast.Call, shown: str, ctx: tuple[bool, bool, bool]) -> None:
        """`exec("import a.b")`: a literal is code, scanned like the file's own (its imports
        at the call's line); a computed argument runs code the scan cannot read."""
        code = _literal(_first(n, "source", "object"))
        if code is None:
            if not shown.endswith("compile"):
                self.loaders.append(Loader(n.lineno, "file", "", f"{shown}(...)"))
            return
        if len(code) > _MAX_EXEC_CODE or self.depth > 4:
            self.loaders.append(Loader(n.lineno, "file", "", f"{shown}(...)"))
            return
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return  # raises when run: imports nothing
        lines = code.count("\n") + 1
        sub = _Scanner(self.module, self.is_package, list(range(1, lines + 1)), self.bindings)
        sub.bindings = {**self.bindings, **file_bindings(_statements(tree))}
        sub.depth = self.depth + 1
        sub.tree = tree
        sub.scan(tree, *ctx)
        self.imports.extend(i._replace(line=n.lineno, via="exec") for i in sub.imports)
        self.loaders.extend(ld._replace(line=n.lineno) for ld in sub.loaders)

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
        group = _kw(n, "namespace" if name in STEVEDORE_MANAGERS else "group")
        if group is None and n.args and name not in ("entry_points", "select"):
            group = n.args[0]  # iter_entry_points, load_setuptools_entrypoints, stevedore
        if name == "select" and isinstance(n.func, ast.Attribute):
            inner = n.func.value
            if isinstance(inner, ast.Call):
                self.handled.add(id(inner))
        lit = _literal(group) if group is not None else None
        text = f"{_shown(owner, name)}({'group=' + repr(lit) if lit else '...'})"
        self.loaders.append(Loader(n.lineno, "entry-points", lit or "", text))


def _dist_read(n: ast.Call, shown: str, module: str) -> Loader:
    """`metadata.version("PyYAML")`: a read of the distribution's dist-info (`prefix`: its
    normalized name; "" when computed). `version(__name__)` reads the calling package's
    own distribution, taken to be named as its top-level package."""
    arg = _first(n, "distribution_name", "dist", "requirements", "name")
    lit = _literal(arg) if arg is not None else None
    if arg is not None and _is_own_name(arg):
        own = normalize_dist(module.split(".", 1)[0])
        return Loader(n.lineno, "dist", own, f"{shown}({dotted(arg) or '__spec__.parent'})")
    m = _DIST_NAME.match(lit or "")
    if m is None:
        return Loader(n.lineno, "dist", "", f"{shown}(...)")
    return Loader(n.lineno, "dist", normalize_dist(m.group(0)), f"{shown}({lit!r})")


def _shown(owner: str, name: str) -> str:
    return f"{owner}.{name}" if owner else name


def _kw(n: ast.Call, *names: str) -> ast.expr | None:
    return next((k.value for k in n.keywords if k.arg in names), None)


def _first(n: ast.Call, *names: str) -> ast.expr | None:
    """The first positional argument, or the keyword of that name."""
    if n.args and not isinstance(n.args[0], ast.Starred):
        return n.args[0]
    return _kw(n, *names)


def _spread(n: ast.Call) -> bool:
    """Whether arguments are spread in (`*args`, `**kwargs`): values the scan cannot see."""
    return any(isinstance(a, ast.Starred) for a in n.args) or any(k.arg is None for k in n.keywords)


def _nth(n: ast.Call, index: int, keyword: str) -> ast.expr | None:
    """The argument at position `index`, or the keyword; a `*args` before it hides it
    (a computed value: `ast.Starred`)."""
    for k, a in enumerate(n.args):
        if isinstance(a, ast.Starred):
            return a
        if k == index:
            return a
    return _kw(n, keyword)


def _int_literal(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _names(node: ast.expr | None) -> tuple[str, ...] | None:
    """The literal names of a `fromlist` (empty when none), None when computed."""
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return ()
    if not isinstance(node, ast.List | ast.Tuple):
        return None
    names = [_literal(e) for e in node.elts]
    if any(x is None for x in names):
        return None
    return tuple(sorted({x for x in names if x and (x == "*" or x.isidentifier())}))


def _is_own_name(node: ast.expr) -> bool:
    """`__name__`, `__package__`, `__spec__.parent`: the calling module's own package."""
    if isinstance(node, ast.Name):
        return node.id in _OWN_NAMES
    return dotted(node) == "__spec__.parent"


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


def _own_submodules(st: ast.ImportFrom | ast.Import, package: str) -> set[str]:
    """Names an `__init__` binds to its own submodules (`from . import x`, `from pkg
    import x`, `import pkg.x as x`): submodules, not attributes."""
    if isinstance(st, ast.ImportFrom):
        if (st.level == 1 and not st.module) or (not st.level and st.module == package):
            return {a.asname or a.name for a in st.names}
        return set()
    return {a.asname for a in st.names if a.asname and a.name.startswith(package + ".")}


def _top_level_names(tree: ast.Module, package: str) -> tuple[frozenset[str], bool]:
    """Names a package's `__init__` binds unconditionally at top level to something other
    than its own submodules, and whether it has a PEP 562 module `__getattr__`."""
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
            own = _own_submodules(st, package)
            names.update(
                n for a in st.names if (n := (a.asname or a.name).split(".")[0]) not in own
            )
        elif isinstance(st, ast.ImportFrom):
            own = _own_submodules(st, package)
            names.update(a.asname or a.name for a in st.names if a.name != "*")
            names -= own
    return frozenset(names), getattr_


def _strings(node: ast.expr) -> list[str] | None:
    """The strings of a literal list/tuple (or one string), None if anything is computed."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        out = [_literal(e) for e in node.elts]
        return None if any(x is None for x in out) else [x for x in out if x is not None]
    lit = _literal(node)
    return None if lit is None else [lit]


def _all_names(tree: ast.Module) -> tuple[tuple[str, ...], bool]:
    """A module's `__all__` as far as literals say (`= [...]`, `+= [...]`, `.extend`,
    `.append`), and whether some part of it is computed."""
    names: list[str] = []
    computed = False
    for st in tree.body:
        value: ast.expr | None = None
        if isinstance(st, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in st.targets
        ):
            names, value = [], st.value
        elif isinstance(st, ast.AugAssign | ast.AnnAssign) and dotted(st.target) == "__all__":
            if isinstance(st, ast.AnnAssign):
                names = []
            value = st.value
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            f = st.value.func
            if dotted(f) in ("__all__.extend", "__all__.append") and st.value.args:
                value = st.value.args[0]
        if value is not None:
            found = _strings(value)
            computed = computed or found is None
            names.extend(found or ())
    return tuple(dict.fromkeys(names)), computed


def _named_strings(text: str) -> tuple[tuple[int, str], ...]:
    """(line, text) of each string literal spelling a dotted name (see `_NAMED`)."""
    found = [(m.start(), m.group(2)) for m in _NAMED.finditer(text)]
    if not found:
        return ()
    starts = [m.end() for m in _NEWLINE.finditer(text)]
    return tuple(sorted({(bisect_right(starts, pos) + 1, s) for pos, s in found}))


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


def _parse(data: bytes, path: str) -> tuple[str, ast.Module]:
    text = _decode(data, path)
    if "\x00" in text:
        pos = text.index("\x00")
        raise InputError(
            path, "Python source text", "a NUL byte", line=text.count("\n", 0, pos) + 1
        )
    try:
        return text, ast.parse(text, filename=path)
    except SyntaxError as exc:
        found = f"a syntax error ({exc.msg})"
        raise InputError(path, "valid Python syntax", found, line=exc.lineno or 1) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise InputError(path, "parseable Python", type(exc).__name__, line=1) from None


def _statements(tree: ast.AST) -> Iterator[ast.stmt]:
    """Every statement of a module, at any depth (no expressions: bindings are made by
    import and assignment statements)."""
    stack: list[ast.AST] = [tree]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.stmt):
            yield n
        for field in _STMT_FIELDS:
            stack.extend(getattr(n, field, ()))


#: What `_DYNAMIC` looks for, as plain substrings (found with `str.find`, many times
#: faster than the regex over every line); the second set must not follow a name or a dot
#: (`eval(`, not `re.compile(`), the third must not follow a name character.
_HIT_WORDS = (
    "import_module", "__import__", "find_spec", "find_loader", "run_module", "lazy_",
    "import_optional", "import_string", "resources", "files", "get_data", "resource_",
    "_from_file_location", "FileLoader", "run_path", "load_", "exec", "entry_points",
    "select", "pickle", "Unpickler", "shelve", "joblib", "unsafe_load", "Loader",
    "dictConfig", "fileConfig", "discover", "loadTestsFrom", "sys.path", "addsitedir",
    "locate(", "resolve_name", "pytest.main", "sys.executable", "python", "version(",
    "distribution(", "metadata(", "requires(", "require(", "from_name(",
    "load_setuptools_entrypoints", "stevedore", "Manager(",
)  # fmt: skip
_HIT_BARE = ("eval(", "compile(")
_HIT_WORD_START = ("load(", "path.insert", "path.append", "path.extend")


def _occurrences(text: str, word: str, after_ok: str, whole: bool = False) -> Iterator[int]:
    """Positions of `word` in `text` not preceded by a character of `after_ok`'s kind
    (`"name"`: a name character, `"name."`: a name character or a dot, `""`: anything),
    and, when `whole`, not followed by a name character."""
    at = text.find(word)
    while at >= 0:
        before = text[at - 1] if at else " "
        end = at + len(word)
        ok = not (
            after_ok
            and (before.isalnum() or before == "_" or (before == "." and after_ok == "name."))
        )
        if ok and whole and end < len(text) and (text[end].isalnum() or text[end] == "_"):
            ok = False
        if ok:
            yield at
        at = text.find(word, at + 1)


def _hit_lines(text: str, bindings: Bindings) -> list[int]:
    """Lines that may hold a loading call: they mention a loader, or a local name bound to
    one (`load(` after `from importlib import import_module as load`)."""
    aliases = sorted(
        k for k, v in bindings.items() if not _DYNAMIC.search(k) and any(may_load(q) for q in v)
    )
    found: list[int] = []
    for w in _HIT_WORDS:
        found.extend(_occurrences(text, w, ""))
    for w in _HIT_BARE:
        found.extend(_occurrences(text, w, "name."))
    for w in _HIT_WORD_START:
        found.extend(_occurrences(text, w, "name"))
    for w in aliases:
        found.extend(_occurrences(text, w, "name", whole=True))
    if not found:
        return []
    starts = [m.end() for m in _NEWLINE.finditer(text)]
    return sorted({bisect_right(starts, pos) + 1 for pos in found})


def scan_source(data: bytes, path: str, module: str, is_package: bool = False) -> SourceImports:
    """The imports of one file's bytes; errors are returned in the result, never raised."""
    try:
        text, tree = _parse(data, path)
    except InputError as exc:
        return SourceImports(
            path, module, (), (), f"expected {exc.expected}, found {exc.found}", exc.line
        )
    bindings: Bindings = {}
    hits: list[int] = []
    if _DYNAMIC.search(text):
        bindings = file_bindings(_statements(tree))
        hits = _hit_lines(text, bindings)
    sc = _Scanner(module, is_package, hits, bindings)
    sc.tree = tree
    try:
        sc.scan(tree, False, False, False)
    except RecursionError:
        return SourceImports(
            path, module, (), (), "expected scannable code, found nesting too deep", 1
        )
    imports = tuple(sorted(set(sc.imports), key=lambda i: (i.line, i.module, i.names)))
    if is_package and not any(
        ld.kind == "computed" and f"{module}.".startswith(ld.prefix) for ld in sc.loaders
    ):
        sc.loaders.extend(lazy_package_loaders(tree, module))
    sc.loaders.extend(x for i in imports if (x := stdlib_loader(i.module, i.line)) is not None)
    defines, module_getattr = _top_level_names(tree, module) if is_package else (frozenset(), False)
    all_names, all_computed = _all_names(tree) if is_package else ((), False)
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
        all_names=all_names,
        all_computed=all_computed,
        named=_named_strings(text),
    )
