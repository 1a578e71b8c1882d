"""Atomic file writes: a temporary file beside the target, then `os.replace`.

A failed or interrupted run never leaves a partial output file behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(output: Path, data: bytes) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, output)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
