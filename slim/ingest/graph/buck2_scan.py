"""Buck2 query JSON (one object: target -> attributes) read member by member.

Buck2 prints the object with two-space indentation: every member starts on a line of its
own with its key indented by exactly two spaces, and a newline is never inside a JSON
string, so one C-level scan of the memory-mapped file finds every member. Each member is
decoded on its own and fed to `buck2_json.add_node`, the reader's own: the whole graph in
parallel byte ranges (no million-dict document in memory), or only the members of some
roots' closure for a graph-only query. Whenever the file is not exactly such an object (a
log line, several documents, a key with an escape, a repeated key, a member that does not
decode to exactly its key, any error), the members are not used and the whole document is
read as before, which gives the same graph or the same error.
"""

from __future__ import annotations

import mmap
import os
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from slim.errors import InputError
from slim.ingest import flags_unseen
from slim.ingest._io import GZIP_MAGIC
from slim.ingest.graph import buck2_json
from slim.model.graph import GraphBuilder
from slim.model.labels import normalize_label, split_configuration

if TYPE_CHECKING:
    from slim.model.graph import BuildGraph

FORMAT = "buck2-query-json"
sniff_query = buck2_json.sniff_query
_MEMBER = b'\n  "'
_MIN_MEMBER_BYTES = 1 << 20
"""Below this the whole document is read at once (as fast, and no scan)."""
_WS = b" \t\r\n"


class _NotMembersError(Exception):
    """The file is not one object of members the scan can trust (read it whole)."""


@dataclass
class Members:
    """Where each top-level member of the object lies: `starts[i]` is its key's opening
    quote, `ends[i]` the end of its value (trailing comma and whitespace excluded)."""

    starts: array[int]
    ends: array[int]
    keys: list[bytes]
    line: int
    """The line of the object's `{` (what the reader's errors name)."""


def _bounds(mm: mmap.mmap) -> tuple[int, int]:
    """(offset of the root `{`, offset of its closing `}`), or _NotMembersError."""
    size = len(mm)
    head = mm[: min(size, 4096)]
    first = len(head) - len(head.lstrip(_WS))
    if first >= len(head) or head[first : first + 1] != b"{":
        raise _NotMembersError
    tail_from = max(0, size - 4096)
    tail = mm[tail_from:]
    last = tail_from + len(tail.rstrip(_WS)) - 1
    if last <= first or mm[last : last + 1] != b"}":
        raise _NotMembersError
    return first, last


def scan(mm: mmap.mmap) -> Members:
    """Every member of the root object (see `Members`), or _NotMembersError."""
    first, close = _bounds(mm)
    find = mm.find
    starts, ends, keys = array("q"), array("q"), []
    pos = find(_MEMBER, first)
    if pos < 0 or pos >= close or mm[first + 1 : pos].strip(_WS):
        raise _NotMembersError
    while 0 <= pos < close:
        s = pos + len(_MEMBER) - 1
        q = find(b'"', s + 1, close)
        if q < 0:
            raise _NotMembersError
        key = mm[s + 1 : q]
        if b"\\" in key:
            raise _NotMembersError
        nxt = find(_MEMBER, q, close)
        end = (nxt if nxt >= 0 else close) - 1
        while mm[end : end + 1] in (b" ", b"\t", b"\r", b"\n"):
            end -= 1
        if nxt >= 0:
            if mm[end : end + 1] != b",":
                raise _NotMembersError
            end -= 1
            while mm[end : end + 1] in (b" ", b"\t", b"\r", b"\n"):
                end -= 1
        starts.append(s)
        ends.append(end + 1)
        keys.append(key)
        pos = nxt
    if len(set(keys)) != len(keys):
        raise _NotMembersError
    return Members(starts, ends, keys, mm[:first].count(b"\n") + 1)


def _decode(mm: mmap.mmap, members: Members, i: int) -> tuple[str, Any]:
    """Member `i` as (key, value), checked to be exactly one member with its scanned key."""
    try:
        obj = msgspec.json.decode(b"{" + mm[members.starts[i] : members.ends[i]] + b"}")
    except msgspec.DecodeError:
        raise _NotMembersError from None
    if not isinstance(obj, dict) or len(obj) != 1:
        raise _NotMembersError
    ((key, value),) = obj.items()
    if members.keys and key.encode() != members.keys[i]:
        raise _NotMembersError
    return key, value


