"""clang -ftime-trace: golden of the real clang 14 trace, summary rows, bad input."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.timings.clang_time_trace import object_for, read_time_trace, sniff
from tests.ingest._timing_golden import check_golden

DATA = Path(__file__).parents[2] / "data"
SAMPLE = DATA / "timetrace" / "tt.time-trace.json"


def test_golden(request: pytest.FixtureRequest) -> None:
    check_golden(read_time_trace(SAMPLE), SAMPLE, DATA, request)


def test_total_rows_are_not_added_to_the_compile() -> None:
    events = json.loads(SAMPLE.read_text())["traceEvents"]
    execute = next(e["dur"] for e in events if e["name"] == "ExecuteCompiler")
    everything = sum(e.get("dur", 0) for e in events if e["name"].startswith("Total "))
    (a,) = read_time_trace(SAMPLE).actions
    assert a.duration == pytest.approx(execute / 1e6)
    assert a.duration < everything / 1e6
    assert a.output == str(SAMPLE.with_name("tt.o"))
    assert a.action_class == "compile"
    assert "frontend 122.2 ms" in a.description


def test_object_naming() -> None:
    assert object_for(Path("out/a.json")) == "out/a.o"
    assert object_for(Path("CMakeFiles/x.dir/a.cpp.json")) == "CMakeFiles/x.dir/a.cpp.o"


def test_heaviest_headers_noted() -> None:
    notes = read_time_trace(SAMPLE).notes
    assert len(notes) == 5
    assert all(n.startswith("header ") for n in notes)


def test_detect_and_sniff() -> None:
    assert detect(SAMPLE, "timings").name == "clang-time-trace"
    assert sniff(SAMPLE.read_bytes()[:8192], SAMPLE)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "an empty file"),
        (b'{"traceEvents":[{"name":"Frontend","ph":"X","ts":0,"dur":5}]}', "ExecuteCompiler"),
        (b"[1, 2]", "clang -ftime-trace JSON object"),
        (b"\x00\xff\x10binary", "clang -ftime-trace JSON object"),
        (b'{"traceEvents":[{"name":"ExecuteCompiler","ph":"X","ts":0,"dur":"x"}]}', r"\$\.trace"),
    ],
)
def test_bad_input(tmp_path: Path, data: bytes, match: str) -> None:
    p = tmp_path / "a.json"
    p.write_bytes(data)
    with pytest.raises(InputError, match=match):
        read_time_trace(p)


def test_truncated_sample(tmp_path: Path) -> None:
    p = tmp_path / "t.json"
    p.write_bytes(SAMPLE.read_bytes()[:5000])
    with pytest.raises(InputError, match=r"t.json:1: expected a clang -ftime-trace JSON object"):
        read_time_trace(p)


@settings(deadline=None, max_examples=150)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "a.json"
        p.write_bytes(b'{"traceEvents":[' + data)
        with contextlib.suppress(InputError):
            read_time_trace(p)
