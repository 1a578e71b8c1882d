"""lld `--Map` reader: real samples (with and without --cref), columns, hostile input."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.linkmap import lld_map
from slim.model.native import LinkMap
from tests.ingest._native_golden import check_golden

DATA = Path(__file__).parents[2] / "data" / "linkmap"
HEADER = "             VMA              LMA     Size Align Out     In      Symbol\n"


def load(path: Path) -> LinkMap:
    (m,) = lld_map.load(path)
    assert isinstance(m, LinkMap)
    return m


@pytest.mark.parametrize("name", ["lld.map", "lld.cref.map"])
def test_golden(name: str, request: pytest.FixtureRequest) -> None:
    check_golden(lld_map.load(DATA / name), DATA / name, request)


def test_sample() -> None:
    m = load(DATA / "lld.map")
    assert (m.linker, m.has_cref, m.has_gc_info) == ("lld", False, False)
    by = {i.file: i for i in m.inputs}
    assert set(by) >= {"build/link/liba.a(a1.o)", "build/link/libb.a(b2.o)", "build/link/main.o"}
    assert "<internal>" not in by
    b2 = by["build/link/libb.a(b2.o)"]
    assert [(s.name, s.address, s.size, s.line) for s in b2.sections] == [
        (".text.slim_cxx_entry", 0x16B5, 6, 41)
    ]
    assert b2.pulled_by is None  # lld maps do not say; --why-extract does


def test_cref_sample() -> None:
    m = load(DATA / "lld.cref.map")
    assert m.has_cref
    refs = {x.symbol: x for x in m.xref}
    assert refs["b_used"].defined_in == "build/link/libb.a(b1.o)"
    assert refs["b_used"].referenced_by == ("build/link/liba.a(a1.o)",)


def test_detected() -> None:
    assert detect(DATA / "lld.map", "linkmap").name == "lld-map"
    assert detect(DATA / "lld.cref.map", "linkmap").name == "lld-map"


def test_windows_path_and_member_split_at_last_colon_paren(tmp_path: Path) -> None:
    p = tmp_path / "w.map"
    p.write_text(
        HEADER
        + "            1000             1000       20    16 .text\n"
        + "            1000             1000       10     1         "
        + "C:\\b (x)\\lib.a(m:(1).o):(.text.f)\n"
        + "            1000             1000       10     1                 f\n"
        + "               0                0       2d     1 .shstrtab\n"
        + "               0                0       2d     1         <internal>:(.shstrtab)\n"
    )
    (inp,) = load(p).inputs
    assert inp.file == "C:\\b (x)\\lib.a(m:(1).o)"
    assert inp.sections[0].name == ".text.f"
    assert inp.kept_bytes == 0x10


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not an lld map\n",
        (
            HEADER + "            zzzz             1000       10     1         a.o:(.text)\n"
        ).encode(),
    ],
)
def test_bad_input(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "bad.map"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        load(p)
    assert "\n" not in str(exc.value)


@settings(
    deadline=None, max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=500))
def test_arbitrary_bytes(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "fuzz.map"
    p.write_bytes(HEADER.encode() + blob)
    with contextlib.suppress(InputError):
        load(p)


@pytest.mark.parametrize(
    ("name", "flavour", "base"),
    [("lld.map", "lld", 16), ("lld.cref.map", "lld", 16), ("mold.map", "mold", 10)],
)
def test_column_reader_matches_the_row_reader(name: str, flavour: str, base: int) -> None:
    """The numpy fast path gives exactly the rows the per-row reader gives."""
    import numpy as np

    from slim.ingest.linkmap._lld_rows import column_rows
    from slim.ingest.linkmap.lld_map import ColumnMap

    path = DATA / name
    data = b"\n" + path.read_bytes()
    cm = ColumnMap(path, flavour, base)
    cm.header(data[1 : data.index(b"\n", 1)])
    end = data.find(b"\nCross Reference Table")
    end = end + 1 if end >= 0 else len(data)
    nl = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    assert cm.columns is not None
    fast = column_rows(data, 0, end, nl, 0, cm.columns)
    slow = cm.slow_rows(data, 0, end, 0)
    assert fast is not None
    assert len(slow) > 10
    assert (fast.names, fast.files(), fast.run_files) == (slow.names, slow.files(), slow.run_files)
    for col in ("addrs", "sizes", "lines", "unallocated", "run_start"):
        assert getattr(fast, col).tolist() == getattr(slow, col).tolist(), col
