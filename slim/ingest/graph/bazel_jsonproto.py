"""Bazel `query`/`cquery --output=(streamed_)jsonproto`: Target messages as protobuf JSON.

streamed_jsonproto is one Target per line (the scalable form: decoded in batches with
typed msgspec structs); jsonproto comes in several layouts across Bazel versions
(objects back to back, `[...]` batches, cquery's `{"results": [...]}`), all read here.
"""

from __future__ import annotations

import functools
import json
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from slim.errors import InputError, describe_found
from slim.ingest._io import open_input
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
DICT_TYPES = frozenset({"LABEL_DICT_UNARY", "LABEL_KEYED_STRING_DICT", "LABEL_LIST_DICT"})
KEPT_STRING_LISTS = frozenset({"tags", "imports", "linkopts", "includes", "copts", "defines"})
#: Kept lists whose select() is read too, as every value of its branches: `defines` reach
#: every dependant's compile (`--proto:flatten_selects`, on by default, already gives
#: them so; without it the export holds the selector).
SELECTED_LISTS = frozenset({"defines"})
KEPT_BOOLEANS = frozenset({"testonly", "alwayslink", "linkstatic", "linkshared"})
KEPT_STRINGS = frozenset(
    {
        "base_module",
        "main",
        "strip_import_prefix",
        "import_prefix",
        "strip_include_prefix",
        "include_prefix",
    }
)
_EDGE_TYPES = LABEL_TYPES | {"SELECTOR_LIST"}
_KEPT_SCALARS = KEPT_BOOLEANS | KEPT_STRINGS | SELECTED_LISTS


class SelectorEntry(msgspec.Struct, rename="camel", gc=False):
    label: str | None = None
    string_value: str | None = None
    string_list_value: list[str] = []


class SelectorElement(msgspec.Struct, rename="camel", gc=False):
    entries: list[SelectorEntry] = []


class SelectorList(msgspec.Struct, rename="camel", gc=False):
    type: str = ""
    elements: list[SelectorElement] = []


class LabelListDictEntry(msgspec.Struct, rename="camel", gc=False):
    key: str = ""
    value: list[str] = []


class StringKeyedEntry(msgspec.Struct, rename="camel", gc=False):
    key: str = ""
    value: str = ""


class Attribute(msgspec.Struct, rename="camel", gc=False):
    """One attribute; an absent value is None, not an empty list (a rule has dozens of
    attributes, most without a value: a fresh empty list each costs 40% of the decode)."""

    name: str
    type: str = ""
    string_value: str | None = None
    string_list_value: list[str] | None = None
    boolean_value: bool | None = None
    int_value: int | None = None
    selector_list: SelectorList | None = None
    label_list_dict_value: list[LabelListDictEntry] | None = None
    label_dict_unary_value: list[StringKeyedEntry] | None = None
    label_keyed_string_dict_value: list[StringKeyedEntry] | None = None

    @property
    def code(self) -> int:
        """What an attribute of this name can add to a rule (see `_name_code`)."""
        return _code(self.name)

    @property
    def gate(self) -> object:
        """False when the attribute surely adds nothing to its rule (see `_GATES`)."""
        code = _code(self.name)
        if code == _LISTED:
            return self.string_list_value
        if code == _FLAG:
            return self.boolean_value is not False
        return code


class Rule(msgspec.Struct, rename="camel", gc=False):
    name: str
    rule_class: str = ""
    location: str | None = None
    attribute: list[Attribute] = []
    rule_input: list[str] = []


class SourceFile(msgspec.Struct, rename="camel", gc=False):
    name: str
    location: str | None = None


class GeneratedFile(msgspec.Struct, rename="camel", gc=False):
    name: str
    generating_rule: str | None = None
    location: str | None = None


class Target(msgspec.Struct, rename="camel", gc=False):
    type: str = ""
    rule: Rule | None = None
    source_file: SourceFile | None = None
    generated_file: GeneratedFile | None = None


class Configuration(msgspec.Struct, rename="camel", gc=False):
    checksum: str | None = None
    id: int | None = None
    mnemonic: str | None = None


