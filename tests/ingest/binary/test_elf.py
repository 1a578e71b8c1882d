"""ELF/ar reader: committed gcc-built samples (goldens), a pyelftools cross-check on
freshly built files, hostile input (truncated, out-of-bounds headers, bad archives)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.binary import elf
from slim.model.native import ElfFile, demangle
from tests.ingest._native_golden import check_golden

DATA = Path(__file__).parents[2] / "data" / "elf"
SAMPLES = ["app", "libsample.so", "libunused.so", "libsample.a", "hooks.o"]


def load(path: Path) -> list[ElfFile]:
    out = elf.load(path)
    assert all(isinstance(e, ElfFile) for e in out)
    return out  # type: ignore[return-value]


@pytest.mark.parametrize("name", SAMPLES)
def test_golden(name: str, request: pytest.FixtureRequest) -> None:
    check_golden(elf.load(DATA / name), DATA / name, request)
    assert detect(DATA / name, "binary").name == "elf"


def test_kinds_needed_soname() -> None:
    (app,) = load(DATA / "app")
    assert app.kind == "exec"  # a PIE is ET_DYN; .interp makes it an executable
    assert app.needed == ("libsample.so.1", "libunused.so", "libc.so.6")
    (so,) = load(DATA / "libsample.so")
    assert (so.kind, so.soname) == ("dyn", "libsample.so.1")
    assert "sample_entry" in so.defined
    assert "sample_entry" in app.undefined


def test_archive_members_long_names_ctors_and_weak() -> None:
    members = load(DATA / "libsample.a")
    assert [m.member for m in members] == ["hooks.o", "a_member_with_a_long_name.o"]
    hooks, cxx = members
    assert hooks.path.endswith("libsample.a(hooks.o)")
    assert hooks.kind == "rel"
    assert hooks.has_static_init
    assert not cxx.has_static_init
    assert hooks.weak_defined == frozenset({"sample_hook"})
    # the inline function is weak too, but in a COMDAT group: not a hook
    assert cxx.weak_defined == frozenset()
    assert "_ZN4slim5twiceEi" in cxx.symbols.names  # type: ignore[union-attr]
    assert "provided_elsewhere" in hooks.undefined
    assert "sample_entry" in hooks.defined
    assert demangle(["_ZN4slim3apiEi", "plain"]) in (
        ["slim::api(int)", "plain"],
        ["_ZN4slim3apiEi", "plain"],
    )


def test_initializers_besides_nvccs_fatbin_registration() -> None:
    """nvcc gives each CUDA object one constructor, the fatbin registration; a static
    registrar in the same .cu adds a C++ dynamic initializer, and gcc's constructor
    function in hooks.o is one too (real nvcc 13 and gcc 12 objects)."""
    cuda = DATA.parent / "cuda"
    (kern,) = load(cuda / "kern.o")
    assert kern.has_static_init
    assert kern.foreign_initializers == 0
    (registrar,) = load(cuda / "registrar.o")
    assert registrar.word == 8
    assert registrar.foreign_initializers == 1
    hooks, cxx = load(DATA / "libsample.a")
    assert (hooks.foreign_initializers, cxx.foreign_initializers) == (1, 0)
    (app,) = load(DATA / "app")  # crtbegin's frame_dummy is no initializer of the code
    assert app.foreign_initializers == 0


def test_names_in_data_reads_only_the_data_sections(tmp_path: Path) -> None:
    """A library's name in DT_NEEDED (.dynstr) is not a string of the program; one in
    .rodata is (what it may dlopen). A file gone since it was read is reported."""
    (app,) = load(DATA / "app")
    assert elf.names_in_data(app, "libunused", "libsample") == ""
    (registrar,) = load(DATA.parent / "cuda" / "registrar.o")
    assert elf.names_in_data(registrar, "nothing", "registered") == "registered"
    gone = tmp_path / "app"
    shutil.copy(DATA / "app", gone)
    (copy,) = load(gone)
    gone.unlink()
    assert elf.names_in_data(copy, "libunused") == f"(unreadable: {gone})"


def test_whole_strings_in_data_are_whole_c_strings() -> None:
    """What `dlsym(handle, "name")` could be given: a string of the data sections from NUL
    to NUL (nvcc's registrar.o holds `_Z5scalePf`, `scale` and `registered %s\\n`)."""
    (registrar,) = load(DATA.parent / "cuda" / "registrar.o")
    assert elf.whole_strings_in_data(registrar, {"scale", "_Z5scalePf", "nothing"}) == "_Z5scalePf"
    assert elf.whole_strings_in_data(registrar, {"scale"}) == "scale"
    assert elf.whole_strings_in_data(registrar, {"registered", "scal", "cale"}) == ""


def _build(tmp: Path) -> list[Path]:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed: needed to build ELF files")
    src = tmp / "x.c"
    src.write_text(
        "#include <stdio.h>\n"
        + "".join(f"int f{i}(int x) {{ return x + {i}; }}\n" for i in range(300))
        + "__attribute__((weak)) int w(void) { return 1; }\n"
        + 'int main(void) { printf("%d", f1(2)); return 0; }\n'
    )
    subprocess.run(["gcc", "-O1", "-c", str(src), "-o", str(tmp / "x.o")], check=True)
    subprocess.run(["gcc", "-shared", "-fPIC", str(src), "-o", str(tmp / "libx.so")], check=True)
    subprocess.run(["gcc", str(src), "-o", str(tmp / "x")], check=True)
    return [tmp / "x.o", tmp / "libx.so", tmp / "x"]


def test_matches_pyelftools_on_fresh_gcc_output(tmp_path: Path) -> None:
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    for p in _build(tmp_path):
        (ours,) = load(p)
        with p.open("rb") as f:
            ref = ELFFile(f)
            secs = [(s.name, s["sh_size"]) for s in ref.iter_sections()][1:]
            assert [(s.name, s.size) for s in ours.sections] == secs
            for s in ref.iter_sections():
                if isinstance(s, SymbolTableSection):
                    table = ours.symbols if s["sh_type"] == "SHT_SYMTAB" else ours.dynamic_symbols
                    assert table is not None
                    assert table.names == [sym.name for sym in s.iter_symbols()]
                    binds = [sym["st_info"]["bind"][4:] for sym in s.iter_symbols()]
                    assert [x.binding for x in table.symbols() if x.name] == [
                        b for b, sym in zip(binds, s.iter_symbols(), strict=True) if sym.name
                    ]
                if isinstance(s, DynamicSection):
                    needed = tuple(t.needed for t in s.iter_tags() if t.entry.d_tag == "DT_NEEDED")
                    assert ours.needed == needed


def _corrupt(tmp: Path, data: bytes, name: str = "bad") -> Path:
    p = tmp / name
    p.write_bytes(data)
    return p


def _fails(p: Path, fragment: str) -> str:
    with pytest.raises(InputError) as exc:
        elf.load(p)
    msg = str(exc.value)
    assert fragment in msg, msg
    assert "\n" not in msg
    return msg


def test_truncated_elf_names_a_byte_offset(tmp_path: Path) -> None:
    data = (DATA / "libsample.so").read_bytes()
    msg = _fails(_corrupt(tmp_path, data[:5000]), "byte ")
    assert "truncated or corrupt" in msg


def test_section_headers_out_of_bounds(tmp_path: Path) -> None:
    data = bytearray((DATA / "hooks.o").read_bytes())
    struct.pack_into("<Q", data, 0x28, 1 << 40)  # e_shoff far past the end
    _fails(_corrupt(tmp_path, bytes(data)), "section headers inside the file")


def test_huge_section_count_is_refused(tmp_path: Path) -> None:
    data = bytearray((DATA / "hooks.o").read_bytes())
    struct.pack_into("<H", data, 0x3C, 0)  # e_shnum 0: real count in section 0's sh_size
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    struct.pack_into("<Q", data, shoff + 0x20, 1 << 30)
    _fails(_corrupt(tmp_path, bytes(data)), "at most")


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"", "an empty file"),
        (b"hello world", "an ELF file"),
        (b"\x7fELF\x09\x01", "ELF identification"),
        (b"\x7fELF\x09\x01" + b"\x00" * 60, "ELF class"),
        (b"!<arch>\nshort", "60-byte ar member header"),
        (b"!<arch>\n" + b"x.o/" + b" " * 44 + b"notanumber`\n", "decimal ar member size"),
        (b"!<arch>\n" + b"x.o/" + b" " * 44 + b"100       XX", "ar member header"),
        (b"!<arch>\n" + b"x.o/" + b" " * 44 + b"999999    `\n\x7fELF", "end of file"),
    ],
)
def test_bad_input(tmp_path: Path, content: bytes, fragment: str) -> None:
    _fails(_corrupt(tmp_path, content), fragment)


