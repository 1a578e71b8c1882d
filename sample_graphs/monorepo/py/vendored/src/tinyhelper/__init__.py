"""A vendored top-level module, importable as `tinyhelper` through `imports = ["src"]`."""

from __future__ import annotations


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
