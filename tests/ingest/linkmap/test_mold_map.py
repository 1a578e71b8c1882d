"""mold `-Map` reader: decimal sizes, `0x` VMAs, pseudo-chunks, hostile input."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.linkmap import mold_map
from slim.model.native import LinkMap
from tests.ingest._native_golden import check_golden

SAMPLE = Path(__file__).parents[2] / "data" / "linkmap" / "mold.map"
HEADER = "               VMA       Size Align Out     In      Symbol\n"


def load(path: Path) -> LinkMap:
    (m,) = mold_map.load(path)
    assert isinstance(m, LinkMap)
    return m


def test_golden(request: pytest.FixtureRequest) -> None:
    check_golden(mold_map.load(SAMPLE), SAMPLE, request)


def test_sample_sizes_are_decimal() -> None:
    m = load(SAMPLE)
    by = {i.file: i for i in m.inputs}
    a1 = by["build/link/liba.a(a1.o)"]
    assert [(s.name, s.address, s.size) for s in a1.sections] == [(".text.a_used", 0x1617, 17)]
    crt = by["/usr/lib/gcc/x86_64-linux-gnu/12/crtbeginS.o"]
    assert crt.sections[0].size == 185  # "185" decimal, not 0x185
    assert not any(f in ("EHDR", "PHDR", "SHDR") for f in by)


def test_detected_as_mold_not_lld() -> None:
    assert detect(SAMPLE, "linkmap").name == "mold-map"


@pytest.mark.parametrize(
    "content",
    [b"", (HEADER + f"{'0x30c':>18} {'3x2':>10} {'4':>5} " + " " * 8 + "a.o:(.text)\n").encode()],
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
