"""Bounded, gzip-transparent input reading shared by every parser.

All limits live here so a hostile file (a 2 GB line, a decompression bomb) fails fast
with an `InputError` instead of exhausting memory.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import stat
import zlib
from collections.abc import Callable, Iterator
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
        self._file = open_regular(path)
        self._raw_size = max(os.fstat(self._file.fileno()).st_size, 1)
        self._gz = gzip.GzipFile(fileobj=self._file, mode="rb")
        self._limits = limits
        self._out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        try:
            n = self._gz.readinto(buffer)
        except (OSError, EOFError, zlib.error) as exc:
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
        self._file.close()
        super().close()


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def os_error(path: str, exc: OSError) -> InputError:
    """An `InputError` for a file that cannot be opened, in the OS's words."""
    if exc.errno == errno.ENOENT:
        return InputError(path, "an existing file", "no such file or directory")
    if exc.errno == errno.ELOOP:
        return InputError(path, "a file", "a symlink loop (too many levels of symbolic links)")
    if exc.errno == errno.EISDIR:
        return InputError(path, "a file", "a directory (is a directory)")
    return InputError(path, "a readable file", exc.strerror or str(exc))


def check_kind(path: str, mode: int, *, directory: bool = False) -> None:
    """Refuse what is not a regular file (or a directory, where one is allowed)."""
    if stat.S_ISREG(mode) or (directory and stat.S_ISDIR(mode)):
        return
    if stat.S_ISDIR(mode):
        raise InputError(path, "a file", "a directory (is a directory)")
    kind = next((what for test, what in _KINDS if test(mode)), "not a regular file")
    raise InputError(path, "a regular file", kind)


