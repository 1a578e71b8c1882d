"""`python -X importtime` traces of CPython 3.7 to 3.13 (real), 3.14 `cached` rows, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect, load_evidence
from slim.ingest.python.importtime import load
from slim.model.pytrace import merge_traces
from tests.ingest._pytrace_golden import check_trace_golden

SAMPLES = Path(__file__).parents[2] / "data" / "python" / "importtime"
ALL = sorted(SAMPLES.glob("*.txt"))


def test_every_version_is_here() -> None:
    versions = {
        p.name.split(".txt")[0].replace(".warm", "").replace(".importtime2", "") for p in ALL
    }
    assert versions == {f"py3.{v}" for v in range(7, 14)}


@pytest.mark.parametrize("sample", ALL, ids=lambda p: p.name)
def test_golden(sample: Path, request: pytest.FixtureRequest) -> None:
    assert detect(sample, "trace").name == "python-importtime"
    check_trace_golden(load(sample), sample, request)


@pytest.mark.parametrize("sample", ALL, ids=lambda p: p.name)
def test_nesting_gives_importers(sample: Path) -> None:
    t = load(sample)
    by = t.by_name()
    assert by["slimpkg"].importers == ("",)
    assert by["slimpkg.a"].importers == ("slimpkg",)
    assert by["slimpkg.b"].importers == ("slimpkg",)
    assert by["slimpkg.c"].importers == ("slimpkg.b",)
    assert by["json"].importers == ("slimpkg.a",)
    # importtime cannot tell a failed import: the row looks like any other
    assert by["slimpkg_missing_module"].importers == ("slimpkg.c",)
    assert t.runs == 1
    assert all(m.runs == 1 for m in t.modules)


def _cached_314(tmp_path: Path) -> Path:
    """3.14 `-X importtime=2` layout: a `cached` row for a module imported again."""
    lines = (SAMPLES / "py3.13.txt").read_text().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if ln.endswith("|     slimpkg.c\n"))
    lines.insert(at, "import time:    cached |     cached |       slimpkg.a\n")
    text = "".join(lines)
    p = tmp_path / "py3.14.importtime2.txt"
    p.write_text(text)
    return p


def test_cached_rows_add_importers_not_loads(tmp_path: Path) -> None:
    t = load(_cached_314(tmp_path))
    a = t.by_name()["slimpkg.a"]
    assert a.importers == ("slimpkg", "slimpkg.c")
    assert not a.cached_only
    assert t.by_name()["slimpkg.c"].importers == ("slimpkg.b",)


def test_only_cached_row_is_marked(tmp_path: Path) -> None:
    p = tmp_path / "t.txt"
    p.write_text(
        "import time: self [us] | cumulative | imported package\n"
        "import time:    cached |     cached |   builtins\n"
        "import time:        10 |         10 | app\n"
    )
    b = load(p).by_name()["builtins"]
    assert b.cached_only
    assert b.importers == ("app",)


def test_mixed_stderr_lines_are_skipped(tmp_path: Path) -> None:
    lines = (SAMPLES / "py3.12.txt").read_text().splitlines()
    mixed = []
    for i, ln in enumerate(lines):
        mixed.append(ln)
        if i % 5 == 0:
            mixed.append(f"WARNING: program output {i} | with | pipes")
    p = tmp_path / "mixed.txt"
    p.write_text("Traceback-free log line\n" + "\n".join(mixed) + "\n")
    t = load(p)
    assert t.names() == load(SAMPLES / "py3.12.txt").names()
    assert t.by_name()["slimpkg.c"].importers == ("slimpkg.b",)
    assert any("not importtime rows" in n for n in t.notes)


def test_runs_appended_in_one_file_and_merged_across_files(tmp_path: Path) -> None:
    one = (SAMPLES / "py3.11.txt").read_text()
    p = tmp_path / "two-runs.txt"
    p.write_text(one + one)
    t = load(p)
    assert t.runs == 2
    assert t.by_name()["slimpkg"].runs == 2
    merged = merge_traces([t, load(SAMPLES / "py3.7.txt")])
    assert merged.runs == 3
    assert merged.by_name()["slimpkg.c"].runs == 3
    assert merged.by_name()["_bootlocale"].runs == 1  # only 3.7 imports it


def test_load_evidence_returns_one_trace() -> None:
    fmt, facts = load_evidence(SAMPLES / "py3.9.txt", "trace")
    assert fmt.name == "python-importtime"
    assert len(facts) == 1


@pytest.mark.parametrize(
    ("content", "line", "expected"),
    [
        (b"", 1, "expected `-X importtime` output"),
        (b"hello\nworld\n", 1, "no such row in 2 lines"),
        (
            b"import time: self [us] | cumulative | imported package\n"
            b"import time:        10 |         1",
            2,
            "expected a newline at the end of the last line",
        ),
        (
            b"import time: self [us] | cumulative | imported package\n"
            b"import time:        10 |         10 |   child\n",
            2,
            "truncated",
        ),
        (b"import time:        10 |         10 | bad name\n", 1, "a module name"),
        (b"import time:        10 |         10 | bad\x01ctl\n", 1, "a module name"),
        (b"import time:        10 |         10 | \xff\xfe\n", 1, "a module name"),
        (b"import time:        10 |         10 |    \n", 1, "a module name"),
        (b"import time:        ab |         10 | x\n", 1, "expected a row"),
    ],
)
def test_bad_input_one_line(tmp_path: Path, content: bytes, line: int, expected: str) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        load(p)
    msg = str(exc.value)
    assert msg.startswith(f"{p}:{line}: expected")
    assert expected in msg
    assert "\n" not in msg


def test_binary_garbage_is_not_sniffed(tmp_path: Path) -> None:
    p = tmp_path / "garbage.bin"
    p.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(InputError):
        detect(p, "trace")
    with pytest.raises(InputError):
        load(p)


@settings(deadline=None, max_examples=150)
@given(st.binary(max_size=400))
def test_arbitrary_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    p = tmp_path_factory.mktemp("h") / "t.txt"
    p.write_bytes(b"import time: self [us] | cumulative | imported package\n" + data)
    try:
        t = load(p)
    except InputError:
        return
    assert t.runs >= 1


@settings(deadline=None, max_examples=150)
@given(
    st.lists(
        st.tuples(st.integers(0, 6), st.sampled_from(["a", "b.c", "_x", "d.e.f"])), max_size=40
    )
)
def test_arbitrary_nesting(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[int, str]]
) -> None:
    p = tmp_path_factory.mktemp("h") / "t.txt"
    body = "".join(f"import time:        1 |          1 | {'  ' * d}{n}\n" for d, n in rows)
    p.write_text(body + "import time:        1 |          1 | top\n")
    t = load(p)
    assert "top" in t.names()
    for m in t.modules:
        assert all(i == "" or i in t.names() for i in m.importers)
