"""SLIM005 unused-cuda-arch: fatbin entries for GPU architectures the binary is never
deployed on (`--cuda-archs`), per contributing target, with the -gencode flags to drop.

A cubin for sm_XY runs on sm_XZ with Z >= Y; PTX is JIT-compiled on newer GPUs and is
kept for forward compatibility. A deployed GPU with no image at all is said as well.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from slim.model.actions import DropArchs
from slim.model.context import AnalysisContext
from slim.model.findings import Confidence, Evidence, Finding, Saving
from slim.model.gpu import (
    DeviceCode,
    FatbinContainer,
    FatbinEntry,
    arch_name,
    parse_arch,
    runs_on,
)

from ._attribution import attribute
from ._details import ArchBytes, ArchsDetails
from ._fatbins import arch_key, arch_rows, container_evidence, fmt_bytes
from .rules import UNUSED_ARCH


def findings(ctx: AnalysisContext, b: DeviceCode, archs: tuple[str, ...]) -> Iterator[Finding]:
    """SLIM005 per owner of the binary's containers (the root when unattributed)."""
    g = ctx.graph
    deployed = sorted({a for a in (parse_arch(x) for x in archs) if a is not None})
    groups: dict[str, tuple[list[FatbinContainer], list[Evidence]]] = defaultdict(lambda: ([], []))
    for c, a in zip(b.containers, attribute(ctx, b), strict=True):
        owner = g.labels[a.owner] if a is not None and a.owner is not None else ctx.root_label
        groups[owner][0].append(c)
        if a is not None:
            groups[owner][1].append(a.evidence)
    for owner, (containers, attributions) in sorted(groups.items()):
        f = _arch_finding(ctx, b, owner, containers, attributions, deployed)
        if f is not None:
            yield f


def _arch_finding(
    ctx: AnalysisContext,
    b: DeviceCode,
    owner: str,
    containers: list[FatbinContainer],
    attributions: list[Evidence],
    deployed: list[int],
) -> Finding | None:
    """SLIM005 for one owner's containers: entries no deployed GPU can load, or a deployed
    GPU with no image at all; None when every entry has its use."""
    entries = [e for c in containers for e in c.entries]
    status = _arch_status(entries, deployed)
    unused = [e for e in entries if status[e.arch_name] == "unused"]
    missing = [d for d in deployed if status.get(f"sm_{d}") == "no image"]
    if not unused and not missing:
        return None
    drop = sorted({(e.arch, e.variant) for e in unused})
    flags = " ".join(f"-gencode arch=compute_{a}{v},code=sm_{a}{v}" for a, v in drop)
    waste = sum(e.stored_bytes for e in unused)
    rows = arch_rows(entries, status) + tuple(ArchBytes(f"sm_{d}", 0, "no image") for d in missing)
    details = ArchsDetails(
        binary=b.path,
        deployed=tuple(arch_name(d) for d in deployed),
        archs=rows,
        unused_bytes=waste,
        gencode_drop=flags,
    )
    return Finding(
        code=UNUSED_ARCH.code,
        name=UNUSED_ARCH.name,
        target=owner,
        dep="",
        root=ctx.root_label,
        verdict="unused-arch" if unused else "missing-arch",
        message=f"{b.path}: " + "; ".join(_arch_parts(entries, drop, waste, details, owner)),
        confidence=Confidence.HIGH,
        removable=False,
        evidence=tuple(attributions + [container_evidence(b, c) for c in containers]),
        action=DropArchs(owner, tuple(arch_name(a, variant=v) for a, v in drop), flags)
        if unused
        else None,
        saving=Saving(bytes=waste, bytes_basis="fatbin bytes") if unused else None,
        details=details,
    )


def _arch_parts(
    entries: list[FatbinEntry],
    drop: list[tuple[int, str]],
    waste: int,
    d: ArchsDetails,
    owner: str,
) -> list[str]:
    parts = []
    if drop:
        n = sum(1 for e in entries if (e.arch, e.variant) in drop and e.is_cubin)
        names = ", ".join(arch_name(a, variant=v) for a, v in drop)
        parts.append(
            f"{n} fatbin entr{'y' if n == 1 else 'ies'} for {names} ({fmt_bytes(waste)}) "
            f"cannot load on the deployed {', '.join(d.deployed)}: drop {d.gencode_drop} "
            f"from the nvcc flags of {owner}"
        )
    ptx = sorted({e.arch_name for e in entries if e.is_ptx}, key=arch_key)
    if ptx:
        parts.append(f"PTX {', '.join(ptx)} kept for forward compatibility (JIT), not waste")
    parts += [
        f"no cubin or PTX in it can run on the deployed {a.arch}"
        for a in d.archs
        if a.status == "no image"
    ]
    return parts


def _arch_status(entries: list[FatbinEntry], deployed: list[int]) -> dict[str, str]:
    """Per `sm_NN`/`compute_NN`: deployed, unused, ptx (JIT or forward compatibility)."""
    status: dict[str, str] = {}
    cubin_runs: set[int] = set()
    for e in entries:
        if not e.is_cubin:
            continue
        loads = [d for d in deployed if runs_on(e.arch, e.variant, d)]
        cubin_runs.update(loads)
        status[e.arch_name] = "deployed" if loads else "unused"
    for e in entries:
        if e.is_ptx:
            jit = [d for d in deployed if _jit_to(e, d) and d not in cubin_runs]
            status[e.arch_name] = (
                f"ptx: JIT for {','.join(arch_name(d) for d in jit)}"
                if jit
                else "ptx: forward compatibility"
            )
    for d in deployed:
        if d not in cubin_runs and not any(e.is_ptx and _jit_to(e, d) for e in entries):
            status[f"sm_{d}"] = "no image"
    for e in entries:
        status.setdefault(e.arch_name, "other")
    return status


def _jit_to(e: FatbinEntry, device: int) -> bool:
    """PTX is compiled for its architecture or any later one; arch-specific PTX
    (`compute_90a`) for that very architecture only."""
    return device == e.arch if e.variant == "a" else device >= e.arch
