"""Keep large numpy temporaries on the heap: glibc's thresholds as a warmed-up process has
them, whatever the environment set.

Per-root analysis allocates and frees arrays of a million entries over and over. glibc
serves such blocks from the heap once its dynamic mmap threshold has risen, but a
process started with `MALLOC_TRIM_THRESHOLD_` (as Dask's nanny starts its workers, with
64 KiB) has that adjustment turned off: every large array is a fresh mmap, faulted in and
zeroed, and the heap is trimmed on each free (per-root work 20% slower).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

#: `mallopt` parameters (malloc.h) and the values glibc's dynamic threshold reaches at
#: most on 64-bit systems (DEFAULT_MMAP_THRESHOLD_MAX; trim at twice it, as it does).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20


def keep_large_blocks() -> bool:
    """Set the thresholds (glibc only); whether they were set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl has no mallopt
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD)
    )
