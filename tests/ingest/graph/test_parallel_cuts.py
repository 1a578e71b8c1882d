"""The parallel splitter finds its cuts in bounded reads: a single-line export is never
read whole to find where a range starts (it would peak at the file's size)."""

from __future__ import annotations

import io
from pathlib import Path

from slim.ingest.graph._parallel import BOUNDARY_BLOCK, next_line_start, plan_ranges


class _Recording(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.sizes: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        self.sizes.append(-1 if size is None else size)
        return super().read(size)


def test_cut_inside_a_long_line_reads_in_blocks() -> None:
    data = b"{" + b"x" * (5 * BOUNDARY_BLOCK) + b"}\n{}\n"
    f = _Recording(data)
    assert next_line_start(f, 10, len(data)) == data.index(b"\n") + 1  # type: ignore[arg-type]
    assert f.sizes
    assert all(0 < s <= BOUNDARY_BLOCK for s in f.sizes)


def test_single_line_file_has_no_cut_past_its_start(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_bytes(b"[" + b"1," * (3 * BOUNDARY_BLOCK) + b"1]")
    f = _Recording(path.read_bytes())
    size = path.stat().st_size
    assert next_line_start(f, size // 2, size) == size  # type: ignore[arg-type]
    assert max(f.sizes) <= BOUNDARY_BLOCK
    assert plan_ranges(path, 2) == ((0, size), [])


def test_cuts_start_lines(tmp_path: Path) -> None:
    path = tmp_path / "lines.ndjson"
    path.write_bytes(b"".join(b'{"n":%d}\n' % i for i in range(5000)))
    mine, theirs = plan_ranges(path, 3)
    cuts = [mine[0], *(end for _, end in [mine, *theirs])]
    data = path.read_bytes()
    assert cuts[0] == 0
    assert cuts[-1] == len(data)
    assert all(data[c - 1 : c] == b"\n" for c in cuts[1:-1])
