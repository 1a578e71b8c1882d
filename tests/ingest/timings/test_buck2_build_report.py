"""Buck2 --build-report: outputs per target and build_metrics (buck2 golden, see README)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect, load_evidence
from slim.ingest.timings.buck2_build_report import read_build_report
from slim.model.timing import ArtifactOwners, TimingSet
from tests.ingest._timing_golden import check_golden

DATA = Path(__file__).parents[2] / "data"
SAMPLE = DATA / "buck2" / "timing" / "build_report.json"


def test_golden(request: pytest.FixtureRequest) -> None:
    _, ts = read_build_report(SAMPLE)
    check_golden(ts, SAMPLE, DATA, request)


def test_outputs_map_to_their_target() -> None:
    owners, ts = read_build_report(SAMPLE)
    assert owners.owners == (("buck-out/v2/art/root/<HASH>/__rule2__/out1.txt", "root//:rule2"),)
    assert "full_graph_execution_time_ms = 1234" in ts.notes
    assert ts.actions == ()


def test_loaded_through_the_format_table() -> None:
    fmt, facts = load_evidence(SAMPLE, "timings")
    assert fmt.name == "buck2-build-report" == detect(SAMPLE, "timings").name
    assert {type(f) for f in facts} == {ArtifactOwners, TimingSet}


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "an empty file"),
        (b'{"success": true}', r"expected a Buck2 build report \(Object missing required field"),
        (b'{"results": {"//a:b": {"outputs": {"DEFAULT": "x"}}}}', "Expected `array`"),
        (b"\x00\x01binary", "expected a Buck2 build report"),
    ],
)
def test_bad_input(tmp_path: Path, data: bytes, match: str) -> None:
    p = tmp_path / "r.json"
    p.write_bytes(data)
    with pytest.raises(InputError, match=match):
        read_build_report(p)


@settings(deadline=None, max_examples=100)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "r.json"
        p.write_bytes(b'{"results":' + data)
        with contextlib.suppress(InputError):
            read_build_report(p)