class ConfiguredTarget(msgspec.Struct, rename="camel", gc=False):
    target: Target
    configuration: Configuration | None = None
    configuration_id: int | None = None


class CqueryResult(msgspec.Struct, rename="camel", gc=False):
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
    first = body[1:].lstrip()
    return body.startswith(b"{") and first.startswith((b'"results"', b'"configurations"'))


def sniff_query(head: bytes, path: Path) -> bool:
    body = _skip_log(head)
    if body.startswith(b"["):
        body = body[1:].lstrip()
    return body.startswith(b"{") and body[1:].lstrip().startswith(b'"type"')


def _attr_labels(a: Attribute) -> list[str]:
    """The labels an attribute's value names (a select()'s condition keys are not values)."""
    out: list[str] = []
    if a.string_value is not None and a.type in ("LABEL", "OUTPUT"):
        out.append(a.string_value)
    out.extend(a.string_list_value or ())
    for entry in a.label_list_dict_value or ():
        out.extend(entry.value)
    out.extend(e.value for e in a.label_dict_unary_value or ())
    out.extend(e.key for e in a.label_keyed_string_dict_value or ())
    sel = a.selector_list
    if sel is not None and sel.type in LABEL_TYPES:
        for el in sel.elements:
            for e in el.entries:
                if e.string_value is not None and sel.type in ("LABEL", "OUTPUT"):
                    out.append(e.string_value)
                out.extend(e.string_list_value)
    return out


def attribute_matters(name: str, type_: str) -> bool:
    """Whether `add_rule` uses an attribute of this name and type (readers may skip the rest)."""
    if name in SELECTED_LISTS:
        return True
    if type_ in LABEL_TYPES or type_ == "SELECTOR_LIST":
        return edge_kind_for_attribute(name) is not None or (
            type_ == "LABEL" and name in KEPT_STRINGS
        )
    return name in KEPT_STRING_LISTS or name in KEPT_BOOLEANS or name in KEPT_STRINGS


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


_KINDS: dict[str, EdgeKind | None] = {}


def _kind(name: str) -> EdgeKind | None:
    kind = _KINDS.get(name, EdgeKind.ORDER_ONLY)
    if kind is EdgeKind.ORDER_ONLY:
        kind = _KINDS[name] = edge_kind_for_attribute(name)
    return kind


class _RuleParts:
    """What one rule contributes while its attributes are read: edges and kept metadata."""

    __slots__ = ("attrs", "bound", "edges", "pkg", "rule_input", "srcs", "tags")

    def __init__(
        self,
        pkg: str,
        rule_input: list[str],
        edges: list[tuple[list[str], EdgeKind]] | None = None,
        srcs: list[str] | None = None,
    ) -> None:
        self.pkg = pkg
        self.rule_input = rule_input
        self.attrs: dict[str, str | int | bool | tuple[str, ...]] = {}
        self.tags: list[str] = []
        self.srcs: list[str] = [] if srcs is None else srcs
        self.edges: list[tuple[list[str], EdgeKind]] = [] if edges is None else edges
        self.bound: set[str] | None = None

    def edge(self, labels: list[str], kind: EdgeKind) -> None:
        if not labels:
            return
        if kind is EdgeKind.IMPLICIT and self.rule_input:
            if self.bound is None:
                self.bound = set(self.rule_input)
            labels = [x for x in labels if x in self.bound]
        elif kind is EdgeKind.SRCS:
            self.srcs.extend(_sources(labels, self.pkg))
        self.edges.append((labels, kind))

    def listed(self, a: Attribute) -> None:
        """An attribute with a list value that is not a LABEL_LIST."""
        if a.type == "STRING_LIST":
            if a.name == "tags":
                self.tags.extend(a.string_list_value or ())
            elif a.name in KEPT_STRING_LISTS:
                self.attrs[a.name] = tuple(a.string_list_value or ())
            return
        kind = _kind(a.name) if a.type in LABEL_TYPES else None
        if kind is not None:
            self.edge(_attr_labels(a), kind)

    def _selected(self, a: Attribute) -> None:
        """Record the labels only some branches of the attribute's `select()` name (an
        export that keeps selects: `--proto:flatten_selects=false`) in `selected_deps`."""
        sel = a.selector_list
        if sel is None or sel.type not in LABEL_TYPES:
            return
        some: set[str] = set()
        every: set[str] = set()
        for el in sel.elements:
            branches = [
                {*e.string_list_value, *([e.string_value] if e.string_value else [])}
                for e in el.entries
            ]
            if not branches:
                continue
            common = set.intersection(*branches)
            every |= common
            some |= set.union(*branches) - common
        chosen = {normalize_label(x, self.pkg) for x in some - every}
        if chosen:
            known = self.attrs.get("selected_deps", ())
            chosen.update(known if isinstance(known, tuple) else ())
            self.attrs["selected_deps"] = tuple(sorted(chosen))

    def valued(self, a: Attribute) -> None:
        """An attribute with a scalar, selector or dict value."""
        typ = a.type
        if a.name in SELECTED_LISTS and a.selector_list is not None:
            branches = (e.string_list_value for el in a.selector_list.elements for e in el.entries)
            self.attrs[a.name] = tuple(dict.fromkeys(v for values in branches for v in values))
        elif typ in LABEL_TYPES or typ == "SELECTOR_LIST":
            kind = _kind(a.name)
            if kind is not None:
                self.edge(_attr_labels(a), kind)
                self._selected(a)
            elif a.name in KEPT_STRINGS and typ == "LABEL" and a.string_value:
                self.attrs[a.name] = a.string_value  # a py_binary's `main`
        elif a.name in KEPT_BOOLEANS and typ == "BOOLEAN":
            if _truth(a):
                self.attrs[a.name] = True
        elif a.name in KEPT_STRINGS and a.string_value:
            self.attrs[a.name] = a.string_value

    def implicit_rest(self, has_attributes: bool) -> None:
        implicit_rest(self.edges, self.srcs, self.rule_input, has_attributes)


