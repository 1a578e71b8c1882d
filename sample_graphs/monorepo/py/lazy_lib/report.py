"""Writes an HTML report; only `server --export` imports it (never in the traced runs)."""

from __future__ import annotations

import html


def render(title: str) -> str:
    return f"<h1>{html.escape(title)}</h1>"
