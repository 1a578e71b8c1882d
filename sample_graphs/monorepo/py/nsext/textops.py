"""Text helpers in a PEP 420 namespace package (py/nsext has no __init__.py)."""

from __future__ import annotations


def normalize(text: str) -> str:
    return " ".join(text.split()).lower()
