"""CUDA device code in ELF files, static archives, `.fatbin` and `.cubin` files.

Walks every fatbin container in `.nv_fatbin`, `__nv_relfatbin` (and PE-style `.nv_fatb`)
sections, every entry header (variable size), and, only when asked, decompresses cubins
(zstd frames, raw LZ4 blocks, output bounded by `FatbinLimits`) to read kernel names from
their symbol tables. Section headers and archive members are read with small bounded
readers over an mmap, so a 500 MB library is walked without reading it all. Reference:
formats.md section 8.
"""

from __future__ import annotations

import hashlib
import mmap
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from slim.errors import InputError
from slim.ingest._io import open_regular
from slim.model.gpu import (
    FLAG_ZSTD,
    KIND_ELF,
    KIND_PTX,
    DeviceCode,
    FatbinContainer,
    FatbinEntry,
    Kernel,
)

FATBIN_MAGIC = 0xBA55ED50
WRAPPER_MAGIC = 0x466243B1
ELF_MAGIC = b"\x7fELF"
AR_MAGIC = b"!<arch>\n"
THIN_AR_MAGIC = b"!<thin>\n"
EM_CUDA = 190
STO_CUDA_ENTRY = 0x10
STT_FUNC = 2
SHT_SYMTAB = 2
SHT_NOBITS = 8

_ELF_KINDS = {1: "rel", 2: "exec", 3: "dyn"}
CONTAINER_SECTIONS = (".nv_fatbin", "__nv_relfatbin", ".nv_fatb")
WRAPPER_SECTIONS = (".nvFatBinSegment",)
MODULE_ID_SECTIONS = ("__nv_module_id", ".nv_module_id")
_CONTAINER_HEADER = struct.Struct("<IHHQ")
_ENTRY_HEADER = struct.Struct("<HHIQIIHHIIIQQQ")
_ENTRY_MIN = _ENTRY_HEADER.size
_REGISTRATION = (
    b"__cudaRegisterFatBinary",
    b"__cudaRegisterFunction",
    b"__cudaRegisterLinkedBinary",
    b"__fatbinwrap_",
    b"__cudaRegisterAll",
)
_PTX_ENTRY = re.compile(rb"\.entry\s+([A-Za-z_$%][\w$%]*)")
_STUB = re.compile(r"^_ZL?\d+__device_stub__[\w$]+$")
_REGISTRATION_NAME = re.compile(
    r"^(?:__cudaRegister\w+|__fatbinwrap_\w+|_ZL?\d+__sti____cudaRegisterAllv?|"
    r"_ZL?\d+__cudaRegisterLinkedBinary\w*)$"
)


@dataclass(frozen=True)
class FatbinLimits:
    """Caps for hostile input: one image, expansion ratio, and the total per file."""

    max_image_bytes: int = 1 << 30
    max_ratio: int = 1000
    ratio_floor_bytes: int = 1 << 20
    max_total_decompressed: int = 32 << 30
    max_entries: int = 1_000_000
    max_symbols: int = 10_000_000


DEFAULT_LIMITS = FatbinLimits()


class _BadError(Exception):
    """A structural problem at an absolute byte offset (turned into InputError or a note)."""

    def __init__(self, offset: int, expected: str, found: str) -> None:
        super().__init__(f"byte {offset}: expected {expected}, found {found}")
        self.offset = offset
        self.expected = expected
        self.found = found


@dataclass(frozen=True, slots=True)
class Section:
    """An ELF section header: name, type, flags, file offset (absolute), size, address."""

    name: str
    type: int
    flags: int
    offset: int
    size: int
    address: int
    link: int
    entsize: int


@dataclass(frozen=True, slots=True)
class ElfView:
    """Bounded view of one ELF image at `base` in a buffer: class, order, sections."""

    base: int
    size: int
    is64: bool
    endian: str
    machine: int
    elf_type: int
    flags: int
    abi_version: int
    sections: tuple[Section, ...]


@dataclass
class _Budget:
    """Decompressed bytes left for one file (a cap on time, not only memory)."""

    left: int


