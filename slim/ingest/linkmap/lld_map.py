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
from slim.ingest.linkmap._mapcommon import (
    InputTally,
    check_complete,
    check_text,
    iter_chunks,
    no_gc,
    split_file_section,
)
from slim.ingest.linkmap.ld_map import CREF, _GnuMapParser
from slim.model.native import InputSection, LinkMap

_CREF_RE = re.compile(b"\n" + re.escape(CREF) + rb"[ \t]*\n")
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
        self.end_row: re.Pattern[bytes] | None = None
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
        # mold's last output chunk is the section header table; lld's last input section
        # with a name table is the synthetic `.shstrtab` (`.strtab` may follow it)
        end = b"SHDR" if self.flavour == "mold" else b" {8}<internal>:\\(\\.shstrtab\\)"
        self.end_row = re.compile(rb"\n[^\n]{%d}%s *\n" % (col, end))

    def run(self) -> LinkMap:
        with no_gc():
            return self._run()

    def _run(self) -> LinkMap:
        last = None
        for c in iter_chunks(self.path, self.limits):
            check_text(self.path, c)
            if last is None:
                self.header(c.data[1 : c.data.find(b"\n", 1)])
            self.chunk(c.data, c.line - 1)
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

    def chunk(self, data: bytes, base: int) -> None:
        self.cref._newlines = None
        self.cref._base = base
        start = 0
        if not self.in_cref:
            m = _CREF_RE.search(data)
            end = m.start() + 1 if m else len(data)
            self.rows(data, 0, end, base)
            assert self.end_row is not None
            self.ended = self.ended or self.end_row.search(data, 0, end + 1) is not None
            if m is None:
                return
            self.in_cref = True
            self.cref.headings.add(CREF)
            start = m.end() - 1
            base += data.count(b"\n", 0, start)
        self.cref._cref(data, start, len(data), base)

    def rows(self, data: bytes, start: int, end: int, base: int) -> None:
        assert self.row is not None
        line = base
        last = start
        count = data.count
        files = self.cref.files
        field, sbase = self.size_field, self.size_base
        kept = self.tally.kept
        for m in self.row.finditer(data, start, end):
            line += count(b"\n", last, m.start()) + 1
            last = m.start() + 1
            nums, name = m.groups()
            fields = nums.split()
            try:
                size = int(fields[field], sbase)
                addr = int(fields[0], 16)
            except (ValueError, IndexError):
                raise InputError(
                    str(self.path), "numeric VMA/Size columns", describe_found(nums), line=line
                ) from None
            text = files.get(name)
            if text is None:
                text = files[name] = name.decode("utf-8", "surrogateescape")
            file, section = split_file_section(text)
            if file == "<internal>" or not section:
                continue
            kept(InputSection(section, addr, size, file, line))

    def result(self) -> LinkMap:
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
