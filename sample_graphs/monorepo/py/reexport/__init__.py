"""Public facade: re-exports Engine from py.core_impl."""

from __future__ import annotations

from py.core_impl.engine import Engine

__all__ = ["Engine"]
