"""The fatbin reader against real nvcc 13 output and an independent header walker.

`tests/data/cuda/fatbin_walk.txt` was written by a separate walker (not slim's code) over
the samples; every container and entry header field, and the size of every decompressed
payload, must agree with it. The extra objects (`kern.G.o`, `kern.cm-*.o`, `libkern.a`,
`app.fatbin-sections.elf`) come from `tests/data/_scripts/make_cuda_extra.sh` (same nvcc).
"""

from __future__ import annotations

import contextlib
import json
import re
import resource
import shutil
import struct
import subprocess
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect, load_evidence
from slim.ingest.binary.fatbin import (
    FATBIN_MAGIC,
    FatbinLimits,
    entry_kernels,
    payload,
    read_device_code,
    read_elf,
    sniff,
)
from slim.model.gpu import DeviceCode, FatbinEntry, parse_arch
from tests.golden import update_goldens

CUDA = Path(__file__).parents[2] / "data" / "cuda"
ORACLE = CUDA / "fatbin_walk.txt"
#: Oracle file name -> committed sample (the executable is kept as its device-code sections).
SAMPLE_FOR = {"app": "app.fatbin-sections.elf"}
#: Samples rebuilt by make_cuda_extra.sh whose debug images differ from the oracle's build.
REBUILT_DEBUG = {"kern.G.o"}

_CONTAINER = re.compile(
    r"^(?P<file>[^:+]+)(?::(?P<section>[^+]+))?\+0x(?P<off>[0-9a-f]+): container "
    r"magic=0x(?P<magic>[0-9a-f]+) version=(?P<version>\d+) header_size=0x(?P<hs>[0-9a-f]+) "
    r"fat_size=0x(?P<fs>[0-9a-f]+)$"
)
_ENTRY = re.compile(
    r"^  entry\+0x(?P<off>[0-9a-f]+): kind=(?P<kind>\d+)\(\w+\) unk=0x(?P<unk>[0-9a-f]+) "
    r"hdr=0x(?P<hdr>[0-9a-f]+) payload_size=0x(?P<ps>[0-9a-f]+) "
    r"compressed_size=0x(?P<cs>[0-9a-f]+) ver=(?P<major>\d+)\.(?P<minor>\d+) sm_(?P<sm>\d+) "
    r"flags=0x(?P<flags>[0-9a-f]+) uncompressed_size=0x(?P<us>[0-9a-f]+) name='(?P<name>[^']*)' "
    r"payload_starts=(?P<head>[0-9a-f]*) payload=(?P<payload>stored|(?:zstd|lz4)->\d+ ok)$"
)


def parse_oracle(text: str) -> dict[str, list[dict[str, Any]]]:
    """Containers per sample file name, each with its entries, from fatbin_walk.txt."""
    out: dict[str, list[dict[str, Any]]] = {}
    current: dict[str, Any] | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        m = _CONTAINER.match(line)
        if m:
            current = {
                "section": m["section"] or "",
                "offset": int(m["off"], 16),
                "magic": int(m["magic"], 16),
                "version": int(m["version"]),
                "header_size": int(m["hs"], 16),
                "fat_size": int(m["fs"], 16),
                "entries": [],
            }
            out.setdefault(Path(m["file"]).name, []).append(current)
            continue
        e = _ENTRY.match(line)
        assert e is not None, f"fatbin_walk.txt:{lineno}: {line!r}"
        assert current is not None, f"fatbin_walk.txt:{lineno}: entry before any container"
        current["entries"].append(
            {
                "offset": int(e["off"], 16),
                "kind_code": int(e["kind"]),
                "version": int(e["unk"], 16),
                "header_size": int(e["hdr"], 16),
                "payload_size": int(e["ps"], 16),
                "compressed_size": int(e["cs"], 16),
                "code_major": int(e["major"]),
                "code_minor": int(e["minor"]),
                "arch": int(e["sm"]),
                "flags": int(e["flags"], 16),
                "uncompressed_size": int(e["us"], 16),
                "obj_name": e["name"],
                "payload_head": e["head"],
                "payload": e["payload"],
            }
        )
    return out


