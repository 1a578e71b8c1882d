"""Golden-file check for timing readers: canonical JSON of a `TimingSet` vs
`<sample>.expected.json`; `pytest --update-goldens` or `SLIM_UPDATE_GOLDENS=1` rewrites."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from slim.model.timing import TimingSet
from tests.golden import update_goldens


def canonical(ts: TimingSet, data_dir: Path) -> dict[str, object]:
    d = asdict(ts)
    d["source"] = Path(ts.source).relative_to(data_dir).as_posix()
    repo = data_dir.resolve().parents[1]

    def portable(out: str) -> str:
        """Outputs derived from the sample's own path are compared relative to the repo."""
        p = Path(out)
        if p.is_absolute() and p.resolve().is_relative_to(repo):
            return p.resolve().relative_to(repo).as_posix()
        return out

    d["actions"] = [
        {
            **a._asdict(),
            "start": round(a.start, 6),
            "end": round(a.end, 6),
            "outputs": [portable(o) for o in a.outputs],
        }
        for a in ts.actions
    ]
    return dict(json.loads(json.dumps(d, sort_keys=True)))


def check_golden(
    ts: TimingSet, sample: Path, data_dir: Path, request: pytest.FixtureRequest, suffix: str = ""
) -> dict[str, object]:
    got = canonical(ts, data_dir)
    golden = sample.with_name(sample.name + suffix + ".expected.json")
    if update_goldens(request):
        golden.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert golden.exists(), f"{golden} missing: run pytest --update-goldens"
    assert json.loads(golden.read_text(encoding="utf-8")) == got
    return got
