"""SLIM930 device-code-unreadable: parts of a binary's CUDA device code (a fatbin
container or entry) that were corrupt, truncated or over the decompression limits."""

from __future__ import annotations

from collections.abc import Iterator

from slim.model.context import AnalysisContext
from slim.model.findings import Evidence, Finding
from slim.model.gpu import DeviceCode

from .._findings import on_root
from .rules import UNREADABLE


def findings(ctx: AnalysisContext, b: DeviceCode) -> Iterator[Finding]:
    """One SLIM930 for the binary when reading its device code hit errors."""
    if not b.errors:
        return
    evidence = []
    for err in b.errors:
        offset = None
        if ": byte " in err:
            tail = err.split(": byte ", 1)[1].split(":", 1)[0]
            offset = int(tail) if tail.isdigit() else None
        evidence.append(Evidence(b.path, err, offset=offset, analyzer="gpu_kernels"))
    yield on_root(
        UNREADABLE,
        ctx.root_label,
        "partial",
        f"{len(b.errors)} part(s) of the device code of {b.path} could not be "
        f"read; GPU findings for it may be incomplete: {b.errors[0]}",
        evidence=tuple(evidence),
    )