def _sources(labels: list[str], pkg: str) -> list[str]:
    """`normalize_label(x, pkg)` of each label, a canonical one taken as it is (most
    are: no call for it)."""
    return [
        x if x[:2] == "//" and ":" in x and x[-1:] != "]" else normalize_label(x, pkg)
        for x in labels
    ]


def implicit_rest(
    edges: list[tuple[list[str], EdgeKind]],
    srcs: list[str],
    rule_input: list[str],
    has_attributes: bool,
) -> None:
    """Labels `rule_input` lists that no typed attribute names are implicit edges;
    without attribute values it alone gives untyped edges."""
    if not rule_input:
        return
    if not edges:
        edges.append((rule_input, EdgeKind.IMPLICIT if has_attributes else EdgeKind.UNTYPED))
        return
    rest = set(rule_input)
    rest.difference_update(*map(_LABELS_OF, edges))
    if rest and srcs:
        rest.difference_update(srcs)
    if rest:
        edges.append((sorted(rest), EdgeKind.IMPLICIT))


def _truth(a: Attribute) -> bool:
    val = a.boolean_value
    if val is None and a.int_value is not None:
        val = bool(a.int_value)
    if val is None and a.string_value is not None:
        val = a.string_value in ("true", "1")
    return bool(val)


def _has_value(a: Attribute) -> bool:
    return not (
        a.string_value is None
        and a.int_value is None
        and a.boolean_value is None
        and a.selector_list is None
        and a.type not in DICT_TYPES
    )