# -- ELF ------------------------------------------------------------------------------------
def read_elf(
    buf: bytes | mmap.mmap | memoryview,
    base: int = 0,
    size: int | None = None,
    *,
    names: bool = True,
) -> ElfView:
    """Parse the ELF header and section headers of the image at `base` (bounds-checked).

    `names=False` leaves section names empty (a cubin has three sections per kernel).
    """
    end = len(buf) if size is None else base + size
    if end - base < 52 or bytes(buf[base : base + 4]) != ELF_MAGIC:
        raise _BadError(
            base, "an ELF header (7f 45 4c 46)", _hex(buf[base : base + 4]) or "end of file"
        )
    ei_class, ei_data, abi_version = buf[base + 4], buf[base + 5], buf[base + 8]
    if ei_class not in (1, 2) or ei_data not in (1, 2):
        raise _BadError(base + 4, "ELF class 1/2 and data 1/2", f"class {ei_class}, data {ei_data}")
    is64, e = ei_class == 2, "<" if ei_data == 1 else ">"
    hdr = struct.Struct(e + ("HHIQQQIHHHHHH" if is64 else "HHIIIIIHHHHHH"))
    if end - base < 16 + hdr.size:
        raise _BadError(base, "a complete ELF header", f"{end - base} bytes")
    fields = hdr.unpack_from(buf, base + 16)
    etype, machine, shoff, eflags = fields[0], fields[1], fields[5], fields[6]
    shentsize, shnum, shstrndx = fields[10], fields[11], fields[12]
    shdr = struct.Struct(e + ("IIQQQQIIQQ" if is64 else "IIIIIIIIII"))
    if shoff == 0:
        return ElfView(base, end - base, is64, e, machine, etype, eflags, abi_version, ())
    if shentsize != shdr.size:
        raise _BadError(base + 16, f"section header size {shdr.size}", str(shentsize))
    raws = _section_headers(buf, base, end, shoff, shnum, shdr)
    if shnum == 0:
        shnum = len(raws)
    at = base + (62 if is64 else 50)
    if shstrndx == 0xFFFF:
        shstrndx, at = raws[0][6], base + shoff + (40 if is64 else 24)
    table = _name_table(buf, base, end, raws, shstrndx, at) if names else b""
    sections = []
    for i, (nm, typ, flags, addr, off, sz, link, _info, _al, entsize) in enumerate(raws):
        if typ != SHT_NOBITS and i and base + off + sz > end:
            raise _BadError(
                base + shoff + i * shdr.size,
                "a section inside the file",
                f"section {i} at {off:#x} size {sz:#x} past the end ({end - base:#x})",
            )
        name = _cstr(table, nm) if names else ""
        sections.append(Section(name, typ, flags, base + off, sz, addr, link, entsize))
    return ElfView(base, end - base, is64, e, machine, etype, eflags, abi_version, tuple(sections))


def _section_headers(
    buf: bytes | mmap.mmap | memoryview,
    base: int,
    end: int,
    shoff: int,
    shnum: int,
    shdr: struct.Struct,
) -> list[tuple[int, ...]]:
    """The raw section headers (e_shnum 0: the count is section 0's sh_size)."""
    if base + shoff + shdr.size > end:
        raise _BadError(base + 16, "a section header table inside the file", f"e_shoff {shoff:#x}")
    raw0 = shdr.unpack_from(buf, base + shoff)
    if shnum == 0:
        shnum = raw0[5]
    if base + shoff + shnum * shdr.size > end:
        raise _BadError(base + shoff, f"{shnum} section headers inside the file", "the end of file")
    return [shdr.unpack_from(buf, base + shoff + i * shdr.size) for i in range(shnum)]


def _name_table(
    buf: bytes | mmap.mmap | memoryview,
    base: int,
    end: int,
    raws: list[tuple[int, ...]],
    shstrndx: int,
    at: int,
) -> bytes:
    """The section-name table; an e_shstrndx out of range, or naming a section that is not
    a string table, is an error at `at` (every name, `.nv_fatbin` included, would be lost)."""
    if shstrndx == 0:
        return b""
    if not shstrndx < len(raws):
        raise _BadError(at, f"an e_shstrndx below the section count ({len(raws)})", str(shstrndx))
    s = raws[shstrndx]
    if s[1] != 3:
        raise _BadError(
            at, "an e_shstrndx naming a string table", f"section {shstrndx} of type {s[1]}"
        )
    if base + s[4] + s[5] > end:
        raise _BadError(at, "a section name table inside the file", f"{s[4]:#x}+{s[5]}")
    return bytes(buf[base + s[4] : base + s[4] + s[5]])


