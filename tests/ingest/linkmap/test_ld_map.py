"""GNU ld (bfd) `-Map` reader: the real sample, wrapping, long names, hostile input."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import FORMATS, detect
from slim.ingest._io import Limits
from slim.ingest.linkmap import ld_map
from slim.model.native import LinkMap
from tests.ingest._native_golden import check_golden

SAMPLE = Path(__file__).parents[2] / "data" / "linkmap" / "bfd.map"


def load(path: Path) -> LinkMap:
    (m,) = ld_map.load(path)
    assert isinstance(m, LinkMap)
    return m


def test_golden(request: pytest.FixtureRequest) -> None:
    check_golden(ld_map.load(SAMPLE), SAMPLE, request)


def test_sample_members_sections_and_cref() -> None:
    m = load(SAMPLE)
    assert (m.linker, m.output, m.has_cref, m.has_gc_info) == (
        "bfd",
        "build/link/prog.bfd",
        True,
        True,
    )
    by = {i.file: i for i in m.inputs}
    a1 = by["build/link/liba.a(a1.o)"]
    assert a1.pulled_by is not None
    assert (a1.pulled_by.file, a1.pulled_by.symbol, a1.pulled_by.line) == (
        "build/link/main.o",
        "a_used",
        3,
    )
    assert [s.name for s in a1.sections if s.size] == [".text.a_used", ".comment"]
    assert a1.kept_bytes == 0x11  # .comment is not loaded
    # `.text.a_unused` wraps: name alone on its line, numbers on the next
    unused = next(s for s in a1.discarded if s.name == ".text.a_unused")
    assert (unused.size, unused.line) == (4, 41)
    assert SAMPLE.read_text().splitlines()[40].strip() == ".text.a_unused"
    b2 = by["build/link/libb.a(b2.o)"]
    assert {s.name for s in b2.discarded} >= {".text._ZN4slim6detail10unused_cxxEi"}
    assert "build/link/libb.a" in dict(m.loaded)
    assert "build/link/liba.a(a2.o)" not in by  # never extracted
    refs = {x.symbol: x for x in m.xref}
    assert refs["b_used"].defined_in == "build/link/libb.a(b1.o)"
    assert refs["b_used"].referenced_by == ("build/link/liba.a(a1.o)",)
    assert refs["slim::detail::used_cxx(int)"].referenced_by == ()
    assert m.shared == ("libc.so.6",)
    assert m.whole_archive == ()


def test_detected_as_bfd_not_gold() -> None:
    assert detect(SAMPLE, "linkmap").name == "gnu-ld-map"
    assert any(f.name == "gnu-ld-map" for f in FORMATS)


def _write(tmp_path: Path, text: str, name: str = "x.map") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode())
    return p


def test_long_member_name_wraps_and_paths_with_spaces(tmp_path: Path) -> None:
    long_member = "some/very/long/directory name/libthing.a(obj with space.o)"
    text = (
        "Archive member included to satisfy reference by file (symbol)\n\n"
        f"{long_member}\n"
        f"{' ' * 30}C:\\work dir\\main.o (thing_entry)\n\n"
        "Discarded input sections\n\n"
        " .text.a_very_long_section_name\n"
        f"                0x0000000000000000       0x10 {long_member}\n\n"
        "Linker script and memory map\n\n"
        "LOAD C:\\work dir\\main.o\n"
        ".text           0x0000000000001000       0x20\n"
        f" .text.thing    0x0000000000001000       0x20 {long_member}\n"
        "                0x0000000000001000                thing_entry\n"
        "OUTPUT(out dir/app elf64-x86-64)\n"
    )
    m = load(_write(tmp_path, text))
    (inp,) = [i for i in m.inputs if i.archive]
    assert inp.file == long_member
    assert inp.member == "obj with space.o"
    assert inp.pulled_by is not None
    assert (inp.pulled_by.file, inp.pulled_by.symbol) == ("C:\\work dir\\main.o", "thing_entry")
    assert inp.kept_bytes == 0x20
    assert inp.discarded_bytes == 0x10
    assert m.output == "out dir/app"
    assert m.loaded == (("C:\\work dir\\main.o", 13),)
    assert not m.has_cref
    assert "--cref" in m.notes[0]


def test_long_cref_symbol_is_split_at_a_known_file(tmp_path: Path) -> None:
    sym = "ns::some_template<std::vector<int, std::allocator<int> > >::run(int, char) const"
    text = (
        "Linker script and memory map\n\n"
        " .text.x        0x0000000000001000        0x4 dir x/a.o\n"
        "OUTPUT(a.out elf64-x86-64)\n\n"
        "Cross Reference Table\n\n"
        f"{'Symbol':<50}File\n"
        f"{sym} dir x/a.o\n"
        f"{' ' * 50}b.o\n"
    )
    m = load(_write(tmp_path, text))
    (x,) = m.xref
    assert (x.symbol, x.defined_in, x.referenced_by) == (sym, "dir x/a.o", ("b.o",))


def test_chunk_boundary_inside_a_wrapped_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import slim.ingest.linkmap._mapcommon as mc

    rows = "".join(
        f" .text.function_number_{i}\n                0x{i:016x}        0x4 lib.a(m{i}.o)\n"
        for i in range(300)
    )
    p = _write(tmp_path, "Linker script and memory map\n\n" + rows + "OUTPUT(a elf64-x86-64)\n")
    monkeypatch.setattr(mc, "CHUNK_BYTES", 97)
    m = ld_map.parse(p, "bfd")
    assert len(m.inputs) == 300
    assert all(i.kept_bytes == 4 for i in m.inputs)
    assert m.inputs[0].sections[0].line == 3


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "no map heading"),
        (b"hello world\nthis is not a map\n", "no map heading"),
        (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64, "found a NUL byte at column 8"),
        (
            b"Archive member included to satisfy reference by file (symbol)\n\nlib.a(x.o)"
            b"                    no-paren-here\n",
            "'file (symbol)'",
        ),
        (b"Linker script and memory map\n\xff\xfe .text 0x0 0x0 bad\nOUTPUT(a.out elf)\n", None),
        (b"Linker script and memory map\n .text 0x0 0x0 a.o\n", "`OUTPUT(file format)` line"),
        (b"Linker script and memory map\n .text 0x0 0x0 a.o\nOUTPUT(a.o", "(truncated?)"),
    ],
)
def test_bad_input_is_one_line_error(tmp_path: Path, content: bytes, expected: str | None) -> None:
    p = tmp_path / "bad.map"
    p.write_bytes(content)
    if expected is None:
        load(p)  # undecodable bytes outside any field are tolerated
        return
    with pytest.raises(InputError) as exc:
        load(p)
    msg = str(exc.value)
    assert expected in msg
    assert "\n" not in msg
    assert msg.startswith(str(p))


def test_truncated_sample_still_parses_what_is_there(tmp_path: Path) -> None:
    data = SAMPLE.read_bytes()
    p = tmp_path / "cut.map"
    p.write_bytes(data[: data.index(b"\nCross Reference Table")])
    m = load(p)
    assert m.inputs
    assert not m.has_cref


def test_overlong_line_fails_fast_with_its_line_number(tmp_path: Path) -> None:
    p = tmp_path / "long.map"
    with p.open("wb") as f:
        f.write(b"Linker script and memory map\n\n")
        f.write(b"x" * (3 << 20))
    with pytest.raises(InputError) as exc:
        ld_map.parse(p, "bfd", Limits(max_line_bytes=1 << 20))
    assert ":3: expected a line of at most" in str(exc.value)


@settings(
    deadline=None, max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=600))
def test_arbitrary_bytes_give_a_map_or_input_error(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "fuzz.map"
    p.write_bytes(b"Linker script and memory map\n" + blob)
    with contextlib.suppress(InputError):
        load(p)


@settings(
    deadline=None, max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(min_value=0, max_value=210_000))
def test_any_prefix_of_the_sample_parses(tmp_path: Path, cut: int) -> None:
    p = tmp_path / "prefix.map"
    p.write_bytes(SAMPLE.read_bytes()[:cut])
    err = None
    try:
        load(p)
    except InputError as exc:
        err = str(exc)
    assert err is None or ("\n" not in err and err.startswith(str(p)))


@pytest.mark.parametrize("name", ["bfd.map", "gold.map"])
def test_column_reader_matches_the_regex_reader(name: str) -> None:
    """The numpy fast path must give exactly what the general regex reader gives."""
    import numpy as np

    from slim.ingest.linkmap._gnu_rows import fixed_rows, regex_rows

    data = b"\n" + (SAMPLE.parent / name).read_bytes()
    nl = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    heads = [
        b"\nDiscarded input sections\n",
        b"\nLinker script and memory map\n",
        b"\nMemory map\n",
    ]
    checked = 0
    for head in heads:
        i = data.find(head)
        if i < 0:
            continue
        start = i + len(head) - 1
        end = (
            min(
                x
                for x in (
                    data.find(b"\nMemory", start),
                    data.find(b"\nCross", start),
                    len(data) - 1,
                )
                if x > 0
            )
            + 1
        )
        fast = fixed_rows(data, start, end, nl, 0)
        slow = regex_rows(data, start, end, nl, 0)
        assert fast is not None
        assert (fast.names, fast.files(), fast.run_files) == (
            slow.names,
            slow.files(),
            slow.run_files,
        )
        for col in ("addrs", "sizes", "lines", "unallocated", "run_start"):
            assert getattr(fast, col).tolist() == getattr(slow, col).tolist()
        checked += len(slow)
    assert checked > 50


def test_odd_layout_falls_back_to_the_regex_reader(tmp_path: Path) -> None:
    """Hex without 0x and uneven spacing: not bfd's columns, still read (by the regex)."""
    p = _write(
        tmp_path,
        "Linker script and memory map\n\n .text.f 1000 20 a.o\n .text.g  0x1020 0x8 b.o\n"
        "OUTPUT(a.out elf64-x86-64)\n",
    )
    m = load(p)
    assert [(i.file, i.kept_bytes) for i in m.inputs] == [("a.o", 0x20), ("b.o", 8)]


def test_gzipped_map_reads_like_the_plain_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gzip

    import slim.ingest.linkmap._mapcommon as mc

    p = tmp_path / "bfd.map.gz"
    p.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    monkeypatch.setattr(mc, "CHUNK_BYTES", 4096)  # many chunk boundaries, streamed path
    plain, zipped = load(SAMPLE), load(p)
    assert zipped.inputs == plain.inputs
    assert zipped.xref == plain.xref
    assert zipped.loaded == plain.loaded