def test_archive_with_non_elf_member_is_skipped(tmp_path: Path) -> None:
    member = b"just text\n"
    hdr = f"{'notes.txt/':<16}{0:<12}{0:<6}{0:<6}{644:<8}{len(member):<10}`\n".encode()
    p = _corrupt(tmp_path, b"!<arch>\n" + hdr + member, "lib.a")
    assert elf.load(p) == []


def test_thin_archive_members_are_read_from_their_files(tmp_path: Path) -> None:
    """meson's static libraries are thin archives: they name their members' files
    (relative to the archive's directory), which the linker reads, and so does slim. A
    member file gone is an error at that member's header."""
    if shutil.which("ar") is None:
        pytest.skip("binutils' ar not installed: needed to make a thin archive")
    (tmp_path / "lib.p").mkdir()
    shutil.copy(DATA / "hooks.o", tmp_path / "lib.p" / "hooks.o")
    subprocess.run(["ar", "rcT", "libhooks.a", "lib.p/hooks.o"], cwd=tmp_path, check=True)
    archive = tmp_path / "libhooks.a"
    assert archive.read_bytes().startswith(b"!<thin>\n")
    (member,) = load(archive)
    (direct,) = load(DATA / "hooks.o")
    assert member.path == f"{archive}(lib.p/hooks.o)"
    assert (member.defined, member.weak_defined, member.has_static_init) == (
        direct.defined,
        direct.weak_defined,
        direct.has_static_init,
    )
    (tmp_path / "lib.p" / "hooks.o").unlink()
    with pytest.raises(InputError) as err:
        elf.load(archive)
    assert str(err.value).startswith(f"{archive}:byte ")
    assert "expected thin archive member file" in str(err.value)


