"""Golden files: one way to compare with them and one way to regenerate them.

Regenerate after a deliberate change with `pytest --update-goldens` (or
`SLIM_UPDATE_GOLDENS=1`), then review the diff like code.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from slim.model.canonical import canonical_json

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from slim.model.graph import GraphBuilder


def update_goldens(request: pytest.FixtureRequest | None = None) -> bool:
    """Whether this run rewrites goldens instead of comparing with them."""
    flag = False
    if request is not None:
        try:
            flag = bool(request.config.getoption("--update-goldens"))
        except ValueError:
            flag = False
    return flag or os.environ.get("SLIM_UPDATE_GOLDENS") == "1"


def golden_mismatch(data: dict[str, Any], golden: Path, update: bool = False) -> str | None:
    """None when `data` equals the golden JSON file, else a short diff; `update` rewrites it.

    Tests pass `update=update_goldens()` to regenerate goldens after a deliberate change.
    """
    text = canonical_json(data)
    if update:
        golden.write_text(text, encoding="utf-8")
        return None
    if not golden.exists():
        return f"{golden} missing: rerun with SLIM_UPDATE_GOLDENS=1 and review it"
    want = golden.read_text(encoding="utf-8")
    if want == text:
        return None
    diff = difflib.unified_diff(
        want.splitlines(), text.splitlines(), str(golden), "loaded", lineterm="", n=2
    )
    return "\n".join(list(diff)[:80])


def loads_or_refuses(loader: Callable[[Path, GraphBuilder], None], path: Path) -> bool:
    """Run a graph reader on `path` into a fresh builder: True when it loads, or refuses
    with a one-line `InputError`; any other exception propagates (property tests use it)."""
    from slim.errors import InputError
    from slim.model.graph import GraphBuilder

    try:
        loader(path, GraphBuilder())
    except InputError as exc:
        return "\n" not in str(exc)
    return True
