"""gold `-Map` reader: the real sample, synthetic `**` rows, whole-archive, bad input."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.linkmap import gold_map
from slim.model.native import LinkMap
from tests.ingest._native_golden import check_golden

SAMPLE = Path(__file__).parents[2] / "data" / "linkmap" / "gold.map"


def load(path: Path) -> LinkMap:
    (m,) = gold_map.load(path)
    assert isinstance(m, LinkMap)
    return m


def test_golden(request: pytest.FixtureRequest) -> None:
    check_golden(gold_map.load(SAMPLE), SAMPLE, request)


def test_sample() -> None:
    m = load(SAMPLE)
    assert (m.linker, m.has_cref, m.has_gc_info) == ("gold", True, True)
    assert m.loaded == ()  # gold prints no LOAD lines
    by = {i.file: i for i in m.inputs}
    b1 = by["build/link/libb.a(b1.o)"]
    assert b1.pulled_by is not None
    assert b1.pulled_by.symbol == "b_used"
    assert [s.name for s in b1.sections] == [".text.b_used"]
    assert b1.kept_bytes == 0xD
    assert b1.discarded_bytes == 0x4 + 0xE
    # `** fill`, `** PLT` ... are linker-synthesized, not inputs
    assert not any(f.startswith("**") for f in by)
    refs = {x.symbol: x for x in m.xref}
    assert refs["slim_cxx_entry"].referenced_by == ("build/link/libb.a(b1.o)",)


def test_detected_as_gold() -> None:
    assert detect(SAMPLE, "linkmap").name == "gold-map"


def test_whole_archive_member_line(tmp_path: Path) -> None:
    p = tmp_path / "w.map"
    p.write_text(
        "Archive member included because of file (symbol)\n\n"
        "native/reg/libreg.a(reg.o)    --whole-archive\n"
        "native/a/liba.a(a.o)          main.o (a_fn)\n\n"
        "Memory map\n\n"
        ".text           0x0000000000001000       0x20\n"
        " .text.reg_init 0x0000000000001000        0x8 native/reg/libreg.a(reg.o)\n"
        " .text.a_fn     0x0000000000001008        0x8 native/a/liba.a(a.o)\n\n"
        ".shstrtab       0x0000000000000000       0x2d\n"
        " ** string table\n"
        "                0x0000000000000000       0x2d\n"
    )
    m = load(p)
    assert m.whole_archive == ("native/reg/libreg.a",)


@pytest.mark.parametrize("content", [b"", b"Memory map\n", b"\x00\x01garbage"])
def test_bad_input(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "bad.map"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        load(p)
    assert "\n" not in str(exc.value)
    if content == b"Memory map\n":  # a heading alone: the rest of the map is missing
        assert str(exc.value) == (
            f"{p}:1: expected the memory map's `.shstrtab` section (a gold map ends its memory "
            "map with it), found the end of the file (truncated?)"
        )


@settings(
    deadline=None, max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=500))
def test_arbitrary_bytes(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "fuzz.map"
    p.write_bytes(b"Archive member included because of file (symbol)\n" + blob)
    with contextlib.suppress(InputError):
        load(p)


BAZEL_MAP = SAMPLE.with_name("gold.bazel-googletest.map")


def test_a_long_list_of_discards_does_not_hide_gold_s_headings() -> None:
    """A real C++ link (googletest under Bazel) discards kilobytes of COMDAT sections
    before `Memory map`, past the head a format is sniffed from: still gold's map."""
    head = BAZEL_MAP.read_bytes()
    assert head.index(b"\nMemory map\n") > 8192
    assert detect(BAZEL_MAP, "linkmap").name == "gold-map"
    m = load(BAZEL_MAP)
    assert (m.linker, m.has_cref) == ("gold", True)
    solib = "bazel-out/k8-fastbuild/bin/_solib_k8/liblibgtest.so"
    assert any(solib in x.referenced_by or x.defined_in == solib for x in m.xref)


def test_a_bfd_map_with_a_long_list_of_discards_is_still_bfd(tmp_path: Path) -> None:
    rows = "".join(f" .text.f{k}   0x0000000000000000       0x10 obj{k}.o\n" for k in range(400))
    p = tmp_path / "bfd.map"
    p.write_text(
        f"\nDiscarded input sections\n\n{rows}\nMemory Configuration\n\n"
        "Name             Origin             Length             Attributes\n"
        "*default*        0x0000000000000000 0xffffffffffffffff\n\n"
        "Linker script and memory map\n\n"
    )
    assert p.stat().st_size > 8192
    assert detect(p, "linkmap").name == "gnu-ld-map"


def test_a_long_demangled_name_with_a_space_before_the_file_column() -> None:
    """gold writes a symbol longer than its column, one space, then the file; a demangled
    name with a space just before column 50 (`ToHost64(unsigned long)`) looked like a
    padded short one, and its file held the rest of the name (abseil under Bazel)."""
    (m,) = gold_map.load(SAMPLE.with_name("gold.bazel-abseil.map"))
    obj = (
        "bazel-out/k8-fastbuild/bin/absl/strings/_objs/cordz_update_scope_test/"
        "cordz_update_scope_test.pic.o"
    )
    by = {x.symbol: x for x in m.xref}
    assert by["absl::lts_20211102::big_endian::ToHost64(unsigned long)"].defined_in == obj
    assert (
        by["absl::lts_20211102::cord_internal::DivUp(unsigned long, unsigned long)"].defined_in
        == obj
    )
    assert all(x.defined_in.startswith(("bazel-out/", "/")) for x in m.xref if x.defined_in)
