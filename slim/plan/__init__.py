"""From findings to proposals: pruned dependency lists, fix commands and savings."""

from __future__ import annotations

from slim.plan.prune import plan_report

__all__ = ["plan_report"]