class _Reader:
    """`buck2_json.load_query`'s loop over one document, a member at a time."""

    def __init__(self, name: str, line: int) -> None:
        self.name, self.line = name, line
        self.labels: list[object] = []
        self.nodes_only = False
        self.n = 0

    def member(self, b: GraphBuilder, key: str, value: Any) -> None:
        if isinstance(value, dict):
            if not buck2_json._is_label(key):
                raise buck2_json._bad(self.name, self.line, "a target label as key", key)
            build_file = buck2_json._build_file(value.get("buck.package"))
            buck2_json.add_node(b, key, value, build_file, (self.name, self.line))
            self.n += 1
        elif isinstance(value, list):
            self.labels.extend(value)
            self.nodes_only = True
        else:
            raise buck2_json._bad(
                self.name, self.line, "attributes (an object) or labels (an array)", value
            )

    def finish(self, b: GraphBuilder) -> None:
        """The labels of array members (after every object member, as the reader does)."""
        for lab in self.labels:
            if not isinstance(lab, str) or not buck2_json._is_label(lab):
                raise buck2_json._bad(self.name, self.line, "a target label", lab)
            raw, config = split_configuration(lab)
            i = b.add_target(normalize_label(raw), "")
            if config is not None:
                b.add_configuration(i, config)
            self.n += 1
        if self.n == 0:
            raise InputError(self.name, "at least one target", "none", line=1)
        if self.nodes_only:
            b.notes.append(buck2_json.NODES_ONLY_NOTE)


_FORKED: list[tuple[mmap.mmap, Members, str]] = []  # what a forked worker inherits


def _read_range(lo: int, hi: int) -> tuple[GraphBuilder, list[object], bool, int] | None:
    """Members [lo, hi) into a fresh builder (a worker's half, sent without its label
    index: the parent only merges it); None: not usable."""
    mm, members, name = _FORKED[0]
    b = GraphBuilder()
    reader = _Reader(name, members.line)
    try:
        for i in range(lo, hi):
            reader.member(b, *_decode(mm, members, i))
    except (_NotMembersError, InputError):
        return None
    return b.as_part(), reader.labels, reader.nodes_only, reader.n


def _child(args: tuple[int, int]) -> tuple[GraphBuilder, list[object], bool, int] | None:
    import gc

    gc.disable()
    return _read_range(*args)


def _read_all(mm: mmap.mmap, members: Members, name: str, b: GraphBuilder) -> None:
    """Every member into `b`: in two forked halves for a large file (merged in order),
    else in order here; _NotMembersError when any member cannot be used."""
    from slim.ingest.graph._parallel import MIN_PARALLEL_BYTES, worker_count

    n = len(members.keys)
    if len(mm) < MIN_PARALLEL_BYTES or worker_count() < 2 or n < 2 or not hasattr(os, "fork"):
        decoded = [_decode(mm, members, i) for i in range(n)]
        reader = _Reader(name, members.line)
        for key, value in decoded:
            reader.member(b, key, value)
        reader.finish(b)
        return
    import multiprocessing

    cut = n // 2
    _FORKED[:] = [(mm, members, name)]
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            pending = pool.apply_async(_child, ((cut, n),))
            mine = _read_range(0, cut)
            theirs = pending.get()
    finally:
        _FORKED.clear()
    if mine is None or theirs is None:
        raise _NotMembersError
    reader = _Reader(name, members.line)
    for part, labels, nodes_only, count in (mine, theirs):
        b.merge(part)
        reader.labels.extend(labels)
        reader.nodes_only |= nodes_only
        reader.n += count
    reader.finish(b)


def _mapped(path: Path) -> mmap.mmap | None:
    with path.open("rb") as f:
        if f.read(2) == GZIP_MAGIC or path.stat().st_size == 0:
            return None
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def load_query(path: Path, b: GraphBuilder) -> None:
    """The Buck2 query reader, member by member when the file allows it (same graph)."""
    mm = _mapped(path)
    if mm is not None:
        try:
            members = scan(mm)
            if len(mm) >= _MIN_MEMBER_BYTES:
                _read_all(mm, members, str(path), b)
                return
        except _NotMembersError:
            pass
        finally:
            mm.close()
    buck2_json.load_query(path, b)