def _cstr(table: bytes, at: int) -> str:
    if at >= len(table):
        return ""
    stop = table.find(b"\0", at)
    return table[at : stop if stop >= 0 else len(table)].decode("utf-8", "replace")


def _hex(b: bytes | memoryview | mmap.mmap) -> str:
    return bytes(b).hex()


def cubin_arch(view: ElfView) -> int:
    """The SM number of a cubin from `e_flags` (bits 8-15 from ABI 8 on, else the low byte)."""
    return (view.flags >> 8) & 0xFF if view.abi_version >= 8 else view.flags & 0xFF


# -- fatbin containers -----------------------------------------------------------------------
def walk_section(
    buf: bytes | mmap.mmap | memoryview,
    offset: int,
    size: int,
    section: str,
    address: int = 0,
    digests: bool = True,
) -> tuple[list[FatbinContainer], list[str]]:
    """Every container in a section at file `offset`; problems become `could not read` notes."""
    containers: list[FatbinContainer] = []
    errors: list[str] = []
    pos, end = offset, offset + size
    n_entries = 0
    while pos < end:
        if buf[pos] == 0:
            nonzero = _skip_zeros(buf, pos, end)
            if nonzero >= end:
                break
            pos = offset + ((nonzero - offset) & ~7)
        if end - pos < 16:
            errors.append(
                f"{section}: byte {pos}: expected a 16-byte fatbin container header, "
                f"found {end - pos} trailing bytes"
            )
            break
        try:
            c = _container(buf, pos, end, section, offset, address, digests)
        except _BadError as bad:
            errors.append(f"{section}: {bad}")
            break
        n_entries += len(c.entries)
        if n_entries > DEFAULT_LIMITS.max_entries:
            errors.append(f"{section}: byte {pos}: more than {DEFAULT_LIMITS.max_entries} entries")
            break
        containers.append(c)
        pos = c.offset + c.size
    return containers, errors


def _skip_zeros(buf: bytes | mmap.mmap | memoryview, pos: int, end: int) -> int:
    """The offset of the first non-zero byte in [pos, end), or `end` (padding between
    containers), reading a page at a time."""
    while pos < end:
        chunk = bytes(buf[pos : min(end, pos + 4096)])
        rest = chunk.lstrip(b"\0")
        if rest:
            return pos + len(chunk) - len(rest)
        pos += len(chunk)
    return end


def _is_zero(buf: bytes | mmap.mmap | memoryview, lo: int, hi: int) -> bool:
    return bytes(buf[lo:hi]).count(0) == hi - lo


def _container(
    buf: bytes | mmap.mmap | memoryview,
    pos: int,
    end: int,
    section: str,
    sec_off: int,
    sec_addr: int,
    digests: bool,
) -> FatbinContainer:
    magic, version, hsize, fat_size = _CONTAINER_HEADER.unpack_from(buf, pos)
    if magic != FATBIN_MAGIC:
        raise _BadError(pos, f"fatbin container magic {FATBIN_MAGIC:#010x}", f"{magic:#010x}")
    if hsize < 16 or pos + hsize > end:
        raise _BadError(pos + 6, "a container header size >= 16 inside the section", f"{hsize:#x}")
    if fat_size > end - pos - hsize:
        raise _BadError(
            pos + 8,
            f"a container size within the section ({end - pos - hsize:#x} bytes left)",
            f"fat_size {fat_size:#x}",
        )
    body_end = pos + hsize + fat_size
    entries = []
    p = pos + hsize
    while p < body_end:
        if body_end - p < _ENTRY_MIN:
            if _is_zero(buf, p, body_end):
                break
            raise _BadError(
                p, f"a fatbin entry header of {_ENTRY_MIN} bytes", f"{body_end - p} bytes"
            )
        e = _entry(buf, p, body_end, pos)
        entries.append(e)
        p += e.header_size + e.payload_size
    digest = ""
    if digests:
        digest = hashlib.blake2b(buf[pos:body_end], digest_size=16).hexdigest()
    return FatbinContainer(
        section=section,
        section_offset=pos - sec_off,
        offset=pos,
        version=version,
        header_size=hsize,
        fat_size=fat_size,
        entries=tuple(entries),
        digest=digest,
        address=sec_addr + (pos - sec_off) if sec_addr else 0,
    )


