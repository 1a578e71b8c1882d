"""docs/architecture.md shows the tree as it is: every package of slim/ and analyzers/,
every module of the core packages in its package's row, every analyzer module."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
#: Packages whose row names each public module (ingest is described by its sub-packages).
MODULE_ROWS = ("model", "analysis", "plan", "render", "app", "infra", "cli")


def _row(path: str) -> str:
    rows = [line for line in DOC.splitlines() if line.startswith(f"| `{path}")]
    assert len(rows) == 1, f"one row for {path} in docs/architecture.md"
    return rows[0]


def test_every_core_module_is_in_its_package_row() -> None:
    missing = []
    for pkg in MODULE_ROWS:
        row = _row(f"slim/{pkg}/")
        for mod in sorted((REPO / "slim" / pkg).glob("*.py")):
            if not mod.name.startswith("_") and f"`{mod.stem}`" not in row:
                missing.append(f"slim/{pkg}/{mod.name}")
        for sub in sorted(p.parent for p in (REPO / "slim" / pkg).glob("*/__init__.py")):
            if f"`{sub.name}/`" not in row:
                missing.append(f"slim/{pkg}/{sub.name}/")
    assert not missing, f"not in docs/architecture.md: {missing}"


def test_every_ingest_group_and_analyzer_module_is_named() -> None:
    ingest = _row("slim/ingest/")
    missing = [
        f"slim/ingest/{p.parent.name}/"
        for p in sorted((REPO / "slim" / "ingest").glob("*/__init__.py"))
        if f"`{p.parent.name}/`" not in ingest
    ]
    for mod in sorted((REPO / "analyzers").rglob("*.py")):
        rel = mod.relative_to(REPO / "analyzers")
        if mod.name == "__init__.py":
            if rel.parent.parts and f"`{rel.parent.as_posix()}/" not in DOC:
                missing.append(f"analyzers/{rel.parent.as_posix()}/")
        elif f"{mod.name}`" not in DOC:
            missing.append(f"analyzers/{rel.as_posix()}")
    assert not missing, f"not in docs/architecture.md: {missing}"
