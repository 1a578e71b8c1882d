"""Golden check for Python trace readers: `ImportTrace.as_dict()` vs `<sample>.expected.json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slim.model.pytrace import ImportTrace
from tests.ingest._canonical import golden_path, update_goldens


def check_trace_golden(
    trace: ImportTrace, sample: Path, request: pytest.FixtureRequest
) -> dict[str, object]:
    got = trace.as_dict()
    got["path"] = sample.name
    got["notes"] = [str(n).replace(str(sample), sample.name) for n in trace.notes]
    golden = golden_path(sample)
    if update_goldens(request):
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert golden.exists(), f"{golden} missing: run SLIM_UPDATE_GOLDENS=1 pytest"
    assert json.loads(golden.read_text(encoding="utf-8")) == got
    return got
