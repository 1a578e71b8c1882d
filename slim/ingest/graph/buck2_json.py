"""Buck2 `cquery`/`uquery` JSON and `targets --json` / `--json-lines` / `ctargets --json-report`.

Attribute values are raw JSON (lists, dicts, null, `__type`-tagged select/concat); a
select() contributes the union of all its branches' labels (conservative: an edge that
exists in any configuration is kept). Configured labels are split on the last ` (`.
Outputs without attributes (plain label arrays) give nodes only, and a note says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from slim.errors import InputError, describe_found, describe_value
from slim.ingest.graph.bazel_jsonproto import _documents, _skip_log
from slim.model.graph import AttrValue, EdgeKind, GraphBuilder, Location, edge_kind_for_attribute
from slim.model.labels import label_package, normalize_label, package_path, split_configuration

NODES_ONLY_NOTE = (
    "buck2 query output without attributes lists targets only: no dependency edges; "
    "add --output-attribute 'buck.deps' --output-attribute '^(deps|exported_deps)$'"
)
KEPT_STRINGS = frozenset({"base_module"})
#: Preprocessor flags a target hands its dependants' compiles (every select() branch).
KEPT_FLAGS = frozenset(
    {
        "exported_preprocessor_flags",
        "exported_lang_preprocessor_flags",
        "exported_platform_preprocessor_flags",
    }
)
#: Linker flags a target hands its dependants' links (`-lz`: a library no map ties to it).
KEPT_LINK_FLAGS = frozenset({"exported_linker_flags", "exported_post_linker_flags"})
_TARGETS_KEYS = (b'"buck.', b'"compatible_targets"', b'"incompatible_targets"', b'"name"')


def _first_key(body: bytes) -> bytes:
    """The text after the first `{` (whitespace skipped): where the first key starts."""
    return body[1:].lstrip() if body.startswith(b"{") else b""


def sniff_query(head: bytes, path: Path) -> bool:
    body = _skip_log(head)
    key = _first_key(body)
    if key.startswith(b'"'):
        end = key.find(b'"', 1)
        return end > 0 and b"//" in key[1:end] and key[end + 1 :].lstrip().startswith(b":")
    if body.startswith(b"["):
        rest = body[1:].lstrip()
        return rest.startswith(b'"') and b"//" in rest.split(b'"', 2)[1]
    return False


def sniff_targets(head: bytes, path: Path) -> bool:
    body = _skip_log(head)
    if body.startswith(b"["):
        body = body[1:].lstrip()
    return _first_key(body).startswith(_TARGETS_KEYS)


def _rule_name(buck_type: str) -> str:
    """`prelude//rules.bzl:python_library` -> `python_library`; bare names pass through."""
    if "//" in buck_type and ":" in buck_type:
        return buck_type.rsplit(":", 1)[1]
    return buck_type


def _leaves(value: Any) -> Iterator[Any]:
    """Every leaf of a raw attribute value; select() branches all count, keys do not."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            typ = v.get("__type")
            if typ == "selector":
                entries = v.get("entries")
                if isinstance(entries, dict):
                    stack.extend(reversed(list(entries.values())))
            elif typ == "concat":
                stack.append(v.get("items"))
            elif typ is None:
                stack.extend(reversed(list(v.values())))
        elif v is not None:
            yield v


def _strings(value: Any) -> Iterator[str]:
    """Every string in a raw attribute value (other leaves skipped)."""
    return (v for v in _leaves(value) if isinstance(v, str))


def _label_strings(value: Any, attr: str, where: tuple[str, int, str]) -> Iterator[str]:
    """The strings of an attribute that holds labels (or paths): any other leaf (`"deps":
    7`) is an error, not an attribute without edges."""
    for v in _leaves(value):
        if not isinstance(v, str):
            name, line, target = where
            raise InputError(
                name,
                f'"{attr}" of {target}: labels (strings, lists, select())',
                describe_value(v),
                line=line,
            )
        yield v


