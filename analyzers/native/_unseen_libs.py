"""Libraries on a link line that no map ties to a target: named by path or `-l` (CMake),
by a Bazel target's `linkopts` or a Buck2 target's exported linker flags, or brought by an
imported target. A cut that takes their giver out of the closure may take a library the
program calls into (`-lz` for `zlibVersion`) with nothing else declaring it, so it is kept.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from slim.model.context import AnalysisContext
from slim.model.findings import Confidence
from slim.model.graph import Target
from slim.model.labels import label_name

from ._link_verdict import Verdict
from ._link_view import cut_takes
from ._propagation import call_words

#: A target's options for the links of its dependants: Bazel `linkopts`, Buck2's exported
#: linker flags (CMake's libraries named by path or `-l` are `link_external`).
LINK_OPTION_ATTRS = ("linkopts", "exported_linker_flags", "exported_post_linker_flags")
#: Options that only say how the target's own archive is linked (see `_registration`).
_OWN_ARCHIVE = ("--whole-archive", "--no-whole-archive", "-force_load", "-all_load")


def link_options(t: Target) -> list[str]:
    """What the target puts on its dependants' link lines that no map ties to it: the
    libraries it names by path or `-l` (CMake), its linker options (Bazel, Buck2: `-lz`
    adds a library a dependant may call into; `-u sym` changes what is extracted)."""
    out: list[str] = []
    for name in ("link_external", *LINK_OPTION_ATTRS):
        given = t.attrs.get(name)
        if isinstance(given, tuple):
            out += [str(v) for v in given if not any(w in str(v) for w in _OWN_ARCHIVE)]
    return out


def opaque(t: Target) -> bool:
    """A target whose part of the link the graph does not name (an imported or unknown
    one, or one that adds libraries or options to its dependants' links)."""
    return not t.kind or bool(t.attrs.get("imported")) or bool(link_options(t))


def drops_unseen(
    ctx: AnalysisContext, a: int, n: int, verdict: Verdict, calls: list[tuple[str, str | None]]
) -> Verdict:
    """Kept: the cut also takes out of the root's closure a target whose part of the link
    no map can show (an imported target, a library named by path or `-l`): the program
    may call into it with nothing else declaring it. `calls`: see `external_calls`."""
    g = ctx.graph
    leaving = [n, *cut_takes(g, ctx.root, a, n)]
    names = {str(g.target(x).attrs.get("cmake_name") or label_name(g.labels[x])) for x in leaving}
    untied = sorted({lib for lib, who in calls if who is None or who in names})
    if untied:
        return kept(
            verdict,
            f"{ctx.root_label}'s link line names {', '.join(untied[:3])} by path or -l, put "
            "there by a call of a target the cut takes away (or one slim cannot read): the "
            "program may call into it",
        )
    unseen = [x for x in leaving if opaque(g.target(x))]
    if not unseen:
        return verdict
    shown = ", ".join(g.labels[x] for x in unseen[:3])
    external = [v for x in unseen for v in link_options(g.target(x))]
    what = f" (it links {', '.join(external[:3])})" if external else ""
    return kept(
        verdict,
        f"the cut also takes {shown}{what} out of {ctx.root_label}'s closure, and no map "
        "ties such a library to a target: whether the link uses it is unknown",
    )


def external_calls(ctx: AnalysisContext) -> list[tuple[str, str | None]]:
    """(library, the target whose call put it there) of each library the root's link line
    names by path or -l, as CMake codemodel < 2.9 records them (on the linking target,
    with the call's line); the target is None when the call cannot be read or names a
    variable (a function, a macro). Read once per root: each edge's check uses them."""
    rows = ctx.root_target.attrs.get("link_external_at")
    if not isinstance(rows, tuple):
        return []
    dirs = [Path(ctx.options.workspace)] if ctx.options.workspace is not None else []
    root = ctx.root_target.attrs.get("source_root")
    if isinstance(root, str) and root:
        dirs.append(Path(root))
    out: list[tuple[str, str | None]] = []
    for row in map(str, rows):
        lib, _, at = row.partition("\t")
        path, _, line = at.rpartition(":")
        words = call_words(dirs, path, int(line)) if line.isdigit() else None
        out.append((lib, words[0] if words and not words[0].startswith("$") else None))
    return out


def kept(verdict: Verdict, why: str) -> Verdict:
    return dataclasses.replace(
        verdict,
        message=f"{verdict.message} Not removable: {why}.",
        confidence=Confidence.MEDIUM,
        removable=False,
        kept_because=why,
    )
