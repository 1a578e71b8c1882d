"""Static imports of Python source bytes (with `ast`: the code is never imported or run).

Each import gets its line and its context: top level, inside a function (lazy), under
`try/except ImportError` (optional), under `if TYPE_CHECKING` (typing only), or an
`importlib.import_module("literal")` / `__import__("literal")` call. Bytes that cannot
be decoded or parsed give a `SourceImports` with `error` set, never an exception, so one
bad file makes its target's evidence incomplete instead of failing the run. Pure: the
file reading (and the process pool) is in `analyzers/_python_workspace.py`.
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
from slim.model.pytrace import SourceImports, StaticImport

_STMT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)
# ast.TryStar (3.11+) has the fields of ast.Try
_TRY = cast("tuple[type[ast.Try], ...]", (ast.Try, getattr(ast, "TryStar", ast.Try)))
_DYNAMIC = re.compile(r"import_module|__import__")
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


class _Scanner:
    """Walks one module's AST keeping the (lazy, optional, typing) context of each node."""

    def __init__(self, module: str, is_package: bool, hits: list[int]) -> None:
        self.hits = hits
        self.package = module if is_package else module.rpartition(".")[0]
        self.imports: list[StaticImport] = []
        self.unresolved: list[int] = []

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
        stack: list[tuple[ast.AST, bool, bool, bool]] = [(node, lazy, optional, typing)]
        add = self.imports.append
        hits = self.hits
        while stack:
            n, lz, op, ty = stack.pop()
            if isinstance(n, ast.Import):
                for a in n.names:
                    add(StaticImport(a.name, n.lineno, (), lz, op, ty))
                continue
            if isinstance(n, ast.ImportFrom):
                mod = self.resolve(n.module, n.level)
                if mod is None:
                    self.unresolved.append(n.lineno)
                    continue
                names = tuple(sorted({a.name for a in n.names if a.name != "*"}))
                add(StaticImport(mod, n.lineno, names, lz, op, ty))
                continue
            if hits:
                lo = getattr(n, "lineno", None)
                if lo is not None:
                    hi = getattr(n, "end_lineno", None) or lo
                    at = bisect_left(hits, lo)
                    if at < len(hits) and hits[at] <= hi:
                        for c in ast.iter_child_nodes(n):
                            if not isinstance(c, _BLOCKS):
                                self._expressions(c, lz, op, ty)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
                for c in n.body:
                    stack.append((c, True, op, ty))
                continue
            if isinstance(n, _TRY):
                guarded = op or _catches_import_error(n.handlers)
                for c in n.body:
                    stack.append((c, lz, guarded, ty))
                for h in n.handlers:
                    stack.append((h, lz, guarded, ty))
                for c in [*n.orelse, *n.finalbody]:
                    stack.append((c, lz, op, ty))
                continue
            if isinstance(n, ast.If):
                neg = isinstance(n.test, ast.UnaryOp) and isinstance(n.test.op, ast.Not)
                target = n.test.operand if isinstance(n.test, ast.UnaryOp) else n.test
                tc = _is_type_checking(target)
                for c in n.body:
                    stack.append((c, lz, op, ty or (tc and not neg)))
                for c in n.orelse:
                    stack.append((c, lz, op, ty or (tc and neg)))
                continue
            for name in _STMT_FIELDS:
                for c in getattr(n, name, ()):
                    stack.append((c, lz, op, ty))

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
        f = n.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name not in ("import_module", "__import__"):
            return
        if name == "import_module" and isinstance(f, ast.Attribute):
            owner = f.value
            if not (isinstance(owner, ast.Name) and owner.id == "importlib"):
                return
        lit = _literal(n.args[0]) if n.args else None
        if lit is None:
            kw = next((k for k in n.keywords if k.arg == "name"), None)
            lit = _literal(kw.value) if kw else None
        if lit is None:
            self.unresolved.append(n.lineno)
            return
        if lit.startswith("."):
            level = len(lit) - len(lit.lstrip("."))
            pkg_node = n.args[1] if name == "import_module" and len(n.args) > 1 else None
            pkg_kw = next((k for k in n.keywords if k.arg == "package"), None)
            pkg = _literal(pkg_node) or (_literal(pkg_kw.value) if pkg_kw else None)
            rest = lit[level:] or None
            if pkg:
                base = pkg.split(".")
                mod = ".".join([*base[: len(base) - (level - 1)], *([rest] if rest else [])])
            else:
                mod = self.resolve(rest, level) or ""
            if not mod:
                self.unresolved.append(n.lineno)
                return
            lit = mod
        if all(p.isidentifier() for p in lit.split(".")):
            self.imports.append(StaticImport(lit, n.lineno, (), lz, op, ty, dynamic=True))
        else:
            self.unresolved.append(n.lineno)


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
    if "import_module" in text or "__import__" in text:
        lines = _NEWLINE.split(text)
        hits = [n for n, ln in enumerate(lines, 1) if _DYNAMIC.search(ln)]
    sc = _Scanner(module, is_package, hits)
    try:
        sc.scan(tree, False, False, False)
    except RecursionError:
        return SourceImports(
            path, module, (), (), "expected scannable code, found nesting too deep", 1
        )
    imports = tuple(sorted(set(sc.imports), key=lambda i: (i.line, i.module, i.names)))
    return SourceImports(path, module, imports, tuple(sorted(set(sc.unresolved))))
