"""`keep_large_blocks` undoes what `MALLOC_TRIM_THRESHOLD_` (Dask's nanny sets 64 KiB)
does to a process: each large array freed and allocated again is a new mmap, faulted in
page by page, instead of a block of the heap used again."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_FAULTS = """
import resource, sys
import numpy as np
from slim.infra.malloc import keep_large_blocks
if sys.argv[1] == "tuned":
    assert keep_large_blocks()
for _ in range(3):
    np.ones(1 << 20)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(50):
    np.ones(1 << 20)  # 8 MiB, freed at once
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> int:
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    out = subprocess.run(
        [sys.executable, "-c", _FAULTS, mode], env=env, capture_output=True, text=True, check=True
    )
    return int(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_large_arrays_reuse_the_heap_under_dasks_malloc_environment() -> None:
    untuned, tuned = _faults("untuned"), _faults("tuned")
    assert untuned > 50 * 256  # at least a 4 KiB page in 8 of each 8 MiB array
    assert tuned * 20 < untuned
