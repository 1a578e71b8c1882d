"""Settings loaded from the model config (a `data` dependency)."""

from __future__ import annotations

import json
from pathlib import Path

CONFIG = Path(__file__).resolve().parent.parent / "config" / "model.json"


def load_settings() -> dict[str, object]:
    return dict(json.loads(CONFIG.read_text(encoding="utf-8")))
