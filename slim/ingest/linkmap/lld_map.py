"""lld (ELF) `--Map` files: fixed columns, name indentation gives the level.

`VMA LMA Size Align Out In Symbol` (LLVM 9+; older lld has no LMA). Numbers are hex
without `0x`; the name starts where the header's `Out` does, indented 0 (output
section), 8 (input section `file:(section)`, split at the last `:(`) or 16 (symbol).
With `--cref` a bfd-layout cross-reference table follows. The map lists only inputs
that contributed a section, so archives with nothing extracted never appear.
"""

from __future__ import annotations

import re
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import DEFAULT_LIMITS, Limits
from slim.ingest.linkmap._gnu_rows import Block, Rows, rows_block
from slim.ingest.linkmap._lld_rows import Columns, column_rows
from slim.ingest.linkmap._mapcommon import (
    FileSlices,
    InputTally,
    check_complete,
    check_text,
    iter_chunks,
    no_gc,
)
from slim.ingest.linkmap.ld_map import CREF, _GnuMapParser
from slim.model.native import LinkMap


def _cref_heading(data: bytes) -> int:
    """The position of the newline before the `Cross Reference Table` line, or -1."""
    at = data.find(b"\n" + CREF)
    while at >= 0:
        stop = data.find(b"\n", at + 1)
        if not data[at + 1 + len(CREF) : stop if stop >= 0 else len(data)].strip():
            return at
        at = data.find(b"\n" + CREF, at + 1)
    return -1


_HEADER_RE = re.compile(rb"^ *(VMA|Address) +(?:LMA +)?Size +Align +Out +In +(?:File +)?Symbol *$")


def sniff(head: bytes, path: Path) -> bool:
    del path
    first = head.split(b"\n", 1)[0].rstrip()
    return _HEADER_RE.match(first) is not None and b"LMA" in first


