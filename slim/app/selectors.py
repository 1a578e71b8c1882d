"""Rule selectors and gates checked against the rule table, as ruff checks its own.

`--select`/`--ignore` take codes or prefixes (`SLIM00`, `SLIM9`), any case; `--fail-on`
takes a confidence level, `any`, or codes; `--cuda-archs` takes real architecture names.
Anything else is a usage error with a "did you mean", never a silently empty selection.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from slim.errors import UsageError

FAIL_LEVELS = ("high", "medium", "low", "any")
_ARCH = re.compile(r"^(sm|compute|lto)_\d{2,3}[af]?$")


def _hint(word: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, sorted(known), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def check_selectors(where: str, selectors: Sequence[str], codes: Iterable[str]) -> tuple[str, ...]:
    """`selectors` upper-cased; each must be a code or the prefix of one."""
    known = sorted(set(codes))
    out = []
    for s in selectors:
        sel = s.strip().upper()
        if not sel:
            continue
        if not any(c.startswith(sel) for c in known):
            raise UsageError(
                f"{where} {s}: expected a rule code or prefix ({', '.join(known)}), "
                f"found none matching{_hint(sel, known)}"
            )
        out.append(sel)
    return tuple(out)


def check_fail_on(where: str, value: str | None, codes: Iterable[str]) -> str | None:
    """`high`, `medium`, `low`, `any` (any case), or a list of codes; normalized."""
    if value is None or not value.strip():
        return None
    level = value.strip().lower()
    if level in FAIL_LEVELS:
        return level
    parts = [p for p in value.split(",") if p.strip()]
    if any(re.fullmatch(r"[A-Za-z]+\d+", p.strip()) for p in parts):
        return ",".join(check_selectors(where, parts, codes))
    raise UsageError(
        f"{where} {value}: expected high, medium, low, any or rule codes{_hint(level, FAIL_LEVELS)}"
    )


def check_archs(where: str, archs: Sequence[str]) -> tuple[str, ...]:
    """GPU architecture names as nvcc spells them (`sm_80`, `compute_90`, `sm_90a`)."""
    out = []
    for a in archs:
        name = a.strip().lower()
        if not _ARCH.match(name):
            raise UsageError(
                f"{where} {a}: expected an architecture such as sm_80, sm_90a or compute_90"
            )
        out.append(name)
    return tuple(out)
