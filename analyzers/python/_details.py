"""Typed details of Python findings: a dep's footprint (SLIM001), trace coverage (SLIM903)."""

from __future__ import annotations

from dataclasses import dataclass

from .._details import FlatDetails


@dataclass(frozen=True, slots=True)
class FootprintDetails(FlatDetails):
    """SLIM001: the Python files and modules a dep ships, and what a cut removes."""

    dep_files: int
    dep_bytes: int
    dep_modules: int
    package_files_removed: int | None = None
    package_bytes_removed: int | None = None


@dataclass(frozen=True, slots=True)
class CoverageDetails(FlatDetails):
    """SLIM903: how much of the packaged Python the traces touch."""

    packaged_modules: int
    packaged_bytes: int
    traced_modules: int
    traced_bytes: int
    traced_module_share: float
    traced_byte_share: float
    python_targets: int
    test_only_edges: int
    data_edges: int
