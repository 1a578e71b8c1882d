"""What an analyzer is given for one root binary: the graph, its closure, facts, options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from slim.model.facts import Facts
from slim.model.graph import BUILD_KINDS, BuildGraph, Target
from slim.model.options import RootOptions

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


@dataclass
class AnalysisContext:
    """One root binary under analysis, with its own evidence and options; `closure` is what
    it builds (BUILD_KINDS edges). `evidence_of(label)` gives the evidence configured for
    another binary (to judge a library edge for every consumer); None when there is none."""

    graph: BuildGraph
    root: int
    facts: Facts
    options: RootOptions = field(default_factory=RootOptions)
    roots: tuple[int, ...] = ()
    evidence_of: Callable[[str], Facts | None] = field(default=lambda _label: None)
    options_of: Callable[[str], RootOptions] = field(default=lambda _label: RootOptions())
    _closure: NDArray[np.int64] | None = None
    _kinds: frozenset[str] | None = None

    @property
    def root_target(self) -> Target:
        return self.graph.target(self.root)

    @property
    def root_label(self) -> str:
        return self.graph.labels[self.root]

    @property
    def closure(self) -> NDArray[np.int64]:
        if self._closure is None:
            self._closure = self.graph.closure([self.root], BUILD_KINDS)
        return self._closure

    def closure_has_kind(
        self, prefixes: tuple[str, ...], names: frozenset[str] = frozenset()
    ) -> bool:
        """Whether any target the root builds has a rule kind starting with `prefixes` (or
        named in `names`)."""
        if self._kinds is None:
            kinds = self.graph.kinds
            self._kinds = frozenset(kinds[i] for i in self.closure.tolist())
        return any(k.startswith(prefixes) or k in names for k in self._kinds)


#: Rule kinds of native code: Bazel/Buck2 prefixes and the CMake file API's target types.
NATIVE_PREFIXES = ("cc_", "cxx_", "cuda_", "objc_", "c_", "rust_", "go_", "apple_")
NATIVE_KINDS = frozenset(
    {"executable", "static_library", "shared_library", "module_library", "object_library"}
)
PYTHON_PREFIXES = ("py_", "python_")


def has_native_code(ctx: AnalysisContext) -> bool:
    return ctx.closure_has_kind(NATIVE_PREFIXES, NATIVE_KINDS)


def has_python_code(ctx: AnalysisContext) -> bool:
    return ctx.closure_has_kind(PYTHON_PREFIXES)


def is_binary_kind(kind: str) -> bool:
    """A rule kind that produces a deployable binary (not a test, not a library)."""
    k = kind.lower()
    return (k.endswith("_binary") or k in ("executable", "binary")) and "test" not in k


def consumers(ctx: AnalysisContext, target: int) -> list[int]:
    """Every binary in the graph (the root included) whose build contains `target`: an
    edge of `target` is shared by all of them."""
    kinds = ctx.graph.kinds
    up = ctx.graph.reverse_closure([target], BUILD_KINDS).tolist()
    return sorted(i for i in up if is_binary_kind(kinds[i]))