def _entry(buf: bytes | mmap.mmap | memoryview, p: int, body_end: int, cpos: int) -> FatbinEntry:
    (
        kind,
        ver,
        hsize,
        psize,
        csize,
        _unk,
        minor,
        major,
        arch,
        name_off,
        name_len,
        flags,
        _z,
        usize,
    ) = _ENTRY_HEADER.unpack_from(buf, p)
    if hsize < _ENTRY_MIN or hsize > body_end - p:
        raise _BadError(
            p + 4, f"an entry header size in [{_ENTRY_MIN:#x}, container end]", f"{hsize:#x}"
        )
    if psize > body_end - p - hsize:
        raise _BadError(
            p + 8,
            f"an entry payload within the container ({body_end - p - hsize:#x} bytes left)",
            f"payload_size {psize:#x}",
        )
    if csize > psize:
        raise _BadError(p + 16, f"compressed_size <= payload_size {psize:#x}", f"{csize:#x}")
    name = ""
    if name_off and name_len and name_off + name_len <= hsize + psize:
        raw = bytes(buf[p + name_off : p + name_off + name_len])
        name = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
    head = bytes(buf[p + hsize : p + hsize + min(8, psize)])
    return FatbinEntry(
        offset=p,
        container_offset=cpos,
        kind_code=kind,
        version=ver,
        header_size=hsize,
        payload_size=psize,
        compressed_size=csize,
        code_major=major,
        code_minor=minor,
        arch=arch,
        obj_name=name,
        flags=flags,
        uncompressed_size=usize,
        payload_head=head,
    )


# -- payloads and kernels --------------------------------------------------------------------
def payload(
    buf: bytes | mmap.mmap | memoryview,
    entry: FatbinEntry,
    limits: FatbinLimits = DEFAULT_LIMITS,
) -> bytes:
    """The image of an entry, decompressed with its output bounded; raises `_BadError`.

    Stored PTX keeps its NUL padding (callers reading it as text strip it).
    """
    start = entry.offset + entry.header_size
    if not entry.compressed:
        return bytes(buf[start : start + entry.payload_size])
    n_in = entry.compressed_size or entry.payload_size
    n_out = entry.uncompressed_size
    cap = _image_cap(entry, limits)
    if n_out > cap:
        raise _BadError(
            entry.offset + 0x38,
            f"an uncompressed size of at most {cap} bytes for {n_in} compressed bytes",
            f"{n_out} (a decompression bomb?)",
        )
    src = bytes(buf[start : start + n_in])
    if entry.flags & FLAG_ZSTD:
        import zstandard

        try:
            reader = zstandard.ZstdDecompressor().stream_reader(src)
            out = reader.read(n_out + 1)
        except zstandard.ZstdError as exc:
            raise _BadError(start, "a zstd frame", f"corrupt data ({exc})") from None
    else:
        import lz4.block

        try:
            out = lz4.block.decompress(src, uncompressed_size=n_out)
        except (lz4.block.LZ4BlockError, ValueError) as exc:
            raise _BadError(start, "a raw LZ4 block", f"corrupt data ({exc})") from None
    if len(out) != n_out:
        raise _BadError(
            start,
            f"{n_out} bytes after {entry.compression} decompression",
            f"{'more' if len(out) > n_out else len(out)} bytes",
        )
    return out


def _image_cap(entry: FatbinEntry, limits: FatbinLimits) -> int:
    """The most bytes an entry may expand to (its stored size when not compressed)."""
    if not entry.compressed:
        return entry.payload_size
    n_in = entry.compressed_size or entry.payload_size
    return min(limits.max_image_bytes, max(limits.ratio_floor_bytes, n_in * limits.max_ratio))


