"""The native family's detector: which rule runs for a root, from its evidence."""

from __future__ import annotations

from collections.abc import Iterator

from slim.model.context import AnalysisContext
from slim.model.findings import Finding
from slim.model.linkage import Linkage
from slim.model.native import ElfFile, LinkMap
from slim.model.ownership import Ownership

from . import slim002_unreferenced, slim004_unused_shared
from ._link_view import by_rank, is_binary, view


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
