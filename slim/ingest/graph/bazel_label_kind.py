"""Bazel `query`/`cquery --output=label_kind`: one `<kind> <label>` line per target.

The export names targets and their rule classes only, no dependency edges, and the
builder records a note saying so (the report must not read "no edges" as "no deps").
"""

from __future__ import annotations

import re
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_text_lines, looks_binary
from slim.ingest.graph.bazel_jsonproto import LOG_PREFIXES
from slim.model.graph import GraphBuilder
from slim.model.labels import normalize_label, split_configuration

NOTE = "label_kind lists targets only: no dependency edges; use --output=streamed_jsonproto"
_FILE_KINDS = ("source file ", "generated file ", "package group ", "environment group ")
_RULE = re.compile(r"([A-Za-z_][\w.$-]*) rule (\S.*)")
_SNIFF = re.compile(
    rb"(?:[A-Za-z_][\w.$-]* rule|source file|generated file|package group) @{0,2}[\w.~+-]*//"
)


def _first_line(head: bytes) -> bytes:
    for line in head.split(b"\n"):
        if line.strip() and not line.startswith(LOG_PREFIXES):
            return line
    return b""


def sniff(head: bytes, path: Path) -> bool:
    return not looks_binary(head) and _SNIFF.match(_first_line(head)) is not None


def parse_line(text: str) -> tuple[str, str, str | None] | None:
    """`cc_library rule //a:b (f5527a6)` -> ("cc_library", "//a:b", "f5527a6");
    file kinds come back as "source file" etc. None when the line is not of that shape."""
    for kind in _FILE_KINDS:
        if text.startswith(kind):
            label, config = split_configuration(text[len(kind) :].strip())
            return kind.strip(), label, config
    m = _RULE.fullmatch(text.strip())
    if m is None:
        return None
    label, config = split_configuration(m.group(2))
    return m.group(1), label, config


def load(path: Path, b: GraphBuilder) -> None:
    name = str(path)
    n = 0
    for lineno, text in iter_text_lines(path, whole=True):  # bazel ends every line
        if not text.strip() or text.encode().startswith(LOG_PREFIXES):
            continue
        parsed = parse_line(text)
        if parsed is None or "//" not in parsed[1]:
            raise InputError(
                name,
                "`<rule class> rule <label>` or `source file <label>`",
                describe_found(text),
                line=lineno,
            )
        kind, raw_label, config = parsed
        label = normalize_label(raw_label)
        n += 1
        if kind in ("source file", "generated file"):
            b.add_file(label)
        elif kind in ("package group", "environment group"):
            continue
        else:
            i = b.add_target(label, kind)
            if config is not None:
                b.add_configuration(i, config)
    if n == 0:
        raise InputError(name, "at least one `<kind> <label>` line", "none", line=1)
    b.notes.append(NOTE)
