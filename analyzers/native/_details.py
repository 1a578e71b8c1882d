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
        out = [f"header use: {h}" for h in self.header_uses[:5]]
        if self.consumers_checked or self.consumers_not_checked:
            out.append(
                "consumers checked: "
                + (", ".join(self.consumers_checked) or "none")
                + "; not checked: "
                + (", ".join(self.consumers_not_checked) or "none")
            )
        if self.consumers_using:
            out.append(f"still used by: {', '.join(self.consumers_using)}")
        return tuple(out)


@dataclass(frozen=True, slots=True)
class SharedLibDetails(FlatDetails):
    """SLIM004: a DT_NEEDED entry and the size of the library it names."""

    needed: str
    library_bytes: int
