"""slim: find dead edges in build graphs and propose how to cut them.

Inputs (build-graph exports, import traces, linker maps, ELF binaries) flow one way:
ingest -> model -> evidence -> findings -> proposals -> renderers.
"""

from __future__ import annotations

__version__ = "0.1.0"
