"""The GPU family's detector: which rule runs for a root, from its evidence."""

from __future__ import annotations

from collections.abc import Iterator

from slim.model.context import AnalysisContext
from slim.model.findings import Finding
from slim.model.gpu import DeviceCode
from slim.model.rules import EVIDENCE_MISSING

from .._findings import on_root
from . import slim003_kernels_in_cpu, slim005_unused_arch, slim930_unreadable
from ._attribution import cpu_only, root_binaries


class GpuKernels:
    """SLIM003 for CPU-only roots, SLIM005 when the deployed architectures are known."""

    def analyze(self, ctx: AnalysisContext) -> Iterator[Finding]:
        is_cpu, reason = cpu_only(ctx)
        archs = ctx.options.cuda_archs
        binaries, basis = root_binaries(ctx)
        if not binaries:
            if is_cpu or archs:
                yield _not_found(ctx)
            return
        for b in binaries:
            yield from slim930_unreadable.findings(ctx, b)
            if not b.has_device_code:
                continue
            if is_cpu:
                yield from slim003_kernels_in_cpu.findings(ctx, b, reason, basis)
            elif archs:
                yield from slim005_unused_arch.findings(ctx, b, archs)


def _not_found(ctx: AnalysisContext) -> Finding:
    """SLIM900: a GPU check applies to the root, but no binary of it was given."""
    given = sorted({d.path for d in ctx.facts.of(DeviceCode) if d.is_linked})
    what = f" (given: {', '.join(given)})" if given else ""
    return on_root(
        EVIDENCE_MISSING,
        ctx.root_label,
        "not-checked",
        f"SLIM003/SLIM005 not checked: no executable or shared library of "
        f"{ctx.root_label} among the --binary inputs{what}",
    )
