"""GNU ld (bfd) `-Map` files, with or without `--cref` (gold's layout is read here too).

Sections: archive members pulled and by what, as-needed shared libraries, discarded
input sections, the memory map (`LOAD` lines, kept input sections), `OUTPUT(...)` and
the cross-reference table. Long section names wrap onto the next line; file names are
everything after the size column (spaces and drive letters included).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slim.errors import InputError, describe_found
from slim.ingest._io import DEFAULT_LIMITS, Limits
from slim.ingest.linkmap._gnu_rows import Rows, fixed_rows, regex_rows
from slim.ingest.linkmap._mapcommon import (
    InputTally,
    check_text,
    decode,
    iter_chunks,
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
_HEADING_RE = re.compile(
    b"\n(" + b"|".join(re.escape(h) for h in _HEADINGS) + b")[ \t]*\n",
)
_LOAD_RE = re.compile(rb"\nLOAD ([^\n]+)")
_OUTPUT_RE = re.compile(rb"\nOUTPUT\(([^\n]+)\)")
_CREF_COL = 50
_MEMBER_COL = 30
_SPACES_CREF = b" " * _CREF_COL
_SPACES_MEMBER = b" " * _MEMBER_COL


def sniff(head: bytes, path: Path) -> bool:
    """bfd map: its first heading (maps without archives start at discards or memory)."""
    del path
    first = head.lstrip(b"\n").split(b"\n", 1)[0].rstrip()
    if first in (BFD_MEMBERS, AS_NEEDED):
        return True
    if first in (DISCARDED, MEMCONF, MERGING, ALLOCATING):
        return b"\n" + GOLD_MEMMAP + b"\n" not in head or MEMCONF in head
    return False


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
        first = True
        for lineno, chunk in iter_chunks(self.path, self.limits):
            if first:
                check_text(self.path, chunk[1:8193])
                first = False
            self.chunk(chunk, lineno - 1)
        self._cref_flush()
        if not self.headings:
            raise InputError(
                str(self.path),
                "a GNU ld map (a heading such as 'Linker script and memory map')",
                "no map heading",
                line=1,
            )
        return self.result()

    def chunk(self, data: bytes, base: int) -> None:
        """`data` starts with a newline that sits before line `base + 1`."""
        self._newlines = None
        self._base = base
        pos = 0
        while True:
            m = _HEADING_RE.search(data, pos)
            end = m.start() + 1 if m else len(data)
            if end > pos:
                self.segment(data, pos, end, base + data.count(b"\n", 0, pos))
            if m is None:
                return
            heading = m.group(1)
            self.headings.add(heading)
            self._cref_flush()
            self.state = heading
            pos = m.end() - 1

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
        for lineno, ln in self._lines(data, start, end, base):
            if not ln.strip():
                continue
            if ln.startswith(_SPACES_MEMBER) and self._member_pending is not None:
                member, mline = self._member_pending
                self._member_pending = None
                self._pulled(member, ln[_MEMBER_COL:], mline, lineno)
                continue
            if len(ln) > _MEMBER_COL and ln[_MEMBER_COL - 1 : _MEMBER_COL] == b" ":
                member = self.file(ln[:_MEMBER_COL].rstrip(), lineno)
                rest = ln[_MEMBER_COL:].lstrip(b" ")
                if rest:
                    self._pulled(member, rest, lineno, lineno)
                    continue
            self._member_pending = (self.file(ln.rstrip(), lineno), lineno)

    def _pulled(self, member: str, rest: bytes, mline: int, lineno: int) -> None:
        text = decode(self.path, rest.rstrip(), lineno)
        if (text.startswith("(") and text.endswith(")")) or text.startswith("--"):
            # bfd `lib.a(m.o)  (--whole-archive)`, gold `... --whole-archive`: no reference.
            if "whole-archive" in text:
                self.whole.add(split_input(member)[0])
            self.tally.linked(member, mline)
            return
        cut = text.rfind(" (")
        if cut < 0 or not text.endswith(")"):
            raise InputError(
                str(self.path),
                "'file (symbol)' after an archive member",
                describe_found(text),
                line=lineno,
            )
        by = PulledBy(self.file(text[:cut].encode(), lineno), text[cut + 2 : -1], mline)
        self.tally.pulled_by(member, by)

    def _as_needed(self, data: bytes, start: int, end: int, base: int) -> None:
        for lineno, ln in self._lines(data, start, end, base):
            if ln.strip() and not ln.startswith(b" "):
                lib = ln[:_MEMBER_COL].rstrip() if len(ln) > _MEMBER_COL else ln.rstrip()
                self.shared.append(self.file(lib.split(b" ", 1)[0], lineno))

    # -- sections ----------------------------------------------------------------------
    def _sections(self, data: bytes, start: int, end: int, rows: Rows) -> None:
        """Section rows of data[start:end]: column-wise numpy, or the regex for odd layouts."""
        nl = self._newline_index(data)
        got = fixed_rows(data, start, end, nl, self._base) if self.fast else None
        if got is None:
            got = regex_rows(data, start, end, nl, self._base)
        rows.extend(got)

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
        for k in np.flatnonzero((first == 76) | (first == 79)).tolist():
            a = int(starts[k])
            line_text = data[a - 1 : data.find(b"\n", a)]
            line = lo + k + 1 + self._base
            m = _LOAD_RE.match(line_text)
            if m is not None:
                self.loaded.setdefault(self.file(m.group(1), line), line)
            elif not self.output:
                o = _OUTPUT_RE.match(line_text)
                if o is not None:
                    text = self.file(o.group(1), line)
                    self.output = text.rsplit(" ", 1)[0] if " " in text else text

    def _build_sections(self, rows: Rows, kept: bool) -> None:
        """Group rows by file with numpy (stable: map order within a file); the section
        tuples themselves are built only when somebody reads them (`SectionList`)."""
        import numpy as np

        if not rows.names:
            return
        # Rows of one file come in runs (link order): look files up once per run.
        fb = rows.files
        n = len(fb)
        heads = [0, *(i for i in range(1, n) if fb[i] != fb[i - 1])]
        idmap: dict[str, int] = {}
        run_ids = []
        for i in heads:
            f = self.files.get(fb[i])
            if f is None:
                f = self.file(fb[i], rows.lines[i])
            run_ids.append(idmap.setdefault(f, len(idmap)))
        counts = np.diff(np.array([*heads, n], dtype=np.int64)).astype(np.int64)
        ids = np.repeat(np.array(run_ids, dtype=np.int64), counts)
        rows.files = []
        sizes = np.array(rows.sizes, dtype=np.float64)
        if kept:
            sizes[np.array(rows.unallocated, dtype=bool)] = 0
        totals = np.bincount(ids, weights=sizes, minlength=len(idmap)).astype(np.int64).tolist()
        order = np.argsort(ids, kind="stable")
        bounds = np.searchsorted(ids[order], np.arange(len(idmap) + 1)).tolist()
        order_l = order.tolist()
        slot_i = 0 if kept else 1
        for f, i in idmap.items():
            idx = order_l[bounds[i] : bounds[i + 1]]
            lazy = SectionList(partial(_materialize, rows, idx, f), len(idx))
            first = rows.lines[idx[0]]
            slot = self._by_file.get(f)
            if slot is None:
                slot = self._by_file[f] = [None, None, [0, 0], first]
            slot[slot_i] = lazy
            slot[2][slot_i] += totals[i]
            slot[3] = min(slot[3], first)

    # -- cross reference table -----------------------------------------------------------
    def _cref_flush(self) -> None:
        if self._cref_sym is not None:
            self.xref.append(
                CrossRef(self._cref_sym, self._cref_def, tuple(self._cref_refs), self._cref_line)
            )
        self._cref_sym = None
        self._cref_refs.clear()

    def _cref(self, data: bytes, start: int, end: int, base: int) -> None:
        """Cross-reference rows, classified column-wise: a symbol line starts in column 0,
        a referencing file is indented 50; only the string slices are per row."""
        import numpy as np

        nl = self._newline_index(data)
        arr = np.frombuffer(data, dtype=np.uint8)
        lo, hi = (int(x) for x in np.searchsorted(nl, [start, end]))
        k = np.arange(lo, min(hi, len(nl) - 1))
        if not len(k):
            return
        s, e = nl[k] + 1, nl[k + 1]
        first = arr[np.minimum(s, len(arr) - 1)]
        nonempty = e > s
        is_ref = nonempty & (first == 32) & (e - s > _CREF_COL)
        is_sym = nonempty & (first != 32)
        col = _CREF_COL
        plain = is_sym & (e - s > col)
        plain[plain] = (arr[s[plain] + col - 1] == 32) & (arr[s[plain] + col] != 32)
        files = self.files
        file = self.file
        new = tuple.__new__
        xcls = CrossRef
        xref = self.xref
        refs = self._cref_refs
        kinds = np.where(is_ref, 1, np.where(plain, 2, np.where(is_sym, 3, 0)))
        keep = np.flatnonzero(kinds)
        for kind, a, b, line in zip(
            kinds[keep].tolist(),
            s[keep].tolist(),
            e[keep].tolist(),
            (k[keep] - lo + base + 1).tolist(),
            strict=True,
        ):
            if kind == 1:
                if self._cref_sym is not None:
                    raw = data[a + col : b]
                    f = files.get(raw)
                    refs.append(f if f is not None else file(raw, line))
                continue
            if kind == 2:
                sym, definer = data[a : a + col].rstrip(), data[a + col : b]
                if sym == b"Symbol" and definer.strip() == b"File":
                    continue
            else:
                sym, definer = self._long_symbol(data[a:b])
            if self._cref_sym is not None:
                xref.append(
                    new(xcls, (self._cref_sym, self._cref_def, tuple(refs), self._cref_line))
                )
                refs.clear()
            try:
                self._cref_sym = sym.decode("utf-8")
            except UnicodeDecodeError:
                self._cref_sym = decode(self.path, sym, line)
            f = files.get(definer)
            self._cref_def = f if f is not None else (file(definer, line) if definer else "")
            self._cref_line = line

    def _long_symbol(self, ln: bytes) -> tuple[bytes, bytes]:
        """A symbol of 50+ columns, one space, then the file: prefer a split naming a known file."""
        if self._known is None:
            self._known = set(self.files) | set(self._kept_rows.files)
            self._known |= set(self._discard_rows.files)
        pos = ln.find(b" ", _CREF_COL - 1)
        first = pos
        while pos >= 0:
            if ln[pos + 1 :] in self._known:
                return ln[:pos], ln[pos + 1 :]
            pos = ln.find(b" ", pos + 1)
        if first < 0:
            return ln.rstrip(), b""
        cut = ln.rfind(b" ")
        return ln[:cut], ln[cut + 1 :]

    def result(self) -> LinkMap:
        self._build_sections(self._kept_rows, True)
        self._build_sections(self._discard_rows, False)
        self._kept_rows, self._discard_rows = Rows(), Rows()
        tally = self.tally
        for f, (kept, disc, sums, first) in self._by_file.items():
            tally.add(f, kept, disc, (sums[0], sums[1]), first)
        inputs = tally.build()
        gc_names = (".text.", ".data.", ".rodata.", ".bss.")
        has_gc = any(s.name.startswith(gc_names) for i in inputs for s in i.discarded) or (
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


def _materialize(rows: Rows, idx: list[int], file: str) -> tuple[InputSection, ...]:
    names, addrs, sizes, lines = rows.names, rows.addrs, rows.sizes, rows.lines
    new = tuple.__new__
    return tuple(
        new(InputSection, (names[i].decode("utf-8", "replace"), addrs[i], sizes[i], file, lines[i]))
        for i in idx
    )


def parse(path: Path, flavour: str, limits: Limits = DEFAULT_LIMITS) -> LinkMap:
    """A bfd or gold map (`flavour`) as one `LinkMap`."""
    return _GnuMapParser(path, flavour, limits).run()


def load(path: Path) -> list[object]:
    """A bfd `-Map` file as one `LinkMap`."""
    return [parse(path, "bfd")]
