"""The JSON value type the model's `to_json` methods return."""

from __future__ import annotations

JSON = str | int | float | bool | None | list["JSON"] | dict[str, "JSON"]
