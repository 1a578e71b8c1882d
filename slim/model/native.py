"""Native-link facts: what a linker map, a GC report and an ELF file say about a link.

Readers in `slim.ingest` (ld_map, gold_map, lld_map, mold_map, gc_sections, lld_why, elf)
return these; `slim_analyzers.native` joins them to the build graph. Plain frozen data,
no I/O: a symbol table is kept as numpy columns plus its string table and decoded lazily.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple, overload

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


def split_input(name: str) -> tuple[str, str]:
    """`dir/lib.a(m.o)` -> (`dir/lib.a`, `m.o`); a plain object -> (`""`, "")."""
    if name.endswith(")"):
        cut = name.rfind("(")
        if cut > 0:
            return name[:cut], name[cut + 1 : -1]
    return "", ""


class InputSection(NamedTuple):
    """One input section as placed (or discarded) by the linker; `line` is the map line.

    A NamedTuple rather than a dataclass: big maps hold millions and it builds 2.5x faster.
    """

    name: str
    address: int
    size: int
    file: str
    line: int = 0


class SectionList(Sequence[InputSection]):
    """An immutable sequence of sections, built on first use from a map's columnar rows.

    A 100 MB map has a million input sections; most are never looked at, so readers
    hand over a builder and the count, and the tuples are made once, when first needed.
    """

    __slots__ = ("_build", "_items", "_len")

    def __init__(
        self, items: tuple[InputSection, ...] | Callable[[], tuple[InputSection, ...]], n: int = -1
    ) -> None:
        if isinstance(items, tuple):
            self._items: tuple[InputSection, ...] | None = items
            self._build: Callable[[], tuple[InputSection, ...]] | None = None
            self._len = len(items)
        else:
            self._items, self._build, self._len = None, items, n

    def _get(self) -> tuple[InputSection, ...]:
        if self._items is None:
            assert self._build is not None
            self._items, self._build = self._build(), None
            self._len = len(self._items)
        return self._items

    @overload
    def __getitem__(self, i: int) -> InputSection: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[InputSection, ...]: ...
    def __getitem__(self, i: int | slice) -> InputSection | tuple[InputSection, ...]:
        return self._get()[i]

    def __len__(self) -> int:
        return self._len if self._len >= 0 else len(self._get())

    def __iter__(self) -> Iterator[InputSection]:
        return iter(self._get())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SectionList):
            return self._get() == other._get()
        if isinstance(other, tuple):
            return self._get() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._get())

    def __deepcopy__(self, memo: dict[int, object]) -> SectionList:
        return self


@dataclass(frozen=True, slots=True)
class PulledBy:
    """Why an archive member was extracted: the referencing file and the symbol."""

    file: str
    symbol: str
    line: int = 0
    source: str = ""


@dataclass(frozen=True, slots=True)
class LinkInput:
    """One input file of a link (`x.o` or `lib.a(m.o)`) and what survived of it."""

    file: str
    archive: str
    member: str
    linked: bool
    pulled_by: PulledBy | None
    kept_bytes: int
    discarded_bytes: int
    sections: Sequence[InputSection]
    discarded: Sequence[InputSection]
    line: int = 0


class CrossRef(NamedTuple):
    """A cross-reference table entry: the defining file, then the referencing files.

    A NamedTuple like `InputSection`: a `--cref` table has an entry per symbol of the link.
    """

    symbol: str
    defined_in: str
    referenced_by: tuple[str, ...]
    line: int = 0


@dataclass(frozen=True, slots=True)
class LinkMap:
    """A parsed linker map (bfd, gold, lld, mold, ld64, msvc)."""

    path: str
    linker: str
    output: str
    has_cref: bool
    has_gc_info: bool
    inputs: tuple[LinkInput, ...]
    loaded: tuple[tuple[str, int], ...] = ()
    shared: tuple[str, ...] = ()
    whole_archive: tuple[str, ...] = ()
    xref: tuple[CrossRef, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def lists_unlinked_archives(self) -> bool:
        """Whether archives given to the linker appear even when no member was extracted."""
        return bool(self.loaded)


@dataclass(frozen=True, slots=True)
class GcEntry:
    """One `--print-gc-sections` line: a section of a file that the linker removed."""

    file: str
    section: str
    line: int


@dataclass(frozen=True, slots=True)
class GcReport:
    """`--print-gc-sections` output (bfd/gold on stderr, lld/mold on stdout)."""

    path: str
    linker: str
    entries: tuple[GcEntry, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Extraction:
    """One `--why-extract` row: `reference` made the linker extract `extracted` for `symbol`."""

    reference: str
    extracted: str
    symbol: str
    line: int


@dataclass(frozen=True, slots=True)
class WhyExtract:
    """lld `--why-extract=<file>` TSV."""

    path: str
    entries: tuple[Extraction, ...]


@dataclass(frozen=True, slots=True)
class LiveChain:
    """lld `--why-live`: a live symbol and one chain of referencers back to a root."""

    file: str
    symbol: str
    chain: tuple[tuple[str, str], ...]
    line: int
    root: str = ""


@dataclass(frozen=True, slots=True)
class WhyLive:
    """lld `--why-live=<glob>` report (stdout)."""

    path: str
    entries: tuple[LiveChain, ...]


# -- ELF ------------------------------------------------------------------------------

#: The static constructor nvcc emits in each CUDA object to register its fatbin.
_CUDA_REGISTRATION = "__sti____cudaRegisterAll"
BIND_NAMES = {0: "LOCAL", 1: "GLOBAL", 2: "WEAK", 10: "GNU_UNIQUE"}
TYPE_NAMES = {0: "NOTYPE", 1: "OBJECT", 2: "FUNC", 3: "SECTION", 4: "FILE", 5: "COMMON", 6: "TLS"}
TYPE_NAMES[10] = "GNU_IFUNC"


@dataclass(frozen=True, slots=True)
class Symbol:
    """One decoded symbol (only built for the symbols somebody looks at)."""

    name: str
    defined: bool
    binding: str
    type: str
    size: int = 0


@dataclass(frozen=True, eq=False)
class SymbolTable:
    """A symbol table as columns (`name`, `info`, `shndx`, `size`) over its string table.

    Decoding 500k names eagerly costs more than reading them; names are decoded once, on
    first use, and never demangled here.
    """

    strtab: bytes
    name_off: NDArray[np.uint32]
    info: NDArray[np.uint8]
    shndx: NDArray[np.uint16]
    size: NDArray[np.uint64]
    in_group: NDArray[np.bool_] | None = None

    def __len__(self) -> int:
        return len(self.name_off)

    @cached_property
    def names(self) -> list[str]:
        import numpy as np

        buf = self.strtab
        if not len(self.name_off):
            return []
        raw = np.frombuffer(buf, dtype=np.uint8)
        nul = np.flatnonzero(raw == 0)
        starts = np.minimum(self.name_off.astype(np.int64), len(buf))
        pos = np.searchsorted(nul, starts)
        ends = np.where(pos < len(nul), nul[np.minimum(pos, max(len(nul) - 1, 0))], len(buf))
        text = buf.decode("latin-1") if buf.isascii() else None
        if text is not None:
            return [text[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        return [  # names are bytes to a linker: kept losslessly, as map readers keep them
            buf[a:b].decode("utf-8", "surrogateescape")
            for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
        ]

    @property
    def binding(self) -> NDArray[np.uint8]:
        return (self.info >> 4).astype("uint8")

    @property
    def type(self) -> NDArray[np.uint8]:
        return (self.info & 0xF).astype("uint8")

    @property
    def is_defined(self) -> NDArray[np.bool_]:
        out: NDArray[np.bool_] = self.shndx != 0
        return out

    def _select(self, mask: NDArray[np.bool_]) -> frozenset[str]:
        import numpy as np

        names = self.names
        return frozenset(names[i] for i in np.flatnonzero(mask).tolist() if names[i])

    @cached_property
    def defined(self) -> frozenset[str]:
        """Names of GLOBAL/WEAK/UNIQUE symbols this file defines (locals excluded)."""
        return self._select(self.is_defined & (self.binding != 0) & (self.type != 4))

    @cached_property
    def undefined(self) -> frozenset[str]:
        return self._select(~self.is_defined & (self.binding != 0))

    @cached_property
    def weak_defined(self) -> frozenset[str]:
        """Explicitly weak definitions (COMDAT members such as C++ inline functions excluded)."""
        mask = self.is_defined & (self.binding == 2)
        if self.in_group is not None:
            mask &= ~self.in_group
        return self._select(mask)

    @cached_property
    def weak_undefined(self) -> frozenset[str]:
        """Weak references; mold leaves an unresolved one as a LOCAL undefined symbol."""
        return self._select(~self.is_defined & ((self.binding == 2) | (self.binding == 0)))

    def symbols(self, names: Iterable[str] | None = None) -> list[Symbol]:
        """Decoded rows (all, or only those named), for display and golden files."""
        want = None if names is None else set(names)
        out = []
        bind = self.binding.tolist()
        typ = self.type.tolist()
        defined = self.is_defined.tolist()
        size = self.size.tolist()
        for i, n in enumerate(self.names):
            if not n or (want is not None and n not in want):
                continue
            out.append(
                Symbol(
                    n,
                    bool(defined[i]),
                    BIND_NAMES.get(bind[i], str(bind[i])),
                    TYPE_NAMES.get(typ[i], str(typ[i])),
                    int(size[i]),
                )
            )
        return out


@dataclass(frozen=True, slots=True)
class ElfSection:
    """One section header: name, type (`SHT_*`), size and where it lies."""

    name: str
    type: str
    size: int
    offset: int
    address: int = 0


@dataclass(frozen=True, eq=False)
class ElfFile:
    """An ELF file (or an archive member `lib.a(m.o)`): kind, sections, symbols, needs."""

    path: str
    kind: str
    machine: str
    sections: tuple[ElfSection, ...]
    symbols: SymbolTable | None
    dynamic_symbols: SymbolTable | None
    needed: tuple[str, ...] = ()
    soname: str = ""
    archive: str = ""
    member: str = ""
    notes: tuple[str, ...] = field(default=())
    build_id: str = ""
    """The GNU build-id (hex), "" without one: a copy under another name has the same."""
    word: int = 8
    """Bytes of an address (8 for ELFCLASS64, 4 for ELFCLASS32): an `.init_array` entry."""

    def _init_sections(self) -> list[ElfSection]:
        return [
            s
            for s in self.sections
            if s.name.startswith((".init_array", ".ctors", ".preinit_array"))
            or s.type in ("SHT_INIT_ARRAY", "SHT_PREINIT_ARRAY")
        ]

    @property
    def has_static_init(self) -> bool:
        """Carries `.init_array`/`.ctors`/`.preinit_array` entries (static constructors).

        A linked file always has crtbegin's single `frame_dummy` entry; only more counts.
        """
        floor = 8 if self.kind in ("exec", "dyn") else 0
        return any(s.size > floor for s in self._init_sections())

    @property
    def foreign_initializers(self) -> int:
        """Static constructor entries other than nvcc's fatbin registration
        (`__sti____cudaRegisterAll`, one per CUDA translation unit): a C++ dynamic
        initializer (`_GLOBAL__sub_I_*`) or a `__attribute__((constructor))` function, which
        may register into code that stays when this object leaves (a kernel registry)."""
        entries = sum(s.size for s in self._init_sections()) // max(self.word, 1)
        if self.kind in ("exec", "dyn"):
            entries -= 1  # crtbegin's frame_dummy
        if entries <= 0:
            return 0
        names = self.symbols.names if self.symbols is not None else []
        nvcc = sum(1 for n in names if _CUDA_REGISTRATION in n)
        return max(entries - nvcc, 0)

    def _table(self) -> SymbolTable | None:
        if self.kind in ("dyn",) and self.dynamic_symbols is not None:
            return self.dynamic_symbols
        return self.symbols or self.dynamic_symbols

    @property
    def defined(self) -> frozenset[str]:
        t = self._table()
        return t.defined if t is not None else frozenset()

    @property
    def undefined(self) -> frozenset[str]:
        t = self.dynamic_symbols if self.kind in ("exec", "dyn") else self.symbols
        if t is None:
            t = self.symbols
        return t.undefined if t is not None else frozenset()

    @property
    def weak_defined(self) -> frozenset[str]:
        t = self._table()
        return t.weak_defined if t is not None else frozenset()

    @property
    def weak_undefined(self) -> frozenset[str]:
        out: set[str] = set()
        for t in (self.symbols, self.dynamic_symbols):
            if t is not None:
                out |= t.weak_undefined
        return frozenset(out)

    @property
    def size(self) -> int:
        return sum(s.size for s in self.sections if s.type != "SHT_NOBITS")


def strip_version(symbol: str) -> str:
    """`memcpy@@GLIBC_2.14` -> `memcpy` (map and dynamic names carry versions)."""
    cut = symbol.find("@")
    return symbol[:cut] if cut > 0 else symbol


def demangle(names: Sequence[str]) -> list[str]:
    """Itanium-demangled names (unchanged when not mangled); only call on what is shown.

    Uses the C++ runtime's `__cxa_demangle` through ctypes (no subprocess, no new
    dependency); without a C++ runtime the names come back as they are.
    """
    fn = _cxa_demangle()
    if fn is None:
        return list(names)
    import ctypes

    out = []
    for n in names:
        if not n.startswith("_Z"):
            out.append(n)
            continue
        status = ctypes.c_int(0)
        ptr = fn(n.encode("utf-8", "surrogateescape"), None, None, ctypes.byref(status))
        if status.value != 0 or not ptr:
            out.append(n)
            continue
        try:
            raw = ctypes.cast(ptr, ctypes.c_char_p).value
            out.append(raw.decode("utf-8", "surrogateescape") if raw is not None else n)
        finally:
            _free()(ptr)
    return out


_DEMANGLER: list[Any] = []


def _cxa_demangle() -> Any:
    if not _DEMANGLER:
        import ctypes
        import ctypes.util

        fn: Any = None
        for name in ("stdc++", "c++"):
            lib = ctypes.util.find_library(name)
            if not lib:
                continue
            try:
                dll = ctypes.CDLL(lib)
                fn = dll.__cxa_demangle
            except (OSError, AttributeError):
                continue
            fn.restype = ctypes.c_void_p
            fn.argtypes = [
                ctypes.c_char_p,
                ctypes.c_void_p,
                ctypes.c_void_p,
                ctypes.POINTER(ctypes.c_int),
            ]
            break
        _DEMANGLER.append(fn)
    return _DEMANGLER[0]


def _free() -> Any:
    import ctypes

    libc = ctypes.CDLL(None)
    f = libc.free
    f.argtypes = [ctypes.c_void_p]
    return f
