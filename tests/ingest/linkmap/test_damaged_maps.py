"""Damaged linker maps and GC reports: every complete map the real linkers write is read,
every cut one is refused (`FILE:LINE: expected …, found …`), valid raw bytes are kept.

The maps are made here by gcc with ld.bfd, gold, lld and mold over a range of options
(PIE, -shared, -s, -r, --cref, --gc-sections), so a rule about "what a complete map
looks like" is checked against the linkers themselves, not against samples.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.binary import elf
from slim.ingest.linkmap import gc_sections, ld_map
from slim.model.native import ElfFile, LinkMap

SRC = Path(__file__).parents[2] / "data" / "src" / "link"
REPO = Path(__file__).parents[3]
SAMPLE_MAPS = REPO / "sample_graphs" / "monorepo" / "exports" / "linkmaps"
LINKERS = {"bfd": "ld.bfd", "gold": "ld.gold", "lld": "ld.lld", "mold": "mold"}
OPTIONS = {
    "pie-gc-cref": ["-Wl,--gc-sections,--print-gc-sections", "-Wl,--cref"],
    "shared": ["-shared", "-fPIC"],
    "stripped": ["-s"],
    "relocatable": ["-r", "-nostdlib"],
}


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def _objects(tmp: Path) -> list[str]:
    flags = ["-O1", "-fPIC", "-ffunction-sections", "-fdata-sections"]
    for name in ("main.c", "a1.c", "a2.c", "b1.c", "b2.cc"):
        lang = ["-x", "c++", "-fno-exceptions"] if name.endswith(".cc") else []
        r = _run(
            ["gcc", *flags, *lang, "-c", str(SRC / name), "-o", name.split(".")[0] + ".o"], tmp
        )
        assert r.returncode == 0, r.stderr
    for lib, objs in (("liba.a", ["a1.o", "a2.o"]), ("libb.a", ["b1.o", "b2.o"])):
        assert _run(["ar", "rcs", lib, *objs], tmp).returncode == 0
    return ["main.o", "liba.a", "libb.a"]


@pytest.fixture(scope="module")
def maps() -> dict[str, Path]:
    """linker/option -> a map that linker wrote (and linker/option.gc: its GC report)."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed: needed to build the objects")
    tmp = Path(tempfile.mkdtemp(prefix="slim-maps-"))
    inputs = _objects(tmp)
    out: dict[str, Path] = {}
    for linker, tool in LINKERS.items():
        if shutil.which(tool) is None:
            continue
        for opt, flags in OPTIONS.items():
            if linker == "mold" and "-Wl,--cref" in flags:
                flags = [f for f in flags if f != "-Wl,--cref"]  # mold has no --cref
            what = ["a1.o", "b1.o", "b2.o"] if opt == "shared" else inputs
            mapfile = tmp / f"{linker}-{opt}.map"
            cmd = ["gcc", f"-fuse-ld={linker}", *flags, *what, "-o", f"{linker}-{opt}.out"]
            r = _run([*cmd, f"-Wl,-Map={mapfile}"], tmp)
            if r.returncode != 0 and opt == "relocatable":
                continue  # a linker that cannot do -r through gcc here: nothing to check
            assert r.returncode == 0, f"{linker} {opt}: {r.stderr}"
            out[f"{linker}/{opt}"] = mapfile
            if "--print-gc-sections" in " ".join(flags):
                gc = tmp / f"{linker}-{opt}.gc.txt"
                gc.write_text(r.stderr if linker in ("bfd", "gold") else r.stdout)
                out[f"{linker}/{opt}.gc"] = gc
    if not out:
        pytest.skip("no linker installed (ld.bfd, gold, lld, mold)")
    return out


def _load(path: Path) -> object:
    return detect(path, "linkmap").load(path)


def _cut(tmp_path: Path, path: Path, size: int) -> Path:
    cut = tmp_path / path.name
    cut.write_bytes(path.read_bytes()[:size])
    return cut


def test_every_complete_map_of_every_linker_is_read(maps: dict[str, Path]) -> None:
    linkers = set()
    for key, path in maps.items():
        if key.endswith(".gc"):
            continue
        (m,) = _load(path)  # type: ignore[misc]
        assert isinstance(m, LinkMap), key
        assert m.inputs, key
        linkers.add(m.linker)
    assert "bfd" in linkers  # ld.bfd is always there with gcc


