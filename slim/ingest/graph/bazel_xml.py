"""Bazel `query --output=xml` (an XML 1.1 document), read as a stream.

Each `<rule>`, `<source-file>` and `<generated-file>` is turned into the jsonproto reader's
`Target` struct and fed through `bazel_jsonproto.add_target`, so edges are typed the same
way for every Bazel format. Elements are dropped once read: memory stays flat.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import cast

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_lines, open_input
from slim.ingest.graph.bazel_jsonproto import (
    LOG_PREFIXES,
    Attribute,
    GeneratedFile,
    LabelListDictEntry,
    Rule,
    SourceFile,
    Target,
    add_target,
)
from slim.model.graph import GraphBuilder

_SCALARS = {"label": "LABEL", "output": "OUTPUT", "string": "STRING", "int": "INTEGER"}
_LIST_TYPES = {"label": "LABEL_LIST", "output": "OUTPUT_LIST"}


def _body(head: bytes) -> bytes:
    lines = head.split(b"\n")
    while lines and (lines[0].startswith(LOG_PREFIXES) or not lines[0].strip()):
        lines.pop(0)
    return b"\n".join(lines).lstrip()


def sniff(head: bytes, path: Path) -> bool:
    body = _body(head)
    return body.startswith(b"<?xml") and (b"<query" in body or len(head) >= 8192)


def _attribute(el: ET.Element) -> Attribute | None:
    name = el.get("name")
    if name is None:
        return None
    tag = el.tag
    if tag in _SCALARS:
        return Attribute(name=name, type=_SCALARS[tag], string_value=el.get("value"))
    if tag == "boolean":
        return Attribute(name=name, type="BOOLEAN", boolean_value=el.get("value") == "true")
    if tag == "list":
        values = [c.get("value", "") for c in el]
        kinds = {c.tag for c in el}
        typ = (
            _LIST_TYPES.get(next(iter(kinds)), "STRING_LIST") if len(kinds) == 1 else "STRING_LIST"
        )
        return Attribute(name=name, type=typ, string_list_value=values)
    if tag == "dict":
        labels = [c.get("value", "") for c in el.iter("label")]
        if labels:
            return Attribute(
                name=name,
                type="LABEL_LIST_DICT",
                label_list_dict_value=[LabelListDictEntry(value=labels)],
            )
    return None


def _target(el: ET.Element, name: str, line: int) -> Target | None:
    label = el.get("name")
    if el.tag in ("rule", "source-file", "generated-file") and not label:
        raise InputError(name, f"a name= attribute on <{el.tag}>", "none", line=line)
    assert label is not None or el.tag not in ("rule", "source-file", "generated-file")
    if el.tag == "rule":
        rule = Rule(name=label or "", rule_class=el.get("class", ""), location=el.get("location"))
        for child in el:
            if child.tag == "rule-input":
                rule.rule_input.append(child.get("name", ""))
            else:
                a = _attribute(child)
                if a is not None:
                    rule.attribute.append(a)
        return Target(type="RULE", rule=rule)
    if el.tag == "source-file":
        return Target(type="SOURCE_FILE", source_file=SourceFile(label or "", el.get("location")))
    if el.tag == "generated-file":
        gen = GeneratedFile(label or "", el.get("generating-rule"), el.get("location"))
        return Target(type="GENERATED_FILE", generated_file=gen)
    return None


def load(path: Path, b: GraphBuilder) -> None:
    """Feed the document line by line (bounded lines, exact line numbers in errors)."""
    name = str(path)
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    root: ET.Element | None = None
    started = False
    depth = 0
    first_line = 0
    n = 0
    lineno = 0
    skipped = 0
    with open_input(path) as f:
        try:
            for lineno, raw in iter_lines(f, name):
                if root is None:
                    if not started and (not raw.strip() or raw.startswith(LOG_PREFIXES)):
                        skipped += 1
                        continue
                    started = True
                    for bad in (b"<!DOCTYPE", b"<!ENTITY"):
                        at = raw.find(bad)
                        if at >= 0:
                            raise InputError(
                                name,
                                "a Bazel query XML document (they have no DOCTYPE)",
                                describe_found(raw[at : at + 40]),
                                line=lineno,
                            )
                parser.feed(raw + b"\n")
                for item in parser.read_events():
                    event, el = cast("tuple[str, ET.Element]", item)
                    if event == "start":
                        depth += 1
                        if root is None:
                            if el.tag != "query":
                                raise InputError(
                                    name, "a <query> root element", f"<{el.tag}>", line=lineno
                                )
                            root = el
                        elif depth == 2:
                            first_line = lineno
                        continue
                    depth -= 1
                    if depth == 1 and root is not None:
                        t = _target(el, name, first_line)
                        if t is not None:
                            add_target(b, t)
                            n += 1
                        root.remove(el)
            if not started:
                raise InputError(
                    name, "a <query> XML document", "no elements (empty file)", line=max(lineno, 1)
                )
            parser.close()
        except LookupError as exc:  # the declaration names an encoding Python lacks
            raise InputError(
                name,
                "an XML declaration of a known encoding (Bazel writes UTF-8)",
                str(exc),
                line=lineno,
            ) from None
        except ET.ParseError as exc:
            line, col = exc.position
            what = str(exc).split(":")[0]
            raise InputError(
                name,
                "well-formed XML",
                f"{what} at column {col + 1}",
                line=line + skipped if line else lineno,
            ) from None
    if root is None:
        raise InputError(name, "a <query> XML document", "no elements", line=max(lineno, 1))
    if n == 0:
        raise InputError(name, "at least one <rule> or file in <query>", "none", line=lineno)
