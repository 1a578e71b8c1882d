"""Build-timing facts: one timed action per command, from any timing format.

Readers (`.ninja_log`, Bazel profile, clang time-trace, Buck2 reports) all return a
`TimingSet`; the cost model attributes its actions to targets and counts what it cannot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

#: Action classes the cost model distinguishes (from a mnemonic, a rule, or a file name).
COMPILE, LINK, ARCHIVE, CUDA, OTHER = "compile", "link", "archive", "cuda", "other"
#: Cache outcomes of an action (empty: the format records none).
HIT, MISS = "hit", "miss"
#: Formats whose start and end times are one build's real clock (a schedule to replay);
#: clang time-traces time one compile, Buck2's what-ran durations have no start times.
TIMELINE_FORMATS = frozenset({"ninja-log", "bazel-profile"})


class TimedAction(NamedTuple):
    """One executed command: when it ran (seconds from its run's start) and what it made.

    A NamedTuple, not a dataclass: readers create millions of them (a 500 MB profile).

    `outputs` are build-relative output paths (several for a multi-output edge); `label`
    is the target when the format names it (Bazel, Buck2), else empty; `source` is the
    compiled input when only that is named (Bazel's "Compiling lib/a.cc"); `mnemonic` is
    the tool's own action kind (`CppCompile`, `ExecuteCompiler`, a Buck2 category) or empty.
    """

    start: float
    end: float
    outputs: tuple[str, ...] = ()
    label: str = ""
    mnemonic: str = ""
    run: int = 0
    description: str = ""
    source: str = ""
    cache: str = ""
    """`hit` (outputs fetched from a remote or disk cache), `miss` (looked up, then run) or
    empty (no cache outcome recorded)."""

    @property
    def duration(self) -> float:
        return max(0.0, self.end - self.start)

    @property
    def output(self) -> str:
        return self.outputs[0] if self.outputs else ""

    @property
    def action_class(self) -> str:
        return classify(self.mnemonic, self.output, self.description)


@dataclass(frozen=True)
class TimingSet:
    """Every action one timing file reports for the chosen build run, and what was skipped."""

    source: str
    format: str
    actions: tuple[TimedAction, ...]
    runs: int = 1
    run: int = 0
    skipped_lines: int = 0
    notes: tuple[str, ...] = field(default=())
    critical_path: tuple[TimedAction, ...] = ()
    """The build tool's own critical path, when it writes one (Bazel's `critical path
    component` events), in order."""

    @property
    def total_seconds(self) -> float:
        return sum(a.duration for a in self.actions)

    @property
    def timeline(self) -> bool:
        """Whether start and end times are one build's clock (a schedule slim can replay)."""
        return self.format in TIMELINE_FORMATS and bool(self.actions)


_COMPILE_MNEMONICS = frozenset(
    {"cppcompile", "objccompile", "javac", "kotlincompile", "swiftcompile", "rustc", "cxx_compile"}
)
_LINK_MNEMONICS = frozenset({"cpplink", "objclink", "cxx_link", "link", "rustlink"})
_ARCHIVE_MNEMONICS = frozenset({"cpparchive", "cxx_archive", "archive"})
_CUDA_MNEMONICS = frozenset({"cudacompile", "nvcc", "cuda_compile"})
_OBJECT_SUFFIXES = (".o", ".obj", ".pic.o", ".pcm", ".gch")
_LINK_SUFFIXES = (".so", ".dylib", ".dll", ".exe")


def classify(mnemonic: str, output: str = "", description: str = "") -> str:
    """compile / cuda / link / archive / other, from what the format tells about an action."""
    m = mnemonic.lower()
    if m in _CUDA_MNEMONICS or output.endswith((".cu.o", ".cu.obj", ".cubin", ".fatbin")):
        return CUDA
    if m in _COMPILE_MNEMONICS or m.endswith("compile") or m == "executecompiler":
        return COMPILE
    if m in _LINK_MNEMONICS or m.endswith("link"):
        return LINK
    if m in _ARCHIVE_MNEMONICS:
        return ARCHIVE
    d = description.lower()
    if d.startswith("compiling "):
        return CUDA if d.endswith(".cu") else COMPILE
    if d.startswith("linking "):
        return LINK
    if output.endswith(_OBJECT_SUFFIXES):
        return COMPILE
    if output.endswith((".a", ".lib")):
        return ARCHIVE
    base = output.rsplit("/", 1)[-1]
    if output.endswith(_LINK_SUFFIXES) or ".so." in base:
        return LINK
    return OTHER


@dataclass(frozen=True)
class ArtifactOwners:
    """Output path -> target label, from a build report (Buck2 `--build-report`)."""

    source: str
    owners: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class CacheStats:
    """A compiler cache's own hit and miss counts for one build (sccache `--show-stats
    --stats-format=json`), per language it names (`C/C++`, `CUDA`, `Rust`)."""

    source: str
    format: str
    by_language: tuple[tuple[str, int, int], ...]
    """(sccache language, hits, misses), sorted by language."""
    notes: tuple[str, ...] = ()
