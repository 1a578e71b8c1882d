"""Compile-time facts: which source and headers each object was compiled from.

Readers in `slim.ingest.compile` (compiler depfiles from `-MD`, `ninja -t deps`) return
`CompileDeps`; `slim_analyzers.native` joins them to the graph so that a library
whose headers a dependant includes is never called removable from link evidence alone.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CompiledObject:
    """One object: its output path, the source it was compiled from and every other file
    the compiler read (headers), as the build recorded them; `line` is where its record
    starts in the file it came from."""

    output: str
    source: str
    headers: tuple[str, ...]
    line: int = 0


@dataclass(frozen=True, slots=True)
class CompileDeps:
    """A file of compile-time dependencies (`format` `depfile` or `ninja-deps`).

    `base` is the directory its relative paths are relative to when known (the directory
    a depfile was found in for make-style `.d` files written next to objects; empty when
    the paths are taken as they are)."""

    path: str
    format: str
    objects: tuple[CompiledObject, ...]
    base: str = ""
    notes: tuple[str, ...] = ()
