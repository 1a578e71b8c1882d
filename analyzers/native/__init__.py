"""The native family: SLIM002 (libraries a link takes nothing from) and SLIM004 (shared
libraries the binary resolves nothing from), from linker maps, GC reports and ELF files.

One `AnalyzerSpec` for the family: the maps of the root's link are joined to the graph
once (`_link_view`) and both rules read the same views.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slim.model.context import has_native_code
from slim.model.plugin import AnalyzerSpec

from .rules import UNREFERENCED, UNUSED_SHARED

if TYPE_CHECKING:
    from .analyzer import NativeSymbolsAnalyzer


def _analyzer() -> NativeSymbolsAnalyzer:
    """The detector, imported when a root has the evidence it reads (a report without
    binaries or maps never loads it)."""
    from .analyzer import NativeSymbolsAnalyzer

    return NativeSymbolsAnalyzer()


SPEC = AnalyzerSpec(
    name="native-symbols",
    rules=(UNREFERENCED, UNUSED_SHARED),
    requires=frozenset({"linkmap", "binary"}),
    factory=_analyzer,
    missing_hint=(
        "Link the binary with -Wl,-Map=app.map,--cref,--gc-sections and pass --linkmap "
        "app.map; pass --binary for the binary, its .so files and the deps' archives."
    ),
    applies=has_native_code,
)

__all__ = ["SPEC"]