def add_rule(b: GraphBuilder, r: Rule, configuration: str | None = None) -> None:
    """One rule: typed edges from its label attributes, metadata from the few we keep.

    This is the hot path of million-target exports, so labels go to the builder in bulk
    (`add_label_edges`: one dict lookup each when canonical) and the common attribute (a
    LABEL_LIST, or no value at all: most of Bazel's output) is handled inline.
    `rule_input` is what the query kept: `--noimplicit_deps` drops toolchains from it but
    not from the `$`/`:` attribute values, so implicit attributes count only for labels
    it lists.
    """
    label = normalize_label(r.name)
    pkg = label[: label.rfind(":")]
    parts = _RuleParts(pkg, r.rule_input)
    for a in r.attribute:
        if a.string_list_value:
            if a.type == "LABEL_LIST":
                kind = _kind(a.name)
                if kind is not None:
                    parts.edge(a.string_list_value, kind)
            else:
                parts.listed(a)
        elif (
            a.string_value is None
            and a.boolean_value is None
            and a.int_value is None
            and a.selector_list is None
            and not (
                a.label_list_dict_value
                or a.label_dict_unary_value
                or a.label_keyed_string_dict_value
            )
        ):
            continue  # no value: nothing to read (most of Bazel's attributes)
        elif (a.type in _EDGE_TYPES or a.name in _KEPT_SCALARS) and _has_value(a):
            parts.valued(a)
    parts.implicit_rest(bool(r.attribute))
    i = b.add_target(
        label,
        r.rule_class,
        location=Location.parse(r.location) if r.location else None,
        srcs=parts.srcs,
        tags=parts.tags,
        attrs=parts.attrs,
    )
    if configuration:
        b.add_configuration(i, configuration)
    for labels, kind in parts.edges:
        b.add_label_edges(i, labels, kind, pkg)


_IMPLICIT, _SRCS = EdgeKind.IMPLICIT, EdgeKind.SRCS
_LABELS_OF = operator.itemgetter(0)
_GATE = operator.attrgetter("gate")
_SKIP, _LISTED, _FLAG, _ANY = 0, 1, 2, 3
_ANY_LIST = -1  # a learned shape of `_ANY` (see `_LEARNED_FIELDS`)
_NAME_CODES: dict[str, int] = {}


def _code(name: str) -> int:
    code = _NAME_CODES.get(name)
    return _name_code(name) if code is None else code


def _name_code(name: str) -> int:
    """What an attribute of this name can add to a rule, remembered per name: nothing
    (name, visibility, generator_*, ...), something only through a list value (a kept
    string list), a true kept boolean, or anything (an edge kind or a kept string)."""
    if _kind(name) is not None or name in KEPT_STRINGS or name in SELECTED_LISTS:
        code = _ANY
    elif name in KEPT_BOOLEANS:
        code = _FLAG
    elif name in KEPT_STRING_LISTS:
        code = _LISTED
    else:
        code = _SKIP
    _NAME_CODES[name] = code
    return code


def _streamed_rule(b: GraphBuilder, r: Rule) -> None:
    """`add_rule(b, r)` for the million rules of a streamed export, with its common shape
    inline: label-list attributes and attributes without a value (most of them) are read
    here, any other attribute by the same `_RuleParts` methods. Same builder calls, in the
    same order (checked against `add_rule` by the tests)."""
    label = r.name
    if not (label[:2] == "//" and ":" in label and label[-1:] != "]"):  # canonical: as is
        label = normalize_label(label)
    pkg = label[: label.rfind(":")]
    rule_input = r.rule_input
    edges: list[tuple[list[str], EdgeKind]] = []
    srcs: list[str] = []
    parts: _RuleParts | None = None
    kinds = _KINDS
    for a in filter(_GATE, r.attribute):  # in C: most attributes add nothing
        code = a.code
        name = a.name
        labels = a.string_list_value
        if code == _LISTED:  # nothing but a list value of a non-label type counts
            if a.type != "LABEL_LIST":
                parts = parts or _RuleParts(pkg, rule_input, edges, srcs)
                parts.listed(a)
            continue
        if code == _FLAG:  # nothing but a BOOLEAN that may be true counts
            if not labels and a.type == "BOOLEAN":
                parts = parts or _RuleParts(pkg, rule_input, edges, srcs)
                parts.valued(_given(a))
            continue
        if labels:
            if a.type == "LABEL_LIST":
                kind = kinds[name]
                if kind is None:
                    continue
                if parts is not None:
                    parts.edge(labels, kind)
                elif kind is _IMPLICIT and rule_input:
                    parts = _RuleParts(pkg, rule_input, edges, srcs)
                    parts.edge(labels, kind)
                else:
                    if kind is _SRCS:
                        srcs.extend(_sources(labels, pkg))
                    edges.append((labels, kind))
            else:
                parts = parts or _RuleParts(pkg, rule_input, edges, srcs)
                parts.listed(a)
        elif (a.type in _EDGE_TYPES or name in _KEPT_SCALARS) and not (
            a.string_value is None  # `_has_value` inline: most of these have no value
            and a.int_value is None
            and a.boolean_value is None
            and a.selector_list is None
            and a.type not in DICT_TYPES
        ):
            parts = parts or _RuleParts(pkg, rule_input, edges, srcs)
            parts.valued(a)
    if parts is None:
        implicit_rest(edges, srcs, rule_input, bool(r.attribute))
        b.add_rule_row(label, r.rule_class, srcs, r.location, edges, pkg)
    else:
        parts.implicit_rest(bool(r.attribute))
        b.add_rule_row(
            label, r.rule_class, srcs, r.location, edges, pkg, tags=parts.tags, attrs=parts.attrs
        )