ORACLE_WALK = parse_oracle(ORACLE.read_text(encoding="utf-8"))


def _ours(dc: DeviceCode) -> list[dict[str, Any]]:
    """Our walk in the oracle's terms (offsets relative to section and container)."""
    out = []
    for c in dc.containers:
        entries = []
        for e in c.entries:
            if e.compressed:
                with (CUDA / _sample(dc.path)).open("rb") as f:
                    data = f.read()
                how = f"{e.compression}->{len(payload(data, e))} ok"
            else:
                how = "stored"
            entries.append(
                {
                    "offset": e.relative_offset,
                    "kind_code": e.kind_code,
                    "version": e.version,
                    "header_size": e.header_size,
                    "payload_size": e.payload_size,
                    "compressed_size": e.compressed_size,
                    "code_major": e.code_major,
                    "code_minor": e.code_minor,
                    "arch": e.arch,
                    "flags": e.flags,
                    "uncompressed_size": e.uncompressed_size,
                    "obj_name": e.obj_name,
                    "payload_head": e.payload_head.hex(),
                    "payload": how,
                }
            )
        out.append(
            {
                "section": c.section,
                "offset": c.section_offset,
                "magic": FATBIN_MAGIC,
                "version": c.version,
                "header_size": c.header_size,
                "fat_size": c.fat_size,
                "entries": entries,
            }
        )
    return out


def _sample(path: str) -> str:
    return Path(path).name


def test_oracle_covers_every_parser_path() -> None:
    entries = [e for cs in ORACLE_WALK.values() for c in cs for e in c["entries"]]
    assert {e["payload"].split("->")[0] for e in entries} == {"stored", "zstd", "lz4"}
    assert {e["header_size"] for e in entries} == {0x40, 0x50, 0x58}
    assert max(len(cs) for cs in ORACLE_WALK.values()) == 3
    assert any(c["section"] == "__nv_relfatbin" for cs in ORACLE_WALK.values() for c in cs)


@pytest.mark.parametrize("name", sorted(ORACLE_WALK))
def test_walk_agrees_with_oracle_field_by_field(name: str) -> None:
    sample = CUDA / SAMPLE_FOR.get(name, name)
    assert sample.exists(), (
        f"sample {sample.name} missing: run tests/data/_scripts/make_cuda_extra.sh"
    )
    (dc,) = read_device_code(sample)
    assert dc.errors == ()
    ours = _ours(dc)
    want = ORACLE_WALK[name]
    assert len(ours) == len(want)
    for got_c, want_c in zip(ours, want, strict=True):
        assert {k: v for k, v in got_c.items() if k != "entries"} == {
            k: v for k, v in want_c.items() if k != "entries"
        }
        if name in REBUILT_DEBUG:
            # The -G image records the build directory, so the compressed stream of our
            # rebuild differs from the oracle's build; every other field must agree.
            for got_e, want_e in zip(got_c["entries"], want_c["entries"], strict=True):
                assert got_e["compressed_size"] != want_e["compressed_size"]
                for e in (got_e, want_e):
                    e["compressed_size"] = e["payload_head"] = None
        assert got_c["entries"] == want_c["entries"]


def _readelf_entry_kernels(text: str) -> set[str]:
    """FUNC symbols marked `[<other>: 10]` (STO_CUDA_ENTRY) in a `readelf -sW` listing."""
    out = set()
    for line in text.splitlines():
        parts = line.split()
        if (
            "FUNC" in parts
            and "[<other>:" in line
            and line.split("[<other>:")[1].startswith(" 10]")
        ):
            out.add(parts[-1])
    return out