def cubin_kernels(image: bytes, where: int = 0) -> tuple[Kernel, ...]:
    """Kernels of a cubin: `FUNC` symbols with STO_CUDA_ENTRY; without a symbol table,
    the `.nv.info.<name>` sections (device functions of `-rdc` cubins have those too)."""
    try:
        view = read_elf(image, names=False)
    except _BadError as bad:
        found = f"{bad.found} (at byte {bad.offset} of the image)"
        raise _BadError(where, f"a cubin: {bad.expected}", found) from None
    if view.machine != EM_CUDA:
        raise _BadError(where, f"a cubin (e_machine {EM_CUDA})", f"e_machine {view.machine}")
    out: dict[str, Kernel] = {}
    for sec in view.sections:
        if sec.type != SHT_SYMTAB or not sec.entsize:
            continue
        link = view.sections[sec.link] if sec.link < len(view.sections) else None
        strtab = image[link.offset : link.offset + link.size] if link is not None else b""
        sym = struct.Struct(view.endian + ("IBBHQQ" if view.is64 else "IIIBBH"))
        if sec.entsize != sym.size:
            raise _BadError(
                where + sec.offset, f"symbol entries of {sym.size} bytes", str(sec.entsize)
            )
        count = sec.size // sym.size
        if count > DEFAULT_LIMITS.max_symbols:
            raise _BadError(where + sec.offset, "a plausible symbol count", str(count))
        for fields in sym.iter_unpack(image[sec.offset : sec.offset + count * sym.size]):
            if view.is64:
                name_at, info, other, _shndx, _value, size = fields
            else:
                name_at, _value, size, info, other, _shndx = fields
            if info & 0xF == STT_FUNC and other & STO_CUDA_ENTRY:
                name = _cstr(strtab, name_at)
                out[name] = Kernel(name, size, "symtab")
    if not any(sec.type == SHT_SYMTAB for sec in view.sections):
        view = read_elf(image)
        for sec in view.sections:
            if sec.name.startswith(".nv.info.") and len(sec.name) > 9:
                name = sec.name[9:]
                text = next((s for s in view.sections if s.name == f".text.{name}"), None)
                out[name] = Kernel(name, text.size if text else 0, "nv.info")
    return tuple(sorted(out.values(), key=lambda k: k.mangled))


def ptx_kernels(text: bytes) -> tuple[Kernel, ...]:
    """Kernels declared in PTX (`.entry name(`); their size is unknown (0)."""
    names = sorted({m.group(1).decode("utf-8", "replace") for m in _PTX_ENTRY.finditer(text)})
    return tuple(Kernel(n, 0, "ptx") for n in names)


def entry_kernels(
    buf: bytes | mmap.mmap | memoryview, entry: FatbinEntry, limits: FatbinLimits = DEFAULT_LIMITS
) -> tuple[Kernel, ...]:
    """Kernels of one entry (decompressing it); raises `_BadError` on a corrupt image."""
    image = payload(buf, entry, limits)
    if entry.kind_code == KIND_ELF:
        return cubin_kernels(image, entry.offset + entry.header_size)
    if entry.kind_code == KIND_PTX:
        return ptx_kernels(image)
    return ()


def _with_kernels(
    buf: bytes | mmap.mmap | memoryview,
    c: FatbinContainer,
    budget: _Budget,
    limits: FatbinLimits,
) -> FatbinContainer:
    """The container with its kernels read: from every cubin, and from PTX only when the
    container has no cubin (PTX is the biggest image and names the same kernels)."""
    entries = []
    has_cubin = any(e.is_cubin for e in c.entries)
    for e in c.entries:
        if e.is_ptx and has_cubin:
            entries.append(e)
            continue
        cost = e.image_bytes
        if cost <= _image_cap(e, limits):
            if cost > budget.left:
                err = f"byte {e.offset}: kernels not read: decompression budget of this file spent"
                entries.append(_replace_entry(e, None, err))
                continue
            budget.left -= cost
        try:
            kernels = entry_kernels(buf, e, limits)
        except _BadError as bad:
            entries.append(_replace_entry(e, None, str(bad)))
            continue
        entries.append(_replace_entry(e, kernels, ""))
    return FatbinContainer(
        section=c.section,
        section_offset=c.section_offset,
        offset=c.offset,
        version=c.version,
        header_size=c.header_size,
        fat_size=c.fat_size,
        entries=tuple(entries),
        digest=c.digest,
        address=c.address,
    )


