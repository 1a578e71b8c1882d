"""Damaged ELF parts in real gcc-built files: what would silently lose names or symbols
is an error with its byte offset; what is recovered exactly is read, with a note.
"""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest.binary import elf
from slim.ingest.binary.fatbin import read_device_code
from slim.model.native import ElfFile

DATA = Path(__file__).parents[2] / "data"
APP = DATA / "elf" / "app"  # a gcc-built PIE (64-bit little-endian)
OBJ = DATA / "elf" / "hooks.o"
ARCHIVE = DATA / "elf" / "libsample.a"
CUDA_OBJ = DATA / "cuda" / "kern.o"
CQUERY = DATA / "bazel" / "cquery.jsonproto.json"


class Shdrs:
    """The section headers of a 64-bit little-endian ELF file, for damaging them."""

    def __init__(self, data: bytes) -> None:
        (self.shoff,) = struct.unpack_from("<Q", data, 40)
        self.shnum, self.shstrndx = struct.unpack_from("<HH", data, 60)
        self.rows = [
            struct.unpack_from("<IIQQQQIIQQ", data, self.shoff + 64 * i) for i in range(self.shnum)
        ]
        s = self.rows[self.shstrndx]
        table = data[s[4] : s[4] + s[5]]
        self.names = [table[r[0] : table.index(b"\0", r[0])].decode() for r in self.rows]

    def index(self, name: str) -> int:
        return self.names.index(name)

    def field(self, i: int, offset: int) -> int:
        """File offset of byte `offset` of section header `i` (link is 40, entsize 56)."""
        return self.shoff + 64 * i + offset


def _damaged(tmp_path: Path, src: Path, at: int, value: bytes) -> Path:
    data = bytearray(src.read_bytes())
    data[at : at + len(value)] = value
    out = tmp_path / src.name
    out.write_bytes(bytes(data))
    return out


def _one(path: Path) -> ElfFile:
    (e,) = elf.load(path)
    assert isinstance(e, ElfFile)
    return e


def test_an_out_of_range_e_shstrndx_is_an_error_at_its_offset(tmp_path: Path) -> None:
    """It made every section name '' (and a PIE read as `dyn`): now refused at byte 62."""
    sh = Shdrs(APP.read_bytes())
    bad = _damaged(tmp_path, APP, 62, struct.pack("<H", sh.shnum + 7))
    with pytest.raises(InputError) as exc:
        elf.load(bad)
    assert str(exc.value) == (
        f"{bad}:byte 62: expected an e_shstrndx below the section count ({sh.shnum}), "
        f"found {sh.shnum + 7}"
    )
    with pytest.raises(InputError, match=r":byte 62: expected an e_shstrndx below"):
        read_device_code(bad)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "slim",
            "report",
            "//py:tool",
            "--graph",
            str(CQUERY),
            "--binary",
            str(bad),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert (
        proc.stderr == f"slim: error: {bad}:byte 62: expected an e_shstrndx below the "
        f"section count ({sh.shnum}), found {sh.shnum + 7}\n"
    )


def test_an_e_shstrndx_naming_code_is_an_error(tmp_path: Path) -> None:
    sh = Shdrs(APP.read_bytes())
    bad = _damaged(tmp_path, APP, 62, struct.pack("<H", sh.index(".text")))
    with pytest.raises(InputError, match=r":byte 62: expected an e_shstrndx naming a string table"):
        elf.load(bad)


def test_a_symtab_linked_to_text_is_an_error_at_its_sh_link(tmp_path: Path) -> None:
    """Symbol names would be read from machine code."""
    sh = Shdrs(APP.read_bytes())
    symtab = sh.index(".symtab")
    at = sh.field(symtab, 40)
    bad = _damaged(tmp_path, APP, at, struct.pack("<I", sh.index(".text")))
    with pytest.raises(InputError) as exc:
        elf.load(bad)
    assert str(exc.value).startswith(
        f"{bad}:byte {at}: expected a symbol table whose sh_link names a string table"
    )
    assert "a section of type SHT_PROGBITS" in str(exc.value)


