"""Bazel `aquery --output=jsonproto`: which target produced each object, archive and binary.

The action graph gives no dependency edges; it gives ownership (`artifacts[path] = target`)
so linker maps and binaries can be traced back to targets. Exec paths are rebuilt from
`pathFragments` (memoized parent chains); the older variant with string ids and an
`execPath` on each artifact is read too.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from slim.errors import InputError, describe_value
from slim.ingest.graph.bazel_jsonproto import _convert, _documents, _skip_log
from slim.model.graph import GraphBuilder
from slim.model.labels import normalize_label

Id = int | str
LINK_MNEMONICS = frozenset(
    {"CppLink", "CppLinkExecutable", "CppLinkDynamicLibrary", "ObjcLink", "CcStrip", "GoLink"}
)
COMPILE_MNEMONICS = frozenset({"CppCompile", "ObjcCompile", "CudaCompile"})
ARTIFACT_SUFFIXES = (".o", ".obj", ".a", ".lo", ".lib", ".so", ".ifso", ".dylib", ".dll")
_KEYS = (
    b'"artifacts"',
    b'"actions"',
    b'"targets"',
    b'"depSetOfFiles"',
    b'"pathFragments"',
    b'"ruleClasses"',
    b'"configuration"',
)


class Artifact(msgspec.Struct, rename="camel"):
    id: Id
    path_fragment_id: Id | None = None
    exec_path: str | None = None


class Action(msgspec.Struct, rename="camel"):
    target_id: Id | None = None
    mnemonic: str = ""
    configuration_id: Id | None = None
    output_ids: list[Id] = []


class ActionTarget(msgspec.Struct, rename="camel"):
    id: Id
    label: str
    rule_class_id: Id | None = None


class RuleClass(msgspec.Struct, rename="camel"):
    id: Id
    name: str = ""


class PathFragment(msgspec.Struct, rename="camel"):
    id: Id
    label: str = ""
    parent_id: Id | None = None


class Configuration(msgspec.Struct, rename="camel"):
    id: Id
    checksum: str | None = None


class ActionGraph(msgspec.Struct, rename="camel"):
    artifacts: list[Artifact] = []
    actions: list[Action] = []
    targets: list[ActionTarget] = []
    rule_classes: list[RuleClass] = []
    path_fragments: list[PathFragment] = []
    configuration: list[Configuration] = []


def sniff(head: bytes, path: Path) -> bool:
    """An object whose first key is an ActionGraphContainer field; `artifacts` must look
    like aquery's (CMake's target-*.json also start with `"artifacts"`)."""
    body = _skip_log(head)
    first = body[1:].lstrip() if body.startswith(b"{") else b""
    if first.startswith(b'"artifacts"'):
        return b'"pathFragmentId"' in head or b'"execPath"' in head
    return first.startswith(_KEYS)


def is_artifact(path: str, mnemonic: str) -> bool:
    """Objects, archives and shared libraries by name; link outputs (executables) by action."""
    if mnemonic in LINK_MNEMONICS and not path.endswith((".params", ".map", ".d")):
        return True
    name = path.rsplit("/", 1)[-1]
    if name.endswith(ARTIFACT_SUFFIXES):
        return True
    return ".so." in name and name.rsplit(".so.", 1)[1].replace(".", "").isdigit()


class _Paths:
    """Exec paths from path fragments, each parent chain walked once."""

    def __init__(self, fragments: list[PathFragment], path: str) -> None:
        self._frag = {str(f.id): f for f in fragments}
        self._memo: dict[str, str] = {}
        self._path = path

    def get(self, fid: Id) -> str:
        key = str(fid)
        done = self._memo.get(key)
        if done is not None:
            return done
        chain: list[str] = []
        seen: set[str] = set()
        prefix = ""
        while key and key != "0":
            known = self._memo.get(key)
            if known is not None:
                prefix = known
                break
            frag = self._frag.get(key)
            if frag is None:
                raise InputError(
                    self._path, "a pathFragments entry for every id", f"no fragment {key}", line=1
                )
            if key in seen:
                raise InputError(
                    self._path, "acyclic pathFragments parents", f"a cycle at {key}", line=1
                )
            seen.add(key)
            chain.append(key)
            key = str(frag.parent_id) if frag.parent_id is not None else ""
        for k in reversed(chain):
            label = self._frag[k].label
            prefix = f"{prefix}/{label}" if prefix else label
            self._memo[k] = prefix
        return prefix


def load(path: Path, b: GraphBuilder) -> None:
    name = str(path)
    n_actions = 0
    for line, value in _documents(path):
        g = _convert(value, ActionGraph, name, line)
        assert isinstance(g, ActionGraph)
        paths = _Paths(g.path_fragments, name)
        exec_path: dict[str, str] = {}
        for a in g.artifacts:
            if a.exec_path is not None:
                exec_path[str(a.id)] = a.exec_path
            elif a.path_fragment_id is not None:
                exec_path[str(a.id)] = paths.get(a.path_fragment_id)
        rule_class = {str(r.id): r.name for r in g.rule_classes}
        checksum = {str(c.id): c.checksum for c in g.configuration if c.checksum}
        target_id: dict[str, int] = {}
        for t in g.targets:
            kind = rule_class.get(str(t.rule_class_id), "") if t.rule_class_id is not None else ""
            target_id[str(t.id)] = b.add_target(normalize_label(t.label), kind)
        compiles: dict[int, int] = {}
        for act in g.actions:
            n_actions += 1
            if act.target_id is None:
                continue
            tid = target_id.get(str(act.target_id))
            if tid is None:
                raise InputError(
                    name,
                    "an action whose targetId is in `targets`",
                    describe_value(act.target_id),
                    line=line,
                )
            if act.mnemonic in COMPILE_MNEMONICS:
                compiles[tid] = compiles.get(tid, 0) + 1
            if act.configuration_id is not None:
                config = checksum.get(str(act.configuration_id))
                if config:
                    b.add_configuration(tid, config)
            label = b.label_of(tid)
            for out in act.output_ids:
                p = exec_path.get(str(out))
                if p is None:
                    raise InputError(
                        name, "an output id listed in `artifacts`", describe_value(out), line=line
                    )
                if is_artifact(p, act.mnemonic):
                    b.add_artifact(p, label)
        for tid, count in compiles.items():
            b.set_attr(tid, "compile_actions", count)
    if n_actions == 0:
        raise InputError(name, "an aquery action graph with actions", "no actions", line=1)
    b.notes.append(
        "aquery: output ownership only (objects, archives, binaries), no dependency edges"
    )