def check_input(path: str | os.PathLike[str], *, directory: bool = False) -> None:
    """Fail with one line unless `path` is a regular file (or a directory if allowed)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise os_error(str(path), exc) from None
    check_kind(str(path), st.st_mode, directory=directory)


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular file for binary reading; a FIFO, device or socket is refused at
    once (opened non-blocking, so a FIFO with no writer cannot hang the open)."""
    name = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise os_error(name, exc) from None
    try:
        check_kind(name, os.fstat(fd).st_mode)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_input(path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> BinaryIO:
    """Open a regular file for binary reading, decompressing gzip transparently."""
    p = Path(path)
    f = open_regular(p)
    try:
        magic = f.read(2)
        f.seek(0)
    except OSError as exc:
        f.close()
        raise os_error(str(p), exc) from None
    if magic == GZIP_MAGIC:
        f.close()
        return io.BufferedReader(_BoundedGzip(p, limits), buffer_size=1 << 20)
    return f


def read_limited(path: str | os.PathLike[str], max_bytes: int, what: str) -> bytes:
    """The whole (decompressed) file, refused past `max_bytes`; never asks for a buffer
    larger than the file (a plain file is read at its size, gzip in 1 MiB blocks)."""
    name = str(path)
    with open_input(path) as f:
        try:
            size: int | None = os.fstat(f.fileno()).st_size
        except OSError:
            size = None  # a gzip stream: its size is known once read
        if size is not None:
            if size > max_bytes:
                raise InputError(name, f"{what} of at most {max_bytes} bytes", f"{size} bytes")
            return f.read()
        blocks: list[bytes] = []
        total = 0
        while block := f.read(1 << 20):
            total += len(block)
            if total > max_bytes:
                raise InputError(
                    name, f"{what} of at most {max_bytes} bytes", "a larger file", offset=total
                )
            blocks.append(block)
        return b"".join(blocks)


def read_head(path: str | os.PathLike[str], size: int = HEAD_BYTES) -> bytes:
    """The first `size` bytes after decompression (what `sniff` functions look at)."""
    p = Path(path)
    if p.is_dir():
        return b""
    with open_input(p) as f:
        return f.read(size)


def _raw_lines(stream: BinaryIO, path: str, limits: Limits) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, line without its newline, whether it had one); over-long lines are
    errors."""
    cap = limits.max_line_bytes
    lineno = 0
    while True:
        line = stream.readline(cap + 1)
        if not line:
            return
        lineno += 1
        ended = line.endswith(b"\n")
        if ended:
            line = line[:-1]
            if line.endswith(b"\r"):
                line = line[:-1]
        elif len(line) > cap:
            raise InputError(path, f"a line of at most {cap} bytes", "a longer line", line=lineno)
        yield lineno, line, ended


def _must_end(whole: bool | Callable[[bytes], bool], line: bytes) -> bool:
    return whole is True or (callable(whole) and whole(line))


def iter_lines(
    stream: BinaryIO,
    path: str,
    limits: Limits = DEFAULT_LIMITS,
    *,
    whole: bool | Callable[[bytes], bool] = False,
) -> Iterator[tuple[int, bytes]]:
    """Yield (1-based line number, line without its newline); over-long lines and NUL
    bytes are errors. `whole`: the last line must end with a newline too (tools end
    every line of these formats with one; a file that does not was cut short); a
    predicate: only a last line it is true of must (a trace's row, not program output)."""
    for lineno, line, ended in _raw_lines(stream, path, limits):
        if b"\0" in line:
            raise nul_byte(path, lineno, line)
        if not ended and _must_end(whole, line):
            raise cut_short(path, lineno, line)
        yield lineno, line


def split_lines(
    data: bytes, path: str, whole: bool | Callable[[bytes], bool] = False
) -> list[bytes]:
    """`data` (a whole small file) as lines, with `iter_lines`' checks: NUL bytes, and a
    last line without newline where `whole` asks for one."""
    if b"\0" in data:
        at = data.index(b"\0")
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        line = data[start : end if end >= 0 else len(data)]
        raise nul_byte(path, data.count(b"\n", 0, at) + 1, line)
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    elif whole is True or (callable(whole) and whole(lines[-1])):
        raise cut_short(path, len(lines), lines[-1])
    return [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]


def cut_short(path: str, lineno: int, last: bytes) -> InputError:
    """The error for a file whose last line has no newline: it was truncated."""
    return InputError(
        path,
        "a newline at the end of the last line (a complete file)",
        f"{describe_found(last[-40:])} at the end of the file (truncated?)",
        line=lineno,
    )


def nul_byte(path: str, lineno: int, line: bytes) -> InputError:
    """The error for a NUL byte in text: shows the bytes around it, and its column."""
    col = line.index(b"\0")
    return InputError(
        path,
        "text",
        f"a NUL byte at column {col + 1} (bytes {line[col : col + 8].hex(' ')})",
        line=lineno,
    )


def iter_text_lines(
    path: str | os.PathLike[str],
    limits: Limits = DEFAULT_LIMITS,
    *,
    whole: bool | Callable[[bytes], bool] = False,
) -> Iterator[tuple[int, str]]:
    """Like `iter_lines` on a path, decoded as UTF-8 (bad bytes are an InputError); the
    first offending byte of a line is the one reported."""
    name = str(path)
    with open_input(path, limits) as f:
        for lineno, raw, ended in _raw_lines(f, name, limits):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                if b"\0" in raw[: exc.start]:
                    raise nul_byte(name, lineno, raw) from None
                raise bad_utf8(name, lineno, raw, exc) from None
            if "\0" in text:
                raise nul_byte(name, lineno, raw)
            if not ended and _must_end(whole, raw):
                raise cut_short(name, lineno, raw)
            yield lineno, text


def bad_utf8(path: str, lineno: int, raw: bytes, exc: UnicodeDecodeError) -> InputError:
    """The error for bytes that are not UTF-8: the offending bytes and their column."""
    return InputError(
        path,
        "UTF-8 text",
        f"bytes {raw[exc.start : exc.start + 8].hex(' ')} at column {exc.start + 1}",
        line=lineno,
    )


def looks_binary(head: bytes) -> bool:
    """True when the head has NUL bytes or is not UTF-8 text (ignoring a cut final char)."""
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4
    return False
