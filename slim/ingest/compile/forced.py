"""Headers a compile command includes before the source's first line: gcc/clang's
`-include FILE` and `-imacros FILE` (also `--include=FILE`, `-includeFILE`), MSVC's
`/FI FILE`. No `#include` in the sources shows them, so a static scan must add them.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

_SPLIT = ("-include", "-imacros", "--include", "--imacros", "/FI", "-FI")
_JOINED = ("--include=", "--imacros=", "-include", "-imacros", "/FI", "-FI")


def _words(options: Iterable[str]) -> list[str]:
    """Each option string split as a shell would (a CMake fragment or a Bazel `copts`
    entry may hold several words); one that does not split so (an open quote) at spaces."""
    out: list[str] = []
    for option in options:
        try:
            out += shlex.split(option)
        except ValueError:
            out += option.split()
    return out


def forced_includes(options: Iterable[str]) -> tuple[str, ...]:
    """The files `options` force into every compile, in order, each once."""
    words = _words(options)
    out: list[str] = []
    k = 0
    while k < len(words):
        w = words[k]
        if w in _SPLIT:
            if k + 1 < len(words):
                out.append(words[k + 1])
            k += 2
            continue
        joined = next((p for p in _JOINED if w.startswith(p) and len(w) > len(p)), None)
        if joined is not None and not w.startswith("-include-"):  # (clang's -include-pch)
            out.append(w[len(joined) :])
        k += 1
    return tuple(dict.fromkeys(out))
