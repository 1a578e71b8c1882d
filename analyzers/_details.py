"""Typed details of native (SLIM002, SLIM004) and Python (SLIM001, SLIM903) findings."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from slim.model.jsontypes import JSON


def _json(obj: object) -> dict[str, JSON]:
    out: dict[str, JSON] = {}
    for k, v in asdict(obj).items():  # type: ignore[call-overload]
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


@dataclass(frozen=True, slots=True)
class LinkDetails:
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
    consumers_checked: tuple[str, ...] = ()
    consumers_not_checked: tuple[str, ...] = ()
    consumers_using: tuple[str, ...] = ()

    def to_json(self) -> dict[str, JSON]:
        return _json(self)

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
class SharedLibDetails:
    """SLIM004: a DT_NEEDED entry and the size of the library it names."""

    needed: str
    library_bytes: int

    def to_json(self) -> dict[str, JSON]:
        return _json(self)

    def text_lines(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True, slots=True)
class FootprintDetails:
    """SLIM001: the Python files and modules a dep ships, and what a cut removes."""

    dep_files: int
    dep_bytes: int
    dep_modules: int
    package_files_removed: int | None = None
    package_bytes_removed: int | None = None

    def to_json(self) -> dict[str, JSON]:
        return _json(self)

    def text_lines(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True, slots=True)
class CoverageDetails:
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

    def to_json(self) -> dict[str, JSON]:
        return _json(self)

    def text_lines(self) -> tuple[str, ...]:
        return ()
