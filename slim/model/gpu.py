"""CUDA device code found inside a host binary: fatbin containers, entries and kernels.

Pure data: `slim.ingest.binary.fatbin` fills these from ELF files, archive members, standalone
`.fatbin` and `.cubin` files; the GPU analyzer (SLIM003/SLIM005) reads them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass

#: Entry flag bits (fatbin entry header offset 0x28).
FLAG_64BIT = 0x1
FLAG_DEBUG = 0x2
FLAG_HOST_LINUX = 0x10
FLAG_LZ4 = 0x2000
FLAG_ZSTD = 0x8000
FLAG_ARCH_SPECIFIC = 0x100000
"""`sm_90a`: the image runs on that very architecture only (nvcc `compute_90a`)."""
FLAG_FAMILY_SPECIFIC = 0x200000
"""`sm_103f`: the image runs on its family (same major, this minor or later)."""

KIND_PTX = 1
KIND_ELF = 2


@functools.lru_cache(maxsize=65536)
def demangle(name: str) -> str:
    """Itanium-demangled `name` for display (the name itself when it does not demangle)."""
    from slim.model.native import demangle as demangle_all

    return demangle_all([name])[0]


def arch_name(arch: int, *, ptx: bool = False, variant: str = "") -> str:
    """`sm_90` for a cubin, `compute_90` for PTX, `sm_90a`/`sm_103f` for an arch- or
    family-specific image (the nvcc spelling of each)."""
    return f"{'compute' if ptx else 'sm'}_{arch}{variant}"


def runs_on(arch: int, variant: str, device: int) -> bool:
    """Whether a cubin for `arch` loads on a `device` GPU: the same major at this minor or
    later, and an arch-specific (`a`) one on that very architecture only."""
    if variant == "a":
        return device == arch
    return device // 10 == arch // 10 and device >= arch


def parse_arch(text: str) -> int | None:
    """80 from `sm_80`, `compute_80`, `sm_90a`, `80`; None when it names no SM number."""
    t = text.strip().lower()
    for prefix in ("sm_", "compute_", "lto_"):
        if t.startswith(prefix):
            t = t[len(prefix) :]
            break
    digits = ""
    for ch in t:
        if not ch.isdecimal():
            break
        digits += ch
    return int(digits) if digits else None


@dataclass(frozen=True, slots=True)
class Kernel:
    """A `__global__` function in one cubin: its device-side (mangled) name and code bytes."""

    mangled: str
    size: int
    source: str = "symtab"

    @property
    def display(self) -> str:
        return demangle(self.mangled)


@dataclass(frozen=True, slots=True)
class FatbinEntry:
    """One image in a fatbin container (a cubin or PTX for one architecture)."""

    offset: int
    container_offset: int
    kind_code: int
    version: int
    header_size: int
    payload_size: int
    compressed_size: int
    code_major: int
    code_minor: int
    arch: int
    obj_name: str
    flags: int
    uncompressed_size: int
    payload_head: bytes = b""
    kernels: tuple[Kernel, ...] | None = None
    error: str = ""

    @property
    def kind(self) -> str:
        if self.kind_code == KIND_ELF:
            return "cubin"
        if self.kind_code == KIND_PTX:
            return "ptx"
        return f"kind-{self.kind_code:#x}"

    @property
    def is_cubin(self) -> bool:
        return self.kind_code == KIND_ELF

    @property
    def is_ptx(self) -> bool:
        return self.kind_code == KIND_PTX

    @property
    def compression(self) -> str:
        if self.flags & FLAG_ZSTD:
            return "zstd"
        if self.flags & FLAG_LZ4:
            return "lz4"
        return "none"

    @property
    def compressed(self) -> bool:
        return self.compression != "none"

    @property
    def debug(self) -> bool:
        return bool(self.flags & FLAG_DEBUG)

    @property
    def variant(self) -> str:
        """`a` (arch-specific), `f` (family-specific) or "" from the entry's flags, as
        cuobjdump names the image (`sm_90a`)."""
        if self.flags & FLAG_ARCH_SPECIFIC:
            return "a"
        if self.flags & FLAG_FAMILY_SPECIFIC:
            return "f"
        return ""

    @property
    def arch_name(self) -> str:
        return arch_name(self.arch, ptx=self.is_ptx, variant=self.variant)

    @property
    def stored_bytes(self) -> int:
        """Bytes this entry occupies in the binary (header plus padded payload)."""
        return self.header_size + self.payload_size

    @property
    def image_bytes(self) -> int:
        """Bytes of the image once decompressed (stored size when not compressed)."""
        return self.uncompressed_size if self.compressed else self.payload_size

    @property
    def relative_offset(self) -> int:
        """Offset from the start of its container (how `fatbin_walk` prints it)."""
        return self.offset - self.container_offset


@dataclass(frozen=True, slots=True)
class FatbinContainer:
    """A fatbin container (magic 0xBA55ED50) in a section; `offset` is a file offset."""

    section: str
    section_offset: int
    offset: int
    version: int
    header_size: int
    fat_size: int
    entries: tuple[FatbinEntry, ...]
    digest: str = ""
    address: int = 0

    @property
    def size(self) -> int:
        return self.header_size + self.fat_size


@dataclass(frozen=True, slots=True)
class DeviceCode:
    """Device code of one ELF file or archive member (`member` empty for a plain file).

    `kind` is `exec`, `dyn`, `rel` (objects, archive members), `cubin` or `fatbin`.
    `errors` holds `device code could not be read: …` lines with byte offsets: a corrupt
    fatbin does not stop the rest of the binary from being analyzed.
    """

    path: str
    member: str
    containers: tuple[FatbinContainer, ...]
    kind: str = ""
    stubs: tuple[str, ...] = ()
    registration: tuple[str, ...] = ()
    module_ids: tuple[str, ...] = ()
    wrappers: tuple[int, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """`lib.a(kern.o)` for a member, the path otherwise (linker-map spelling)."""
        return f"{self.path}({self.member})" if self.member else self.path

    @property
    def entries(self) -> Iterator[FatbinEntry]:
        for c in self.containers:
            yield from c.entries

    @property
    def is_linked(self) -> bool:
        """An executable or shared library (what a root target ships)."""
        return self.kind in ("exec", "dyn")

    @property
    def has_device_code(self) -> bool:
        return any(c.entries for c in self.containers)

    @property
    def total_bytes(self) -> int:
        return sum(c.size for c in self.containers)

    def kernels(self) -> tuple[str, ...]:
        """Every distinct kernel (mangled) over all cubins, sorted."""
        names = {k.mangled for e in self.entries for k in e.kernels or ()}
        return tuple(sorted(names))

    def bytes_by_arch(self) -> dict[str, int]:
        """Stored bytes per `sm_NN` / `compute_NN`, sorted by name."""
        out: dict[str, int] = {}
        for e in self.entries:
            out[e.arch_name] = out.get(e.arch_name, 0) + e.stored_bytes
        return dict(sorted(out.items()))