def test_cubin_kernels_agree_with_readelf() -> None:
    text = (CUDA / "cubin-readelf.txt").read_text(encoding="utf-8")
    want = _readelf_entry_kernels(text)
    assert want == {"_ZN4slim12scale_kernelIfEEvPT_S1_i", "add_one_kernel"}
    (dc,) = read_device_code(CUDA / "kern.sm_90.cubin")
    (entry,) = list(dc.entries)
    assert entry.arch == 90
    assert entry.kernels is not None
    assert {k.mangled for k in entry.kernels} == want
    sizes = {k.mangled: k.size for k in entry.kernels}
    assert sizes == {"_ZN4slim12scale_kernelIfEEvPT_S1_i": 0x200, "add_one_kernel": 0x180}


def _cuobjdump_sections(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:]
            out[current] = []
        elif current:
            out[current].append(line)
    return out


def test_sm90_kernels_and_listing_agree_with_cuobjdump() -> None:
    views = _cuobjdump_sections((CUDA / "cuobjdump.txt").read_text(encoding="utf-8"))
    sym = views["cuobjdump -elf -symbols -arch sm_90 kern.o (constant banks cut)"]
    entries = {ln.split()[-1] for ln in sym if " FUNC " in ln and " ENTRY " in ln}
    (dc,) = read_device_code(CUDA / "kern.o")
    sm90 = [e for e in dc.entries if e.is_cubin and e.arch == 90]
    assert len(sm90) == 1
    assert sm90[0].kernels is not None
    assert {k.mangled for k in sm90[0].kernels} == entries
    for name, sample in (
        ("kern.o", "kern.o"),
        ("app", "app.fatbin-sections.elf"),
        ("extra.rdc.o", "extra.rdc.o"),
        ("dlink.o", "dlink.o"),
    ):
        lines = views[f"cuobjdump -lelf / -lptx {name}"]
        want = sorted(
            (m.group(1), m.group(2))
            for ln in lines
            if (m := re.match(r"(ELF|PTX) file +\d+: .*\.(sm_\d+)\.(?:cubin|ptx)$", ln))
        )
        (got_dc,) = read_device_code(CUDA / sample)
        got = sorted(("ELF" if e.is_cubin else "PTX", f"sm_{e.arch}") for e in got_dc.entries)
        assert got == want, name


def test_archive_members_are_read_one_by_one() -> None:
    (dc,) = read_device_code(CUDA / "libkern.a")
    assert dc.member == "kern.o"
    assert dc.name.endswith("libkern.a(kern.o)")
    (plain,) = read_device_code(CUDA / "kern.o")
    assert [c.digest for c in dc.containers] == [c.digest for c in plain.containers]
    assert dc.kernels() == ("_ZN4slim12scale_kernelIfEEvPT_S1_i", "add_one_kernel")


def test_executable_containers_match_their_objects_byte_for_byte() -> None:
    (app,) = read_device_code(CUDA / "app.fatbin-sections.elf")
    (kern,) = read_device_code(CUDA / "kern.o")
    assert [c.section_offset for c in app.containers] == [0, 0xC60, 0x1A08]
    assert app.containers[2].digest == kern.containers[0].digest
    assert app.containers[0].digest != kern.containers[0].digest
    assert app.containers[0].address == 0x8E9D0
    assert app.wrappers == (2, 1, 1)


def test_host_side_stubs_and_registration() -> None:
    (dc,) = read_device_code(CUDA / "kern.o")
    assert dc.stubs == (
        "_Z35__device_stub__Z14add_one_kernelPiiPii",
        "_ZL48__device_stub__ZN4slim12scale_kernelIfEEvPT_S1_iPffi",
    )
    assert "__cudaRegisterFunction" in dc.registration
    assert "_ZL24__sti____cudaRegisterAllv" in dc.registration
    assert dc.wrappers == (1,)
    (rdc,) = read_device_code(CUDA / "extra.rdc.o")
    assert rdc.module_ids == ("_dd568cf7_8_extra_cu_3a7ef553",)
    assert "__fatbinwrap_dd568cf7_8_extra_cu_3a7ef553" in rdc.registration
    (dl,) = read_device_code(CUDA / "dlink.o")
    assert dl.wrappers == (2,)
    assert dl.module_ids == (
        "def _dd568cf7_8_extra_cu_3a7ef553",
        "def _af7c186e_9_extra2_cu_1174492b",
    )


