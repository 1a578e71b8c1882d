"""The workspace's change history: which files each commit of a window touched.

Read from the VCS by `slim.ingest.vcs`; the planner counts, per target, the commits that
touch its sources or its closure's (the rebuilds a dead edge costs).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Days in the quarter every per-quarter figure is scaled to.
QUARTER_DAYS = 90


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit: its id, its commit date (ISO, UTC) and the workspace files it changed."""

    sha: str
    date: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class ChangeHistory:
    """The commits of a window of `days` days ending at `until` (an ISO date, UTC).

    `anchor` says where `until` came from: `newest commit` (the newest commit's date, so
    the same history gives the same figures whenever it is read) or `given` (--history-until).
    `covered_days` is the part of the window the history reaches (a younger repository
    covers less), the span the counts are scaled from.
    """

    source: str
    days: int
    until: str
    anchor: str
    commits: tuple[Commit, ...]
    covered_days: float

    @property
    def scale(self) -> float:
        """Factor from counts in the window to counts per quarter."""
        return QUARTER_DAYS / max(self.covered_days, 1.0)

    @property
    def phrase(self) -> str:
        """`12 commits in 90 days to 2026-03-01 (newest commit)`."""
        n = len(self.commits)
        covered = ""
        if self.covered_days + 1e-9 < self.days:
            covered = f", history covers {self.covered_days:.0f} of them"
        return (
            f"{n} commit{'' if n == 1 else 's'} in {self.days} days to {self.until} "
            f"({self.anchor}{covered})"
        )


@dataclass(frozen=True)
class NoHistory:
    """Why no history was read (said in the report, so the per-build figure is not taken
    for a quarterly one)."""

    reason: str
