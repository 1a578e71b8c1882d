"""What an analyzer is given for one root binary: the graph, its closure, facts, options."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from slim.model.facts import Facts
from slim.model.graph import BUILD_KINDS, BuildGraph, Target

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


@dataclass(frozen=True)
class Options:
    """Per-run settings analyzers may consult (from flags or the config file)."""

    workspace: Path | None = None
    cpu_only: bool | None = None
    cpu_only_reason: str = ""
    cpu_only_tags: tuple[str, ...] = ("cpu-only", "cpu_only", "no-gpu")
    cuda_archs: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)


@dataclass
class AnalysisContext:
    """One root binary under analysis; `closure` is what it builds (BUILD_KINDS edges)."""

    graph: BuildGraph
    root: int
    facts: Facts
    options: Options = field(default_factory=Options)
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
