"""CSV export (dead code: no app imports this any more)."""

from __future__ import annotations

import csv
import io


def to_csv(rows: list[list[str]]) -> str:
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    return buf.getvalue()
