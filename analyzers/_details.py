"""The base of typed details: a frozen dataclass rendered as a JSON object of its fields
(nested dataclasses as objects, tuples as lists) and, unless a rule says more, no text
lines."""

from __future__ import annotations

from dataclasses import asdict

from slim.model.jsontypes import JSON


def _plain(value: object) -> JSON:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value  # type: ignore[return-value]


class FlatDetails:
    """Mixed into a frozen, slotted dataclass of plain fields (and dataclasses of them)."""

    __slots__ = ()

    def to_json(self) -> dict[str, JSON]:
        return {k: _plain(v) for k, v in asdict(self).items()}  # type: ignore[call-overload]

    def text_lines(self) -> tuple[str, ...]:
        return ()