class ColumnMap:
    """A columnar map (lld, mold): the header fixes the columns, rows are matched by regex."""

    def __init__(
        self, path: Path, flavour: str, size_base: int, limits: Limits = DEFAULT_LIMITS
    ) -> None:
        self.path = path
        self.limits = limits
        self.flavour = flavour
        self.size_base = size_base
        self.tally = InputTally()
        self.cref = _GnuMapParser(path, flavour)
        self.in_cref = False
        self.size_field = 1
        self.row: re.Pattern[bytes] | None = None
        self.columns: Columns | None = None
        self.end_mark = b""
        self.end_col = 0
        self.ended = False
        """The map's last mark was seen: lld's `<internal>:(.shstrtab)`, mold's `SHDR`."""

    def header(self, line: bytes) -> None:
        text = line.rstrip()
        m = _HEADER_RE.match(text)
        if m is None:
            raise InputError(
                str(self.path),
                f"an {self.flavour} map header ('VMA ... Size Align Out In Symbol')",
                describe_found(text),
                line=1,
            )
        col = text.index(b"Out")
        names = text[:col].split()
        self.size_field = names.index(b"Size")
        # A row whose name starts 8 columns past `Out`: an input section.
        self.row = re.compile(rb"\n([^\n]{%d}) {8}(\S[^\n]*)" % col)
        self.columns = Columns(text, self.size_base)
        # mold's last output chunk is the section header table; lld's last input section
        # with a name table is the synthetic `.shstrtab` (`.strtab` may follow it)
        self.end_mark = b"SHDR" if self.flavour == "mold" else b"<internal>:(.shstrtab)"
        self.end_col = col if self.flavour == "mold" else col + 8

    def run(self) -> LinkMap:
        with no_gc():
            return self._run()

    def _run(self) -> LinkMap:
        last = None
        self.cref.slices = FileSlices(self.path)
        for c in iter_chunks(self.path, self.limits):
            check_text(self.path, c)
            if last is None:
                self.header(c.data[1 : c.data.find(b"\n", 1)])
            self.chunk(c.data, c.line - 1, c.offset)
            last = c
        if last is None:
            raise InputError(str(self.path), f"an {self.flavour} map", "an empty file", line=1)
        self.cref._cref_flush()
        check_complete(self.path, last, last.line + last.data.count(b"\n") - 2, self._missing_end())
        return self.result()

    def _missing_end(self) -> str:
        """What a complete map has and this one lacks ('' when nothing is missing)."""
        if not self.ended:
            mark = "`SHDR` row" if self.flavour == "mold" else "`<internal>:(.shstrtab)` row"
            return f"the {mark} (a complete {self.flavour} map lists it near its end)"
        if self.in_cref and not self.cref.cref_header:
            return "the cross-reference table's `Symbol  File` header"
        return ""

    def chunk(self, data: bytes, base: int, offset: int = -1) -> None:
        self.cref._newlines = None
        self.cref._base = base
        start = 0
        if not self.in_cref:
            at = _cref_heading(data)
            end = at + 1 if at >= 0 else len(data)
            self.rows(data, 0, end, base, offset)
            self.ended = self.ended or self._has_end(data, end)
            if at < 0:
                return
            self.in_cref = True
            self.cref.headings.add(CREF)
            start = data.index(b"\n", at + 1)
            base += data.count(b"\n", 0, start)
        self.cref._cref(data, start, len(data), base)

    def _has_end(self, data: bytes, end: int) -> bool:
        """Whether data[:end] holds the end mark alone on a line, at its column."""
        at = data.find(self.end_mark, 0, end)
        while at >= 0:
            stop = data.find(b"\n", at)
            tail = data[at + len(self.end_mark) : stop if stop >= 0 else end]
            if at - (data.rfind(b"\n", 0, at) + 1) == self.end_col and not tail.strip():
                return True
            at = data.find(self.end_mark, at + 1, end)
        return False

    def rows(self, data: bytes, start: int, end: int, base: int, offset: int = -1) -> None:
        """The input-section rows of data[start:end], column-wise when the layout allows."""
        assert self.columns is not None
        nl = self.cref._newline_index(data)
        block = column_rows(data, start, end, nl, base, self.columns, offset)
        if block is None:
            block = self.slow_rows(data, start, end, base)
        self.cref._kept_rows.add(block)

    def slow_rows(self, data: bytes, start: int, end: int, base: int) -> Block:
        """Row by row, fields split on whitespace: any layout, exact errors."""
        assert self.row is not None
        line, last = base, start
        names: list[bytes] = []
        addrs: list[int] = []
        sizes: list[int] = []
        files: list[bytes] = []
        lines: list[int] = []
        for m in self.row.finditer(data, start, end):
            line += data.count(b"\n", last, m.start()) + 1
            last = m.start() + 1
            nums, name = m.groups()
            fields = nums.split()
            try:
                size = int(fields[self.size_field], self.size_base)
                addr = int(fields[0], 16)
            except (ValueError, IndexError):
                raise InputError(
                    str(self.path), "numeric VMA/Size columns", describe_found(nums), line=line
                ) from None
            cut = name.rfind(b":(")
            if cut <= 0 or not name.endswith(b")") or name.startswith(b"<internal>:("):
                continue
            names.append(name[cut + 2 : -1])
            files.append(name[:cut])
            addrs.append(min(addr, (1 << 64) - 1))
            sizes.append(min(size, 1 << 62))
            lines.append(line)
        return rows_block(names, addrs, sizes, files, lines)

    def result(self) -> LinkMap:
        gnu = self.cref
        gnu._build_sections(gnu._kept_rows, True)
        gnu._kept_rows = Rows()
        for f, (kept, _, sums, first) in gnu._by_file.items():
            self.tally.add(f, kept, None, (sums[0], 0), first)
        inputs = self.tally.build()
        has_cref = CREF in self.cref.headings
        notes = ["lists only inputs that contributed sections; unextracted archives are absent"]
        if not has_cref:
            notes.append("no cross-reference table: link with -Wl,--cref to list referencers")
        notes.append("no discarded sections: add -Wl,--print-gc-sections output for GC evidence")
        return LinkMap(
            path=str(self.path),
            linker=self.flavour,
            output="",
            has_cref=has_cref,
            has_gc_info=False,
            inputs=inputs,
            xref=tuple(self.cref.xref),
            notes=tuple(notes),
        )


def load(path: Path) -> list[object]:
    """An lld `--Map` file as one `LinkMap`."""
    return [ColumnMap(path, "lld", 16).run()]
