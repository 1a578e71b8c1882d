"""`.ninja_log` v5/v6/v7: goldens of the real ninja 1.11.1 and 1.13.2 logs, runs, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.timings.ninja_log import LAST_RUN, read_ninja_log, sniff
from tests.ingest._timing_golden import check_golden

DATA = Path(__file__).parents[2] / "data"
SAMPLES = sorted(DATA.glob("ninja/*/ninja_log.txt"))


def _write(tmp_path: Path, text: str | bytes, name: str = "ninja_log") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def test_samples_exist() -> None:
    assert {p.parent.name for p in SAMPLES} == {"ninja-1.11.1", "ninja-1.13.2"}


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_golden_last_build(sample: Path, request: pytest.FixtureRequest) -> None:
    check_golden(read_ninja_log(sample), sample, DATA, request)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_golden_first_run(sample: Path, request: pytest.FixtureRequest) -> None:
    check_golden(read_ninja_log(sample, 0), sample, DATA, request, ".run0")


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_two_runs_and_the_last_build_of_each_output(sample: Path) -> None:
    ts = read_ninja_log(sample)
    assert ts.runs == 2
    by_out = {a.output: a for a in ts.actions}
    # gen/version.h was rebuilt in the second run: its last build is the one kept.
    assert by_out["gen/version.h"].run == 1
    assert by_out["CMakeFiles/core.dir/core/core.c.o"].run == 0
    assert len(by_out) == len(ts.actions)
    second = read_ninja_log(sample, 1)
    assert sorted(a.output for a in second.actions) == ["gen/version.h", "libutil.so"]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_cmake_absolute_duplicate_is_one_action(sample: Path) -> None:
    ts = read_ninja_log(sample, 0)
    outs = [o for a in ts.actions for o in a.outputs]
    assert "gen/version.h" in outs
    assert not any(o.startswith("<BUILD_DIR>") for o in outs)
    ends = [int(ln.split("\t")[1]) for ln in sample.read_text().splitlines()[1:]]
    run0 = next(i for i in range(1, len(ends)) if ends[i] < ends[i - 1])
    assert len(ts.actions) == run0 - 1


def test_multi_output_edge_counts_time_once(tmp_path: Path) -> None:
    log = _write(
        tmp_path,
        "# ninja log v6\n"
        "0\t100\t1\tgen/a.h\tabc\n"
        "0\t100\t1\tgen/a.cc\tabc\n"
        "5\t40\t1\tobj/x y.o\tdef\n",
    )
    ts = read_ninja_log(log)
    assert [a.outputs for a in ts.actions] == [("gen/a.cc", "gen/a.h"), ("obj/x y.o",)]
    assert ts.total_seconds == pytest.approx(0.1 + 0.035)


def test_output_with_spaces_and_tabs_split_at_most_four_times(tmp_path: Path) -> None:
    log = _write(tmp_path, "# ninja log v7\n1\t9\t0\tdir with space/file name.o\t0123abcd\n")
    (a,) = read_ninja_log(log).actions
    assert a.output == "dir with space/file name.o"
    assert a.duration == pytest.approx(0.008)


def test_run_boundary_when_times_restart(tmp_path: Path) -> None:
    log = _write(
        tmp_path,
        "# ninja log v5\n0\t50\t1\ta.o\ta1\n10\t90\t1\tb.o\ta2\n"
        "2\t20\t1\tc.o\ta4\n0\t30\t1\ta.o\ta3\n",
    )
    assert read_ninja_log(log).runs == 2
    assert [a.output for a in read_ninja_log(log, 1).actions] == ["a.o", "c.o"]
    last = {a.output: a.duration for a in read_ninja_log(log, LAST_RUN).actions}
    assert last == pytest.approx({"a.o": 0.03, "b.o": 0.08, "c.o": 0.018})


def test_detect_and_sniff() -> None:
    for s in SAMPLES:
        assert detect(s, "timings").name == "ninja-log"
    assert sniff(b"# ninja log v6\n1\t2\t3\tx\ty\n", Path("x"))
    assert not sniff(b"ninja log v5\n", Path("x"))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", r":1: expected a '# ninja log vN' header, found an empty file"),
        ("hello\n", r":1: expected a '# ninja log vN' header"),
        ("# ninja log v4\n1\t2\t3\tcmd\n", r":1: expected ninja log v5, v6 or v7, found v4"),
        ("# ninja log v5\n1\t2\t3\tx.o\n", r":2: expected 5 tab-separated fields"),
        ("# ninja log v5\n1\ttwo\t3\tx.o\th\n", r":2: expected integer start, end and mtime"),
        ("# ninja log v5\n1\t2\t3\tx.o\tab\n9\t2\t3\ty.o\tab\n", r":3: expected 0 <= start <= end"),
        ("# ninja log v5\n1\t2\t3\t\tab\n", r":2: expected an output path"),
        ("# ninja log v5\n1\t2\t3\tx.o\tnot-hex\n", r":2: expected a hex command hash"),
    ],
)
def test_bad_input(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(InputError, match=match):
        read_ninja_log(_write(tmp_path, text))


def test_binary_garbage_and_truncated(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=":1: expected text, found a NUL byte at column 5"):
        read_ninja_log(_write(tmp_path, b"\x7fELF\x00\x01\x02\xff" * 10))
    with pytest.raises(InputError, match=":1: expected a '# ninja log vN' header"):
        read_ninja_log(_write(tmp_path, b"\x7fELF\x01\x02\xff" * 10 + b"\n"))
    good = SAMPLES[0].read_bytes()
    cut = good[: good.rindex(b"\t") - 3]
    with pytest.raises(InputError, match=r":\d+: expected a newline at the end of the last line"):
        read_ninja_log(_write(tmp_path, cut, "cut"))
    lines = good.split(b"\n")
    lines[2] = lines[2][: lines[2].rindex(b"\t")]  # a line that lost its hash field
    with pytest.raises(InputError, match=r":3: expected 5 tab-separated fields"):
        read_ninja_log(_write(tmp_path, b"\n".join(lines), "damaged"))


def test_bad_run_choice(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="a build run between 0 and 1, found run 5"):
        read_ninja_log(SAMPLES[0], 5)


@settings(deadline=None, max_examples=150)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_after_header_never_crash(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "log"
        p.write_bytes(b"# ninja log v5\n" + data)
        try:
            ts = read_ninja_log(p)
        except InputError:
            return
        assert all(a.end >= a.start for a in ts.actions)
