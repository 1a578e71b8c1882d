"""What a finding proposes to change, as data: `slim.plan.fixes` turns it into text.

An action names the edge it edits by labels and attributes only; how it is written
(buildozer, a CMake edit, prose) is decided in one place, so renderers, `apply`,
`verify` and the cleanup backlog never compare or re-parse command strings.
"""

from __future__ import annotations

from dataclasses import dataclass

from slim.model.jsontypes import JSON


@dataclass(frozen=True, slots=True)
class Remove:
    """Cut `target -> dep` from `attribute`."""

    target: str
    dep: str
    attribute: str = "deps"

    @property
    def verb(self) -> str:
        return "remove"


@dataclass(frozen=True, slots=True)
class Move:
    """Move `dep` from `from_attr` to `to_attr` of `target` (runtime-only use, say)."""

    target: str
    dep: str
    from_attr: str = "deps"
    to_attr: str = "runtime_deps"

    @property
    def attribute(self) -> str:
        return self.from_attr

    @property
    def verb(self) -> str:
        return "move"


@dataclass(frozen=True, slots=True)
class Replace:
    """Point `target`'s edge to `dep` at `with_dep` instead (a CPU variant, say)."""

    target: str
    dep: str
    with_dep: str
    attribute: str = "deps"

    @property
    def verb(self) -> str:
        return "replace"


@dataclass(frozen=True, slots=True)
class DropArchs:
    """Stop compiling device code for `archs` in `target` (flags say where they come from)."""

    target: str
    archs: tuple[str, ...]
    flags: str = ""

    @property
    def dep(self) -> str:
        return ""

    @property
    def attribute(self) -> str:
        return ""

    @property
    def verb(self) -> str:
        return "drop-archs"


Action = Remove | Move | Replace | DropArchs
EdgeAction = Remove | Move | Replace


def action_to_json(a: Action) -> dict[str, JSON]:
    """The action as JSON (`verb` plus its fields), for the report and the backlog."""
    if isinstance(a, Remove):
        return {"verb": "remove", "target": a.target, "dep": a.dep, "attribute": a.attribute}
    if isinstance(a, Move):
        return {
            "verb": "move",
            "target": a.target,
            "dep": a.dep,
            "from": a.from_attr,
            "to": a.to_attr,
        }
    if isinstance(a, Replace):
        return {
            "verb": "replace",
            "target": a.target,
            "dep": a.dep,
            "with": a.with_dep,
            "attribute": a.attribute,
        }
    return {"verb": "drop-archs", "target": a.target, "archs": list(a.archs), "flags": a.flags}


def action_from_json(d: dict[str, JSON]) -> Action:
    """Inverse of `action_to_json` (the cleanup store keeps actions as JSON)."""
    verb, target = str(d["verb"]), str(d["target"])
    if verb == "remove":
        return Remove(target, str(d["dep"]), str(d.get("attribute", "deps")))
    if verb == "move":
        return Move(target, str(d["dep"]), str(d["from"]), str(d["to"]))
    if verb == "replace":
        return Replace(target, str(d["dep"]), str(d["with"]), str(d.get("attribute", "deps")))
    archs = d.get("archs", [])
    return DropArchs(target, tuple(str(a) for a in archs) if isinstance(archs, list) else ())
