"""Per-root settings, resolved once by the session (flag > per-target config > tag > config).

Each value carries its source so a finding can say why (`--cpu-only`, `cpu_only in
slim.toml [targets."//x"]`, `tag cpu-only`); analyzers never decide precedence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class RootOptions:
    """What one root is analyzed with."""

    workspace: Path | None = None
    cpu_only: bool | None = None
    cpu_only_source: str = ""
    cuda_archs: tuple[str, ...] = ()
    cuda_archs_source: str = ""
    site_packages: tuple[Path, ...] = ()
    """Where third-party distributions are installed (dist-info RECORD/top_level.txt)."""
    module_map: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Config `[modules]`: a target label -> the import names it provides."""
    cpu_only_tags: tuple[str, ...] = ("cpu-only", "cpu_only", "no-gpu")
