"""Findings: one verdict about one edge (or one binary), with the evidence behind it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Protocol, runtime_checkable

from slim.model.actions import Action
from slim.model.graph import Location
from slim.model.jsontypes import JSON


class Confidence(str, Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        return {"high": 3, "medium": 2, "low": 1}[self.value]


@dataclass(frozen=True, slots=True)
class Rule:
    """A stable rule code and its documentation (SARIF rules, `slim explain`, docs)."""

    code: str
    name: str
    summary: str
    help: str = ""


@dataclass(frozen=True, slots=True)
class Evidence:
    """One observation behind a verdict: where it was seen and what it shows."""

    source: str
    detail: str
    line: int | None = None
    offset: int | None = None
    analyzer: str = ""

    @property
    def location(self) -> Location:
        return Location(self.source, self.line, self.offset)


@dataclass(frozen=True, slots=True)
class WallSaving:
    """The wall-clock change of a clean build of the root at the parallelism the timings
    show: the build re-scheduled with and without the cut (`slim.plan.schedule`)."""

    seconds: float
    """before - after (negative when a replacement lengthens the build)."""
    before: float
    after: float
    jobs: int
    """Parallel slots of the schedule (`-jN`): the most actions the log shows at once."""
    critical: bool
    """A target that leaves lies on the critical path of the build before the cut."""
    basis: str
    measured: bool = True
    """False when the timeline has no action of any target that leaves (then `seconds` is
    0 for want of data, not because the cut is off the critical path)."""


@dataclass(frozen=True, slots=True)
class QuarterSaving:
    """What a cut saves per quarter (90 days): for each target that leaves, its compile CPU
    times its rebuilds (commits touching its sources or its closure's) times its cache miss
    ratio; net of what a replacement brings in."""

    cpu_seconds: float
    """CPU seconds per quarter (the sum over the targets that leave)."""
    rebuilds: float
    """Rebuilds of the root per quarter that the cut avoids: commits touching the sources
    of a target that leaves or of its closure, scaled to 90 days."""
    commits: int
    """Those commits, counted in the history window."""
    miss_ratio: float
    """Cache miss ratio of the targets that leave, weighted by their rebuild CPU (1.0 when
    assumed)."""
    rebuilds_basis: str
    miss_basis: str
    miss_source: str = "assumed"
    """`measured`, `assumed` or `partly measured` (some targets that leave have outcomes)."""

    @property
    def cpu_hours(self) -> float:
        return self.cpu_seconds / 3600.0

    @property
    def basis(self) -> str:
        return f"{self.rebuilds_basis}; {self.miss_basis}"


@dataclass(frozen=True, slots=True)
class Saving:
    """What cutting an edge saves: the targets that leave the build, their compile
    seconds, the root's link-time change and bytes, each figure with its basis."""

    compile_seconds: float = 0.0
    link_seconds: float = 0.0
    bytes: int = 0
    removed: tuple[str, ...] = ()
    compile_basis: str = ""
    link_basis: str = ""
    bytes_basis: str = ""
    added: tuple[str, ...] = ()
    """Targets the fix brings in (a replacement's closure), already netted out."""
    wall: WallSaving | None = None
    """Wall-clock change of a clean build; None without a timeline (or over several roots)."""
    quarter: QuarterSaving | None = None
    """Saving per quarter; None without history (the per-build figure stands alone)."""

    @property
    def targets_removed(self) -> int:
        return len(self.removed)

    @property
    def seconds(self) -> float:
        return self.compile_seconds + self.link_seconds

    @property
    def rank_key(self) -> tuple[float, float, float]:
        """What ranks cuts, largest first: CPU per quarter, then wall seconds per build, then
        CPU seconds per build, where history is known; else CPU, then wall, per build."""
        w = self.wall.seconds if self.wall is not None else 0.0
        if self.quarter is None:
            return (-1.0, self.seconds, w)
        return (self.quarter.cpu_seconds, w, self.seconds)

    @property
    def basis(self) -> str:
        """Every figure's basis in one phrase (text outputs)."""
        parts = [self.compile_basis or "default"]
        if self.link_seconds and self.link_basis and self.link_basis != self.compile_basis:
            parts.append(f"link {self.link_basis}")
        if self.added:
            parts.append(f"net of {len(self.added)} target(s) the fix adds")
        if self.bytes_basis:
            parts.append(f"bytes: {self.bytes_basis}")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Fix:
    """An action written out by `slim.plan.fixes`, never parsed back.

    `kind` is `buildozer` (`command` is a shell command a user can paste, `batch` its
    `buildozer -f` line), `cmake` (an edit of `location`, described in `command`; not a
    shell command) or `text` (flags to change, in prose).
    """

    action: Action
    kind: str
    command: str
    description: str = ""
    safe: bool = True
    batch: str = ""
    location: Location | None = None

    @property
    def runnable(self) -> bool:
        """Whether `command` is a shell command (it goes in `sh` blocks and command lists)."""
        return self.kind == "buildozer"


@runtime_checkable
class Details(Protocol):
    """Per-rule typed details of a finding: a rule renders its own extra lines."""

    def to_json(self) -> dict[str, JSON]: ...

    def text_lines(self) -> tuple[str, ...]: ...


@dataclass(frozen=True, slots=True)
class Suppression:
    """Why a finding was kept out: the `# slim: keep` comment or config entry, and its reason."""

    by: str
    reason: str = ""
    in_source: bool = True
    """A `# slim: keep` comment in a BUILD file (else a config `keep` entry)."""
    path: str = ""
    """The file `by` names (the BUILD file or the config)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """A verdict; `target`/`dep` are labels (dep empty for binary-wide findings)."""

    code: str
    name: str
    target: str
    dep: str
    verdict: str
    message: str
    confidence: Confidence
    removable: bool
    root: str = ""
    attribute: str = ""
    location: Location | None = None
    evidence: tuple[Evidence, ...] = ()
    action: Action | None = None
    """What the analyzer proposes; the planner derives `Remove` for a removable edge
    finding without one."""
    fix: Fix | None = None
    """`action` written out by the planner; analyzers leave it unset."""
    saving: Saving | None = None
    details: Details | None = None
    dep_location: Location | None = None
    """Where the dep itself is named (its own line in the BUILD/CMake file), if known."""
    dep_line_alone: bool = False
    """The dep's line names only the dep, so deleting the line is the whole edit."""
    suppression: Suppression | None = None
    review: str = ""
    """For `slim review`: `new` (the change introduced it) or `changed: …`."""
    kept_because: str = ""
    """Why an edge that looks dead is not removable and what evidence would decide it
    (the message says it too; a terse report shows it beside the message's first line)."""

    @property
    def sort_key(self) -> tuple[str, str, str, str, str]:
        return (self.code, self.root, self.target, self.dep, self.message)

    def at_most_medium(self) -> Confidence:
        return min(self.confidence, Confidence.MEDIUM, key=lambda c: c.rank)

    def kept(self, why: str) -> Finding:
        """This finding no longer removable because of `why` (said in the message too),
        at most of medium confidence: a step after the analyzer found what blocks the cut."""
        return replace(
            self,
            removable=False,
            confidence=self.at_most_medium(),
            message=f"{self.message} Not removable: {why}.",
            kept_because=why,
        )
