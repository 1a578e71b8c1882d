"""Typed details of native findings: a library in one link (SLIM002), a DT_NEEDED entry
(SLIM004)."""

from __future__ import annotations

from dataclasses import dataclass

from .._details import FlatDetails


@dataclass(frozen=True, slots=True)
class LinkDetails(FlatDetails):
    """SLIM002: what the maps show of a library in one link."""

    kept_bytes: int
    discarded_bytes: int
    linkers: tuple[str, ...]
    maps: tuple[str, ...]
    archive_bytes: int | None = None
    missing_evidence: tuple[str, ...] = ()
    referenced: bool = False
    compile_evidence: str = ""
    """How the dependant's compile was known: depfile, ninja -t deps, static #include
    scan, or "" (none given)."""
    header_uses: tuple[str, ...] = ()
    """`source includes header` rows that make the edge needed to compile."""
    idle_initializers: str = ""
    """Static initializers of its objects that cannot run in this link (no member of the
    archive linked, nothing links it whole): removable only with compile-time evidence
    that no header of it is used either."""
    consumers_checked: tuple[str, ...] = ()
    consumers_not_checked: tuple[str, ...] = ()
    consumers_using: tuple[str, ...] = ()

    def text_lines(self) -> tuple[str, ...]:
        return _edge_lines(
            self.header_uses,
            self.consumers_checked,
            self.consumers_not_checked,
            self.consumers_using,
        )


def _edge_lines(
    header_uses: tuple[str, ...],
    checked: tuple[str, ...],
    not_checked: tuple[str, ...],
    using: tuple[str, ...],
) -> tuple[str, ...]:
    """What a text report says of an edge's judgement: header uses and consumers."""
    out = [f"header use: {h}" for h in header_uses[:5]]
    if checked or not_checked:
        out.append(
            "consumers checked: "
            + (", ".join(checked) or "none")
            + "; not checked: "
            + (", ".join(not_checked) or "none")
        )
    if using:
        out.append(f"still used by: {', '.join(using)}")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SharedLibDetails(FlatDetails):
    """SLIM004: a DT_NEEDED entry and the size of the library it names, and what judging
    the edge to it as SLIM002 judges one found (the fields of `LinkDetails`)."""

    needed: str
    library_bytes: int
    missing_evidence: tuple[str, ...] = ()
    compile_evidence: str = ""
    header_uses: tuple[str, ...] = ()
    consumers_checked: tuple[str, ...] = ()
    consumers_not_checked: tuple[str, ...] = ()
    consumers_using: tuple[str, ...] = ()

    @staticmethod
    def of(needed: str, library_bytes: int, edge: LinkDetails) -> SharedLibDetails:
        """The details of a library whose edge was judged with `edge` as its details."""
        return SharedLibDetails(
            needed,
            library_bytes,
            edge.missing_evidence,
            edge.compile_evidence,
            edge.header_uses,
            edge.consumers_checked,
            edge.consumers_not_checked,
            edge.consumers_using,
        )

    def text_lines(self) -> tuple[str, ...]:
        return _edge_lines(
            self.header_uses,
            self.consumers_checked,
            self.consumers_not_checked,
            self.consumers_using,
        )