_TARGET = msgspec.json.Decoder(Target)


class _NotGiven:
    """The `boolean_value` of a learned kept-boolean attribute without one: true, so that
    its gate lets it through to `_truth`, which reads its other fields then."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"


_NOT_GIVEN = _NotGiven()


def _given(a: Attribute) -> Attribute:
    """`a` with a `boolean_value` left out as None again (see `_NotGiven`)."""
    value: object = a.boolean_value
    if value is _NOT_GIVEN:
        return msgspec.structs.replace(a, boolean_value=None)
    return a


_VALUE_FIELDS = tuple(
    (f.name, f.type, f.default) for f in msgspec.structs.fields(Attribute) if f.name != "name"
)
#: the fields a code's learned type decodes (`_streamed_rule` reads no others for it)
_FIELDS_BY_CODE = {
    _SKIP: (),
    _LISTED: tuple(f for f in _VALUE_FIELDS if f[0] in ("type", "string_list_value")),
}
#: the learned types' fields: a kept boolean's `boolean_value` is true or false, or left
#: out (a `null` one is not: such a line goes to the plain decoder); a name of `_ANY`
#: seen with a list value or none (a label list: most of a rule's attributes, most
#: without a value) is learned as `_ANY_LIST`: its list is read, and any other value is
#: refused (only JSON null fits `None`), so that a line giving one goes to the plain
#: decoder, which teaches the name's whole shape (`_ANY`)
_LEARNED_FIELDS = {
    **_FIELDS_BY_CODE,
    _FLAG: tuple(
        (n, bool, _NOT_GIVEN) if n == "boolean_value" else (n, t, d) for n, t, d in _VALUE_FIELDS
    ),
    _ANY_LIST: tuple(
        (n, t, d) if n in ("type", "string_list_value") else (n, None, None)
        for n, t, d in _VALUE_FIELDS
    ),
}
#: the value fields an attribute learned as `_ANY_LIST` has none of
_NOT_LISTS = tuple(n for n, t, _ in _LEARNED_FIELDS[_ANY_LIST] if t is None)
#: A learned type's `gate`, read in C by `filter` in `_streamed_rule`: false when an
#: attribute surely adds nothing to its rule (a name none reads, a kept list without a
#: value, a kept boolean false, a label list without a value), as `Attribute.gate` says
#: of a plain one.
_GATES: dict[int, object] = {
    _SKIP: False,
    _LISTED: property(operator.attrgetter("string_list_value")),
    _FLAG: property(operator.attrgetter("boolean_value")),
    _ANY_LIST: property(operator.attrgetter("string_list_value")),
    _ANY: True,
}
_AT_ATTRIBUTE = re.compile(r"at `\$\.rule\.attribute\[\d+\]\.")


def _with(struct: type, name: str, **types: Any) -> Any:
    """`struct`'s fields (defaults kept) with the types of `types` instead."""
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for f in msgspec.structs.fields(struct):
        typ = types.get(f.name, f.type)
        if f.default_factory is not msgspec.NODEFAULT:
            fields.append((f.name, typ, msgspec.field(default_factory=f.default_factory)))
        elif f.default is not msgspec.NODEFAULT:
            fields.append((f.name, typ, f.default))
        else:
            fields.append((f.name, typ))
    return msgspec.defstruct(name, fields, rename="camel", gc=False)


