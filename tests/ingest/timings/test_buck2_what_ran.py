"""buck2 log what-ran (json, tabulated, csv) from buck2's own golden records (see README)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.timings.buck2_what_ran import parse_duration, read_what_ran, split_identity
from tests.ingest._timing_golden import check_golden

DATA = Path(__file__).parents[2] / "data"
FIX = DATA / "buck2" / "timing"


@pytest.mark.parametrize("name", ["what-ran.jsonl", "what-ran.tsv", "what-ran.csv"])
def test_golden(name: str, request: pytest.FixtureRequest) -> None:
    check_golden(read_what_ran(FIX / name), FIX / name, DATA, request)


@pytest.mark.parametrize(
    ("text", "seconds"),
    # buck2's fmt_duration test table (app/buck2_event_observer/src/fmt_duration.rs)
    [
        ("0.0s", 0.0),
        ("0.1s", 0.1),
        ("59.9s", 59.9),
        ("1:00.0s", 60.0),
        ("59:59.9s", 3599.9),
        ("1:00:00.0s", 3600.0),
        ("9876:54:32.1s", 9876 * 3600 + 54 * 60 + 32.1),
        ("1", 1.0),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


def test_identity_split() -> None:
    assert split_identity("root//a:b (cfg:x#1) (cxx_compile a.cc)") == ("root//a:b", "cxx_compile")
    assert split_identity("fbsource//your:target") == ("fbsource//your:target", "")
    assert split_identity("some/target") == ("", "")


def test_json_records_give_labels_categories_and_durations() -> None:
    ts = read_what_ran(FIX / "what-ran.jsonl")
    rows = [(a.label, a.mnemonic, round(a.duration, 3), a.action_class) for a in ts.actions]
    assert rows[2:] == [
        ("root//native/base:base", "cxx_compile", 2.5, "compile"),
        ("root//native/base:base", "cxx_archive", 0.1, "archive"),
        ("root//kernels:cuda_kernels", "cuda_compile", 62.5, "cuda"),
        ("root//serving:cpu_server", "cxx_link", 3600.0, "link"),
    ]
    assert rows[0][0] == ""  # "some/target" names no label: counted, unattributable


def test_tabulated_has_no_durations_and_says_so() -> None:
    ts = read_what_ran(FIX / "what-ran.tsv")
    assert [a.label for a in ts.actions] == ["fbsource//your:target", "root//native/base:base"]
    assert any("without a duration" in n for n in ts.notes)


def test_detect() -> None:
    for name in ("what-ran.jsonl", "what-ran.tsv", "what-ran.csv"):
        assert detect(FIX / name, "timings").name == "buck2-what-ran"


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", r":1: expected buck2 log what-ran records, found none"),
        (b'{"reason":"build"}\n', r":1: expected a what-ran JSON record"),
        (b'{"reason":"b","identity":"x//a:b","duration":"soon"}\n', ":1: expected a duration"),
        (b"build\tx//a:b\n", r":1: expected reason, identity, executor, reproducer columns"),
        (b"\xff\xfe\x00garbage\n", ":1: expected UTF-8 text"),
    ],
)
def test_bad_input(tmp_path: Path, data: bytes, match: str) -> None:
    p = tmp_path / "wr"
    p.write_bytes(data)
    with pytest.raises(InputError, match=match):
        read_what_ran(p)


@settings(deadline=None, max_examples=150)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "wr"
        p.write_bytes(data)
        with contextlib.suppress(InputError):
            read_what_ran(p)
