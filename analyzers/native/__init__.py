"""The native family: SLIM002 (libraries a link takes nothing from) and SLIM004 (shared
libraries the binary resolves nothing from), from linker maps, GC reports and ELF files.

One `AnalyzerSpec` for the family: the maps of the root's link are joined to the graph
once (`_link_view`) and both rules read the same views.
"""

from __future__ import annotations

from collections.abc import Iterator

from slim.model.context import AnalysisContext, has_native_code
from slim.model.findings import Finding
from slim.model.linkage import Linkage
from slim.model.native import ElfFile, LinkMap
from slim.model.ownership import Ownership
from slim.model.plugin import AnalyzerSpec

from . import slim002_unreferenced, slim004_unused_shared
from ._link_view import by_rank, is_binary, view
from .slim002_unreferenced import UNREFERENCED
from .slim004_unused_shared import UNUSED_SHARED


class NativeSymbolsAnalyzer:
    """Joins linker maps, GC reports and ELF facts to the root's closure."""

    def analyze(self, ctx: AnalysisContext) -> Iterator[Finding]:
        g = ctx.graph
        own = Ownership.of(g)
        maps = ctx.facts.of(LinkMap)
        elfs = ctx.facts.of(ElfFile)
        closure = set(ctx.closure.tolist())
        linkage = Linkage.of(g, ctx.facts, own)
        mine = by_rank([view(lk, own) for lk in linkage.links_of(ctx.root)])
        if maps and not mine and is_binary(ctx.root_target.kind):
            yield slim002_unreferenced.not_checked(ctx, maps)
        if mine:
            loose = linkage.unattributed_binaries()
            yield from slim002_unreferenced.findings(ctx, own, mine, elfs, closure, loose)
        yield from slim004_unused_shared.findings(ctx, own, elfs, mine, closure)


SPEC = AnalyzerSpec(
    name="native-symbols",
    rules=(UNREFERENCED, UNUSED_SHARED),
    requires=frozenset({"linkmap", "binary"}),
    factory=NativeSymbolsAnalyzer,
    missing_hint=(
        "Link the binary with -Wl,-Map=app.map,--cref,--gc-sections and pass --linkmap "
        "app.map; pass --binary for the binary, its .so files and the deps' archives."
    ),
    applies=has_native_code,
)

__all__ = ["SPEC", "NativeSymbolsAnalyzer"]
