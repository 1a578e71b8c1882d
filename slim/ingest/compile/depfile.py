"""Compiler depfiles (`gcc/clang -MD`, `-MMD`, `-MP`): make rules `obj: source headers...`.

A depfile is a make fragment: `<outputs>: <deps>` with `\\`-newline continuations,
`\\ ` for a space inside a path, `$$` for `$`; `-MP` adds a phony `header:` rule per
header (no deps), skipped. The first dep of a rule is the source, the rest are what the
compiler read (headers). The input is one `.d` file or a directory, searched for `*.d`
(Make and the Makefile/Bazel generators leave them next to the objects; Ninja folds them
into `.ninja_deps` and deletes them: use `ninja -t deps` there). Relative paths are kept
as written (relative to the directory the compiler ran in).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_text_lines, looks_binary
from slim.model.compile import CompileDeps, CompiledObject

MAX_FILES = 200_000
_RULE_HEAD = re.compile(r"^(?:[^\s:#\\]|\\ )(?:[^:\\]|\\.)*?\.(?:o|obj|lo|os|pic\.o)\s*:(?:\s|$)")


def sniff(head: bytes, path: Path) -> bool:
    if path.is_dir():
        return _first_depfile(path) is not None
    if looks_binary(head):
        return False
    for raw in head.split(b"\n", 8)[:8]:
        line = raw.rstrip(b"\r").decode("utf-8", "replace")
        if not line.strip():
            continue
        return bool(_RULE_HEAD.match(line))
    return False


def _first_depfile(path: Path) -> Path | None:
    for _, _, files in os.walk(path):
        for f in files:
            if f.endswith(".d"):
                return path
    return None


def _depfiles(root: Path) -> list[Path]:
    out: list[Path] = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".d"):
                out.append(Path(d) / f)
                if len(out) > MAX_FILES:
                    raise InputError(
                        str(root), f"at most {MAX_FILES} depfiles", "more (pass a subdirectory)"
                    )
    return out


def _split(text: str) -> list[str]:
    """Words of a rule's text, with `\\ ` and `$$` unescaped."""
    words: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in " #:\\":
            cur.append(text[i + 1])
            i += 2
            continue
        if c == "$" and i + 1 < len(text) and text[i + 1] == "$":
            cur.append("$")
            i += 2
            continue
        if c in " \t":
            if cur:
                words.append("".join(cur))
                cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    if cur:
        words.append("".join(cur))
    return words


def _colon(text: str) -> int:
    """The rule's separating colon: the first `:` followed by space or end, not escaped,
    not a drive letter (`C:/x`)."""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == ":" and (i + 1 == len(text) or text[i + 1] in " \t"):
            return i
        i += 1
    return -1


def read(path: Path) -> CompileDeps:
    """One depfile's rules as compiled objects."""
    name = str(path)
    objects: list[CompiledObject] = []
    logical: list[str] = []
    start = 0
    phony = 0

    def flush() -> None:
        nonlocal phony
        text = " ".join(logical).strip()
        logical.clear()
        if not text:
            return
        cut = _colon(text)
        if cut < 0:
            raise InputError(
                name,
                "a make rule `<object>: <source> <headers...>`",
                describe_found(text),
                line=start,
            )
        outs = _split(text[:cut])
        deps = _split(text[cut + 1 :])
        if not outs:
            raise InputError(name, "a rule's output before `:`", describe_found(text), line=start)
        if not deps:
            phony += 1
            return
        for out in outs:
            objects.append(CompiledObject(out, deps[0], tuple(deps[1:]), start))

    for lineno, line in iter_text_lines(path, whole=True):
        if not logical:
            start = lineno
            if not line.strip() or line.lstrip().startswith("#"):
                continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            logical.append(line[:-1])
            continue
        logical.append(line)
        flush()
    if logical:
        raise InputError(
            name,
            "a line after the one continued with `\\` (the rule goes on)",
            "the end of the file (truncated?)",
            line=start + len(logical) - 1,
        )
    if not objects:
        raise InputError(
            name, "a depfile rule `<object>: <source> ...`", "none", line=max(start, 1)
        )
    notes = (f"{phony} phony header rule(s) (-MP) skipped",) if phony else ()
    return CompileDeps(name, "depfile", tuple(objects), str(path.parent), notes)


def load(path: Path) -> list[CompileDeps]:
    """A depfile, or every `*.d` under a directory (sorted), as facts."""
    if path.is_dir():
        files = _depfiles(path)
        if not files:
            raise InputError(str(path), "a directory with depfiles (*.d)", "none")
        return [read(p) for p in files]
    return [read(path)]
