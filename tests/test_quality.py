"""Repository-wide checks: layering, lint, format and types, as CI runs them."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _violations(folder: str, allowed: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for py in sorted((REPO / folder).rglob("*.py")):
        for mod in _imports(py):
            top = mod.split(".")[0]
            if mod == "slim":  # the package root holds only __version__
                continue
            if mod.startswith(forbidden) or (
                top in ("slim", "analyzers") and not mod.startswith(allowed)
            ):
                bad.append(f"{py.relative_to(REPO)} imports {mod}")
    return bad


def test_model_is_pure() -> None:
    """slim.model knows nothing of ingest, render, plan, cli, or click."""
    assert _violations("slim/model", ("slim.model", "slim.errors"), ("click",)) == []


def test_analyzers_import_only_model_and_registry() -> None:
    allowed = ("slim.model", "slim.registry", "slim.errors", "analyzers")
    assert _violations("analyzers", allowed, ("click", "slim.cli", "slim.render")) == []


def test_renderers_know_only_the_report() -> None:
    allowed = ("slim.model", "slim.render", "slim.errors")
    assert _violations("slim/render", allowed, ("click",)) == []


def test_only_cli_imports_click() -> None:
    users = [
        str(p.relative_to(REPO))
        for p in sorted((REPO / "slim").rglob("*.py"))
        if "click" in {m.split(".")[0] for m in _imports(p)}
    ]
    assert users == ["slim/cli.py"]


def _tool(name: str) -> list[str]:
    if shutil.which(name) is None:
        pytest.skip(f"{name} not installed (pip install -e '.[test]')")
    return [sys.executable, "-m", name]


def test_ruff_lint() -> None:
    proc = subprocess.run(
        [*_tool("ruff"), "check", "--output-format", "concise", "."],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format() -> None:
    proc = subprocess.run(
        [*_tool("ruff"), "format", "--check", "."],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict() -> None:
    proc = subprocess.run(_tool("mypy"), cwd=REPO, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
