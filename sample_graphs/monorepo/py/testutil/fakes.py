"""Fake inputs for the server test."""

from __future__ import annotations


def fake_values() -> list[float]:
    return [1.0, -2.0, 3.0]