def _replace_entry(e: FatbinEntry, kernels: tuple[Kernel, ...] | None, error: str) -> FatbinEntry:
    from dataclasses import replace

    return replace(e, kernels=kernels, error=error)


# -- host side ---------------------------------------------------------------------------------
def _host_names(buf: bytes | mmap.mmap | memoryview, view: ElfView) -> tuple[list[str], list[str]]:
    """`__device_stub__` and CUDA registration symbol names from .strtab/.dynstr."""
    stubs: set[str] = set()
    reg: set[str] = set()
    for sec in view.sections:
        if sec.name not in (".strtab", ".dynstr"):
            continue
        table = bytes(buf[sec.offset : sec.offset + sec.size])
        for needle in (b"__device_stub__", *_REGISTRATION):
            at = table.find(needle)
            while at >= 0:
                lo = table.rfind(b"\0", 0, at) + 1
                hi = table.find(b"\0", at)
                hi = len(table) if hi < 0 else hi
                name = table[lo:hi].decode("utf-8", "replace")
                if _STUB.match(name):
                    stubs.add(name)
                elif _REGISTRATION_NAME.match(name):
                    reg.add(name)
                at = table.find(needle, hi)
    return sorted(stubs), sorted(reg)


def _wrappers(buf: bytes | mmap.mmap | memoryview, sec: Section, errors: list[str]) -> list[int]:
    """Versions of the `__fatBinC_Wrapper_t` records (1 plain, 2 device-linked)."""
    out = []
    for at in range(sec.offset, sec.offset + sec.size - 23, 24):
        magic, version = struct.unpack_from("<II", buf, at)
        if magic != WRAPPER_MAGIC:
            errors.append(
                f"{sec.name}: byte {at}: expected fatbin wrapper magic {WRAPPER_MAGIC:#010x}, "
                f"found {magic:#010x}"
            )
            break
        out.append(version)
    return out


# -- files -------------------------------------------------------------------------------------
def device_code_of_elf(
    buf: bytes | mmap.mmap | memoryview,
    path: str,
    member: str = "",
    base: int = 0,
    size: int | None = None,
    *,
    kernels: bool = True,
    digests: bool = True,
    host: bool = True,
    limits: FatbinLimits = DEFAULT_LIMITS,
    budget: _Budget | None = None,
) -> DeviceCode:
    """Device code of one ELF image; a bad ELF header raises `_BadError`, a bad fatbin is noted."""
    view = read_elf(buf, base, size)
    budget = budget or _Budget(limits.max_total_decompressed)
    if view.machine == EM_CUDA:
        return _cubin_file(buf, view, path, member, kernels, limits)
    containers: list[FatbinContainer] = []
    errors: list[str] = []
    wrappers: list[int] = []
    module_ids: list[str] = []
    for sec in view.sections:
        if sec.name in CONTAINER_SECTIONS and sec.type != SHT_NOBITS:
            found, errs = walk_section(buf, sec.offset, sec.size, sec.name, sec.address, digests)
            if kernels:
                found = [_with_kernels(buf, c, budget, limits) for c in found]
            containers.extend(found)
            errors.extend(errs)
        elif sec.name in WRAPPER_SECTIONS and sec.type != SHT_NOBITS:
            wrappers.extend(_wrappers(buf, sec, errors))
        elif sec.name in MODULE_ID_SECTIONS and sec.type != SHT_NOBITS:
            raw = bytes(buf[sec.offset : sec.offset + min(sec.size, 1 << 20)])
            module_ids.extend(s.decode("utf-8", "replace") for s in raw.split(b"\0") if s)
    stubs, reg = _host_names(buf, view) if host else ([], [])
    for c in containers:
        errors.extend(f"{c.section}: {e.error}" for e in c.entries if e.error)
    where = f"{path}({member})" if member else path
    return DeviceCode(
        path=path,
        member=member,
        containers=tuple(containers),
        kind=_ELF_KINDS.get(view.elf_type, f"type-{view.elf_type}"),
        stubs=tuple(stubs),
        registration=tuple(reg),
        module_ids=tuple(module_ids),
        wrappers=tuple(wrappers),
        errors=tuple(f"device code could not be read: {where}: {e}" for e in errors),
    )


