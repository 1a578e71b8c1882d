"""The rule table is exactly the codes slim can emit: every place that builds a finding
(in slim's core and in every analyzer) names a rule of the table, every rule of the table
is emitted somewhere, and `slim explain` answers for each."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from click.testing import CliRunner

from slim.analysis.registry import discover
from slim.cli import cli
from slim.model.findings import Rule
from slim.model.rules import rule_table

REPO = Path(__file__).resolve().parents[2]
#: Builds findings for whatever rule its callers pass (checked at those callers).
HELPERS = REPO / "analyzers" / "_findings.py"
RULE_TAKING = ("on_root", "on_edge")


def _module(path: Path) -> str:
    if path.is_relative_to(REPO / "analyzers"):
        parts = ["slim_analyzers", *path.relative_to(REPO / "analyzers").parts]
    else:
        parts = list(path.relative_to(REPO).parts)
    parts[-1] = parts[-1].removesuffix(".py")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _code_expr(call: ast.Call) -> ast.expr | None:
    """The expression naming the code of a finding this call builds, if it builds one."""
    f = call.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    if name == "Finding":
        kw = next((k.value for k in call.keywords if k.arg == "code"), None)
        return kw if kw is not None else (call.args[0] if call.args else None)
    if name in RULE_TAKING:
        return call.args[0] if call.args else None
    return None


def _resolve(module: str, expr: ast.expr) -> str | None:
    """`"SLIM001"`, `RULE.code` or `RULE` (a module-level Rule) as its code."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Attribute) and expr.attr == "code":
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    rule = getattr(importlib.import_module(module), expr.id, None)
    return rule.code if isinstance(rule, Rule) else None


def _emitted() -> tuple[dict[str, list[str]], list[str]]:
    """Code -> the places that build a finding of it; places whose code is not a rule."""
    codes: dict[str, list[str]] = {}
    unresolved: list[str] = []
    files = sorted([*(REPO / "slim").rglob("*.py"), *(REPO / "analyzers").rglob("*.py")])
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            expr = _code_expr(node) if isinstance(node, ast.Call) else None
            if expr is None:
                continue
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            code = _resolve(_module(path), expr)
            if code is None:
                if path != HELPERS:
                    unresolved.append(where)
            else:
                codes.setdefault(code, []).append(where)
    return codes, unresolved


def test_every_code_that_can_be_emitted_is_in_the_rule_table_and_explained() -> None:
    codes, unresolved = _emitted()
    assert not unresolved, f"findings whose code is not a rule: {unresolved}"
    table = rule_table(discover())
    assert sorted(codes) == sorted(table), {
        "emitted, not in the table": sorted(set(codes) - set(table)),
        "in the table, never emitted": sorted(set(table) - set(codes)),
    }
    runner = CliRunner()
    for code, (rule, _) in table.items():
        res = runner.invoke(cli, ["explain", code])
        assert res.exit_code == 0, (code, res.output)
        assert rule.name in res.output, code


def test_the_scan_sees_every_analyzer_and_the_core() -> None:
    """The places found include slim's own rules and each family's (the scan is not blind)."""
    codes, _ = _emitted()
    files = {code: {p.split(":")[0] for p in places} for code, places in codes.items()}
    assert "slim/analysis/engine.py" in files["SLIM900"]
    assert "slim/analysis/suppress.py" in files["SLIM990"]
    assert "analyzers/python/slim001_unused.py" in files["SLIM001"]
    assert "analyzers/native/slim004_unused_shared.py" in files["SLIM004"]
    assert "analyzers/gpu/slim003_kernels_in_cpu.py" in files["SLIM003"]