def test_kernels_are_demangled_for_display() -> None:
    (dc,) = read_device_code(CUDA / "kern.compress-all.o")
    shown = sorted({k.display for e in dc.entries for k in e.kernels or ()})
    assert shown == ["add_one_kernel", "void slim::scale_kernel<float>(float*, float, int)"]
    (ptx,) = [e for e in dc.entries if e.is_ptx]
    assert ptx.arch_name == "compute_90"
    assert ptx.kernels is None, "PTX is not decompressed when the container has cubins"
    from_ptx = entry_kernels((CUDA / "kern.compress-all.o").read_bytes(), ptx)
    assert {k.source for k in from_ptx} == {"ptx"}
    assert [k.mangled for k in from_ptx] == [
        "_ZN4slim12scale_kernelIfEEvPT_S1_i",
        "add_one_kernel",
    ]


def test_debug_entry_carries_source_name_and_larger_header() -> None:
    (dc,) = read_device_code(CUDA / "kern.G.o")
    (e,) = list(dc.entries)
    assert (e.header_size, e.debug, e.obj_name, e.compression) == (
        0x58,
        True,
        "src/cuda/kern.cu",
        "zstd",
    )
    assert e.kernels is not None
    assert len(e.kernels) == 2


def test_headers_only_walk_reads_no_kernels() -> None:
    path = CUDA / "kern.compress-all.o"
    (dc,) = read_device_code(path, kernels=False, digests=False, host=False)
    assert all(e.kernels is None for e in dc.entries)
    assert all(c.digest == "" for c in dc.containers)
    assert dc.stubs == ()
    (full,) = read_device_code(path)
    assert full.stubs
    assert [replace(e, kernels=None) for e in full.entries] == list(dc.entries)


def test_parse_arch() -> None:
    assert [parse_arch(a) for a in ("sm_80", "compute_90", "sm_90a", "86", "lto_89", "x")] == [
        80,
        90,
        90,
        86,
        89,
        None,
    ]


# -- format table --------------------------------------------------------------------------
def test_standalone_fatbin_and_cubin_are_binary_evidence() -> None:
    for name in ("kern.fatbin", "kern.sm_90.cubin"):
        fmt, facts = load_evidence(CUDA / name, "binary")
        assert fmt.name == "cuda-device-code"
        assert all(isinstance(f, DeviceCode) for f in facts)
    assert sniff((CUDA / "kern.o").read_bytes()[:64], CUDA / "kern.o") is False
    assert detect(CUDA / "kern.fatbin", "binary").name == "cuda-device-code"


# -- goldens -------------------------------------------------------------------------------
def _canonical(dcs: list[DeviceCode]) -> list[dict[str, Any]]:
    def fix(v: Any) -> Any:
        if isinstance(v, bytes):
            return v.hex()
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [fix(x) for x in v]
        return v

    out = []
    for dc in dcs:
        d = fix(asdict(dc))
        d["path"] = Path(dc.path).name
        out.append(d)
    return out


GOLDEN_SAMPLES = (
    "kern.o",
    "kern.compress-all.o",
    "kern.cm-speed.o",
    "kern.G.o",
    "extra.rdc.o",
    "dlink.o",
    "kern.fatbin",
    "kern.sm_90.cubin",
    "libkern.a",
    "app.fatbin-sections.elf",
    "librdc.a",
    "app_rdc.fatbin-sections.elf",
)


@pytest.mark.parametrize("name", GOLDEN_SAMPLES)
def test_golden(name: str, request: pytest.FixtureRequest) -> None:
    got = json.dumps(_canonical(read_device_code(CUDA / name)), indent=1, sort_keys=True) + "\n"
    golden = CUDA / f"{name}.expected.json"
    if update_goldens(request):
        golden.write_text(got, encoding="utf-8")
    assert golden.exists(), f"no golden {golden.name}: run with SLIM_UPDATE_GOLDENS=1"
    assert got == golden.read_text(encoding="utf-8")


