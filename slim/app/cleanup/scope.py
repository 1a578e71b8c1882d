"""Which binaries a cleanup covers: `//...`, `//pkg/...`, or exact labels."""

from __future__ import annotations

from collections.abc import Sequence

from slim.errors import UsageError
from slim.model.context import is_binary_kind
from slim.model.graph import BuildGraph
from slim.model.labels import label_package

is_binary = is_binary_kind


def select_roots(graph: BuildGraph, patterns: Sequence[str]) -> list[str]:
    """Binaries matching `//...`, `//pkg/...`, or exact labels (kept even if not binaries)."""
    out: set[str] = set()
    binaries: list[str] | None = None
    for pat in patterns:
        if pat.endswith("..."):
            prefix = pat[: -len("...")].rstrip("/")
            if binaries is None:
                binaries = [
                    lab
                    for lab, kind in zip(graph.labels, graph.kinds, strict=True)
                    if is_binary(kind)
                ]
            if prefix in ("", "/", "//"):
                out.update(binaries)
            else:
                out.update(
                    b
                    for b in binaries
                    if label_package(b) == prefix or label_package(b).startswith(prefix + "/")
                )
        else:
            i = graph.lookup(pat)
            if i is None:
                raise UsageError(f"target {pat} is not in the graph")
            out.add(graph.labels[i])
    if not out:
        raise UsageError(f"no binary matches {' '.join(patterns)} in the graph")
    return sorted(out)
