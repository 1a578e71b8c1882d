"""The default plugin: loaded via importlib.import_module("py.plugins.impl")."""

from __future__ import annotations

NAME = "default"


def handle(request: str) -> str:
    return f"{NAME}:{request}"
