"""Renderers: each writes one `Report` to a text stream, deterministically.

Every module has `render(report, out) -> None`; `RENDERERS` maps `--format` names to them
and is imported lazily by the CLI.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol, TextIO, cast

if TYPE_CHECKING:
    from slim.model.report import Report


class Renderer(Protocol):
    def __call__(self, report: Report, out: TextIO) -> None: ...


RENDERERS: dict[str, str] = {
    "text": "slim.render.text",
    "json": "slim.render.json",
    "markdown": "slim.render.markdown",
    "sarif": "slim.render.sarif",
    "buildozer": "slim.render.buildozer",
    "dot": "slim.render.dot",
    "csv": "slim.render.csv",
}


def get_renderer(name: str) -> Renderer:
    return cast("Renderer", importlib.import_module(RENDERERS[name]).render)
