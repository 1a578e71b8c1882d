"""lld `--why-extract=<file>` TSV and `--why-live=<glob>` reports.

why-extract: header `reference<TAB>extracted<TAB>symbol`, one row per archive member
extracted (what pulled it). why-live (LLD 16+; stdout): `live symbol: FILE:(SYM)` then
`>>> referenced by: FILE:(SYM)` lines, one chain to a GC root (`(entry point)`, ...).
"""

from __future__ import annotations

from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_text_lines
from slim.ingest.linkmap._mapcommon import split_file_section
from slim.model.native import Extraction, LiveChain, WhyExtract, WhyLive

EXTRACT_HEADER = b"reference\textracted\tsymbol"
LIVE = "live symbol: "
REF = ">>> referenced by: "


def sniff_extract(head: bytes, path: Path) -> bool:
    del path
    return head.split(b"\n", 1)[0].rstrip(b"\r") == EXTRACT_HEADER


def sniff_live(head: bytes, path: Path) -> bool:
    del path
    return head.startswith(LIVE.encode())


def load_extract(path: Path) -> list[object]:
    """A `--why-extract` TSV as one `WhyExtract`."""
    rows: list[Extraction] = []
    seen_header = False
    for lineno, line in iter_text_lines(path, whole=True):
        if not seen_header:
            if line != EXTRACT_HEADER.decode():
                raise InputError(
                    str(path),
                    "the header 'reference<TAB>extracted<TAB>symbol'",
                    describe_found(line),
                    line=lineno,
                )
            seen_header = True
            continue
        if not line:
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise InputError(
                str(path),
                "3 tab-separated fields",
                f"{len(parts)}: {describe_found(line)}",
                line=lineno,
            )
        rows.append(Extraction(parts[0], parts[1], parts[2], lineno))
    if not seen_header:
        raise InputError(str(path), "a --why-extract TSV", "an empty file", line=1)
    return [WhyExtract(str(path), tuple(rows))]


def load_live(path: Path) -> list[object]:
    """A `--why-live` report as one `WhyLive` (one chain per live symbol)."""
    out: list[LiveChain] = []
    cur: tuple[str, str, int] | None = None
    chain: list[tuple[str, str]] = []
    root = ""

    def flush() -> None:
        if cur is not None:
            out.append(LiveChain(cur[0], cur[1], tuple(chain), cur[2], root))

    for lineno, line in iter_text_lines(path, whole=True):
        if line.startswith(LIVE):
            flush()
            file, sym = split_file_section(line[len(LIVE) :])
            cur, chain, root = (file, sym, lineno), [], ""
        elif line.startswith(REF) and cur is not None:
            text = line[len(REF) :]
            if text.endswith(")") and not text.endswith(":)") and " (" in text:
                text, _, tail = text.rpartition(" (")
                root = tail[:-1]
            chain.append(split_file_section(text))
        elif line.strip() and cur is None:
            raise InputError(
                str(path), "'live symbol: FILE:(SYMBOL)'", describe_found(line), line=lineno
            )
    flush()
    if not out:
        raise InputError(str(path), "a --why-live report", "no 'live symbol:' line", line=1)
    return [WhyLive(str(path), tuple(out))]