def _typed_attr(attrs: dict[str, Any], key: str, where: tuple[str, int, str]) -> str | None:
    """A `buck.*` string attribute: a string or null; anything else is an error."""
    value = attrs.get(key)
    if value is None or isinstance(value, str):
        return value
    name, line, target = where
    raise InputError(name, f'"{key}" of {target}: a string', describe_found(repr(value)), line=line)


def _is_label(text: str) -> bool:
    sep = text.find("//")
    return sep >= 0 and text.find(":", sep) > 0 and " " not in text.split(" (", 1)[0]


def _dep_label(text: str) -> str:
    return normalize_label(split_configuration(text)[0])


def _source_label(path: str, package: str) -> str:
    """`root//bin/x.py` in package `root//bin` -> `root//bin:x.py` (the Bazel-style label)."""
    if package and path.startswith(package + "/"):
        return f"{package}:{path[len(package) + 1 :]}"
    return path


def _checked(name: str) -> bool:
    """Attributes known to hold labels: a value of another type there is damage. Private
    ones (`_foo`) are Buck2's own and may hold booleans: those are only read if labels."""
    return not name.startswith(("$", ":", "_"))


def _edges(
    attrs: dict[str, Any], package: str, where: tuple[str, int, str]
) -> tuple[dict[tuple[str, EdgeKind], None], list[str], list[str], dict[str, AttrValue]]:
    """(typed edges, srcs, tags, kept strings and flags) of one target's attributes."""
    typed: dict[tuple[str, EdgeKind], None] = {}
    srcs: list[str] = []
    kept: dict[str, AttrValue] = {}
    tags: list[str] = []
    for name, value in attrs.items():
        if name.startswith("buck."):
            continue
        if name == "labels":
            tags.extend(_label_strings(value, name, where))
            continue
        if name in KEPT_STRINGS:
            text = _typed_attr(attrs, name, where)
            if text is not None:
                kept[name] = text
            continue
        if name in KEPT_FLAGS or name in KEPT_LINK_FLAGS:
            flags = tuple(_strings(value))
            if flags:
                kept[name] = flags
            continue
        kind = edge_kind_for_attribute(name)
        if kind is None:
            continue
        values = _label_strings(value, name, where) if _checked(name) else _strings(value)
        for s in values:
            if _is_label(s):
                dep = _dep_label(s)
                typed[(dep, kind)] = None
                if kind is EdgeKind.SRCS:
                    srcs.append(dep)
            elif kind is EdgeKind.SRCS and "//" in s:
                srcs.append(_source_label(s, package))
    return typed, srcs, tags, kept


def add_node(
    b: GraphBuilder,
    key: str,
    attrs: dict[str, Any],
    location: Location | None,
    where: tuple[str, int] = ("", 0),
) -> None:
    """One target with its attributes: typed edges per attribute, `buck.deps` for the rest.
    A field of the wrong type is an `InputError` at `where` (file, line)."""
    raw_label, config = split_configuration(key)
    label = normalize_label(raw_label)
    at = (*where, label)
    typed, srcs, tags, kept = _edges(attrs, label_package(label), at)
    if not KEPT_FLAGS.isdisjoint(attrs):
        b.flag_attributes_seen += 1
    rule_type = _typed_attr(attrs, "buck.type", at)
    i = b.add_target(
        label,
        _rule_name(rule_type) if rule_type else "",
        location=location,
        srcs=dict.fromkeys(srcs),
        tags=tags,
        attrs=dict(kept),
    )
    if config is None:
        config = _typed_attr(attrs, "buck.target_configuration", at) or None
    if config is not None:
        b.add_configuration(i, config)
    covered = {dep for dep, _ in typed}
    for dep, kind in typed:
        b.add_edge(i, b.intern(dep), kind)
    for s in _label_strings(attrs.get("buck.deps"), "buck.deps", at):
        dep = _dep_label(s)
        if dep not in covered:
            covered.add(dep)
            b.add_edge(i, b.intern(dep), EdgeKind.UNTYPED)