# -- hostile input -------------------------------------------------------------------------
def _section(data: bytes, name: str) -> tuple[int, int]:
    view = read_elf(data)
    (sec,) = [s for s in view.sections if s.name == name]
    return sec.offset, sec.size


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_bad_container_magic_is_recorded_and_the_rest_is_read(tmp_path: Path) -> None:
    data = bytearray((CUDA / "kern.o").read_bytes())
    off, _ = _section(bytes(data), ".nv_fatbin")
    data[off : off + 4] = b"\xde\xad\xbe\xef"
    (dc,) = read_device_code(_write(tmp_path, "bad.o", bytes(data)))
    assert dc.containers == ()
    (err,) = dc.errors
    assert err.startswith("device code could not be read: ")
    assert f"byte {off}: expected fatbin container magic 0xba55ed50, found 0xefbeadde" in err
    assert "\n" not in err
    assert dc.stubs, "host-side symbols are still read"


def test_fat_size_past_section_end(tmp_path: Path) -> None:
    data = bytearray((CUDA / "kern.o").read_bytes())
    off, _size = _section(bytes(data), ".nv_fatbin")
    struct.pack_into("<Q", data, off + 8, 1 << 40)
    (dc,) = read_device_code(_write(tmp_path, "big.o", bytes(data)))
    (err,) = dc.errors
    assert f"byte {off + 8}: expected a container size within the section" in err
    assert "fat_size 0x10000000000" in err


def test_entry_payload_past_container_end(tmp_path: Path) -> None:
    data = bytearray((CUDA / "kern.o").read_bytes())
    off, _ = _section(bytes(data), ".nv_fatbin")
    struct.pack_into("<Q", data, off + 0x10 + 8, 0x7FFFFFFF)
    (dc,) = read_device_code(_write(tmp_path, "entry.o", bytes(data)))
    (err,) = dc.errors
    assert f"byte {off + 0x18}: expected an entry payload within the container" in err


def _max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_declared_bomb_is_refused_before_allocating(tmp_path: Path) -> None:
    data = bytearray((CUDA / "kern.compress-all.o").read_bytes())
    off, _ = _section(bytes(data), ".nv_fatbin")
    struct.pack_into("<Q", data, off + 0x10 + 0x38, 1 << 40)
    before = _max_rss_mb()
    (dc,) = read_device_code(_write(tmp_path, "bomb.o", bytes(data)))
    assert _max_rss_mb() - before < 64
    (err,) = dc.errors
    assert f"byte {off + 0x10 + 0x38}: expected an uncompressed size of at most" in err
    assert "(a decompression bomb?)" in err
    assert len(list(dc.entries)) == 3, "the headers are still walked"


def _fatbin(entries: list[tuple[int, int, bytes, int, int]]) -> bytes:
    """A container of (kind, flags, payload, compressed_size, uncompressed_size) entries."""
    body = b""
    for kind, flags, data, csize, usize in entries:
        pad = data + b"\0" * (-len(data) % 8)
        body += (
            struct.pack(
                "<HHIQIIHHIIIQQQ",
                kind,
                0x101,
                0x40,
                len(pad),
                csize,
                0,
                8,
                1,
                80,
                0,
                0,
                flags,
                0,
                usize,
            )
            + pad
        )
    return struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(body)) + body


def test_real_zstd_bomb_is_cut_at_the_declared_size(tmp_path: Path) -> None:
    import zstandard

    bomb = zstandard.ZstdCompressor(level=19).compress(b"\0" * (512 << 20))
    assert len(bomb) < 64 << 10
    path = _write(tmp_path, "bomb.fatbin", _fatbin([(2, 0x8011, bomb, len(bomb), 5000)]))
    before = _max_rss_mb()
    (dc,) = read_device_code(path)
    assert _max_rss_mb() - before < 64
    (err,) = dc.errors
    assert "expected 5000 bytes after zstd decompression, found more bytes" in err


