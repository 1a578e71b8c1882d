"""The GPU family: SLIM003 (kernels in a CPU-only binary), SLIM005 (architectures no
deployed GPU runs) and SLIM930 (device code that could not be read).

One `AnalyzerSpec` for the family: the root's binaries and the attribution of their
fatbin containers (`_attribution`) are shared; which rule runs depends on the root's
options (CPU-only, deployed architectures).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slim.model.context import has_native_code
from slim.model.plugin import AnalyzerSpec

from .rules import GPU_KERNELS, UNREADABLE, UNUSED_ARCH

if TYPE_CHECKING:
    from .analyzer import GpuKernels


def _analyzer() -> GpuKernels:
    """The detector, imported when a root has the evidence it reads (a report without
    binaries or maps never loads it)."""
    from .analyzer import GpuKernels

    return GpuKernels()


SPEC = AnalyzerSpec(
    name="gpu-kernels",
    rules=(GPU_KERNELS, UNUSED_ARCH, UNREADABLE),
    requires=frozenset({"binary"}),
    factory=_analyzer,
    missing_hint="Pass the binary (--binary bazel-bin/app/app) and, to charge each kernel to "
    "its target, the linker map (--linkmap) or the static libraries (--binary lib.a).",
    applies=has_native_code,
)

__all__ = ["SPEC"]
