"""Golden-file check for graph readers: canonical JSON (`slim.model.canonical`) vs
`<sample>.expected.json`; `pytest --update-goldens` or `SLIM_UPDATE_GOLDENS=1` rewrites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slim.model.canonical import graph_to_canonical
from slim.model.graph import BuildGraph
from tests.golden import update_goldens


def golden_path(sample: Path) -> Path:
    return sample.with_name(sample.name + ".expected.json")


def check_golden(
    graph: BuildGraph, sample: Path, request: pytest.FixtureRequest
) -> dict[str, object]:
    """Compare the graph's canonical dump with the sample's golden (or rewrite it)."""
    got = graph_to_canonical(graph)
    golden = golden_path(sample)
    if update_goldens(request):
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert golden.exists(), f"{golden} missing: run pytest --update-goldens"
    assert json.loads(golden.read_text(encoding="utf-8")) == got
    return got
