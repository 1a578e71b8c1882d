"""Bazel `query`/`cquery --output=(streamed_)jsonproto`: Target messages as protobuf JSON.

streamed_jsonproto is one Target per line (the scalable form: decoded in batches with
typed msgspec structs); jsonproto comes in several layouts across Bazel versions
(objects back to back, `[...]` batches, cquery's `{"results": [...]}`), all read here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_lines, open_input
from slim.model.graph import EdgeKind, GraphBuilder, Location, edge_kind_for_attribute
from slim.model.labels import normalize_label, split_configuration

LOG_PREFIXES = (b"INFO:", b"WARNING:", b"Loading:", b"Analyzing:", b"DEBUG:", b"Computing")
LABEL_TYPES = frozenset(
    {
        "LABEL",
        "LABEL_LIST",
        "OUTPUT",
        "OUTPUT_LIST",
        "LABEL_DICT_UNARY",
        "LABEL_KEYED_STRING_DICT",
        "LABEL_LIST_DICT",
    }
)
KEPT_STRING_LISTS = frozenset({"tags", "imports", "linkopts", "includes", "copts"})
KEPT_BOOLEANS = frozenset({"testonly", "alwayslink", "linkstatic", "linkshared"})
KEPT_STRINGS = frozenset({"base_module", "main", "strip_import_prefix", "import_prefix"})
BATCH_LINES = 4096


class SelectorEntry(msgspec.Struct, rename="camel"):
    label: str | None = None
    string_value: str | None = None
    string_list_value: list[str] = []


class SelectorElement(msgspec.Struct, rename="camel"):
    entries: list[SelectorEntry] = []


class SelectorList(msgspec.Struct, rename="camel"):
    type: str = ""
    elements: list[SelectorElement] = []


class LabelListDictEntry(msgspec.Struct, rename="camel"):
    key: str = ""
    value: list[str] = []


class Attribute(msgspec.Struct, rename="camel"):
    name: str
    type: str = ""
    string_value: str | None = None
    string_list_value: list[str] = []
    boolean_value: bool | None = None
    int_value: int | None = None
    selector_list: SelectorList | None = None
    label_list_dict_value: list[LabelListDictEntry] = []


class Rule(msgspec.Struct, rename="camel"):
    name: str
    rule_class: str = ""
    location: str | None = None
    attribute: list[Attribute] = []
    rule_input: list[str] = []


class SourceFile(msgspec.Struct, rename="camel"):
    name: str
    location: str | None = None


class GeneratedFile(msgspec.Struct, rename="camel"):
    name: str
    generating_rule: str | None = None
    location: str | None = None


class Target(msgspec.Struct, rename="camel"):
    type: str = ""
    rule: Rule | None = None
    source_file: SourceFile | None = None
    generated_file: GeneratedFile | None = None


class Configuration(msgspec.Struct, rename="camel"):
    checksum: str | None = None
    id: int | None = None
    mnemonic: str | None = None


class ConfiguredTarget(msgspec.Struct, rename="camel"):
    target: Target
    configuration: Configuration | None = None
    configuration_id: int | None = None


class CqueryResult(msgspec.Struct, rename="camel"):
    results: list[ConfiguredTarget] = []
    configurations: list[Configuration] = []


def _skip_log(head: bytes) -> bytes:
    lines = head.split(b"\n")
    while lines and (lines[0].startswith(LOG_PREFIXES) or not lines[0].strip()):
        lines.pop(0)
    return b"\n".join(lines).lstrip()


def sniff_streamed(head: bytes, path: Path) -> bool:
    body = _skip_log(head)
    return (body.startswith(b'{"type":"') and b"\n" in body) or (
        body.startswith(b'{"type":"') and (len(head) < 8192)
    )


def sniff_cquery(head: bytes, path: Path) -> bool:
    body = _skip_log(head)
    return body.startswith(b"{") and body[1:].lstrip().startswith(b'"results"')


def sniff_query(head: bytes, path: Path) -> bool:
    body = _skip_log(head)
    if body.startswith(b"["):
        body = body[1:].lstrip()
    return body.startswith(b"{") and body[1:].lstrip().startswith(b'"type"')


def _attr_labels(a: Attribute) -> list[str]:
    out: list[str] = []
    if a.string_value is not None and a.type in ("LABEL", "OUTPUT", "LABEL_DICT_UNARY"):
        out.append(a.string_value)
    out.extend(a.string_list_value)
    for entry in a.label_list_dict_value:
        out.extend(entry.value)
    if a.selector_list is not None:
        for el in a.selector_list.elements:
            for e in el.entries:
                if e.label is not None and a.selector_list.type in ("LABEL",):
                    out.append(e.label)
                if e.string_value is not None and a.selector_list.type in ("LABEL", "OUTPUT"):
                    out.append(e.string_value)
                out.extend(e.string_list_value)
    return out


def add_target(b: GraphBuilder, t: Target, configuration: str | None = None) -> None:
    """Feed one decoded Target (rule, source file or generated file) into the builder."""
    if t.rule is not None:
        add_rule(b, t.rule, configuration)
    elif t.source_file is not None:
        b.add_file(normalize_label(t.source_file.name))
    elif t.generated_file is not None:
        g = t.generated_file
        gen = normalize_label(g.generating_rule) if g.generating_rule else None
        b.add_file(normalize_label(g.name), generated_by=gen)


def add_rule(b: GraphBuilder, r: Rule, configuration: str | None = None) -> None:
    label = normalize_label(r.name)
    pkg = label[: label.rfind(":")]
    attrs: dict[str, str | int | bool | tuple[str, ...]] = {}
    tags: list[str] = []
    srcs: list[str] = []
    typed: dict[str, EdgeKind] = {}
    for a in r.attribute:
        name = a.name
        if a.type in LABEL_TYPES or a.type == "SELECTOR_LIST":
            kind = edge_kind_for_attribute(name)
            if kind is None:
                continue
            labels = [normalize_label(x, pkg) for x in _attr_labels(a)]
            if kind is EdgeKind.SRCS:
                srcs.extend(labels)
            for lab in labels:
                prev = typed.get(lab)
                if prev is None or prev is EdgeKind.IMPLICIT:
                    typed[lab] = kind
                elif prev != kind:
                    typed[lab + "\x00" + str(int(kind))] = kind
        elif name == "tags":
            tags.extend(a.string_list_value)
        elif name in KEPT_STRING_LISTS and a.string_list_value:
            attrs[name] = tuple(a.string_list_value)
        elif name in KEPT_BOOLEANS and a.type == "BOOLEAN":
            val = a.boolean_value
            if val is None and a.int_value is not None:
                val = bool(a.int_value)
            if val is None and a.string_value is not None:
                val = a.string_value in ("true", "1")
            if val:
                attrs[name] = True
        elif name in KEPT_STRINGS and a.string_value:
            attrs[name] = a.string_value
    for lab in r.rule_input:
        lab = normalize_label(lab, pkg)
        if lab not in typed:
            typed[lab] = EdgeKind.IMPLICIT if r.attribute else EdgeKind.UNTYPED
    i = b.add_target(
        label,
        r.rule_class,
        location=Location.parse(r.location) if r.location else None,
        srcs=srcs,
        tags=tags,
        attrs=attrs,
    )
    if configuration:
        b.add_configuration(i, configuration)
    for lab, kind in typed.items():
        b.add_edge(i, b.intern(lab.split("\x00", 1)[0]), kind)


_TARGET_LIST = msgspec.json.Decoder(list[Target])
_TARGET = msgspec.json.Decoder(Target)


def _decode_batch(lines: list[tuple[int, bytes]], path: str) -> list[Target]:
    try:
        return _TARGET_LIST.decode(b"[" + b",".join(raw for _, raw in lines) + b"]")
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass
    out = []
    for lineno, raw in lines:
        try:
            out.append(_TARGET.decode(raw))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise InputError(
                path, f"a JSON Target object ({exc})", describe_found(raw), line=lineno
            ) from None
    return out


def load_streamed(path: Path, b: GraphBuilder) -> None:
    """One JSON Target per line; log lines a user redirected with 2>&1 are skipped."""
    name = str(path)
    batch: list[tuple[int, bytes]] = []
    count = 0
    with open_input(path) as f:
        for lineno, raw in iter_lines(f, name):
            if not raw.strip():
                continue
            if not raw.startswith(b"{"):
                if raw.startswith(LOG_PREFIXES):
                    continue
                raise InputError(name, "a JSON Target object", describe_found(raw), line=lineno)
            batch.append((lineno, raw))
            if len(batch) >= BATCH_LINES:
                for t in _decode_batch(batch, name):
                    add_target(b, t)
                count += len(batch)
                batch = []
    for t in _decode_batch(batch, name):
        add_target(b, t)
    count += len(batch)
    if count == 0:
        raise InputError(name, "at least one JSON Target line", "none", line=1)


def _documents(path: Path) -> Iterator[tuple[int, object]]:
    """Every top-level JSON value in the file (Bazel writes `{..}{..}` or `[..][..]`)."""
    name = str(path)
    with open_input(path) as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            name, "UTF-8 JSON", describe_found(data[exc.start : exc.start + 8]), line=line
        ) from None
    dec = json.JSONDecoder()
    pos = 0
    n = len(text)
    found = False
    while True:
        while pos < n and (text[pos].isspace() or text[pos] == ","):
            pos += 1
        if pos >= n:
            break
        if text[pos] not in "{[":
            end = text.find("\n", pos)
            line_text = text[pos : end if end >= 0 else n]
            if line_text.encode().startswith(LOG_PREFIXES):
                pos = end + 1 if end >= 0 else n
                continue
            raise InputError(
                name, "a JSON object", describe_found(line_text), line=text.count("\n", 0, pos) + 1
            )
        try:
            value, end_pos = dec.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise InputError(
                name,
                f"valid JSON ({exc.msg})",
                describe_found(text[exc.pos : exc.pos + 40]),
                line=exc.lineno,
            ) from None
        yield text.count("\n", 0, pos) + 1, value
        found = True
        pos = end_pos
    if not found:
        raise InputError(name, "a JSON document", "an empty file", line=1)


def _convert(value: object, typ: type[msgspec.Struct], name: str, line: int) -> msgspec.Struct:
    try:
        return msgspec.convert(value, typ)
    except msgspec.ValidationError as exc:
        raise InputError(
            name,
            f"a {typ.__name__} message ({exc})",
            describe_found(json.dumps(value)[:80]),
            line=line,
        ) from None


def _targets(values: Iterable[tuple[int, object]], name: str) -> Iterator[Target]:
    for line, value in values:
        items = value if isinstance(value, list) else [value]
        for item in items:
            t = _convert(item, Target, name, line)
            assert isinstance(t, Target)
            yield t


def load_query(path: Path, b: GraphBuilder) -> None:
    for t in _targets(_documents(path), str(path)):
        add_target(b, t)


def load_cquery(path: Path, b: GraphBuilder) -> None:
    name = str(path)
    n = 0
    for line, value in _documents(path):
        res = _convert(value, CqueryResult, name, line)
        assert isinstance(res, CqueryResult)
        by_id = {c.id: c.checksum for c in res.configurations if c.id is not None}
        for ct in res.results:
            n += 1
            config = None
            if ct.configuration is not None and ct.configuration.checksum not in (None, "null"):
                config = ct.configuration.checksum
            elif ct.configuration_id is not None:
                config = by_id.get(ct.configuration_id)
            t = ct.target
            if t.rule is not None:
                t.rule.name = split_configuration(t.rule.name)[0]
            add_target(b, t, config)
    if n == 0:
        raise InputError(name, "at least one cquery result", "an empty `results` list", line=1)
    b.notes.append("cquery: configured targets merged per label (configurations kept as data)")
