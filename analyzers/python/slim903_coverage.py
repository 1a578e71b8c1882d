"""SLIM903 python-trace-coverage: how much of a binary's packaged Python (modules and
bytes of its closure) the given traces touch, and which traces were set aside."""

from __future__ import annotations

import numpy as np

from slim.model.findings import Evidence, Finding
from slim.model.graph import EdgeKind

from .._findings import on_root
from ._details import CoverageDetails
from ._import_view import ImportView
from .rules import COVERAGE, NAME


def _packaged(view: ImportView) -> tuple[dict[str, int], dict[str, tuple[str, ...]]]:
    """Every packaged module of the closure -> its bytes (0 when unknown); and the other
    names a module is imported by (Bazel `imports`, a script's directory)."""
    mods: dict[str, int] = {}
    other: dict[str, tuple[str, ...]] = {}
    for o in view.owned.values():
        for s in o.sources:
            mods.setdefault(s.module, o.module_bytes.get(s.module, 0))
            if len(s.modules) > 1:
                other[s.module] = s.modules[1:]
        if not o.sources:
            for m in o.modules:
                mods.setdefault(m, o.module_bytes.get(m, 0))
    return mods, other


def _skipped_edges(view: ImportView) -> tuple[int, int]:
    """Edges not judged: into test-only targets, and data edges from Python targets."""
    src, dst, _ = view.edge_arrays()
    tests = view.test_mask()[dst]
    skipped_test = len(np.unique(((src << 32) | dst)[tests]))
    g = view.g
    py = view.python_mask()
    skipped_data = int(np.count_nonzero(py[g.edge_src] & (g.edge_kind == int(EdgeKind.DATA))))
    return skipped_test, skipped_data


def finding(view: ImportView) -> Finding:
    """The coverage of the root's packaged Python by its traces (there is a trace)."""
    assert view.trace is not None
    mods, other = _packaged(view)
    names = view.trace.names()
    touched = {
        m: s for m, s in mods.items() if m in names or any(n in names for n in other.get(m, ()))
    }
    total_b = sum(mods.values())
    touched_b = sum(touched.values())
    share_m = round(100.0 * len(touched) / len(mods), 1) if mods else 0.0
    share_b = round(100.0 * touched_b / total_b, 1) if total_b else 0.0
    skipped_test, skipped_data = _skipped_edges(view)
    runs = [
        Evidence(p, f"{view.trace.runs} runs in all traces", analyzer=NAME)
        for p in view.trace_files
    ]
    set_aside = [
        Evidence(
            p,
            f"set aside: another program's trace (loads {m}, which is not in "
            f"the closure of {view.root_label})",
            analyzer=NAME,
        )
        for p, m in sorted(view.foreign.items())
    ]
    return on_root(
        COVERAGE,
        view.root_label,
        "coverage",
        f"the traces load {len(touched)} of {len(mods)} packaged Python modules "
        f"({share_m}%), {touched_b} of {total_b} bytes ({share_b}%)",
        evidence=(*runs, *set_aside),
        details=CoverageDetails(
            packaged_modules=len(mods),
            packaged_bytes=total_b,
            traced_modules=len(touched),
            traced_bytes=touched_b,
            traced_module_share=share_m,
            traced_byte_share=share_b,
            python_targets=len(view.py),
            test_only_edges=skipped_test,
            data_edges=skipped_data,
        ),
    )