def test_a_map_cut_at_10_percent_or_mid_line_is_refused(
    maps: dict[str, Path], tmp_path: Path
) -> None:
    for key, path in maps.items():
        if key.endswith(".gc"):
            continue
        data = path.read_bytes()
        last_nl = data.rindex(b"\n", 0, len(data) - 1)
        for size in (len(data) // 10, len(data) // 2, len(data) - 1, last_nl + 3):
            cut = _cut(tmp_path, path, size)
            with pytest.raises(InputError) as exc:
                _load(cut)
            msg = str(exc.value)
            assert msg.startswith(f"{cut}:"), (key, size, msg)
            assert "\n" not in msg
            assert "truncated?" in msg or "expected" in msg, (key, size, msg)


def test_a_map_cut_at_a_line_before_its_end_mark_is_refused(
    maps: dict[str, Path], tmp_path: Path
) -> None:
    """Cut exactly after a line: the memory map must still end with its linker's mark
    (bfd `OUTPUT(...)`, gold `.shstrtab`, lld `<internal>:(.shstrtab)`, mold `SHDR`)."""
    marks = {"bfd": b"\nOUTPUT(", "gold": b"\n.shstrtab ", "lld": b":(.shstrtab)", "mold": b" SHDR"}
    for key, path in maps.items():
        if key.endswith(".gc"):
            continue
        data = path.read_bytes()
        mark = data.rindex(marks[key.split("/")[0]])
        for size in (data.rindex(b"\n", 0, mark) + 1, data.index(b"\n", mark // 3) + 1):
            cut = _cut(tmp_path, path, size)
            with pytest.raises(InputError, match=r"found the end of the file \(truncated\?\)"):
                _load(cut)


def test_a_10_percent_gold_map_of_the_sample_is_refused_not_read_as_whole(
    tmp_path: Path,
) -> None:
    """The issue's case: a 10% gold map gave 8 findings instead of 3 (exit 1)."""
    src = SAMPLE_MAPS / "cpu_server.gold.map"
    cut = _cut(tmp_path, src, src.stat().st_size // 10)
    proc = subprocess.run(
        [sys.executable, "-m", "slim", "report", "//serving:cpu_server", "--linkmap", str(cut)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.startswith(f"slim: error: {cut}:")
    assert proc.stderr.count("\n") == 1


def test_a_gc_report_cut_inside_a_quoted_name_is_refused(
    maps: dict[str, Path], tmp_path: Path
) -> None:
    reports = {k: p for k, p in maps.items() if k.endswith(".gc")}
    assert reports
    for key, path in reports.items():
        (whole,) = gc_sections.load(path)
        assert whole.entries, key  # type: ignore[attr-defined]
        data = path.read_bytes()
        quote = data.rindex(b"'", 0, len(data) - 2) if b"'" in data else len(data) - 3
        for size in (quote - 2, len(data) - 1):
            cut = _cut(tmp_path, path, size)
            with pytest.raises(InputError) as exc:
                gc_sections.load(cut)
            assert str(exc.value).startswith(f"{cut}:"), key
        if key.startswith(("bfd", "gold")):
            # a line cut inside its quotes within the file (lines went on after it)
            lines = data.split(b"\n")
            inner = lines[0][: lines[0].rindex(b"'") - 3] + b"\n" + b"\n".join(lines[1:])
            cut = tmp_path / "inner.txt"
            cut.write_bytes(inner)
            with pytest.raises(InputError, match=r":1: expected 'removing unused section"):
                gc_sections.load(cut)


def test_latin1_symbol_and_path_in_a_bfd_map_are_kept_as_bytes(tmp_path: Path) -> None:
    """Linkers print raw bytes: a Latin-1 symbol (an asm label) and a Latin-1 directory
    name are valid input, read losslessly and matching the ELF reader's names."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    d = tmp_path / "caf\udce9"  # the directory's name is the bytes b"caf\xe9"
    d.mkdir()
    (d / "lat.c").write_bytes(
        b'int lat(void) __asm__("caf\\xe9_fn");\nint lat(void) { return 7; }\n'
    )
    (tmp_path / "main.c").write_bytes(
        b'int lat(void) __asm__("caf\\xe9_fn");\nint main(void) { return lat(); }\n'
    )
    for src, obj in ((d / "lat.c", d / "lat.o"), (tmp_path / "main.c", tmp_path / "main.o")):
        assert _run(["gcc", "-c", str(src), "-o", str(obj)], tmp_path).returncode == 0
    assert _run(["ar", "rcs", str(d / "liblat.a"), str(d / "lat.o")], tmp_path).returncode == 0
    mapfile = tmp_path / "lat.map"
    r = _run(
        [
            "gcc",
            "-fuse-ld=bfd",
            "main.o",
            str(d / "liblat.a"),
            "-o",
            "lat",
            f"-Wl,-Map={mapfile},--cref",
        ],
        tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert b"caf\xe9_fn" in mapfile.read_bytes()
    (m,) = ld_map.load(mapfile)
    assert isinstance(m, LinkMap)
    member = f"{d}/liblat.a(lat.o)"
    assert member in {i.file for i in m.inputs}
    refs = {x.symbol: x for x in m.xref}
    assert refs["caf\udce9_fn"].defined_in == member
    assert refs["caf\udce9_fn"].referenced_by == ("main.o",)
    (obj,) = elf.load(d / "lat.o")
    assert isinstance(obj, ElfFile)
    assert "caf\udce9_fn" in obj.defined  # the same string from both readers


def test_a_report_naming_latin1_paths_is_written_not_an_internal_error(tmp_path: Path) -> None:
    src = SAMPLE_MAPS / "cpu_server.bfd.map"
    odd = tmp_path / "cpu_server.caf\udce9.bfd.map"
    odd.write_bytes(src.read_bytes())
    for fmt in ("text", "json", "sarif"):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "slim",
                "report",
                "//serving:cpu_server",
                "--linkmap",
                str(odd),
                "--format",
                fmt,
                "--exit-zero",
                "-v",
            ],
            capture_output=True,
            check=False,
            cwd=REPO,
        )
        assert proc.returncode == 0, proc.stderr
        assert b"\\udce9" in proc.stdout  # shown escaped, valid UTF-8
        proc.stdout.decode("utf-8")