#: A Target whose attributes' values are left undecoded (any JSON), for `lenient`.
_RAW_ATTRIBUTE = _with(Attribute, "RawAttribute", **{n: msgspec.Raw for n, _, _ in _VALUE_FIELDS})
_RAW_RULE = _with(Rule, "RawRule", attribute=list[_RAW_ATTRIBUTE])  # type: ignore[valid-type]
_RAW_TARGET = msgspec.json.Decoder(_with(Target, "RawTarget", rule=_RAW_RULE | None))


class _ByName:
    """Decodes Target lines with each attribute typed by its name, the names learned as
    lines come: an attribute no rule reads is checked as JSON but not made into objects
    (no strings for its name, type or value: most of Bazel's attributes), a kept string
    list gets its list only. A line the learned types reject (a name not learned yet, or
    a bad line) is decoded by the plain `Target` decoder, which raises what it always
    did, unless the error is in a value slim does not read (see `lenient`): a line is
    accepted or not whatever was read before it. The types are rebuilt when misses have
    cost about what a rebuild costs. Names beyond `MAX_NAMES` (a hostile file) are not
    learned."""

    MAX_NAMES = 4096

    def __init__(self) -> None:
        self._types: dict[str, type] = {}
        self._shapes: dict[str, int] = {}
        """Each learned name's shape: its code, or `_ANY_LIST`."""
        self._decode: Callable[[bytes | memoryview], Target] | None = None
        self._misses = 0
        self._stale = False

    def decode(self, raw: bytes | memoryview) -> Target:
        fast = self._decode
        if fast is not None:
            try:
                return fast(raw)
            except msgspec.DecodeError:
                pass
        return self.plain(raw)

    def decoder(self) -> Callable[[bytes | memoryview], Target]:
        """What decodes a line now: the learned types, or `plain` before any are. A line
        it rejects goes to `plain`, then the caller asks again (the types may be new)."""
        return self._decode or self.plain

    def plain(self, raw: bytes | memoryview) -> Target:
        """The plain decoder's Target (or error), `lenient` where it applies, the line's
        attribute names learned."""
        try:
            t = _TARGET.decode(raw)
        except msgspec.ValidationError as exc:
            if _AT_ATTRIBUTE.search(str(exc)) is None:
                raise
            t = lenient(raw, exc)
        if t.rule is not None:
            self._learn(t.rule.attribute)
        return t

    def _learn(self, attributes: Sequence[Any]) -> None:
        """Learn the names of a line's attributes (plain or raw ones), and the whole shape
        of a name learned as a list one that has another value here."""
        types, shapes = self._types, self._shapes
        for a in attributes:
            name = a.name
            shape = _code(name)
            if shape == _ANY and all(getattr(a, f) is None for f in _NOT_LISTS):
                shape = _ANY_LIST
            known = shapes.get(name)
            if known is None and len(types) >= self.MAX_NAMES:
                continue
            if known is None or (known == _ANY_LIST and shape == _ANY):
                shapes[name] = shape
                types[name] = msgspec.defstruct(
                    "NamedAttribute",
                    _LEARNED_FIELDS.get(shape, _VALUE_FIELDS),
                    tag_field="name",
                    tag=name,
                    rename="camel",
                    gc=False,
                    namespace={"name": name, "code": _code(name), "gate": _GATES[shape]},
                )
                self._stale = True
        self._misses += 1
        if self._stale and self._misses >= 2 * len(types):
            self._misses, self._stale = 0, False
            self._decode = self._decoder()

    def _decoder(self) -> Callable[[bytes | memoryview], Target]:
        attribute: Any = functools.reduce(operator.or_, self._types.values())
        rule: Any = msgspec.defstruct(
            "NamedRule",
            (
                ("name", str),
                ("rule_class", str, ""),
                ("location", str | None, None),
                ("attribute", list[attribute], []),
                ("rule_input", list[str], []),
            ),
            rename="camel",
            gc=False,
        )
        target: Any = msgspec.defstruct(
            "NamedTarget",
            (
                ("type", str, ""),
                ("rule", rule | None, None),
                ("source_file", SourceFile | None, None),
                ("generated_file", GeneratedFile | None, None),
            ),
            rename="camel",
            gc=False,
        )
        decode: Callable[[bytes | memoryview], Target] = msgspec.json.Decoder(target).decode
        return decode


