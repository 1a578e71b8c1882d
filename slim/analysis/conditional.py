"""Edges a BUILD file declares inside a `select()`: which branch applies is chosen by the
configuration, and the evidence (a map, depfiles, traces) is of one build. Removing the
dep (buildozer's `remove deps`) edits every branch naming it, so a cut proven in one
configuration may break another's; such a finding is kept, naming the `select()`."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from slim.model.findings import Finding
from slim.model.labels import normalize_label

if TYPE_CHECKING:
    from slim.model.graph import BuildGraph

_TOKEN = re.compile(
    r'(?P<str>"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')'
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<open>(?P<name>[A-Za-z_][\w.]*)?\s*\()"
    r"|(?P<close>\))"
)
#: Calls whose arguments the configuration chooses between (Bazel, Buck2).
SELECTS = frozenset({"select", "selects.with_or"})


def strings_in_selects(lines: Sequence[str], span: range) -> Iterator[tuple[str, int, int | None]]:
    """(value, line, line of the innermost enclosing `select(` or None) of each string
    literal in the 1-based lines `span` of a BUILD file."""
    first = span.start
    text = "\n".join(lines[first - 1 : span.stop - 1])
    stack: list[tuple[str, int]] = []
    line = first
    pos = 0
    for m in _TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        if m.group("str") is not None:
            inside = next((at for name, at in reversed(stack) if name in SELECTS), None)
            yield m.group("str").strip("\"'"), line, inside
        elif m.group("open") is not None:
            stack.append((m.group("name") or "", line))
        elif m.group("close") is not None and stack:
            stack.pop()


def select_of(lines: Sequence[str], span: range, spellings: set[str]) -> int | None:
    """The line of a `select(` naming one of `spellings` in `span`, None if none does."""
    return next(
        (at for value, _, at in strings_in_selects(lines, span) if at and value in spellings),
        None,
    )


def kept_by_export(graph: BuildGraph, f: Finding) -> Finding | None:
    """`f` kept when the export says its edge is not in every configuration: a select()
    it keeps (`selected_deps`), or a multi-config CMake reply's link lines (`config_deps`);
    None when it says neither."""
    t = graph.lookup(f.target)
    attrs = graph.attrs.get(t, {}) if t is not None else {}
    chosen = attrs.get("selected_deps", ())
    if isinstance(chosen, tuple) and normalize_label(f.dep) in chosen:
        return kept_in_select(f, f"the export's select() of {f.target}")
    confs = attrs.get("config_deps", ())
    for entry in confs if isinstance(confs, tuple) else ():
        dep, _, names = entry.partition("\t")
        if dep == f.dep:
            return kept_in_configurations(f, names)
    return None


def kept_in_select(f: Finding, where: str) -> Finding:
    """`f`, no longer removable: its dep is named in the `select()` at `where`."""
    return f.kept(
        f"{f.dep} is named in a select() ({where}): the evidence is of one "
        "configuration, and removing the dep edits every branch that names it; cut it "
        "by hand in the branch the evidence covers",
    )


def kept_in_configurations(f: Finding, configurations: str) -> Finding:
    """`f`, no longer removable: the export has the edge in `configurations` only (a
    multi-config CMake reply: `$<$<CONFIG:Debug>:dbglib>`)."""
    return f.kept(
        f"{f.target} links {f.dep} only in the export's configurations {configurations}, "
        "and the evidence is of one build: check that the cut holds in each of them",
    )


#: The files a Bazel or Buck2 rule is declared in (a select() can only be read there).
BUILD_FILES = frozenset({"BUILD", "BUILD.bazel", "BUCK", "TARGETS", "TARGETS.v2"})


def unsure_without(f: Finding, path: str) -> Finding:
    """`f` at most medium: its rule's BUILD file `path` could not be read, and a select()
    there may name the dep for other configurations."""
    return dataclasses.replace(
        f,
        confidence=f.at_most_medium(),
        message=(
            f"{f.message} Not certain without {path} (pass --workspace): a select() there "
            "may name the dep for other configurations."
        ),
    )
