"""Reading the workspace for the Python analyzer: sources (scanned over 2 processes),
installed `*.dist-info` metadata and file sizes. Errors become results, not exceptions.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from slim.errors import InputError
from slim.ingest.python.pystatic import scan_source
from slim.model.pytrace import SourceImports

MAX_SOURCE_BYTES = 16 * 1024 * 1024
MAX_RECORD_BYTES = 64 * 1024 * 1024
PARALLEL_MIN_FILES = 256


@dataclass(frozen=True, slots=True)
class SourceRequest:
    """One file to scan: where it is on disk, how to name it, its module name."""

    file: str
    path: str
    module: str
    is_package: bool = False


def scan_file(req: SourceRequest) -> SourceImports:
    try:
        size = os.stat(req.file).st_size
        if size > MAX_SOURCE_BYTES:
            msg = f"expected a source file of at most {MAX_SOURCE_BYTES} bytes, found {size}"
            return SourceImports(req.path, req.module, (), (), msg, None)
        with open(req.file, "rb") as f:
            data = f.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        msg = f"expected a readable source file, found {reason}"
        return SourceImports(req.path, req.module, (), (), msg, None)
    return scan_source(data, req.path, req.module, req.is_package)


def _scan_chunk(reqs: list[SourceRequest]) -> list[SourceImports]:
    return [scan_file(r) for r in reqs]


def scan_files(reqs: Sequence[SourceRequest], workers: int | None = None) -> list[SourceImports]:
    """Scan many files, over `workers` processes (default: up to 2) when there are many."""
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    if workers <= 1 or len(reqs) < PARALLEL_MIN_FILES:
        return _scan_chunk(list(reqs))
    size = max(64, len(reqs) // (workers * 8))
    chunks = [list(reqs[i : i + size]) for i in range(0, len(reqs), size)]
    out: list[SourceImports] = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_scan_chunk, chunks):
            out.extend(part)
    return out


# -- installed distributions -----------------------------------------------------------------


def read_dist_text(dist_info: Path, name: str) -> str | None:
    """A metadata file of a dist-info dir (RECORD, top_level.txt, METADATA), None if absent."""
    p = dist_info / name
    try:
        if p.stat().st_size > MAX_RECORD_BYTES:
            raise InputError(str(p), f"at most {MAX_RECORD_BYTES} bytes", "a larger file")
        return p.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(str(p), "a readable file", exc.strerror or str(exc)) from None


def site_packages_dirs(workspace: Path | None, extra: str = "") -> list[Path]:
    """Where third-party dists may be installed: `extra` (os.pathsep-separated) and the
    workspace's own `site-packages`, `.venv`/`venv` trees."""
    out = [Path(p) for p in extra.split(os.pathsep) if p]
    if workspace is not None:
        cands = [workspace / "site-packages"]
        for venv in (".venv", "venv"):
            cands.extend(sorted((workspace / venv / "lib").glob("python*/site-packages")))
        cands.extend(sorted(workspace.glob("third_party/*/site-packages")))
        out.extend(c for c in cands if c.is_dir())
    return out


#: Where Bazel puts generated files (a genrule's `*_pb2.py`): `bazel-bin/<package>/<name>`.
GENERATED_DIRS = ("bazel-bin",)


def workspace_file(root: Path, rel: str) -> Path:
    """The file a workspace-relative source path names: in the source tree, else the
    generated file of that path in `bazel-bin` (else the source-tree path, missing)."""
    p = root / rel
    if p.exists():
        return p
    for d in GENERATED_DIRS:
        gen = root / d / rel
        if gen.is_file():
            return gen
    return p


def file_sizes(root: Path, paths: Iterable[str]) -> dict[str, int]:
    """Sizes of workspace-relative files that exist, generated ones in `bazel-bin`
    included (missing ones are left out)."""
    out: dict[str, int] = {}
    for p in paths:
        try:
            out[p] = workspace_file(root, p).stat().st_size
        except OSError:
            continue
    return out