def test_lz4_bomb_header_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "lz4.fatbin", _fatbin([(2, 0x2011, b"\x1f\x00" * 8, 16, 1 << 31)]))
    (dc,) = read_device_code(path)
    (err,) = dc.errors
    assert "a decompression bomb?" in err


def test_corrupt_lz4_and_zstd_payloads(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "corrupt.fatbin",
        _fatbin(
            [
                (2, 0x2011, b"\xff" * 32, 32, 4096),
                (2, 0x8011, b"\x28\xb5\x2f\xfd" + b"\xff" * 28, 32, 4096),
            ]
        ),
    )
    (dc,) = read_device_code(path)
    assert len(dc.errors) == 2
    assert "expected a raw LZ4 block, found corrupt data" in dc.errors[0]
    assert "expected a zstd frame, found corrupt data" in dc.errors[1]


def test_payload_that_is_not_a_cubin(tmp_path: Path) -> None:
    path = _write(tmp_path, "notelf.fatbin", _fatbin([(2, 0x11, b"hello world!", 0, 0)]))
    (dc,) = read_device_code(path)
    (err,) = dc.errors
    assert "expected a cubin: an ELF header (7f 45 4c 46), found 68656c6c" in err
    assert "(at byte 0 of the image)" in err


@pytest.mark.parametrize("cut", [0, 3, 17, 100, 0x3A0 + 40, 0x3228, 19000])
def test_truncated_object_is_one_line_error(tmp_path: Path, cut: int) -> None:
    data = (CUDA / "kern.o").read_bytes()[:cut]
    with pytest.raises(InputError) as info:
        read_device_code(_write(tmp_path, "cut.o", data))
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(f"{tmp_path.as_posix()}/cut.o:byte ")
    assert "expected" in msg


@pytest.mark.parametrize("cut", [8, 16, 40, 0x1000, 11623])
def test_truncated_standalone_fatbin(tmp_path: Path, cut: int) -> None:
    data = (CUDA / "kern.fatbin").read_bytes()[:cut]
    with pytest.raises(InputError, match=r":byte \d+: expected "):
        read_device_code(_write(tmp_path, "cut.fatbin", data))


@pytest.mark.parametrize(
    ("data", "found"),
    [
        (b"", "an empty file"),
        (b"hello, world\n", "68656c6c6f2c2077"),
        (b"!<thin>\n", "a thin archive"),
    ],
)
def test_not_device_code(tmp_path: Path, data: bytes, found: str) -> None:
    with pytest.raises(InputError, match=re.escape(found)):
        read_device_code(_write(tmp_path, "x.bin", data))


def test_corrupt_archive_header(tmp_path: Path) -> None:
    data = bytearray((CUDA / "libkern.a").read_bytes())
    data[8 + 58 : 8 + 60] = b"XX"
    with pytest.raises(InputError, match=r"libkern\.a:byte 66: expected an ar member header"):
        read_device_code(_write(tmp_path, "libkern.a", bytes(data)))


def test_bad_archive_member_is_recorded(tmp_path: Path) -> None:
    data = bytearray((CUDA / "libkern.a").read_bytes())
    at = data.find(b"\x7fELF")
    data[at + 4] = 9
    (dc,) = read_device_code(_write(tmp_path, "libkern.a", bytes(data)))
    assert dc.member == "kern.o"
    (err,) = dc.errors
    assert "(kern.o): byte" in err
    assert "expected ELF class 1/2" in err


def test_total_decompression_budget(tmp_path: Path) -> None:
    (dc,) = read_device_code(
        CUDA / "kern.compress-all.o", limits=FatbinLimits(max_total_decompressed=6000)
    )
    assert [e.arch for e in dc.entries if e.kernels is not None] == [80]
    skipped = [e for e in dc.entries if e.error]
    assert [e.arch for e in skipped] == [90]
    assert "decompression budget of this file spent" in skipped[0].error


SEEDS = [(CUDA / n).read_bytes() for n in ("kern.fatbin", "kern.compress-all.o", "kern.cm-speed.o")]


