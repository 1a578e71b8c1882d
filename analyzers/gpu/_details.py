"""Typed details of GPU findings (SLIM003, SLIM005): device-code bytes per architecture
and per contributing target, rendered as one small table."""

from __future__ import annotations

from dataclasses import dataclass

from .._details import FlatDetails


def _arch_order(name: str) -> tuple[int, bool, str]:
    digits = "".join(c for c in name if c.isdigit())
    return (int(digits or 0), name.startswith("compute"), name)


@dataclass(frozen=True, slots=True)
class ArchBytes:
    """Device code of one architecture (`sm_80` cubin, `compute_90` PTX) and its status."""

    arch: str
    bytes: int
    status: str = ""


@dataclass(frozen=True, slots=True)
class TargetShare:
    """What one target contributed: bytes, the linked inputs, the path from the root."""

    target: str
    bytes: int
    inputs: tuple[str, ...] = ()
    path: str = ""


def _table(archs: tuple[ArchBytes, ...], targets: tuple[TargetShare, ...]) -> tuple[str, ...]:
    rows = [(a.arch, a.bytes, a.status) for a in sorted(archs, key=lambda a: _arch_order(a.arch))]
    rows += [(t.target, t.bytes, "target") for t in targets]
    if not rows:
        return ()
    width = max(len("arch"), *(len(r[0]) for r in rows))
    out = [f"{'arch':<{width}}  {'bytes':>10}  status"]
    out += [f"{n:<{width}}  {b:>10,}  {st}".rstrip() for n, b, st in rows]
    return tuple(out)


@dataclass(frozen=True, slots=True)
class KernelsDetails(FlatDetails):
    """SLIM003: the kernels a CPU-only binary carries, where from, and the cut."""

    binary: str
    cpu_only_source: str
    kernels: tuple[str, ...]
    archs: tuple[ArchBytes, ...]
    bytes: int
    targets: tuple[TargetShare, ...] = ()
    cut: str = ""
    cpu_variant: str = ""
    also_reached_from: tuple[str, ...] = ()
    attribution: tuple[str, ...] = ()
    binary_match: str = ""
    candidates: tuple[str, ...] = ()
    missing_evidence: tuple[str, ...] = ()

    def text_lines(self) -> tuple[str, ...]:
        return _table(self.archs, self.targets)


@dataclass(frozen=True, slots=True)
class ArchsDetails(FlatDetails):
    """SLIM005: fatbin entries for architectures the binary is never deployed on."""

    binary: str
    deployed: tuple[str, ...]
    archs: tuple[ArchBytes, ...]
    unused_bytes: int
    gencode_drop: str = ""

    def text_lines(self) -> tuple[str, ...]:
        return _table(self.archs, ())
