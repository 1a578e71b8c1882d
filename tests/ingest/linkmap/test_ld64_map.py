"""Apple ld64 `-map` reader (sample from ld64.lld, which copies ld64's layout)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.linkmap import ld64_map
from slim.model.native import LinkMap
from tests.ingest._native_golden import check_golden

SAMPLE = Path(__file__).parents[2] / "data" / "linkmap" / "ld64lld.map"


def test_golden(request: pytest.FixtureRequest) -> None:
    check_golden(ld64_map.load(SAMPLE), SAMPLE, request)
    assert detect(SAMPLE, "linkmap").name == "ld64-map"


def test_atoms_kept_and_dead_stripped() -> None:
    (m,) = ld64_map.load(SAMPLE)
    assert isinstance(m, LinkMap)
    assert (m.linker, m.output, m.has_gc_info) == ("ld64", "build/link/prog.macho", True)
    by = {i.file: i for i in m.inputs}
    a1 = by["build/link/liba.macho.a(a1.macho.o)"]
    assert (a1.archive, a1.member) == ("build/link/liba.macho.a", "a1.macho.o")
    assert [(s.name, s.size) for s in a1.sections] == [("_a_used", 0x18)]
    assert {s.name for s in a1.discarded} == {"ltmp1", "_a_counter", "_a_unused"}
    assert "linker synthesized" not in by


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"# Path: x\n# Object files:\nnot an index\n",
        b"# Path: x\n# Object files:\n[  1] a.o\n# Symbols:\n0x10\t0x4\t[  7] _f\n",
        b"# Path: x\n# Object files:\n[  1] a.o\n# Symbols:\ngarbage\n",
    ],
)
def test_bad_input(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "bad.map"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        ld64_map.load(p)
    assert "\n" not in str(exc.value)


@settings(
    deadline=None, max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300))
def test_arbitrary_bytes(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "fuzz.map"
    p.write_bytes(b"# Path: x\n# Object files:\n[  1] a.o\n" + blob)
    with contextlib.suppress(InputError):
        ld64_map.load(p)
