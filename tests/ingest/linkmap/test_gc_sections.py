"""`--print-gc-sections` reader: bfd, gold, lld and mold captures of the same link."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.linkmap import gc_sections
from slim.model.native import GcReport
from tests.ingest._native_golden import check_golden

DATA = Path(__file__).parents[2] / "data" / "linkmap"
LINKERS = ["bfd", "gold", "lld", "mold"]


def load(path: Path) -> GcReport:
    (r,) = gc_sections.load(path)
    assert isinstance(r, GcReport)
    return r


@pytest.mark.parametrize("linker", LINKERS)
def test_golden(linker: str, request: pytest.FixtureRequest) -> None:
    p = DATA / f"{linker}.print-gc-sections.txt"
    check_golden(gc_sections.load(p), p, request)
    assert detect(p, "linkmap").name == "print-gc-sections"


@pytest.mark.parametrize(
    ("linker", "count", "flavour"),
    [("bfd", 8, "bfd"), ("gold", 31, "gold"), ("lld", 31, "lld/mold"), ("mold", 30, "lld/mold")],
)
def test_counts_and_the_gcd_members(linker: str, count: int, flavour: str) -> None:
    r = load(DATA / f"{linker}.print-gc-sections.txt")
    assert (len(r.entries), r.linker) == (count, flavour)
    got = {(e.file, e.section) for e in r.entries}
    assert ("build/link/liba.a(a1.o)", ".text.a_unused") in got
    assert ("build/link/libb.a(b2.o)", ".text._ZN4slim6detail10unused_cxxEi") in got


def test_mold_order_is_normalized(tmp_path: Path) -> None:
    lines = (DATA / "mold.print-gc-sections.txt").read_text().splitlines()
    shuffled = tmp_path / "m.txt"
    shuffled.write_text("\n".join(reversed(lines)) + "\n")
    a = [(e.file, e.section) for e in load(DATA / "mold.print-gc-sections.txt").entries]
    b = [(e.file, e.section) for e in load(shuffled).entries]
    assert a == b


def test_linker_name_prefix_with_cross_tool(tmp_path: Path) -> None:
    p = tmp_path / "x.txt"
    p.write_text(
        "aarch64-linux-gnu-ld: removing unused section '.text.f' in file 'C:\\x y\\lib.a(m.o)'\n"
        "aarch64-linux-gnu-ld: warning: something else\n"
    )
    r = load(p)
    assert [(e.file, e.section) for e in r.entries] == [("C:\\x y\\lib.a(m.o)", ".text.f")]
    assert r.notes == ("2: aarch64-linux-gnu-ld: warning: something else",)


@pytest.mark.parametrize(
    "content", [b"", b"hello\n", b"removing unused section nocolonparen\n", b"\xff\xfe\x00"]
)
def test_bad_input(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        load(p)
    assert "\n" not in str(exc.value)


@settings(
    deadline=None, max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=400))
def test_arbitrary_bytes(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "fuzz.txt"
    p.write_bytes(b"removing unused section a.o:(.text)\n" + blob)
    with contextlib.suppress(InputError):
        load(p)
