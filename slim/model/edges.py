"""Edge kinds and input locations: the vocabulary of the graph, without numpy.

Kept apart from `slim.model.graph` so that a query answered from the cached arrays alone
(`slim why`) never imports numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class EdgeKind(IntEnum):
    """Why one target depends on another: the attribute the edge comes from."""

    DEPS = 0
    IMPLEMENTATION_DEPS = 1
    RUNTIME_DEPS = 2
    EXPORTS = 3
    DATA = 4
    SRCS = 5
    TOOLS = 6
    IMPLICIT = 7
    UNTYPED = 8
    ORDER_ONLY = 9

    @property
    def attribute(self) -> str:
        return _ATTRIBUTE_NAMES[self]


_ATTRIBUTE_NAMES = {
    EdgeKind.DEPS: "deps",
    EdgeKind.IMPLEMENTATION_DEPS: "implementation_deps",
    EdgeKind.RUNTIME_DEPS: "runtime_deps",
    EdgeKind.EXPORTS: "exports",
    EdgeKind.DATA: "data",
    EdgeKind.SRCS: "srcs",
    EdgeKind.TOOLS: "tools",
    EdgeKind.IMPLICIT: "implicit",
    EdgeKind.UNTYPED: "deps (untyped)",
    EdgeKind.ORDER_ONLY: "order-only",
}

_KIND_BY_ATTRIBUTE = {
    "deps": EdgeKind.DEPS,
    "buck.deps": EdgeKind.DEPS,
    "exported_deps": EdgeKind.EXPORTS,
    "implementation_deps": EdgeKind.IMPLEMENTATION_DEPS,
    "interface_deps": EdgeKind.DEPS,
    "runtime_deps": EdgeKind.RUNTIME_DEPS,
    # `alias(actual = ...)` (Bazel, Buck2): depending on the alias is depending on `actual`
    "actual": EdgeKind.DEPS,
    "exports": EdgeKind.EXPORTS,
    "data": EdgeKind.DATA,
    "resources": EdgeKind.DATA,
    "srcs": EdgeKind.SRCS,
    "hdrs": EdgeKind.SRCS,
    "textual_hdrs": EdgeKind.SRCS,
    "headers": EdgeKind.SRCS,
    "exported_headers": EdgeKind.SRCS,
    "tools": EdgeKind.TOOLS,
    "exec_tools": EdgeKind.TOOLS,
    "toolchains": EdgeKind.TOOLS,
    "plugins": EdgeKind.TOOLS,
}

#: Edge kinds that make the dependency part of what the target builds, links or ships.
BUILD_KINDS: frozenset[EdgeKind] = frozenset(
    {
        EdgeKind.DEPS,
        EdgeKind.IMPLEMENTATION_DEPS,
        EdgeKind.RUNTIME_DEPS,
        EdgeKind.EXPORTS,
        EdgeKind.DATA,
        EdgeKind.SRCS,
        EdgeKind.UNTYPED,
    }
)
#: Edge kinds along which code (not data or tools) flows into a binary.
CODE_KINDS: frozenset[EdgeKind] = frozenset(
    {
        EdgeKind.DEPS,
        EdgeKind.IMPLEMENTATION_DEPS,
        EdgeKind.RUNTIME_DEPS,
        EdgeKind.EXPORTS,
        EdgeKind.SRCS,
        EdgeKind.UNTYPED,
    }
)
ALL_KINDS: frozenset[EdgeKind] = frozenset(EdgeKind)


def edge_kind_for_attribute(name: str) -> EdgeKind | None:
    """The edge kind of a label-valued attribute, None when it carries no dependency."""
    kind = _KIND_BY_ATTRIBUTE.get(name)
    if kind is not None:
        return kind
    if name.startswith(("$", ":", "_")):
        return EdgeKind.IMPLICIT
    if name.endswith(("_deps", "deps")):
        return EdgeKind.DEPS
    return None


@dataclass(frozen=True, slots=True)
class Location:
    """A place in an input: a file with a line (text) or a byte offset (binary)."""

    path: str
    line: int | None = None
    offset: int | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.path}:{self.line}"
        if self.offset is not None:
            return f"{self.path}:byte {self.offset}"
        return self.path

    @staticmethod
    def parse(text: str) -> Location:
        """`lib/BUILD:7:11` or `C:/x/BUILD:7:11` -> Location("lib/BUILD", 7)."""
        return Location(*split_location(text))


def split_location(text: str) -> tuple[str, int | None]:
    """(path, line) of `lib/BUILD:7:11`, `C:/x/BUILD:7` or `lib/BUILD` (line None)."""
    parts = text.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdecimal() and parts[2].isdecimal():
        return parts[0], int(parts[1])
    if len(parts) >= 2 and parts[-1].isdecimal():
        return text.rsplit(":", 1)[0], int(parts[-1])
    return text, None