_BY_NAME = _ByName()


def lenient(raw: bytes | memoryview, exc: msgspec.ValidationError) -> Target:
    """The Target of a line the plain decoder rejected with `exc` in an attribute, when
    every value slim reads is valid (the fields of `_FIELDS_BY_CODE`, as the learned types
    check them); else `exc`. Each line is decided alone, in time linear in its length."""
    try:
        t = _RAW_TARGET.decode(raw)
    except msgspec.DecodeError:
        raise exc from None
    rule = t.rule
    if rule is None:
        raise exc
    attributes = []
    for a in rule.attribute:
        values = {}
        for name, typ, _ in _FIELDS_BY_CODE.get(_code(a.name), _VALUE_FIELDS):
            value = getattr(a, name)
            if value:
                try:
                    values[name] = msgspec.json.decode(value, type=typ)
                except msgspec.DecodeError:
                    raise exc from None
        attributes.append(Attribute(a.name, **values))
    return Target(
        t.type,
        Rule(rule.name, rule.rule_class, rule.location, attributes, rule.rule_input),
        t.source_file,
        t.generated_file,
    )


def streamed_lines(
    b: GraphBuilder, first: int, lines: Sequence[bytes | memoryview], name: str
) -> None:
    """Decode and add each line at once: per-line decoding keeps the working set in cache
    (a joined batch decodes 2x slower). Lines may be views of a mapped file."""
    learned = _BY_NAME
    decode = learned.decoder()
    for k, raw in enumerate(lines):
        if not raw or raw[0] != 0x7B:  # not "{"
            stripped = bytes(raw).strip()
            if not stripped or stripped.startswith(LOG_PREFIXES):
                continue
            if not stripped.startswith(b"{"):
                raise InputError(
                    name, "a JSON Target object", describe_found(bytes(raw)), line=first + k
                )
        try:
            t = decode(raw)
        except msgspec.DecodeError:
            try:
                t = learned.plain(raw)
            except msgspec.DecodeError as exc:
                raise InputError(
                    name,
                    f"a JSON Target object ({exc})",
                    describe_found(bytes(raw)),
                    line=first + k,
                ) from None
            decode = learned.decoder()
        if t.rule is not None:
            _streamed_rule(b, t.rule)
        elif t.source_file is not None:
            b.add_source_file(t.source_file.name)  # (the queue normalizes what is not)
        else:
            add_target(b, t)


def load_streamed(path: Path, b: GraphBuilder) -> None:
    """One JSON Target per line (read in parallel byte ranges for large files); log
    lines a user redirected with 2>&1 are skipped."""
    from slim.ingest.graph._parallel import load_lines

    before = len(b)
    load_lines(path, b, streamed_lines)
    if len(b) == before and not _has_target_line(path):  # (not: it names known targets only)
        raise InputError(str(path), "at least one JSON Target line", "none", line=1)


def _has_target_line(path: Path) -> bool:
    """Whether a line of `path` is a Target (every such line was read without error)."""
    from slim.ingest._io import iter_lines

    with open_input(path) as stream:
        return any(line.lstrip().startswith(b"{") for _, line in iter_lines(stream, str(path)))


def _one_document(data: bytes) -> tuple[int, object] | None:
    """(line, value) when the file is exactly one JSON value, decoded by msgspec (several
    times faster than the standard decoder on gigabyte exports, same values); None for
    anything else, which the standard path reads or rejects with its exact message."""
    body = data.lstrip()
    if not body.startswith((b"{", b"[")):
        return None
    try:
        value = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    return data.count(b"\n", 0, len(data) - len(body)) + 1, value


def _documents(path: Path) -> Iterator[tuple[int, object]]:
    """Every top-level JSON value in the file (Bazel writes `{..}{..}` or `[..][..]`)."""
    name = str(path)
    with open_input(path) as f:
        data = f.read()
    whole = _one_document(data)
    if whole is not None:
        yield whole
        return
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
        except RecursionError:
            raise InputError(
                name,
                "JSON nested at most a few hundred levels deep",
                "deeper nesting",
                line=text.count("\n", 0, pos) + 1,
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
