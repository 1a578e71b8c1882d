"""Flat frozen details dataclasses as JSON objects (tuples become lists)."""

from __future__ import annotations

from dataclasses import asdict

from slim.model.jsontypes import JSON


def details_json(obj: object) -> dict[str, JSON]:
    """The fields of the dataclass `obj` as a JSON object, in declaration order."""
    out: dict[str, JSON] = {}
    for k, v in asdict(obj).items():  # type: ignore[call-overload]
        out[k] = list(v) if isinstance(v, tuple) else v
    return out
