"""Repository-wide checks: layering (import-linter), lint, format and types, as CI runs them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _tool(name: str) -> list[str]:
    """`python -m NAME`: the test extra installs every checker, so a missing one fails."""
    assert shutil.which(name, path=str(Path(sys.executable).parent)), f"{name} missing"
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


def test_layering_contracts() -> None:
    """The import-linter contracts in pyproject.toml (layers, click only in the CLI)."""
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe is not None, "lint-imports missing: pip install -e '.[test]'"
    proc = subprocess.run([exe], cwd=REPO, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_every_package_is_in_the_wheel() -> None:
    """The explicit package list in pyproject.toml names every package directory, so a
    wheel (not only the editable install CI uses) holds all of slim."""
    import tomllib  # the tests run on 3.11+

    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    on_disk = {
        ".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "slim").rglob("__init__.py")
    } | {"slim_analyzers"}
    on_disk |= {
        "slim_analyzers." + ".".join(p.parent.relative_to(REPO / "analyzers").parts)
        for p in (REPO / "analyzers").rglob("__init__.py")
        if p.parent != REPO / "analyzers"
    }
    assert on_disk == listed


def test_no_function_is_too_complex_to_review() -> None:
    """Cyclomatic complexity (radon) of every function in the core and the analyzers at
    most 30: past that a reader cannot hold the branches (split it, as the rest is)."""
    from radon.complexity import cc_visit

    worst = []
    for pkg in ("slim", "analyzers"):
        for path in sorted((REPO / pkg).rglob("*.py")):
            for block in cc_visit(path.read_text()):
                if not hasattr(block, "methods") and block.complexity > 30:
                    worst.append(f"{path.relative_to(REPO)}:{block.lineno} {block.name}")
    assert not worst, worst
