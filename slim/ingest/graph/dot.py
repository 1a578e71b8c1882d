"""One DOT (Graphviz) tokenizer and parser shared by every DOT dialect slim reads.

Bazel `--output=graph`, Buck2 `dot`/`dot_compact`, CMake `--graphviz` and `ninja -t graph`
are all DOT; their readers consume the statements `parse_file` yields. The tokenizer follows
Graphviz's lexer: quoted ids keep every backslash except `\\"` (so Bazel's literal `\\n`
survives) and backslash-newline continuations, `+` concatenates quoted ids, `//` and `/* */`
comments and preprocessor lines starting with `#` are skipped, and statements may span lines.
Input is read line by line; every error is an `InputError` with the line it happened on.
Lines holding one simple statement (nearly all of a machine-written graph) skip the token
machinery; a property test checks that this shortcut never changes the result.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_text_lines

MAX_ID_CHARS = 64 * 1024 * 1024
MAX_NESTING = 200
MAX_STATEMENT_EDGES = 1_000_000
LOG_PREFIXES = ("INFO:", "WARNING:", "Loading:", "Analyzing:", "DEBUG:", "Computing")

# Token kinds (punctuation tokens are their own kind: "{", "[", ";", ...).
ID, QID, HTML, EDGEOP, EOF = "id", "qid", "html", "edgeop", "eof"
KEYWORDS = frozenset({"strict", "graph", "digraph", "node", "edge", "subgraph"})

_TOKEN = re.compile(
    r"""[ \t\r\f\v]*+(?:
      (?P<q>"(?:[^"\\]++|\\.)*+")
    | (?P<e>->|--)
    | (?P<p>[{}\[\];,=:+])
    | (?P<i>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)
        |[A-Za-z_\u0080-\U0010ffff][A-Za-z_0-9\u0080-\U0010ffff]*)
    | (?P<c>//.*)
    | (?P<b>/\*.*?\*/)
    | (?P<s>"|<|/\*)
    | (?P<z>$)
    )""",
    re.VERBOSE,
)
_QBODY = re.compile(r'(?:[^"\\]++|\\.)*+')
_Q = r'"(?:[^"\\]++|\\.)*+"'
_ID = (
    r"[A-Za-z_\u0080-\U0010ffff][A-Za-z_0-9\u0080-\U0010ffff]*+|-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)"
)
_V = rf"(?:{_Q}|{_ID})"
# A whole line holding one simple statement (the bulk of machine-written DOT):
# `id [-> id] [[k=v, ...]] [;] [// comment]`. Anything else takes the token path.
_FAST_LINE = re.compile(
    rf"[ \t]*({_V})[ \t]*+(?:(->|--)[ \t]*+({_V})[ \t]*+)?"
    rf'(?:\[((?:[^\[\]"]++|{_Q})*+)\][ \t]*+)?(;)?[ \t]*+(?://.*)?'
)
_FAST_ATTR = re.compile(rf"[ \t]*+({_V})[ \t]*+(?:=[ \t]*+({_V})[ \t]*+)?[,;]?")
FAST = "fast"
_HTML_PART = re.compile(r"[<>]")

#: A token: (kind, value, line).
Token = tuple[str, str, int]
#: A pre-parsed simple line: (id, edge operator, id, attributes).
FastLine = tuple[str, str | None, str | None, dict[str, str] | None]


@dataclass(frozen=True, slots=True)
class DotGraph:
    """The `[strict] (di)graph [name] {` header of one graph in the file."""

    name: str | None
    directed: bool
    strict: bool
    line: int


@dataclass(frozen=True, slots=True)
class DotNode:
    """A node statement: its id, attributes (defaults applied) and enclosing subgraphs."""

    id: str
    attrs: Mapping[str, str]
    line: int
    scope: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DotEdge:
    """One edge of an edge statement (`a -> b -> c` yields two), defaults applied."""

    src: str
    dst: str
    attrs: Mapping[str, str]
    line: int
    scope: tuple[str, ...]


DotStatement = DotGraph | DotNode | DotEdge


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    return body.replace('\\"', '"').replace("\\\n", "")


def _id_value(text: str) -> str | None:
    """The value of an id the fast path matched; None for keywords (not ids)."""
    if text[0] == '"':
        v = text[1:-1]
        return _unescape(v) if "\\" in v else v
    return None if text.lower() in KEYWORDS else text


def _fast_line(text: str) -> tuple[FastLine, bool] | None:
    """The statement of a simple line and whether a `;` ends it, None if not simple."""
    m = _FAST_LINE.fullmatch(text)
    if m is None:
        return None
    a = _id_value(m.group(1))
    if a is None:
        return None
    op, b = m.group(2), None
    if op is not None:
        b = _id_value(m.group(3))
        if b is None:
            return None
    attrs: dict[str, str] | None = None
    body = m.group(4)
    if body is not None:
        attrs = {}
        pos, n = 0, len(body)
        while pos < n:
            am = _FAST_ATTR.match(body, pos)
            if am is None or am.end() == pos:
                if body[pos:].strip():
                    return None
                break
            key = _id_value(am.group(1))
            value = _id_value(am.group(2)) if am.group(2) is not None else "true"
            if key is None or value is None:
                return None
            attrs[key] = value
            pos = am.end()
    return (a, op, b, attrs), m.group(5) is not None


def tokenize(
    lines: Iterable[tuple[int, str]], path: str, fast: list[FastLine] | None = None
) -> Iterator[Token]:
    """DOT tokens from numbered lines; an unterminated string or comment is an InputError.

    With `fast` (a one-slot list), a line holding one simple statement is a single FAST
    token whose content is left in `fast[0]` (read it before asking for the next token).
    """
    return _Tokenizer(lines, path).tokens(fast)


_SIMPLE = {"q": QID, "i": ID, "e": EDGEOP}


class _Tokenizer:
    """The lexer's state: the lines, the current one and the position in it. Tokens that
    may span lines (strings, comments, HTML ids) read further lines themselves."""

    def __init__(self, lines: Iterable[tuple[int, str]], path: str) -> None:
        self.it = iter(lines)
        self.path = path
        self.lineno = 0
        self.text = ""
        self.pos = 0

    def tokens(self, fast: list[FastLine] | None) -> Iterator[Token]:
        while (nxt := next(self.it, None)) is not None:
            self.lineno, self.text = nxt
            if self.text.startswith("#"):
                continue
            if fast is not None and self.text:
                hit = _fast_line(self.text)
                if hit is not None:
                    fast[0] = hit[0]
                    yield FAST, "", self.lineno
                    if hit[1]:
                        yield ";", ";", self.lineno
                    continue
            yield from self.line_tokens()
        yield EOF, "", self.lineno or 1

    def line_tokens(self) -> Iterator[Token]:
        """The tokens from `pos` to the end of the line (or of the multi-line token that
        ends last on it)."""
        self.pos = 0
        match = _TOKEN.match
        while True:
            m = match(self.text, self.pos)
            if m is None:
                rest = self.text[self.pos :].lstrip()
                raise InputError(
                    self.path, "a DOT token", describe_found(rest[:40]), line=self.lineno
                )
            g = m.lastgroup
            if g == "z":
                return
            self.pos = m.end()
            value = m.group(g) if g else ""
            if g == "q":
                v = value[1:-1]
                yield QID, (_unescape(v) if "\\" in v else v), self.lineno
            elif g in _SIMPLE:
                yield _SIMPLE[g], value, self.lineno
            elif g == "p":
                yield value, value, self.lineno
            elif g == "s":
                tok = self.opened(value)
                if tok is not None:
                    yield tok

    def opened(self, opener: str) -> Token | None:
        if opener == '"':
            return self.string()
        if opener == "/*":
            self.comment()
            return None
        return self.html()

    def next_line(self, expected: str, start: int) -> None:
        nxt = next(self.it, None)
        if nxt is None:
            raise InputError(self.path, expected, "end of file", line=start)
        self.lineno, self.text = nxt

    def string(self) -> Token:
        """A quoted id that goes on over the next lines."""
        start = self.lineno
        parts = [self.text[self.pos :]]
        size = len(self.text) - self.pos
        while True:
            self.next_line('a closing `"` for the string opened here', start)
            body = _QBODY.match(self.text)
            assert body is not None
            end = body.end()
            size += end + 1
            if size > MAX_ID_CHARS:
                raise InputError(
                    self.path,
                    f"a quoted id of at most {MAX_ID_CHARS} characters",
                    "a longer one",
                    line=start,
                )
            parts.append("\n")
            if end < len(self.text):
                parts.append(self.text[:end])
                self.pos = end + 1
                return QID, _unescape("".join(parts)), start
            parts.append(self.text)

    def comment(self) -> None:
        start = self.lineno
        close = self.text.find("*/", self.pos)
        while close < 0:
            self.next_line("`*/` closing the comment opened here", start)
            close = self.text.find("*/")
        self.pos = close + 2

    def html(self) -> Token:
        """An HTML id `<...>`, angle brackets nested."""
        start = self.lineno
        depth = 1
        parts: list[str] = []
        size = 0
        while True:
            for hm in _HTML_PART.finditer(self.text, self.pos):
                depth += 1 if hm.group() == "<" else -1
                if depth == 0:
                    parts.append(self.text[self.pos : hm.start()])
                    self.pos = hm.end()
                    return HTML, "".join(parts), start
            parts.append(self.text[self.pos :] + "\n")
            size += len(self.text) - self.pos
            if size > MAX_ID_CHARS:
                raise InputError(
                    self.path,
                    f"an HTML id of at most {MAX_ID_CHARS} characters",
                    "a longer one",
                    line=start,
                )
            self.next_line("`>` closing the HTML id opened here", start)
            self.pos = 0


def _found(tok: Token) -> str:
    kind, value, _ = tok
    if kind == EOF:
        return "end of file"
    if kind == QID:
        return describe_found('"' + value + '"')
    return describe_found(value)


class _Parser:
    """Recursive descent over the DOT grammar; statements go to `out` as they are parsed."""

    def __init__(self, lines: Iterable[tuple[int, str]], path: str, fast: bool = True) -> None:
        self.fast: list[FastLine] = [("", None, None, None)]
        self._gen_next = tokenize(lines, path, self.fast if fast else None).__next__
        self.pending: list[Token] = []
        self.path = path
        self.tok: Token = self.next_token()
        self.node_defaults: list[dict[str, str]] = [{}]
        self.edge_defaults: list[dict[str, str]] = [{}]
        self.scope: list[str] = []
        self.scope_t: tuple[str, ...] = ()
        self.anon = 0
        self.out: list[DotStatement] = []

    def next_token(self) -> Token:
        if self.pending:
            return self.pending.pop()
        return self._gen_next()

    def expand(self) -> None:
        """Turn a FAST token back into the plain tokens of its line."""
        if self.tok[0] != FAST:
            return
        a, op, b, attrs = self.fast[0]
        line = self.tok[2]
        toks: list[Token] = [(QID, a, line)]
        if op is not None and b is not None:
            toks += [(EDGEOP, op, line), (QID, b, line)]
        if attrs is not None:
            toks.append(("[", "[", line))
            for k, v in attrs.items():
                toks += [(QID, k, line), ("=", "=", line), (QID, v, line), (",", ",", line)]
            toks.append(("]", "]", line))
        self.tok = toks[0]
        self.pending.extend(reversed(toks[1:]))

    def error(self, expected: str) -> InputError:
        self.expand()
        return InputError(self.path, expected, _found(self.tok), line=self.tok[2])

    def advance(self) -> Token:
        tok = self.tok
        self.tok = self.next_token()
        return tok

    def expect(self, kind: str, what: str) -> None:
        if self.tok[0] != kind:
            raise self.error(what)
        self.tok = self.next_token()

    def keyword(self, word: str) -> bool:
        self.expand()
        return self.tok[0] == ID and self.tok[1].lower() == word

    def is_id(self) -> bool:
        self.expand()
        kind = self.tok[0]
        return kind in (QID, HTML) or (kind == ID and self.tok[1].lower() not in KEYWORDS)

    def ident(self, what: str) -> str:
        self.expand()
        kind, value, _ = self.tok
        if kind == QID:
            self.tok = self.next_token()
            while self.tok[0] == "+":
                self.tok = self.next_token()
                if self.tok[0] != QID:
                    raise self.error('a quoted id after "+"')
                value += self.tok[1]
                self.tok = self.next_token()
            return value
        if kind == HTML or (kind == ID and value.lower() not in KEYWORDS):
            self.tok = self.next_token()
            return value
        raise self.error(what)

    def graphs(self) -> Iterator[DotStatement]:
        found = False
        out = self.out
        while self.tok[0] != EOF:
            yield self.header()
            found = True
            while self.tok[0] != "}":
                if self.tok[0] == EOF:
                    raise self.error("`}` closing the graph")
                self.stmt(None)
                if out:
                    yield from out
                    out.clear()
                if self.tok[0] == ";":
                    self.tok = self.next_token()
            self.tok = self.next_token()
        if not found:
            raise self.error("a DOT graph (`digraph {` or `graph {`)")

    def header(self) -> DotGraph:
        line = self.tok[2]
        strict = False
        if self.keyword("strict"):
            self.advance()
            strict = True
        if self.keyword("digraph"):
            directed = True
        elif self.keyword("graph"):
            directed = False
        else:
            raise self.error("`digraph` or `graph`")
        self.advance()
        name = self.ident("a graph name") if self.is_id() else None
        self.expect("{", "`{` opening the graph")
        self.node_defaults = [{}]
        self.edge_defaults = [{}]
        return DotGraph(name, directed, strict, line)

    def attr_list(self) -> dict[str, str]:
        attrs: dict[str, str] = {}
        while self.tok[0] == "[":
            self.tok = self.next_token()
            while self.tok[0] != "]":
                key = self.ident("an attribute name or `]`")
                value = "true"
                if self.tok[0] == "=":
                    self.tok = self.next_token()
                    value = self.ident("an attribute value")
                attrs[key] = value
                if self.tok[0] in (",", ";"):
                    self.tok = self.next_token()
            self.tok = self.next_token()
        return attrs

    def node_id(self) -> str:
        ident = self.ident("a node id")
        if self.tok[0] == ":":  # port (and compass point): not part of the node's identity
            self.tok = self.next_token()
            self.ident("a port name")
            if self.tok[0] == ":":
                self.tok = self.next_token()
                self.ident("a compass point")
        return ident

    def subgraph(self) -> list[str]:
        """A (possibly anonymous) subgraph; returns the node ids it names."""
        if len(self.scope) >= MAX_NESTING:
            raise self.error(f"subgraphs nested at most {MAX_NESTING} deep")
        name = None
        if self.keyword("subgraph"):
            self.advance()
            if self.is_id():
                name = self.ident("a subgraph name")
        if name is None:
            self.anon += 1
            name = f"%{self.anon}"
        self.expect("{", "`{` opening the subgraph")
        members: list[str] = []
        self.scope.append(name)
        self.scope_t = tuple(self.scope)
        self.node_defaults.append(self.node_defaults[-1])
        self.edge_defaults.append(self.edge_defaults[-1])
        while self.tok[0] != "}":
            if self.tok[0] == EOF:
                raise self.error("`}` closing the subgraph")
            self.stmt(members)
            if self.tok[0] == ";":
                self.tok = self.next_token()
        self.tok = self.next_token()
        self.scope.pop()
        self.scope_t = tuple(self.scope)
        self.node_defaults.pop()
        self.edge_defaults.pop()
        return members

    def endpoint(self, members: list[str] | None) -> tuple[bool, list[str]]:
        if self.tok[0] == "{" or self.keyword("subgraph"):
            inner = self.subgraph()
            if members is not None:
                members.extend(inner)
            return True, inner
        ident = self.node_id()
        if members is not None:
            members.append(ident)
        return False, [ident]

    def stmt(self, members: list[str] | None) -> None:
        kind, value, line = self.tok
        if kind == FAST:
            self.fast_stmt(members, line)
            return
        if kind == ID:
            word = value.lower()
            if word in ("node", "edge", "graph"):
                self.tok = self.next_token()
                attrs = self.attr_list()
                # copy on write: emitted statements share the old defaults dict
                if word == "node":
                    self.node_defaults[-1] = {**self.node_defaults[-1], **attrs}
                elif word == "edge":
                    self.edge_defaults[-1] = {**self.edge_defaults[-1], **attrs}
                return
        is_sub, ids = self.endpoint(members)
        self.finish([ids], is_sub, members, line, None)

    def fast_stmt(self, members: list[str] | None, line: int) -> None:
        a, _, b, attrs = self.fast[0]
        self.tok = self.next_token()
        follow = self.tok[0]
        if follow != EDGEOP and follow != "[" and follow != "=":
            if b is None:
                defaults = self.node_defaults[-1]
                merged = {**defaults, **attrs} if attrs else defaults
                self.out.append(DotNode(a, merged, line, self.scope_t))
            else:
                defaults = self.edge_defaults[-1]
                merged = {**defaults, **attrs} if attrs else defaults
                self.out.append(DotEdge(a, b, merged, line, self.scope_t))
            if members is not None:
                members.append(a)
                if b is not None:
                    members.append(b)
            return
        chain = [[a]] if b is None else [[a], [b]]
        if members is not None:
            members.extend(ids[0] for ids in chain)
        self.finish(chain, False, members, line, attrs)

    def finish(
        self,
        chain: list[list[str]],
        is_sub: bool,
        members: list[str] | None,
        line: int,
        attrs_seen: dict[str, str] | None,
    ) -> None:
        """The rest of a statement whose first endpoint(s) are parsed."""
        if len(chain) > 1 or self.tok[0] == EDGEOP:
            while self.tok[0] == EDGEOP:
                self.tok = self.next_token()
                chain.append(self.endpoint(members)[1])
            explicit = self.attr_list()
            if attrs_seen:
                explicit = {**attrs_seen, **explicit}
            defaults = self.edge_defaults[-1]
            attrs = {**defaults, **explicit} if explicit else defaults
            scope = self.scope_t
            emit = self.out.append
            count = sum(len(chain[k]) * len(chain[k + 1]) for k in range(len(chain) - 1))
            if count > MAX_STATEMENT_EDGES:
                raise InputError(
                    self.path,
                    f"an edge statement of at most {MAX_STATEMENT_EDGES} edges",
                    f"{count} (subgraph x subgraph)",
                    line=line,
                )
            for k in range(len(chain) - 1):
                for a in chain[k]:
                    for b in chain[k + 1]:
                        emit(DotEdge(a, b, attrs, line, scope))
            return
        if is_sub:
            return
        if self.tok[0] == "=" and attrs_seen is None:  # `key = value`: a graph attribute
            if members is not None:
                members.pop()
            self.tok = self.next_token()
            self.ident("an attribute value")
            return
        explicit = self.attr_list()
        if attrs_seen:
            explicit = {**attrs_seen, **explicit}
        defaults = self.node_defaults[-1]
        attrs = {**defaults, **explicit} if explicit else defaults
        self.out.append(DotNode(chain[0][0], attrs, line, self.scope_t))


def parse_lines(
    lines: Iterable[tuple[int, str]], path: str, *, fast: bool = True
) -> Iterator[DotStatement]:
    """Statements of every graph in numbered DOT lines, in file order (`fast=False` turns
    the simple-line shortcut off: the result is the same, only slower)."""
    return _Parser(lines, path, fast).graphs()


def parse_text(text: str, path: str = "<string>", *, fast: bool = True) -> list[DotStatement]:
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return list(parse_lines(enumerate(lines, 1), path, fast=fast))


def skip_log_lines(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """Drop the log lines a user's `2>&1` put in front of the graph."""
    it = iter(lines)
    for lineno, text in it:
        if text.startswith(LOG_PREFIXES) or not text.strip():
            continue
        yield lineno, text
        break
    yield from it


def parse_file(path: Path, *, skip_logs: bool = False) -> Iterator[DotStatement]:
    """Stream the statements of a DOT file (gzip-transparent, bounded lines)."""
    lines: Iterable[tuple[int, str]] = iter_text_lines(path)
    if skip_logs:
        lines = skip_log_lines(lines)
    return parse_lines(lines, str(path))


def dot_body(head: bytes) -> bytes:
    """The head of a file past leading blank lines, `#` lines and comments (for sniffing)."""
    body = head.lstrip()
    while True:
        if body.startswith(b"#") or body.startswith(b"//"):
            cut = body.find(b"\n")
            body = body[cut + 1 :].lstrip() if cut >= 0 else b""
        elif body.startswith(b"/*"):
            cut = body.find(b"*/")
            body = body[cut + 2 :].lstrip() if cut >= 0 else b""
        else:
            return body


_HEADER = re.compile(
    rb'(?:strict\s+)?(?:di)?graph\s*("(?:[^"\\]|\\.)*"|[A-Za-z_0-9.]+)?\s*\{', re.I
)


def graph_name(head: bytes) -> str | None:
    """The name in the `digraph NAME {` header at the head of a DOT file, "" when unnamed,
    None when the head is not DOT."""
    m = _HEADER.match(dot_body(head))
    if m is None:
        return None
    name = m.group(1) or b""
    return name.strip(b'"').decode("utf-8", "replace")
