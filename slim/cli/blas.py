"""numpy imported with OpenBLAS on one thread, when a command imports it at all.

OpenBLAS starts one worker thread per core when its library loads, and each spins for a
while waiting for work: on 2 cores that is ~60 ms of wall time of every command that
imports numpy (a warm graph-only query is 0.25 s). slim's numpy work is elementwise or a
product with a narrow matrix, and its parallel readers fork their own workers, so one
thread loses nothing. The variable is set only while numpy's own module runs (its
extension loads OpenBLAS then) and removed again: the builds and traced programs slim
runs see the user's environment, and a command that never imports numpy pays nothing.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

VAR = "OPENBLAS_NUM_THREADS"


class _OneThreadNumpy:
    """A meta-path finder for `numpy` alone: the spec the other finders give, its module
    run with `VAR=1` (then this finder is gone)."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != "numpy":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or VAR in os.environ:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            os.environ[VAR] = "1"
            try:
                run(module)
            finally:
                os.environ.pop(VAR, None)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def numpy_on_one_blas_thread() -> None:
    """Have the first import of numpy run OpenBLAS on one thread, unless numpy is already
    imported or the user set `OPENBLAS_NUM_THREADS`."""
    if "numpy" in sys.modules or VAR in os.environ:
        return
    if not any(isinstance(f, _OneThreadNumpy) for f in sys.meta_path):
        sys.meta_path.insert(0, _OneThreadNumpy())
