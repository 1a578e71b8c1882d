"""`keep_large_blocks` undoes what `MALLOC_TRIM_THRESHOLD_` (Dask's nanny sets 64 KiB)
does to a process: each large array freed and allocated again is a new mmap, faulted in
page by page, instead of a block of the heap used again.

glibc's own count of mmapped blocks (`mallinfo2().hblks`) tells which way an array was
served; page faults would not (with transparent huge pages an 8 MiB mmap faults 4 times).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_MMAPPED_BLOCKS = """
import ctypes, sys
import numpy as np
from slim.infra.malloc import keep_large_blocks

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
    ).split()]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "tuned":
    assert keep_large_blocks()
for _ in range(3):
    np.ones(1 << 20)
most = 0
for _ in range(50):
    block = np.ones(1 << 20)  # 8 MiB, freed on the next turn
    most = max(most, libc.mallinfo2().hblks)
    del block
print(most - libc.mallinfo2().hblks)
"""


def _mmapped_while_alive(mode: str) -> int:
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    out = subprocess.run(
        [sys.executable, "-c", _MMAPPED_BLOCKS, mode],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_large_arrays_come_from_the_heap_under_dasks_malloc_environment() -> None:
    assert _mmapped_while_alive("untuned") == 1
    assert _mmapped_while_alive("tuned") == 0
