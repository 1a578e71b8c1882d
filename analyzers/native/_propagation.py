"""Which deps' usage requirements (include directories) reach a target's compile, and which
still do after one edge is cut.

A target compiles with what its direct deps give and with what those pass on: a CMake
edge passes its dep's requirements on when it is PUBLIC, INTERFACE or of the plain
signature (file API 2.9+ says so, else the declaring `target_link_libraries` line does),
a Bazel `cc_*` deps edge always, a Buck2 edge when it is an exported dep. An edge whose
keyword is unknown passes nothing on here: what is kept after a cut is never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from slim.model.context import AnalysisContext
from slim.model.graph import CODE_KINDS, EdgeKind

_TLL_KEYWORDS = {
    "PUBLIC": "PUBLIC",
    "PRIVATE": "PRIVATE",
    "INTERFACE": "INTERFACE",
    "LINK_PUBLIC": "PUBLIC",
    "LINK_PRIVATE": "PRIVATE",
    "LINK_INTERFACE_LIBRARIES": "INTERFACE",
}
_MAX_CALL_LINES = 40


@dataclass(frozen=True)
class Keyword:
    """How a CMake edge is declared: `keyword` PUBLIC/PRIVATE/INTERFACE, "" for the plain
    signature, None when unknown; `where`: the declaring line (`at f:12`), "" when the file
    API says, or where it was looked for in vain."""

    keyword: str | None
    where: str = ""

    @property
    def passes_on(self) -> bool:
        return self.keyword in ("PUBLIC", "INTERFACE", "")


@dataclass
class Propagation:
    """Edge keywords and usage-requirement reach over one root's graph (cached)."""

    ctx: AnalysisContext
    _keywords: dict[tuple[int, int], Keyword] = field(default_factory=dict)
    _passes: dict[tuple[int, int], bool] = field(default_factory=dict)

    def keyword(self, a: int, n: int) -> Keyword:
        """The keyword of CMake edge `a -> n`."""
        hit = self._keywords.get((a, n))
        if hit is None:
            hit = self._keywords[(a, n)] = self._keyword(a, n)
        return hit

    def _keyword(self, a: int, n: int) -> Keyword:
        g = self.ctx.graph
        dep = g.labels[n]
        vis = g.target(a).attrs.get("link_visibility")
        if isinstance(vis, tuple):
            for row in vis:
                label, _, kind = str(row).rpartition(" ")
                if label == dep:
                    return Keyword(kind)
        loc = g.edge_location(a, n)
        if loc is None:
            return Keyword(None, "no declaring line to read its keyword from")
        name = str(g.target(n).attrs.get("cmake_name") or dep.rsplit(":", 1)[-1])
        declared = declared_keyword(self._source_dirs(a), loc.path, loc.line or 0, name)
        if declared is None:
            return Keyword(None, f"declared at {loc}: not readable here, or not naming {name}")
        return Keyword(declared, f"at {loc}")

    def _source_dirs(self, a: int) -> list[Path]:
        out = []
        if self.ctx.options.workspace is not None:
            out.append(Path(self.ctx.options.workspace))
        root = self.ctx.graph.target(a).attrs.get("source_root")
        if isinstance(root, str) and root:
            out.append(Path(root))
        return out

    def passes_on(self, a: int, n: int, kind: EdgeKind) -> bool:
        """Whether edge `a -> n` hands `n`'s usage requirements to `a`'s dependants."""
        hit = self._passes.get((a, n))
        if hit is None:
            t = self.ctx.graph.target(a)
            if "cmake_type" in t.attrs:
                hit = self.keyword(a, n).passes_on
            elif t.kind.startswith("cc_"):
                hit = kind in (EdgeKind.DEPS, EdgeKind.EXPORTS)
            elif t.kind.startswith(("cxx_", "prebuilt_cxx")):
                hit = kind is EdgeKind.EXPORTS
            else:
                hit = False
            self._passes[(a, n)] = hit
        return hit

    def given_by(self, w: int) -> set[int]:
        """`w` and the targets whose usage requirements it passes on: what a new edge to
        `w` gives a compile."""
        g = self.ctx.graph
        out, todo = {w}, [w]
        while todo:
            x = todo.pop()
            for e in g.out_edges(x, CODE_KINDS):
                if e.dep not in out and self.passes_on(x, e.dep, e.kind):
                    out.add(e.dep)
                    todo.append(e.dep)
        return out

    def kept(self, u: int, cut: tuple[int, int]) -> set[int]:
        """`u` and the targets whose usage requirements surely reach `u`'s compile once
        edge `cut` is gone: its direct deps, and what they pass on."""
        g = self.ctx.graph
        out = {u}
        todo = []
        for e in g.out_edges(u, CODE_KINDS):
            if (u, e.dep) != cut and e.dep not in out:
                out.add(e.dep)
                todo.append(e.dep)
        while todo:
            x = todo.pop()
            for e in g.out_edges(x, CODE_KINDS):
                if (x, e.dep) == cut or e.dep in out:
                    continue
                if self.passes_on(x, e.dep, e.kind):
                    out.add(e.dep)
                    todo.append(e.dep)
        return out


def call_words(dirs: list[Path], path: str, line: int) -> list[str] | None:
    """The arguments of the CMake call starting at `path:line` (the first of `dirs` that
    holds the file); None when no such file or line."""
    for d in dirs:
        f = d / path
        try:
            lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        if not 0 < line <= len(lines):
            continue
        text = " ".join(lines[line - 1 : line + _MAX_CALL_LINES])
        text = text.split(")", 1)[0].partition("(")[2]
        return [w.strip('"') for w in text.replace("\t", " ").split()]
    return None


def declared_keyword(dirs: list[Path], path: str, line: int, name: str) -> str | None:
    """The keyword in force for `name` in the `target_link_libraries(...)` call starting at
    `path:line` ("" for the plain signature); None when the file cannot be read or the
    call does not name `name` literally (a variable, a generator expression)."""
    words = call_words(dirs, path, line)
    if words is None:
        return None
    current = ""
    for w in words[1:]:
        if w in _TLL_KEYWORDS:
            current = _TLL_KEYWORDS[w]
        elif w == name or w.replace("::", "__") == name:
            return current
    return None


def exported_dirs(dirs: list[Path], path: str, line: int) -> bool | None:
    """Whether the `target_include_directories(...)` call at `path:line` hands its
    directories to dependants: True when every keyword in it is PUBLIC or INTERFACE,
    False when every one is PRIVATE, None when mixed or unreadable."""
    words = call_words(dirs, path, line)
    if words is None:
        return None
    kinds = {w for w in words[1:] if w in ("PUBLIC", "PRIVATE", "INTERFACE")}
    if kinds and kinds <= {"PUBLIC", "INTERFACE"}:
        return True
    return False if kinds == {"PRIVATE"} else None