def _cubin_file(
    buf: bytes | mmap.mmap | memoryview,
    view: ElfView,
    path: str,
    member: str,
    kernels: bool,
    limits: FatbinLimits,
) -> DeviceCode:
    """A standalone cubin, presented as one stored entry of a pseudo-container."""
    image = bytes(buf[view.base : view.base + view.size])
    entry = FatbinEntry(
        offset=view.base,
        container_offset=view.base,
        kind_code=KIND_ELF,
        version=0,
        header_size=0,
        payload_size=view.size,
        compressed_size=0,
        code_major=0,
        code_minor=0,
        arch=cubin_arch(view),
        obj_name="",
        flags=0x11 if view.is64 else 0x10,
        uncompressed_size=0,
        payload_head=image[:8],
    )
    errors: list[str] = []
    if kernels:
        try:
            entry = _replace_entry(entry, cubin_kernels(image, view.base), "")
        except _BadError as bad:
            errors.append(f"device code could not be read: {path}: {bad}")
    container = FatbinContainer("", 0, view.base, 0, 0, view.size, (entry,))
    return DeviceCode(path, member, (container,), kind="cubin", errors=tuple(errors))


def _fatbin_file(
    buf: bytes | mmap.mmap | memoryview, path: str, kernels: bool, limits: FatbinLimits
) -> DeviceCode:
    found, errs = walk_section(buf, 0, len(buf), "")
    if errs:
        raise _BadError(*_first_offset(errs[0]))
    budget = _Budget(limits.max_total_decompressed)
    if kernels:
        found = [_with_kernels(buf, c, budget, limits) for c in found]
    errors = [
        f"device code could not be read: {path}: {e.error}"
        for c in found
        for e in c.entries
        if e.error
    ]
    return DeviceCode(path, "", tuple(found), kind="fatbin", errors=tuple(errors))


def _first_offset(err: str) -> tuple[int, str, str]:
    m = re.search(r"byte (\d+): expected (.*), found (.*)$", err)
    if m is None:
        return (0, "a fatbin container", err)
    return (int(m.group(1)), m.group(2), m.group(3))


def iter_archive(buf: bytes | mmap.mmap | memoryview, path: str) -> Iterator[tuple[str, int, int]]:
    """(member name, data offset, size) of every regular member of a `!<arch>` archive."""
    end = len(buf)
    pos = 8
    longnames = b""
    while pos + 60 <= end:
        hdr = bytes(buf[pos : pos + 60])
        if hdr[58:60] != b"`\n":
            raise _BadError(pos + 58, "an ar member header ending in '`\\n'", repr(hdr[58:60]))
        try:
            size = int(hdr[48:58].decode("ascii").strip() or "0")
        except ValueError:
            raise _BadError(pos + 48, "a decimal member size", repr(hdr[48:58])) from None
        data = pos + 60
        if size < 0 or data + size > end:
            raise _BadError(
                pos + 48, f"a member size within the file ({end - data} bytes left)", str(size)
            )
        raw = hdr[:16].decode("utf-8", "replace").rstrip()
        name = raw
        skip = 0
        if raw in ("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED"):
            name = ""
        elif raw == "//":
            longnames = bytes(buf[data : data + size])
            name = ""
        elif raw.startswith("#1/"):
            n = int(raw[3:]) if raw[3:].isdecimal() else 0
            name = bytes(buf[data : data + n]).rstrip(b"\0").decode("utf-8", "replace")
            skip = n
            if name.startswith("__.SYMDEF"):
                name = ""
        elif raw.startswith("/") and raw[1:].isdecimal():
            at = int(raw[1:])
            stop = longnames.find(b"/\n", at)
            name = longnames[at : stop if stop >= 0 else len(longnames)].decode("utf-8", "replace")
        elif raw.endswith("/"):
            name = raw[:-1]
        if name:
            yield name, data + skip, size - skip
        pos = data + size + (size & 1)


