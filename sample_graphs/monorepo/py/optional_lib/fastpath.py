"""A faster checksum when available; callers fall back when the import fails."""

from __future__ import annotations

import zlib


def checksum(data: bytes) -> int:
    return zlib.crc32(data)
