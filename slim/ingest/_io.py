"""Bounded, gzip-transparent input reading shared by every parser.

All limits live here so a hostile file (a 2 GB line, a decompression bomb) fails fast
with an `InputError` instead of exhausting memory.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from slim.errors import InputError, describe_found

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
HEAD_BYTES = 8192


@dataclass(frozen=True)
class Limits:
    """Caps applied while reading; generous for real files, fatal for hostile ones."""

    max_line_bytes: int = 256 * 1024 * 1024
    max_decompressed_bytes: int = 64 * 1024**3
    max_ratio: int = 200
    ratio_floor_bytes: int = 256 * 1024 * 1024


DEFAULT_LIMITS = Limits()


class _BoundedGzip(io.RawIOBase):
    """A gzip stream that stops with an InputError once output outgrows the ratio guard."""

    def __init__(self, path: Path, limits: Limits) -> None:
        self._path = path
        self._raw_size = max(path.stat().st_size, 1)
        self._gz = gzip.open(path, "rb")
        self._limits = limits
        self._out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        try:
            n = self._gz.readinto(buffer)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise InputError(
                str(self._path),
                "a complete gzip stream",
                str(exc) or "corrupt data",
                offset=self._out,
            ) from None
        self._out += n
        cap = self._limits.max_decompressed_bytes
        if self._out > self._limits.ratio_floor_bytes:
            cap = min(cap, self._raw_size * self._limits.max_ratio)
        if self._out > cap:
            raise InputError(
                str(self._path),
                f"gzip data expanding at most {self._limits.max_ratio}x",
                f"more than {cap} decompressed bytes (a decompression bomb?)",
                offset=self._out,
            )
        return n

    def close(self) -> None:
        self._gz.close()
        super().close()


def open_input(path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> BinaryIO:
    """Open a file for binary reading, decompressing gzip transparently."""
    p = Path(path)
    try:
        with p.open("rb") as probe:
            magic = probe.read(2)
    except IsADirectoryError:
        raise InputError(str(p), "a file", "a directory") from None
    except OSError as exc:
        raise InputError(str(p), "a readable file", exc.strerror or str(exc)) from None
    if magic == GZIP_MAGIC:
        return io.BufferedReader(_BoundedGzip(p, limits), buffer_size=1 << 20)
    return p.open("rb")


def read_head(path: str | os.PathLike[str], size: int = HEAD_BYTES) -> bytes:
    """The first `size` bytes after decompression (what `sniff` functions look at)."""
    p = Path(path)
    if p.is_dir():
        return b""
    with open_input(p) as f:
        try:
            return f.read(size)
        except InputError:
            return b""


def iter_lines(
    stream: BinaryIO, path: str, limits: Limits = DEFAULT_LIMITS
) -> Iterator[tuple[int, bytes]]:
    """Yield (1-based line number, line without its newline); over-long lines are errors."""
    cap = limits.max_line_bytes
    lineno = 0
    while True:
        line = stream.readline(cap + 1)
        if not line:
            return
        lineno += 1
        if len(line) > cap and not line.endswith(b"\n"):
            raise InputError(path, f"a line of at most {cap} bytes", "a longer line", line=lineno)
        if line.endswith(b"\n"):
            line = line[:-1]
            if line.endswith(b"\r"):
                line = line[:-1]
        yield lineno, line


def iter_text_lines(
    path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS
) -> Iterator[tuple[int, str]]:
    """Like `iter_lines` on a path, decoded as UTF-8 (bad bytes are an InputError)."""
    name = str(path)
    with open_input(path, limits) as f:
        for lineno, raw in iter_lines(f, name, limits):
            try:
                yield lineno, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    name,
                    "UTF-8 text",
                    describe_found(raw[exc.start : exc.start + 8]),
                    line=lineno,
                ) from None


def looks_binary(head: bytes) -> bool:
    """True when the head has NUL bytes or is not UTF-8 text (ignoring a cut final char)."""
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4
    return False