@settings(
    deadline=None, max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(min_value=0, max_value=15855), st.binary(min_size=1, max_size=8))
def test_truncated_or_patched_files_never_crash(tmp_path: Path, cut: int, patch: bytes) -> None:
    data = bytearray((DATA / "app").read_bytes())
    pos = cut % max(len(data) - len(patch), 1)
    data[pos : pos + len(patch)] = patch
    for blob in (bytes(data), bytes(data[:cut])):
        p = tmp_path / "fuzz"
        p.write_bytes(blob)
        try:
            for e in elf.load(p):
                _ = (e.defined, e.undefined, e.has_static_init)
        except InputError:
            pass


def _dynamic_entries(path: Path) -> tuple[int, list[tuple[int, int]]]:
    """(offset of .dynamic, its (tag, value) entries) of a 64-bit little-endian file."""
    (e,) = load(path)
    (dyn,) = [s for s in e.sections if s.name == ".dynamic"]
    raw = path.read_bytes()[dyn.offset : dyn.offset + dyn.size]
    return dyn.offset, [struct.unpack_from("<qQ", raw, k) for k in range(0, len(raw), 16)]


def test_a_library_needed_twice_is_one_entry(tmp_path: Path) -> None:
    """Two DT_NEEDED entries naming one library (a patched file: linkers write one) are one
    library to the loader, and to every rule that walks them (a hostile file repeating one
    name a million times must not make a finding per entry)."""
    bad = tmp_path / "app"
    shutil.copy(DATA / "app", bad)
    off, ents = _dynamic_entries(bad)
    needed = [k for k, (tag, _) in enumerate(ents) if tag == 1]
    data = bytearray(bad.read_bytes())
    struct.pack_into("<qQ", data, off + 16 * needed[1], 1, ents[needed[0]][1])
    bad.write_bytes(bytes(data))
    assert _dynamic_entries(bad)[1][needed[1]] == ents[needed[0]]
    (app,) = load(bad)
    assert app.needed == ("libsample.so.1", "libc.so.6")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    data=st.lists(st.sampled_from([b"\0", b"ab", b"a", b"b", b"abc", b"x"]), max_size=40).map(
        b"".join
    ),
    wanted=st.sets(st.sampled_from([b"a", b"ab", b"abc", b"b", b"bab", b"x", b"abab"])),
    block=st.integers(1, 9),
    cut=st.tuples(st.integers(0, 5), st.integers(0, 5)),
)
def test_whole_strings_a_block_at_a_time_are_those_of_one_split(
    data: bytes, wanted: set[bytes], block: int, cut: tuple[int, int]
) -> None:
    """Split a block at a time (bounded memory), the whole strings held are exactly those
    of splitting the range at once, wherever the blocks end."""
    start, end = cut[0], max(cut[0], len(data) - cut[1])
    expected = wanted.intersection(data[start:end].split(b"\0")) if start < end else set()
    assert elf.whole_strings(data, start, end, wanted, block) == expected
