"""Compile flags a library edge hands the dependant: Bazel's `defines` and Buck2's
exported preprocessor flags reach the compile of every target above the library, so
cutting an edge that is the dependant's only way to a library carrying them changes
what the dependant compiles (or breaks it at an `#error`), whatever the link uses.
No map or depfile shows such a use: the graph's attributes are the evidence.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from slim.model.findings import Confidence, Evidence
from slim.model.graph import BuildGraph

from ._details import LinkDetails
from ._link_verdict import Verdict
from ._link_view import ANALYZER, cut_loses

#: Attributes whose values reach the compile of every dependant (Bazel, Buck2).
CARRIED = (
    "defines",
    "exported_preprocessor_flags",
    "exported_lang_preprocessor_flags",
    "exported_platform_preprocessor_flags",
)


FLAGS_HINT = (
    "pass an export that shows them: the CMake file API reply, Bazel query or cquery "
    "--output=streamed_jsonproto (or jsonproto, xml, proto), or Buck2 JSON with "
    "--output-attribute '^exported_(lang_|platform_)?preprocessor_flags$'"
)


def flags_missing(lib: str, dep: str) -> str:
    """The evidence missing when `flags_unknown` says why (in `missing_evidence`)."""
    return f"the compile flags {lib} -> {dep} hands over"


def flags_unknown(g: BuildGraph, a: int, n: int, stays: Collection[int] = ()) -> str | None:
    """Why the compile flags that cutting `a -> n` takes from `a` (what leaves, but for
    `stays`) cannot be read off the graph, or None when they can: a CMake consumer's come
    from the file API, which traces them to their lines; any other needs exports that
    show the flag attributes, and every target that leaves described by one."""
    if "cmake_type" in g.target(a).attrs:
        return None
    if g.flags_unseen:
        names = ", ".join(g.flags_unseen)
        return f"the graph export ({names}) shows no compile flags a target hands its dependants"
    leaving = [x for x in cut_loses(g, a, a, n) if x not in stays]
    described = g.described(np.asarray(leaving, dtype=np.int64)).tolist() if leaving else []
    bare = [g.labels[x] for x, known in zip(leaving, described, strict=True) if not known]
    if bare:
        more = f", … {len(bare) - 3} more" if len(bare) > 3 else ""
        return (
            f"{', '.join(bare[:3])}{more}, which the cut takes away, "
            f"{'is' if len(bare) == 1 else 'are'} named by an edge but described by no export"
        )
    return None


def flags_carried(g: BuildGraph, a: int, n: int) -> list[tuple[int, str, tuple[str, ...]]]:
    """(target, attribute, values) of each flag-carrying target that cutting `a -> n`
    takes out of `a`'s closure (`n` first, then by id)."""
    out = []
    for x in sorted(cut_loses(g, a, a, n), key=lambda t: (t != n, t)):
        attrs = g.target(x).attrs
        for name in CARRIED:
            values = attrs.get(name)
            if isinstance(values, tuple) and values:
                out.append((x, name, values))
    return out


def carried_verdict(
    g: BuildGraph,
    root: str,
    edge: tuple[int, int],
    carried: list[tuple[int, str, tuple[str, ...]]],
    evidence: list[Evidence],
    details: LinkDetails,
) -> Verdict:
    """Kept: the edge is how the dependant's compile gets these flags."""
    a, n = edge
    lib, dep = g.labels[a], g.labels[n]
    shown = [_shown(name, v) for _, name, values in carried for v in values]
    listed = ", ".join(shown[:5]) + (f", … {len(shown) - 5} more" if len(shown) > 5 else "")
    owners = ", ".join(dict.fromkeys(f"{g.labels[x]} (`{name}`)" for x, name, _ in carried))
    via = "" if {x for x, _, _ in carried} == {n} else f", which {lib} reaches only through {dep}"
    msg = (
        f"{dep} contributes no code to {root}'s link, but {lib} -> {dep} gives the compile "
        f"of {lib} (and of every target above it) {listed}, declared by {owners}{via}. "
        "Cutting the edge changes that compile."
    )
    rows = []
    for x, name, values in carried[:5]:
        path, line = _declared_at(g, x)
        what = f"{g.labels[x]} gives its dependants' compiles `{name}`: {', '.join(values[:5])}"
        rows.append(Evidence(path, what, line, None, ANALYZER))
    return Verdict(
        "usage-requirements", msg, Confidence.HIGH, False, [*evidence, *rows], None, details
    )


def _shown(name: str, value: str) -> str:
    return f"-D{value}" if name == "defines" else value


def _declared_at(g: BuildGraph, x: int) -> tuple[str, int | None]:
    """Where `x` is declared (its BUILD file and line), or just "graph"."""
    loc = g.target(x).location
    return (loc.path, loc.line) if loc is not None else ("graph", None)