def test_a_symbol_name_past_its_string_table_is_an_error_at_the_symbol(tmp_path: Path) -> None:
    """A lost name could make its library look unreferenced."""
    data = OBJ.read_bytes()
    sh = Shdrs(data)
    row = sh.rows[sh.index(".symtab")]
    strtab = sh.rows[row[6]]
    at = row[4] + 24 * 3  # st_name of symbol 3
    bad = _damaged(tmp_path, OBJ, at, struct.pack("<I", strtab[5] + 100))
    with pytest.raises(InputError) as exc:
        elf.load(bad)
    assert str(exc.value) == (
        f"{bad}:byte {at}: expected symbol name offsets inside its string table "
        f"({strtab[5]} bytes), found symbol 3's st_name {strtab[5] + 100}"
    )


def test_a_section_name_past_the_name_table_is_an_error(tmp_path: Path) -> None:
    sh = Shdrs(APP.read_bytes())
    at = sh.field(sh.index(".text"), 0)
    bad = _damaged(tmp_path, APP, at, struct.pack("<I", 1 << 20))
    with pytest.raises(InputError, match=rf":byte {at}: expected a section name offset inside"):
        elf.load(bad)


def test_a_zero_sh_entsize_is_recovered_exactly_with_a_note(tmp_path: Path) -> None:
    sh = Shdrs(APP.read_bytes())
    symtab = sh.index(".symtab")
    bad = _damaged(tmp_path, APP, sh.field(symtab, 56), struct.pack("<Q", 0))
    good, damaged = _one(APP), _one(bad)
    assert damaged.defined == good.defined
    assert damaged.undefined == good.undefined
    assert damaged.notes == (
        f"section {symtab} (symbol table): sh_entsize 0, read as 24-byte entries",
    )
    assert good.notes == ()
    odd = _damaged(tmp_path, APP, sh.field(symtab, 56), struct.pack("<Q", 7))
    with pytest.raises(
        InputError, match=r"expected a symbol table of 24-byte entries \(sh_entsize\)"
    ):
        elf.load(odd)


def test_an_absurd_archive_symbol_map_count_is_ignored_with_a_note(tmp_path: Path) -> None:
    data = ARCHIVE.read_bytes()
    assert data[8:10] == b"/ "  # the GNU symbol map is the first member
    bad = _damaged(tmp_path, ARCHIVE, 8 + 60, b"\xff\xff\xff\xf0")
    good, damaged = elf.load(ARCHIVE), elf.load(bad)
    assert [e.member for e in damaged] == [e.member for e in good]  # type: ignore[attr-defined]
    assert [e.defined for e in damaged] == [e.defined for e in good]  # type: ignore[attr-defined]
    size = int(data[8 + 48 : 8 + 58])
    for e in damaged:
        assert e.notes == (  # type: ignore[attr-defined]
            f"archive symbol map claims {0xFFFFFFF0} symbols in {size} bytes: ignored, "
            "members read directly",
        )


def test_a_cuda_object_with_a_bad_e_shstrndx_is_refused_not_read_without_fatbins(
    tmp_path: Path,
) -> None:
    """Without names `.nv_fatbin` could not be found: the kernels would silently vanish."""
    bad = _damaged(tmp_path, CUDA_OBJ, 62, b"\xff\x7f")
    with pytest.raises(InputError, match=r":byte 62: expected an e_shstrndx below"):
        read_device_code(bad)


def test_a_readers_note_reaches_the_report(tmp_path: Path) -> None:
    """What a reader recovered is said in the report's notes, naming the file."""
    sh = Shdrs(APP.read_bytes())
    symtab = sh.index(".symtab")
    bad = _damaged(tmp_path, APP, sh.field(symtab, 56), struct.pack("<Q", 0))
    proc = subprocess.run(
        [sys.executable, "-m", "slim", "report", "//serving:cpu_server", "--binary", str(bad)],
        cwd=DATA.parents[1],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    note = f"note: {bad}: section {symtab} (symbol table): sh_entsize 0, read as 24-byte entries"
    assert note in proc.stdout.splitlines()