@settings(
    deadline=None, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.sampled_from(range(len(SEEDS))),
    edits=st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), max_size=8),
    cut=st.integers(0, 1 << 16),
)
def test_mutated_samples_never_crash(
    tmp_path: Path, seed: int, edits: list[tuple[int, int]], cut: int
) -> None:
    data = bytearray(SEEDS[seed])
    for at, value in edits:
        data[at % len(data)] = value
    path = _write(tmp_path, "m.bin", bytes(data[: max(cut, 1)] if cut < len(data) else data))
    out: list[DeviceCode] = []
    error = ""
    try:
        out = read_device_code(path)
    except InputError as exc:
        error = str(exc)
    assert "\n" not in error
    for dc in out:
        assert all("\n" not in e for e in dc.errors)


@settings(
    deadline=None, max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=512))
def test_arbitrary_bytes_never_crash(tmp_path: Path, data: bytes) -> None:
    for prefix in (
        b"",
        struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(data)),
        b"\x7fELF\x02\x01\x01",
    ):
        path = _write(tmp_path, "a.bin", prefix + data)
        with contextlib.suppress(InputError):
            read_device_code(path)


# -- regenerated with nvcc, when present ---------------------------------------------------
@pytest.mark.skipif(
    shutil.which("nvcc") is None, reason="nvcc not installed: committed samples only"
)
def test_fresh_nvcc_object_walks_like_the_committed_one(tmp_path: Path) -> None:
    src = CUDA.parent / "src" / "cuda" / "kern.cu"
    out = tmp_path / "kern.o"
    subprocess.run(
        [
            "nvcc",
            "-gencode",
            "arch=compute_80,code=sm_80",
            "-gencode",
            "arch=compute_90,code=[sm_90,compute_90]",
            "-O2",
            "-c",
            str(src),
            "-o",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    (fresh,) = read_device_code(out)
    (kept,) = read_device_code(CUDA / "kern.o")

    def shape(dc: DeviceCode) -> list[tuple[str, int, str, int, tuple[str, ...]]]:
        return [
            (
                e.kind,
                e.arch,
                e.compression,
                e.header_size,
                tuple(k.mangled for k in e.kernels or ()),
            )
            for e in dc.entries
        ]

    assert shape(fresh) == shape(kept)
    assert isinstance(next(iter(fresh.entries)), FatbinEntry)


def test_containers_separated_by_long_zero_padding(tmp_path: Path) -> None:
    one = (CUDA / "kern.fatbin").read_bytes()
    path = _write(tmp_path, "two.fatbin", one + b"\0" * 5000 + one + b"\0" * 3)
    (dc,) = read_device_code(path)
    assert dc.errors == ()
    assert [c.offset for c in dc.containers] == [0, len(one) + 5000]
    assert dc.containers[0].digest == dc.containers[1].digest


def test_garbage_after_padding_is_reported(tmp_path: Path) -> None:
    one = (CUDA / "kern.fatbin").read_bytes()
    path = _write(tmp_path, "junk.fatbin", one + b"\0" * 13 + b"\x01" * 40)
    with pytest.raises(InputError, match=rf":byte {len(one) + 8}: expected fatbin container magic"):
        read_device_code(path)


def test_rdc_device_functions_are_not_kernels() -> None:
    members = {dc.member: dc for dc in read_device_code(CUDA / "librdc.a")}
    assert sorted(members) == ["extra.o", "extra2.o"]
    assert members["extra.o"].kernels() == ("_Z10rdc_kernelPi",)
    (entry,) = list(members["extra2.o"].entries)
    assert entry.kernels == (), "_Z10rdc_helperi is a __device__ function (st_other 0)"
    assert members["extra2.o"].containers[0].section == "__nv_relfatbin"
    (app,) = read_device_code(CUDA / "app_rdc.fatbin-sections.elf")
    assert [c.section for c in app.containers] == [".nv_fatbin", *["__nv_relfatbin"] * 3]
    assert app.containers[0].entries[0].kernels is not None
    assert [k.mangled for k in app.containers[0].entries[0].kernels] == ["_Z10rdc_kernelPi"]
