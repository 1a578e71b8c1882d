"""MSVC `/MAP` reader (sample from lld-link /map, which writes link.exe's layout)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.linkmap import msvc_map
from slim.model.native import LinkMap
from tests.ingest._native_golden import check_golden

SAMPLE = Path(__file__).parents[2] / "data" / "linkmap" / "lld-link.map"
HEAD = (
    b" prog\n\n Timestamp is 6b0bd6fc (x)\n\n"
    b"  Address         Publics by Value   Rva+Base   Lib:Object\n\n"
)


def test_golden(request: pytest.FixtureRequest) -> None:
    check_golden(msvc_map.load(SAMPLE), SAMPLE, request)
    assert detect(SAMPLE, "linkmap").name == "msvc-map"


def test_publics_per_object() -> None:
    (m,) = msvc_map.load(SAMPLE)
    assert isinstance(m, LinkMap)
    assert (m.linker, m.output, m.has_gc_info) == ("msvc", "prog", False)
    by = {i.file: i for i in m.inputs}
    assert [s.name for s in by["b.lib(b2.obj)"].sections] == ["slim_cxx_entry"]
    assert by["b.lib(b2.obj)"].sections[0].address == 0x140001050
    assert by["main.obj"].archive == ""


def test_link_exe_flags_and_decorated_names(tmp_path: Path) -> None:
    p = tmp_path / "real.map"
    p.write_bytes(
        HEAD
        + b" 0001:00000010       ?used_cxx@detail@slim@@YAHH@Z 0000000140001010 f i  b:b2.obj\n"
        + b"\n entry point at         0001:00000000\n"
    )
    (m,) = msvc_map.load(p)
    (inp,) = m.inputs  # type: ignore[attr-defined]
    assert inp.file == "b.lib(b2.obj)"
    assert inp.sections[0].name == "?used_cxx@detail@slim@@YAHH@Z"


@pytest.mark.parametrize("content", [b"", b" prog\n\nno timestamp\n", HEAD + b" 0001:zz bad row\n"])
def test_bad_input(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "bad.map"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        msvc_map.load(p)
    assert "\n" not in str(exc.value)


@settings(
    deadline=None, max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300))
def test_arbitrary_bytes(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "fuzz.map"
    p.write_bytes(HEAD + blob)
    with contextlib.suppress(InputError):
        msvc_map.load(p)