def _build_file(package: object) -> Location | None:
    """Query commands give `buck.package` as the build file (`root//bin:TARGETS.fixture`)."""
    if isinstance(package, str) and ":" in package[package.find("//") + 2 :]:
        return Location(f"{package_path(package)}/{package.rsplit(':', 1)[1]}".lstrip("/"))
    return None


def _bad(name: str, line: int, expected: str, value: object) -> InputError:
    return InputError(name, expected, describe_value(value), line=line)


def load_query(path: Path, b: GraphBuilder) -> None:
    """An object of configured label -> attributes, a label array, or a multi-query object."""
    name = str(path)
    nodes_only = False
    n = 0
    for line, doc in _documents(path):
        if isinstance(doc, list):
            labels: list[object] = doc
            nodes_only = True
        elif isinstance(doc, dict):
            labels = []
            for key, value in doc.items():
                if isinstance(value, dict):
                    if not _is_label(key):
                        raise _bad(name, line, "a target label as key", key)
                    add_node(b, key, value, _build_file(value.get("buck.package")), (name, line))
                    n += 1
                elif isinstance(value, list):
                    labels.extend(value)
                    nodes_only = True
                else:
                    raise _bad(name, line, "attributes (an object) or labels (an array)", value)
        else:
            raise _bad(name, line, "a JSON object or array", doc)
        for lab in labels:
            if not isinstance(lab, str) or not _is_label(lab):
                raise _bad(name, line, "a target label", lab)
            raw, config = split_configuration(lab)
            i = b.add_target(normalize_label(raw), "")
            if config is not None:
                b.add_configuration(i, config)
            n += 1
    if n == 0:
        raise InputError(name, "at least one target", "none", line=1)
    if nodes_only:
        b.notes.append(NODES_ONLY_NOTE)


def _target_entries(
    doc: object, name: str, line: int, skipped: list[str]
) -> Iterator[dict[str, Any]]:
    if isinstance(doc, list):
        for item in doc:
            yield from _target_entries(item, name, line, skipped)
    elif isinstance(doc, dict) and ("compatible_targets" in doc or "incompatible_targets" in doc):
        for key in ("compatible_targets", "incompatible_targets"):
            if not isinstance(doc.get(key, []), list):
                raise _bad(name, line, f'"{key}": an array of targets', doc[key])
        yield from _target_entries(doc.get("compatible_targets", []), name, line, skipped)
        for item in doc.get("incompatible_targets", []):
            target = item.get("buck.target", "?") if isinstance(item, dict) else "?"
            skipped.append(f"{target} (incompatible)")
    elif isinstance(doc, dict):
        yield doc
    else:
        raise _bad(name, line, "a target object", doc)


def load_targets(path: Path, b: GraphBuilder) -> None:
    """`targets --json` (array), `--json-lines`, and `ctargets --json-report` wrappers."""
    name = str(path)
    n = 0
    skipped: list[str] = []
    for line, doc in _documents(path):
        for entry in _target_entries(doc, name, line, skipped):
            error = entry.get("buck.error")
            if error is not None:
                first = str(error).strip().split("\n", 1)[0]
                b.notes.append(
                    f"buck2 targets: package {entry.get('buck.package', '?')} failed to load"
                    f" ({first}); its targets are missing from the graph"
                )
                continue
            key = entry.get("buck.target")
            if not isinstance(key, str):
                pkg, short = entry.get("buck.package"), entry.get("name")
                if not (isinstance(pkg, str) and isinstance(short, str)):
                    skipped.append(f"entry {n + len(skipped) + 1} (no buck.target)")
                    continue
                key = f"{pkg}:{short}"
            if not _is_label(key):
                raise _bad(name, line, "a target label in buck.target", key)
            add_node(b, key, entry, None, (name, line))
            n += 1
    if skipped:
        b.notes.append(
            f"buck2 targets: {len(skipped)} entries not loaded: " + ", ".join(sorted(skipped)[:5])
        )
    if n == 0:
        raise InputError(
            name, "at least one target with buck.target or buck.package and name", "none", line=1
        )
