"""A one-line status on a terminal for work that takes a while (reading a large export,
analyzing many roots, laying out a graph); nothing when stderr is not a terminal or
`SLIM_NO_PROGRESS` is set, so logs and pipes stay clean."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


class Progress:
    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty()) and not os.environ.get("SLIM_NO_PROGRESS")
        self.enabled = enabled
        self.shown = False

    def status(self, text: str) -> None:
        if not self.enabled:
            return
        width = max(20, shutil.get_terminal_size((80, 20)).columns - 1)
        self.stream.write("\r\x1b[2K" + text[:width])
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self.shown = False

    @contextmanager
    def step(self, text: str) -> Iterator[None]:
        """`text…` while the block runs, then `text: done in Ns` erased at the end."""
        start = time.monotonic()
        self.status(f"{text}…")
        try:
            yield
        finally:
            self.status(f"{text}: {time.monotonic() - start:.1f} s")
            self.clear()


def size_text(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n = n / 1024  # type: ignore[assignment]
    return f"{n} bytes"
