"""What fatbin entries hold, as the GPU rules show it: bytes per architecture, kernel
names, one evidence row per container."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from slim.model.findings import Evidence
from slim.model.gpu import DeviceCode, FatbinContainer, FatbinEntry, parse_arch

from ._details import ArchBytes


def fmt_bytes(n: int) -> str:
    return f"{n:,} bytes"


def arch_key(name: str) -> tuple[int, int, str]:
    return (parse_arch(name) or 0, name.startswith("compute"), name)


def by_arch(entries: Iterable[FatbinEntry]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for e in entries:
        out[e.arch_name] += e.stored_bytes
    return dict(sorted(out.items(), key=lambda kv: arch_key(kv[0])))


def kernel_names(entries: Iterable[FatbinEntry]) -> list[str]:
    names = {k.mangled: k.display for e in entries for k in e.kernels or ()}
    return sorted(names.values())


def container_evidence(binary: DeviceCode, c: FatbinContainer) -> Evidence:
    parts = ", ".join(
        f"{e.arch_name} {e.kind} {e.stored_bytes} B" + (f" {e.compression}" if e.compressed else "")
        for e in c.entries
    )
    kernels = kernel_names(c.entries)
    shown = "; kernels: " + ", ".join(kernels) if kernels else "; no kernels"
    return Evidence(
        binary.path,
        f"fatbin container at {c.section}+{c.section_offset:#x}: {parts}{shown}",
        offset=c.offset,
        analyzer="gpu_kernels",
    )


def arch_rows(entries: Iterable[FatbinEntry], status: dict[str, str]) -> tuple[ArchBytes, ...]:
    return tuple(ArchBytes(a, n, status.get(a, "")) for a, n in by_arch(entries).items())
