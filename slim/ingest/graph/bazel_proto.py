"""Bazel `query --output=proto` (one QueryResult) and `--output=streamed_proto`.

The protobuf wire format is decoded here for the few fields of `build.proto` slim uses,
into the same structs as the jsonproto reader, so edges are typed in one place
(`bazel_jsonproto.add_target`). Every bad byte is an `InputError` with its offset.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import open_input
from slim.ingest.graph.bazel_jsonproto import (
    Attribute,
    GeneratedFile,
    LabelListDictEntry,
    Rule,
    SelectorElement,
    SelectorEntry,
    SelectorList,
    SourceFile,
    StringKeyedEntry,
    Target,
    add_target,
    attribute_matters,
)
from slim.model.graph import GraphBuilder

_TARGET_TYPES = {
    1: "RULE",
    2: "SOURCE_FILE",
    3: "GENERATED_FILE",
    4: "PACKAGE_GROUP",
    5: "ENVIRONMENT_GROUP",
}
_ATTR_TYPES = {
    1: "INTEGER",
    2: "STRING",
    3: "LABEL",
    4: "OUTPUT",
    5: "STRING_LIST",
    6: "LABEL_LIST",
    7: "OUTPUT_LIST",
    8: "DISTRIBUTION_SET",
    9: "LICENSE",
    10: "STRING_DICT",
    11: "FILESET_ENTRY_LIST",
    12: "LABEL_LIST_DICT",
    13: "STRING_LIST_DICT",
    14: "BOOLEAN",
    15: "TRISTATE",
    16: "INTEGER_LIST",
    17: "STRING_DICT_UNARY",
    18: "UNKNOWN",
    19: "LABEL_DICT_UNARY",
    20: "SELECTOR_LIST",
    21: "LABEL_KEYED_STRING_DICT",
}
_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
_MAX_VARINT_BYTES = 10

Field = tuple[int, int, int, int, int]
"""(field number, wire type, value or start, 0 or end, offset of the tag)."""


class _Wire:
    """Bounds-checked protobuf wire decoding over a buffer (bytes or mmap)."""

    __slots__ = ("buf", "path")

    def __init__(self, buf: bytes | mmap.mmap, path: str) -> None:
        self.buf = buf
        self.path = path

    def error(self, expected: str, found: str, offset: int) -> InputError:
        return InputError(self.path, expected, found, offset=offset)

    def varint(self, pos: int, end: int) -> tuple[int, int]:
        buf = self.buf
        start = pos
        result = 0
        shift = 0
        while True:
            if pos >= end:
                raise self.error("a complete varint", "the end of the message", start)
            c = buf[pos]
            pos += 1
            result |= (c & 0x7F) << shift
            if c < 0x80:
                return result, pos
            shift += 7
            if pos - start >= _MAX_VARINT_BYTES:
                raise self.error(
                    f"a varint of at most {_MAX_VARINT_BYTES} bytes", "a longer one", start
                )

    def fields(self, pos: int, end: int) -> Iterator[Field]:
        """Each field in [pos, end): varints as (field, 0, value, 0, offset), length-delimited
        ones as (field, 2, start, stop, offset); fixed-width fields are skipped."""
        buf = self.buf
        while pos < end:
            at = pos
            key = buf[pos]
            if key < 0x80:
                pos += 1
            else:
                key, pos = self.varint(pos, end)
            num, wire = key >> 3, key & 7
            if num == 0:
                raise self.error("a protobuf field tag", f"tag {key:#x} (field 0)", at)
            if wire in (_VARINT, _LEN):
                if pos < end and buf[pos] < 0x80:
                    value = buf[pos]
                    pos += 1
                else:
                    value, pos = self.varint(pos, end)
                if wire == _VARINT:
                    yield num, _VARINT, value, 0, at
                    continue
                if value > end - pos:
                    raise self.error(
                        "a length within the enclosing message",
                        f"length {value} with {end - pos} bytes left",
                        at,
                    )
                yield num, _LEN, pos, pos + value, at
                pos += value
            elif wire in (_I64, _I32):
                width = 8 if wire == _I64 else 4
                if width > end - pos:
                    raise self.error(f"{width} more bytes", f"{end - pos}", at)
                pos += width
            else:
                raise self.error("a protobuf wire type 0, 1, 2 or 5", f"wire type {wire}", at)

    def text(self, start: int, stop: int) -> str:
        raw = self.buf[start:stop]
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.error(
                "a UTF-8 string", describe_found(raw[exc.start : exc.start + 8]), start + exc.start
            ) from None

    def expect_len(self, f: Field, what: str) -> None:
        if f[1] != _LEN:
            raise self.error(f"{what} as a length-delimited field", f"wire type {f[1]}", f[4])


def _strings(w: _Wire, start: int, stop: int, wanted: dict[int, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in w.fields(start, stop):
        name = wanted.get(f[0])
        if name is not None:
            w.expect_len(f, name)
            out.setdefault(name, []).append(w.text(f[2], f[3]))
    return out


def _first(d: dict[str, list[str]], key: str) -> str | None:
    values = d.get(key)
    return values[0] if values else None


def _selector_list(w: _Wire, start: int, stop: int) -> SelectorList:
    sel = SelectorList()
    for f in w.fields(start, stop):
        if f[0] == 1 and f[1] == _VARINT:
            sel.type = _ATTR_TYPES.get(f[2], "UNKNOWN")
        elif f[0] == 2:
            w.expect_len(f, "Selector")
            element = SelectorElement()
            for g in w.fields(f[2], f[3]):
                if g[0] == 1:
                    w.expect_len(g, "SelectorEntry")
                    entry = SelectorEntry()
                    for h in w.fields(g[2], g[3]):
                        if h[0] == 1 and h[1] == _LEN:
                            entry.label = w.text(h[2], h[3])
                        elif h[0] == 3 and h[1] == _LEN:
                            entry.string_value = w.text(h[2], h[3])
                        elif h[0] == 6 and h[1] == _LEN:
                            entry.string_list_value.append(w.text(h[2], h[3]))
                    element.entries.append(entry)
            sel.elements.append(element)
    return sel


@lru_cache(maxsize=4096)
def _matters(name: str, type_: str) -> bool:
    return attribute_matters(name, type_)


def _skippable(buf: bytes | mmap.mmap, start: int, stop: int) -> bool:
    """Fast path: an attribute written name-then-type (as Bazel does) that `add_rule`
    ignores, recognised from its first bytes without decoding it."""
    if stop - start < 4 or buf[start] != 0x0A:
        return False
    n = buf[start + 1]
    at = start + 2 + n
    if n >= 0x80 or at + 1 >= stop or buf[at] != 0x10 or buf[at + 1] >= 0x80:
        return False
    return _ignored(bytes(buf[start + 2 : at]), buf[at + 1])


@lru_cache(maxsize=4096)
def _ignored(name: bytes, type_: int) -> bool:
    try:
        text = name.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return bool(text) and not attribute_matters(text, _ATTR_TYPES.get(type_, "UNKNOWN"))


def _keyed(w: _Wire, start: int, stop: int) -> StringKeyedEntry:
    d = _strings(w, start, stop, {1: "key", 2: "value"})
    return StringKeyedEntry("".join(d.get("key", [])), "".join(d.get("value", [])))


def _attribute(w: _Wire, start: int, stop: int) -> tuple[Attribute, bool]:
    """The attribute and whether `add_rule` uses it; one it ignores is returned bare (name
    and type only) as soon as those are known, its values left undecoded."""
    a = Attribute(name="")
    checked = False
    for f in w.fields(start, stop):
        num, wire = f[0], f[1]
        if wire == _VARINT:
            if num == 2:
                a.type = _ATTR_TYPES.get(f[2], "UNKNOWN")
            elif num == 3:
                a.int_value = f[2]
            elif num == 14:
                a.boolean_value = bool(f[2])
        elif num == 1:
            a.name = w.text(f[2], f[3])
        elif num == 5:
            a.string_value = w.text(f[2], f[3])
        elif num == 6:
            if a.string_list_value is None:
                a.string_list_value = []
            a.string_list_value.append(w.text(f[2], f[3]))
        elif num == 10:
            d = _strings(w, f[2], f[3], {1: "key", 2: "value"})
            if a.label_list_dict_value is None:
                a.label_list_dict_value = []
            a.label_list_dict_value.append(
                LabelListDictEntry(key="".join(d.get("key", [])), value=d.get("value", []))
            )
        elif num == 19:
            if a.label_dict_unary_value is None:
                a.label_dict_unary_value = []
            a.label_dict_unary_value.append(_keyed(w, f[2], f[3]))
        elif num == 22:
            if a.label_keyed_string_dict_value is None:
                a.label_keyed_string_dict_value = []
            a.label_keyed_string_dict_value.append(_keyed(w, f[2], f[3]))
        elif num == 21:
            a.selector_list = _selector_list(w, f[2], f[3])
        if not checked and a.name and a.type:
            checked = True
            if not _matters(a.name, a.type):
                return Attribute(name=a.name, type=a.type), False
    if not a.name:
        raise w.error("an Attribute with a name (field 1)", "none", start)
    return a, True


def _rule(w: _Wire, start: int, stop: int) -> Rule:
    r = Rule(name="")
    bare: Attribute | None = None
    for f in w.fields(start, stop):
        num = f[0]
        if num in (1, 2, 3, 4, 5):
            w.expect_len(f, "a Rule field")
        else:
            continue
        if num == 1:
            r.name = w.text(f[2], f[3])
        elif num == 2:
            r.rule_class = w.text(f[2], f[3])
        elif num == 3:
            r.location = w.text(f[2], f[3])
        elif num == 4:
            if bare is not None and _skippable(w.buf, f[2], f[3]):
                continue
            a, used = _attribute(w, f[2], f[3])
            if used:
                r.attribute.append(a)
            elif bare is None:
                bare = a
        else:
            r.rule_input.append(w.text(f[2], f[3]))
    if not r.name:
        raise w.error("a Rule with a name (field 1)", "none", start)
    if not r.attribute and bare is not None:
        r.attribute.append(bare)  # add_rule types rule_input edges by whether attributes exist
    return r


def _target(w: _Wire, start: int, stop: int) -> Target:
    t = Target()
    for f in w.fields(start, stop):
        num = f[0]
        if num == 1 and f[1] == _VARINT:
            t.type = _TARGET_TYPES.get(f[2], "UNKNOWN")
        elif num == 2:
            w.expect_len(f, "Rule")
            t.rule = _rule(w, f[2], f[3])
        elif num == 3:
            w.expect_len(f, "SourceFile")
            d = _strings(w, f[2], f[3], {1: "name", 2: "location"})
            if "name" not in d:
                raise w.error("a SourceFile with a name (field 1)", "none", f[2])
            t.source_file = SourceFile(d["name"][0], _first(d, "location"))
        elif num == 4:
            w.expect_len(f, "GeneratedFile")
            d = _strings(w, f[2], f[3], {1: "name", 2: "rule", 3: "location"})
            if "name" not in d:
                raise w.error("a GeneratedFile with a name (field 1)", "none", f[2])
            t.generated_file = GeneratedFile(d["name"][0], _first(d, "rule"), _first(d, "location"))
    if not t.type:
        raise w.error("a Target with a type (field 1)", "none", start)
    return t


def _buffer(path: Path) -> bytes | mmap.mmap:
    """The whole (decompressed) file; plain files are memory-mapped, not copied."""
    with open_input(path) as f:
        try:
            fd = f.fileno()
        except OSError:
            return f.read()
        size = path.stat().st_size
        if size == 0:
            return b""
        return mmap.mmap(fd, size, access=mmap.ACCESS_READ)


def _looks_like_target(head: bytes, pos: int) -> bool:
    """A Target message starts with its type: tag 0x08 then a discriminator 1-5."""
    return len(head) > pos + 1 and head[pos] == 0x08 and 1 <= head[pos + 1] <= 5


def _skip_varint(head: bytes, pos: int) -> int:
    for i in range(pos, min(pos + _MAX_VARINT_BYTES, len(head))):
        if head[i] < 0x80:
            return i + 1
    return -1


def sniff_query_result(head: bytes, path: Path) -> bool:
    if not head or head[0] != 0x0A:
        return False
    pos = _skip_varint(head, 1)
    return pos > 0 and _looks_like_target(head, pos)


def sniff_streamed(head: bytes, path: Path) -> bool:
    pos = _skip_varint(head, 0)
    return pos > 0 and _looks_like_target(head, pos)


def _feed(b: GraphBuilder, targets: Iterator[Target], path: str) -> None:
    n = 0
    for t in targets:
        add_target(b, t)
        n += 1
    if n == 0:
        raise InputError(path, "at least one Target message", "none", offset=0)


def load_query_result(path: Path, b: GraphBuilder) -> None:
    """A QueryResult message: `repeated Target target = 1`."""
    buf = _buffer(path)
    w = _Wire(buf, str(path))

    def targets() -> Iterator[Target]:
        for f in w.fields(0, len(buf)):
            if f[0] != 1 or f[1] != _LEN:
                raise w.error("QueryResult field 1 (Target)", f"field {f[0]}", f[4])
            yield _target(w, f[2], f[3])

    _feed(b, targets(), str(path))


def load_streamed(path: Path, b: GraphBuilder) -> None:
    """Varint-length-delimited Target messages back to back, no container."""
    buf = _buffer(path)
    w = _Wire(buf, str(path))
    end = len(buf)

    def targets() -> Iterator[Target]:
        pos = 0
        while pos < end:
            at = pos
            n, pos = w.varint(pos, end)
            if n > end - pos:
                raise w.error(
                    "a Target message within the file", f"length {n} with {end - pos} left", at
                )
            yield _target(w, pos, pos + n)
            pos += n

    _feed(b, targets(), str(path))
