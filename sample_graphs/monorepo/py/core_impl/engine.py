"""The inference engine (pure Python stand-in)."""

from __future__ import annotations


class Engine:
    def __init__(self, scale: float) -> None:
        self.scale = scale

    def run(self, values: list[float]) -> list[float]:
        return [max(0.0, v * self.scale) for v in values]
