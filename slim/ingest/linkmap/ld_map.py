"""GNU ld (bfd) `-Map` files, with or without `--cref` (gold's layout is read here too).

Sections: archive members pulled and by what, as-needed shared libraries, discarded
input sections, the memory map (`LOAD` lines, kept input sections), `OUTPUT(...)` and
the cross-reference table. Long section names wrap onto the next line; file names are
everything after the size column (spaces and drive letters included).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slim.errors import InputError, describe_found
from slim.ingest._io import DEFAULT_LIMITS, Limits, open_input
from slim.ingest.linkmap._gnu_rows import Columns, Rows, fixed_rows, regex_rows
from slim.ingest.linkmap._mapcommon import (
    FileSlices,
    InputTally,
    check_complete,
    check_text,
    decode,
    iter_chunks,
    no_gc,
    whole_archive_members,
)
from slim.model.native import (
    CrossRef,
    InputSection,
    LinkMap,
    PulledBy,
    SectionList,
    split_input,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


BFD_MEMBERS = b"Archive member included to satisfy reference by file (symbol)"
GOLD_MEMBERS = b"Archive member included because of file (symbol)"
AS_NEEDED = b"As-needed library included to satisfy reference by file (symbol)"
DISCARDED = b"Discarded input sections"
MEMCONF = b"Memory Configuration"
BFD_MEMMAP = b"Linker script and memory map"
GOLD_MEMMAP = b"Memory map"
CREF = b"Cross Reference Table"
MERGING = b"Merging program properties"
ALLOCATING = b"Allocating common symbols"

_HEADINGS = (
    BFD_MEMBERS,
    GOLD_MEMBERS,
    AS_NEEDED,
    DISCARDED,
    MEMCONF,
    BFD_MEMMAP,
    GOLD_MEMMAP,
    CREF,
    MERGING,
    ALLOCATING,
)
_HEADING_SET = frozenset(_HEADINGS)
_HEADING_FIRST = sorted({h[0] for h in _HEADINGS})
_LOAD_RE = re.compile(rb"\nLOAD ([^\n]+)")
_OUTPUT_RE = re.compile(rb"\nOUTPUT\(([^\n]+)\)")
_CREF_COL = 50
_MEMBER_COL = 30
_SPACES_CREF = b" " * _CREF_COL
_SPACES_MEMBER = b" " * _MEMBER_COL


def sniff(head: bytes, path: Path) -> bool:
    """bfd map: its first heading (maps without archives start at discards or memory)."""
    first = head.lstrip(b"\n").split(b"\n", 1)[0].rstrip()
    if first in (BFD_MEMBERS, AS_NEEDED, MEMCONF, MERGING, ALLOCATING):
        return True
    return first == DISCARDED and not gold_memory_map(head, path)


_MEMMAP_LINE = re.compile(rb"\n(Memory map|Linker script and memory map|Memory Configuration)\r?\n")
_SCAN_BLOCK = 1 << 20


def gold_memory_map(head: bytes, path: Path) -> bool:
    """Whether a map that starts with its discarded sections is gold's: the first
    memory-map heading after them is gold's `Memory map`, not bfd's. A C++ link discards
    thousands of COMDAT sections, which push that heading far past the sniffed head, so
    the file is read on, a block at a time, until one is found."""
    m = _MEMMAP_LINE.search(b"\n" + head)
    if m is not None:
        return m.group(1) == GOLD_MEMMAP
    st = path.stat()
    return _later_heading(str(path), st.st_size, st.st_mtime_ns) == GOLD_MEMMAP


@lru_cache(maxsize=16)
def _later_heading(path: str, size: int, mtime_ns: int) -> bytes | None:
    """The first memory-map heading of the file, read a block at a time (asked by both the
    bfd and the gold sniffer: read once per file version)."""
    del size, mtime_ns  # the cache key: a file rewritten in place is read again
    with open_input(Path(path)) as f:
        carry = b"\n"
        while block := f.read(_SCAN_BLOCK):
            m = _MEMMAP_LINE.search(carry + block)
            if m is not None:
                return bytes(m.group(1))
            carry = (carry + block)[-64:]
    return None


class _GnuMapParser:
    """One pass over a bfd or gold map, section by section, in newline-aligned chunks."""

    def __init__(self, path: Path, flavour: str, limits: Limits = DEFAULT_LIMITS) -> None:
        self.path = path
        self.limits = limits
        self.flavour = flavour
        self.tally = InputTally()
        self.files: dict[bytes, str] = {}
        self.loaded: dict[str, int] = {}
        self.shared: list[str] = []
        self.output = ""
        self.xref: list[CrossRef] = []
        self.headings: set[bytes] = set()
        self.state = b""
        self._cref_sym: str | None = None
        self._cref_def = ""
        self._cref_refs: list[str] = []
        self._cref_line = 0
        self._member_pending: tuple[str, int] | None = None
        self.whole: set[str] = set()
        self._newlines: NDArray[np.intp] | None = None
        self._base = 0
        self._offset = -1
        self.unterminated = False
        self.ended = False
        """The memory map's last mark was seen: bfd's `OUTPUT(...)`, gold's `.shstrtab`."""
        self.cref_header = False
        self._kept_rows = Rows()
        self._discard_rows = Rows()
        self.fast = True
        self._known: set[bytes] | None = None
        self._by_file: dict[str, list[Any]] = {}

    def file(self, raw: bytes, line: int) -> str:
        s = self.files.get(raw)
        if s is None:
            s = self.files[raw] = decode(self.path, raw.rstrip(), line)
        return s

    def run(self) -> LinkMap:
        self.slices = FileSlices(self.path)
        with no_gc():
            line = 1
            line, last = 1, None
            for c in iter_chunks(self.path, self.limits, lines=False):
                line = c.line or line
                check_text(self.path, c._replace(line=line))
                self.chunk(c.data, line - 1, c.offset)
                line += len(self._newline_index(c.data)) - 1
                last = c
            self._cref_flush()
            if not self.headings:
                raise InputError(
                    str(self.path),
                    "a GNU ld map (a heading such as 'Linker script and memory map')",
                    "no map heading",
                    line=1,
                )
            if last is not None:
                check_complete(self.path, last, line - 1, self._missing_end())
            return self.result()

    def _missing_end(self) -> str:
        """What a complete map has and this one lacks ('' when nothing is missing)."""
        memmap = GOLD_MEMMAP if self.flavour == "gold" else BFD_MEMMAP
        if memmap not in self.headings:
            return f"the {memmap.decode()!r} section"
        if not self.ended:
            mark = "`.shstrtab` section" if self.flavour == "gold" else "`OUTPUT(file format)` line"
            return f"the memory map's {mark} (a {self.flavour} map ends its memory map with it)"
        if CREF in self.headings and not self.cref_header:
            return "the cross-reference table's `Symbol  File` header"
        return ""

    def chunk(self, data: bytes, base: int, offset: int = -1) -> None:
        """`data` starts with a newline that sits before line `base + 1`; data[0] is byte
        `offset` of the file (-1: not the file's own bytes)."""
        self._newlines = None
        self._base = base
        self._offset = offset
        import numpy as np

        nl = self._newline_index(data)
        pos = 0
        for a, b, heading in self._heading_lines(data, nl):
            if a + 1 > pos:
                self.segment(data, pos, a + 1, base + int(np.searchsorted(nl, pos)))
            self.headings.add(heading)
            self._cref_flush()
            self.state = heading
            pos = b
        if len(data) > pos:
            self.segment(data, pos, len(data), base + int(np.searchsorted(nl, pos)))

    def _heading_lines(self, data: bytes, nl: NDArray[np.intp]) -> list[tuple[int, int, bytes]]:
        """(newline before, newline after, heading) of each heading line: only lines
        starting with a heading's first letter are compared."""
        import numpy as np

        first = np.frombuffer(data, dtype=np.uint8)[nl[:-1] + 1]
        out = []
        for i in np.flatnonzero(np.isin(first, _HEADING_FIRST)).tolist():
            a, b = int(nl[i]), int(nl[i + 1])
            text = data[a + 1 : b].rstrip(b" \t")
            if text in _HEADING_SET:
                out.append((a, b, text))
        return out

    def segment(self, data: bytes, start: int, end: int, base: int) -> None:
        """Lines in data[start:end]; data[start] is the newline before line `base + 1`."""
        handler = self._handlers().get(self.state)
        if handler is not None:
            handler(data, start, end, base)

    def _handlers(self) -> dict[bytes, Callable[[bytes, int, int, int], None]]:
        return {
            BFD_MEMBERS: self._members,
            GOLD_MEMBERS: self._members,
            AS_NEEDED: self._as_needed,
            DISCARDED: self._discarded,
            BFD_MEMMAP: self._memmap,
            GOLD_MEMMAP: self._memmap,
            CREF: self._cref,
        }

    def _lines(self, data: bytes, start: int, end: int, base: int) -> list[tuple[int, bytes]]:
        body = data[start + 1 : end]
        if body.endswith(b"\n"):
            body = body[:-1]
        return [(base + 1 + k, ln) for k, ln in enumerate(body.split(b"\n"))]

    # -- archive members ---------------------------------------------------------------
    def _members(self, data: bytes, start: int, end: int, base: int) -> None:
        """`member<pad to col 30>file (symbol)`, or the member alone on its line and the
        rest on the next, indented 30 (one pass over the lines, nothing kept per line)."""
        body = data[start + 1 : end]
        col, spaces, files, file = _MEMBER_COL, _SPACES_MEMBER, self.files, self.file
        pending = self._member_pending
        lineno = base
        for ln in body.split(b"\n"):
            lineno += 1
            if not ln or ln.isspace():
                continue
            if pending is not None and ln.startswith(spaces):
                self._pulled(pending[0], ln[col:], pending[1], lineno)
                pending = None
                continue
            if len(ln) > col and ln[col - 1] == 32:
                head = ln[:col].rstrip()
                member = files.get(head)
                if member is None:
                    member = file(head, lineno)
                rest = ln[col:].lstrip(b" ")
                if rest:
                    self._pulled(member, rest, lineno, lineno)
                    continue
            pending = (file(ln.rstrip(), lineno), lineno)
        self._member_pending = pending

    def _pulled(self, member: str, rest: bytes, mline: int, lineno: int) -> None:
        rest = rest.rstrip()
        if (rest.startswith(b"(") and rest.endswith(b")")) or rest.startswith(b"--"):
            # bfd `lib.a(m.o)  (--whole-archive)`, gold `... --whole-archive`: no reference.
            if b"whole-archive" in rest:
                self.whole.add(split_input(member)[0])
            self.tally.linked(member, mline)
            return
        cut = rest.rfind(b" (")
        if cut < 0 or not rest.endswith(b")"):
            raise InputError(
                str(self.path),
                "'file (symbol)' after an archive member",
                describe_found(rest),
                line=lineno,
            )
        raw = rest[:cut]
        by_file = self.files.get(raw)
        if by_file is None:
            by_file = self.file(raw, lineno)
        symbol = rest[cut + 2 : -1].decode("utf-8", "surrogateescape")
        self.tally.pulled_by(member, PulledBy(by_file, symbol, mline))

    def _as_needed(self, data: bytes, start: int, end: int, base: int) -> None:
        for lineno, ln in self._lines(data, start, end, base):
            if ln.strip() and not ln.startswith(b" "):
                lib = ln[:_MEMBER_COL].rstrip() if len(ln) > _MEMBER_COL else ln.rstrip()
                self.shared.append(self.file(lib.split(b" ", 1)[0], lineno))

    # -- sections ----------------------------------------------------------------------
    def _sections(self, data: bytes, start: int, end: int, rows: Rows) -> None:
        """Section rows of data[start:end]: column-wise numpy, or the regex for odd layouts."""
        nl = self._newline_index(data)
        kept = rows is self._kept_rows
        got = (
            fixed_rows(data, start, end, nl, self._base, self._offset, kept=kept)
            if self.fast
            else None
        )
        if got is None:
            got = regex_rows(data, start, end, nl, self._base)
        rows.add(got)

    def _newline_index(self, data: bytes) -> NDArray[np.intp]:
        if self._newlines is None:
            import numpy as np

            self._newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        return self._newlines

    def _discarded(self, data: bytes, start: int, end: int, base: int) -> None:
        self._sections(data, start, end, self._discard_rows)

    def _memmap(self, data: bytes, start: int, end: int, base: int) -> None:
        import numpy as np

        self._sections(data, start, end, self._kept_rows)
        # `LOAD x` and `OUTPUT(x fmt)` start in column 0 with L/O: only those lines are read.
        nl = self._newline_index(data)
        lo, hi = (int(x) for x in np.searchsorted(nl, [start, end]))
        starts = nl[lo : max(lo, min(hi, len(nl) - 1))] + 1
        first = np.frombuffer(data, dtype=np.uint8)[np.minimum(starts, len(data) - 1)]
        marks = (first == 76) | (first == 79) | (first == 46)
        for k in np.flatnonzero(marks).tolist():
            a = int(starts[k])
            line_text = data[a - 1 : data.find(b"\n", a)]
            line = lo + k + 1 + self._base
            if line_text.startswith(b"\n."):
                # gold ends its memory map with the section-name table
                self.ended = self.ended or line_text[1:].split(b" ", 1)[0] == b".shstrtab"
                continue
            m = _LOAD_RE.match(line_text)
            if m is not None:
                self.loaded.setdefault(self.file(m.group(1), line), line)
                continue
            o = _OUTPUT_RE.match(line_text)
            if o is not None and not self.output:
                text = self.file(o.group(1), line)
                self.output = text.rsplit(" ", 1)[0] if " " in text else text
            self.ended = self.ended or (o is not None and self.flavour == "bfd")

    def _build_sections(self, rows: Rows, kept: bool) -> None:
        """Group rows by file with numpy (stable: map order within a file); the section
        tuples themselves are built only when somebody reads them (`SectionList`)."""
        import numpy as np

        cols = rows.columns(self.slices)
        if not len(cols):
            return
        # Rows of one file come in runs (link order): files are looked up once per run.
        idmap: dict[str, int] = {}
        run_ids = []
        starts = cols.run_start.tolist()
        for raw, at in zip(cols.run_files, starts, strict=True):
            f = self.files.get(raw)
            if f is None:
                f = self.file(raw, int(cols.lines[at]))
            run_ids.append(idmap.setdefault(f, len(idmap)))
        counts = np.diff(np.array([*starts, len(cols)], dtype=np.int64)).astype(np.int64)
        ids = np.repeat(np.array(run_ids, dtype=np.int64), counts)
        sizes = cols.sizes.astype(np.float64)
        if kept:
            sizes[cols.unallocated] = 0
        totals = np.bincount(ids, weights=sizes, minlength=len(idmap)).astype(np.int64).tolist()
        order = np.argsort(ids, kind="stable")
        bounds = np.searchsorted(ids[order], np.arange(len(idmap) + 1)).tolist()
        firsts = cols.lines[order[np.array(bounds[:-1], dtype=np.int64)]].tolist()
        slot_i = 0 if kept else 1
        by_file = self._by_file
        for f, i in idmap.items():
            a, b = bounds[i], bounds[i + 1]
            lazy = SectionList(partial(_materialize, cols, order, a, b, f), b - a)
            first = firsts[i]
            slot = by_file.get(f)
            if slot is None:
                slot = by_file[f] = [None, None, [0, 0], first]
            slot[slot_i] = lazy
            slot[2][slot_i] += totals[i]
            if first < slot[3]:
                slot[3] = first

    # -- cross reference table -----------------------------------------------------------
    def _cref_flush(self) -> None:
        if self._cref_sym is not None:
            self.xref.append(
                CrossRef(self._cref_sym, self._cref_def, tuple(self._cref_refs), self._cref_line)
            )
        self._cref_sym = None
        self._cref_refs = []

    def _cref(self, data: bytes, start: int, end: int, base: int) -> None:
        """Cross-reference rows, classified column-wise: a symbol line starts in column 0,
        a referencing file is indented 50. Each referencer belongs to the symbol line
        above it (the open one of the last chunk for the first ones); only the string
        slices and lookups are per row."""
        import numpy as np

        nl = self._newline_index(data)
        arr = np.frombuffer(data, dtype=np.uint8)
        lo, hi = (int(x) for x in np.searchsorted(nl, [start, end]))
        k = np.arange(lo, min(hi, len(nl) - 1))
        if not len(k):
            return
        s, e = nl[k] + 1, nl[k + 1]
        first = arr[np.minimum(s, len(arr) - 1)]
        col = _CREF_COL
        is_sym = (e > s) & (first != 32)
        plain = is_sym & (e - s > col)
        plain[plain] = (arr[s[plain] + col - 1] == 32) & (arr[s[plain] + col] != 32)
        sym_rows = np.flatnonzero(is_sym)
        ref_rows = np.flatnonzero((first == 32) & (e - s > col))
        refs = self._lookup(
            _slices(data, s[ref_rows] + col, e[ref_rows]), k[ref_rows] - lo + base + 1
        )
        # refs[bounds[j + 1]:bounds[j + 2]] are symbol j's; refs[:bounds[1]] the open one's
        bounds = np.searchsorted(
            np.searchsorted(sym_rows, ref_rows), np.arange(len(sym_rows) + 2)
        ).tolist()
        syms, defs = self._symbols(data, s[sym_rows], e[sym_rows], plain[sym_rows])
        lines = (k[sym_rows] - lo + base + 1).tolist()
        for j in reversed([j for j, n in enumerate(syms) if n == b"Symbol"]):
            if defs[j].strip() == b"File":  # the table's column header
                del syms[j], defs[j], lines[j], bounds[j + 1]
                self.cref_header = True
        if self._cref_sym is not None:
            self._cref_refs.extend(refs[: bounds[1]])
        if not syms:
            return
        names = [n.decode("utf-8", "surrogateescape") for n in syms]
        definers = self._lookup(defs, lines)
        groups = [refs[x:y] for x, y in zip(bounds[1:], bounds[2:], strict=False)]
        self._cref_flush()
        new, xcls = tuple.__new__, CrossRef
        self.xref += [
            new(xcls, (n, d, tuple(g), ln))
            for n, d, g, ln in zip(names[:-1], definers[:-1], groups[:-1], lines[:-1], strict=True)
        ]
        self._cref_sym, self._cref_def = names[-1], definers[-1]
        self._cref_refs, self._cref_line = groups[-1], lines[-1]

    def _symbols(
        self, data: bytes, s: NDArray[np.intp], e: NDArray[np.intp], plain: NDArray[np.bool_]
    ) -> tuple[list[bytes], list[bytes]]:
        """(symbol, defining file) of each symbol line: column 50 splits a plain one.

        A demangled C++ name holds spaces (`Matcher(char const*)`): one longer than the
        column with a space just before column 50 looks like a padded short one, and its
        "file" would hold the rest of the name. Such a file, with a space and not a file
        of the map, is split again as a long symbol's line."""
        col = _CREF_COL
        starts, ends = s.tolist(), e.tolist()
        if plain.all():
            syms = [data[a : a + col].rstrip() for a in starts]
            defs = [data[a + col : b] for a, b in zip(starts, ends, strict=True)]
        else:
            syms, defs = [], []
            for a, b, p in zip(starts, ends, plain.tolist(), strict=True):
                sym, definer = (
                    (data[a : a + col].rstrip(), data[a + col : b])
                    if p
                    else self._long_symbol(data[a:b])
                )
                syms.append(sym)
                defs.append(definer)
        spaced = [j for j, d in enumerate(defs) if b" " in d]
        if spaced:
            known = self._known_files()
            for j in spaced:
                if defs[j] not in known:
                    syms[j], defs[j] = self._long_symbol(data[starts[j] : ends[j]])
        return syms, defs

    def _lookup(self, raw: list[bytes], lines: NDArray[np.intp] | list[int]) -> list[str]:
        """File names decoded once per map ('' for none)."""
        out = list(map(self.files.get, raw))
        if None in out:
            at = lines.tolist() if not isinstance(lines, list) else lines
            for i, f in enumerate(out):
                if f is None:
                    out[i] = self.file(raw[i], at[i])
        return out  # type: ignore[return-value]

    def _long_symbol(self, ln: bytes) -> tuple[bytes, bytes]:
        """A symbol of 50+ columns, one space, then the file: prefer a split naming a known file."""
        known = self._known_files()
        pos = ln.find(b" ", _CREF_COL - 1)
        first = pos
        while pos >= 0:
            if ln[pos + 1 :] in known:
                return ln[:pos].rstrip(), ln[pos + 1 :]
            pos = ln.find(b" ", pos + 1)
        if first < 0:
            return ln.rstrip(), b""
        cut = ln.rfind(b" ")
        return ln[:cut].rstrip(), ln[cut + 1 :]

    def _known_files(self) -> set[bytes]:
        """The files the map's sections name (what a cross-reference's file can be)."""
        if self._known is None:
            self._known = set(self.files) | set(self._kept_rows.run_files())
            self._known |= set(self._discard_rows.run_files())
        return self._known

    def result(self) -> LinkMap:
        self._build_sections(self._kept_rows, True)
        self._build_sections(self._discard_rows, False)
        discard_rows = self._discard_rows
        self._kept_rows, self._discard_rows = Rows(), Rows()
        tally = self.tally
        for f, (kept, disc, sums, first) in self._by_file.items():
            tally.add(f, kept, disc, (sums[0], sums[1]), first)
        inputs = tally.build()
        has_gc = discard_rows.function_sections or (
            DISCARDED in self.headings and any(i.discarded for i in inputs if i.archive)
        )
        notes = []
        if CREF not in self.headings:
            notes.append("no cross-reference table: link with -Wl,--cref to list referencers")
        return LinkMap(
            path=str(self.path),
            linker=self.flavour,
            output=self.output,
            has_cref=CREF in self.headings,
            has_gc_info=has_gc,
            inputs=inputs,
            loaded=tuple(sorted(self.loaded.items())),
            shared=tuple(sorted(set(self.shared))),
            whole_archive=tuple(
                sorted(self.whole | set(whole_archive_members(inputs, self.tally.pulled)))
            ),
            xref=tuple(self.xref),
            notes=tuple(notes),
        )


def _slices(data: bytes, lo: NDArray[np.intp], hi: NDArray[np.intp]) -> list[bytes]:
    return [data[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True)]


def _materialize(
    cols: Columns, order: NDArray[np.intp], a: int, b: int, file: str
) -> tuple[InputSection, ...]:
    names, addrs = cols.names(), cols.addr_list()
    sizes, lines = cols.sizes, cols.lines
    new = tuple.__new__
    return tuple(
        new(InputSection, (names[i], addrs[i], int(sizes[i]), file, int(lines[i])))
        for i in order[a:b].tolist()
    )


def parse(path: Path, flavour: str, limits: Limits = DEFAULT_LIMITS) -> LinkMap:
    """A bfd or gold map (`flavour`) as one `LinkMap`."""
    return _GnuMapParser(path, flavour, limits).run()


def load(path: Path) -> list[object]:
    """A bfd `-Map` file as one `LinkMap`."""
    return [parse(path, "bfd")]