def read_device_code(
    path: str | Path,
    *,
    kernels: bool = True,
    digests: bool = True,
    host: bool = True,
    limits: FatbinLimits = DEFAULT_LIMITS,
) -> list[DeviceCode]:
    """Device code of a file: one `DeviceCode` per ELF image (an archive gives one per member).

    A file that is not ELF, an archive, a fatbin or a cubin, or whose ELF/archive structure
    is broken, raises `InputError` with the byte offset. A corrupt fatbin inside a sound
    ELF file is recorded in `DeviceCode.errors` instead. `kernels=False`, `digests=False`,
    `host=False` skip the cubins' symbol tables, the container hashes (for attribution) and
    the host-side stub names: what remains is the header walk that `cuobjdump -lelf` does.
    """
    p = Path(path)
    name = p.as_posix()
    with open_regular(p) as f:
        try:
            mm: mmap.mmap | bytes = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:
            mm = b""
        try:
            return _read(mm, name, kernels, digests, host, limits)
        except _BadError as bad:
            raise InputError(name, bad.expected, bad.found, offset=bad.offset) from None
        finally:
            if isinstance(mm, mmap.mmap):
                mm.close()


def _read(
    buf: mmap.mmap | bytes,
    name: str,
    kernels: bool,
    digests: bool,
    host: bool,
    limits: FatbinLimits,
) -> list[DeviceCode]:
    head = bytes(buf[:8])
    if head[:4] == ELF_MAGIC:
        return [
            device_code_of_elf(
                buf, name, kernels=kernels, digests=digests, host=host, limits=limits
            )
        ]
    if len(head) >= 4 and struct.unpack_from("<I", head)[0] == FATBIN_MAGIC:
        return [_fatbin_file(buf, name, kernels, limits)]
    if head == THIN_AR_MAGIC:
        raise _BadError(0, "an archive with its members inside (`!<arch>`)", "a thin archive")
    if head == AR_MAGIC:
        budget = _Budget(limits.max_total_decompressed)
        out = []
        for member, off, size in iter_archive(buf, name):
            if bytes(buf[off : off + 4]) != ELF_MAGIC:
                continue
            try:
                dc = device_code_of_elf(
                    buf,
                    name,
                    member,
                    off,
                    size,
                    kernels=kernels,
                    digests=digests,
                    host=host,
                    limits=limits,
                    budget=budget,
                )
            except _BadError as bad:
                dc = DeviceCode(
                    name,
                    member,
                    (),
                    kind="rel",
                    errors=(f"device code could not be read: {name}({member}): {bad}",),
                )
            out.append(dc)
        return out
    raise _BadError(
        0, "an ELF file, an ar archive, a fatbin or a cubin", _hex(head) or "an empty file"
    )


# -- reader contract -------------------------------------------------------------------------
def sniff(head: bytes, path: Path) -> bool:
    """Standalone device code only: a fatbin container or a cubin (ELF for NVIDIA CUDA)."""
    if len(head) >= 4 and struct.unpack_from("<I", head)[0] == FATBIN_MAGIC:
        return True
    if head[:4] == ELF_MAGIC and len(head) >= 20:
        order = "<" if head[5] == 1 else ">"
        return bool(struct.unpack_from(order + "H", head, 18)[0] == EM_CUDA)
    return False


def load(path: Path) -> list[object]:
    """Evidence reader for `binary`: the device code of a `.fatbin` or `.cubin` file."""
    return list(read_device_code(path))


def device_code_of(path: str | Path) -> list[object]:
    """For the ELF reader: device code of an executable, library, object or archive.

    Never raises: a file the ELF reader accepted but whose device code cannot be read
    gives one `DeviceCode` whose `errors` say why, so the rest is still analyzed.
    """
    try:
        return list(read_device_code(path))
    except InputError as exc:
        name = Path(path).as_posix()
        return [DeviceCode(name, "", (), errors=(f"device code could not be read: {exc}",))]