# -- the closure of a few roots ------------------------------------------------------------
@dataclass
class MemberIndex:
    """A scanned file's members by normalized label, as the cache keeps it: each label's
    member (`values` of a `KeyIndex` over the labels) and the members' byte ranges."""

    labels: dict[bytes, int]
    starts: array[int]
    ends: array[int]
    line: int


class _Lookup(Protocol):
    def get(self, key: bytes) -> int | None: ...


def load_closure(
    path: Path,
    roots: Sequence[str],
    *,
    cached_index: Callable[[], tuple[_Lookup, Members] | None] | None = None,
    keep_index: Callable[[MemberIndex], None] | None = None,
) -> BuildGraph | None:
    """The graph of `roots`' closure from the members that name them and what they reach,
    or None (the caller parses the whole file): the same graph as the full parse
    restricted to that closure, as `bazel_closure` does for Bazel. `cached_index` gives
    the member index kept from an earlier scan of this very file (keyed by content);
    `keep_index` is handed a fresh scan's index when every label has one member."""
    mm = _mapped(path)
    if mm is None:
        return None
    try:
        got = cached_index() if cached_index is not None else None
        if got is not None:
            lookup, members = got
            return _Closure(mm, members, str(path), _Single(lookup)).run(roots)
        members = scan(mm)
        closure = _Closure(mm, members, str(path), _by_label(members))
        single = closure.single()
        if keep_index is not None and single is not None:
            keep_index(MemberIndex(single, members.starts, members.ends, members.line))
        return closure.run(roots)
    except (_NotMembersError, InputError):
        return None
    finally:
        mm.close()


def _by_label(members: Members) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, key in enumerate(members.keys):
        out.setdefault(normalize_label(split_configuration(key.decode())[0]), []).append(i)
    return out


class _Single:
    """label -> its member, from a kept index (each label has one member there)."""

    def __init__(self, index: _Lookup) -> None:
        self.index = index

    def get(self, label: str, default: Sequence[int] = ()) -> Sequence[int]:
        i = self.index.get(label.encode())
        return default if i is None else (i,)

    def __contains__(self, label: str) -> bool:
        return self.index.get(label.encode()) is not None


class _Closure:
    """Breadth-first decoding of the members a closure needs into one builder."""

    def __init__(self, mm: mmap.mmap, members: Members, name: str, by_label: Any) -> None:
        self.mm, self.members, self.name = mm, members, name
        self.by_label = by_label

    def single(self) -> dict[bytes, int] | None:
        """label -> member when every label has exactly one member (what the cache keeps)."""
        out: dict[bytes, int] = {}
        for label, ids in self.by_label.items():
            if len(ids) != 1:
                return None
            out[label.encode()] = ids[0]
        return out

    def run(self, roots: Sequence[str]) -> BuildGraph | None:
        from slim.ingest.graph.bazel_closure import closure_limit

        b = GraphBuilder()
        reader = _Reader(self.name, self.members.line)
        for root in roots:
            label = normalize_label(root)
            if label not in self.by_label:
                return None
            b.intern(label)
        limit = closure_limit(len(self.members.keys))
        done, decoded = 0, 0
        while done < len(b):
            new = b.labels_since(done)
            done = len(b)
            wanted = set(new)
            todo = sorted(i for lab in new for i in self.by_label.get(lab, ()))
            decoded += len(todo)
            if decoded > limit:
                return None
            for i in todo:
                key, value = _decode(self.mm, self.members, i)
                if normalize_label(split_configuration(key)[0]) not in wanted:
                    return None  # a kept index that does not fit the file
                if not isinstance(value, dict):
                    return None  # label arrays: their order matters to the whole reader
                reader.member(b, key, value)
            b.flush()
        if b.has_srcs_only_unknowns():
            return None
        b.formats.append(FORMAT)
        if flags_unseen(FORMAT, b.flag_attributes_seen > 0):
            b.flags_unseen.append(FORMAT)
        graph = b.build()
        graph.closure_of = tuple(normalize_label(r) for r in roots)
        return graph
