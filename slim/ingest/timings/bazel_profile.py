"""Bazel `--profile` Chrome-trace JSON (gzipped or not): the executed actions.

Streamed in bounded memory: the `traceEvents` array is cut into blocks of whole lines
(Bazel writes one event per line); in each block only the lines naming an action
category are decoded (one msgspec call into small typed structs), so a 500 MB profile
never sits in memory at once and the many non-action events cost only a byte search.
Those other lines are not validated: nothing is read from them. A profile cut short by a
crashed Bazel (no closing `]}`) is read up to its last complete event, with a note.
Actions are `X` events of category `action processing`; the `critical path component`
copies on tid 0 are kept apart as Bazel's own critical path, so no time counts twice.
Cache outcomes follow Bazel's remote spawn cache (the disk cache goes through it too): a
`remote action cache check` ("check cache hit") within an action's span on its thread,
followed there by a `remote output download`, is a hit; a check without a download is a
miss; an action with no check has no cache outcome.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Iterator
from pathlib import Path

import msgspec

from slim.errors import InputError, describe_found
from slim.ingest._io import DEFAULT_LIMITS, open_input
from slim.model.labels import normalize_label
from slim.model.timing import HIT, MISS, TimedAction, TimingSet

ACTION_CATEGORIES = frozenset({"action processing"})
CRITICAL, CACHE_CHECK, DOWNLOAD = (
    "critical path component",
    "remote action cache check",
    "remote output download",
)
READ_CATEGORIES = ACTION_CATEGORIES | {CRITICAL, CACHE_CHECK, DOWNLOAD}
BLOCK_BYTES = 8 << 20
_LABEL_IN_NAME = re.compile(r"(@{0,2}[\w.-]*//[^\s:'\"]*(?::[^\s'\"]+)?)")
# Bazel's progress messages, oldest style first: the verb names the mnemonic.
_VERBS = (
    ("Compiling ", "CppCompile"),
    ("Linking ", "CppLink"),
    ("Executing genrule ", "Genrule"),
    ("Creating source manifest for ", "SourceSymlinkManifest"),
    ("Creating runfiles tree ", "SymlinkTree"),
    ("Writing file ", "FileWrite"),
    ("Expanding template ", "TemplateExpand"),
    ("Building ", "Javac"),
)
_VERBS_BY_WORD: dict[str, tuple[tuple[str, str], ...]] = {}
for _verb_text, _mn in _VERBS:
    _w = _verb_text.split(" ", 1)[0]
    _VERBS_BY_WORD[_w] = (*_VERBS_BY_WORD.get(_w, ()), (_verb_text, _mn))


class _Args(msgspec.Struct):
    mnemonic: str | None = None
    target: str | None = None


class _Event(msgspec.Struct):
    ph: str = ""
    cat: str | None = None
    name: str = ""
    ts: float = 0.0
    dur: float = 0.0
    tid: int | str = 0
    args: _Args | None = None


class _Header(msgspec.Struct):
    traceEvents: list[_Event] = []  # noqa: N815 - the Chrome trace field name


_DECODE_BLOCK = msgspec.json.Decoder(list[_Event])
_NEEDLES = tuple(f'"{c}"'.encode() for c in sorted(READ_CATEGORIES))
_DECODE_ONE = msgspec.json.Decoder(_Event)
_DECODE_WHOLE = msgspec.json.Decoder(_Header)
_ARRAY_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')


def sniff(head: bytes, path: Path) -> bool:
    del path
    start = head.lstrip()[:1]
    return (
        start == b"{"
        and b'"traceEvents"' in head
        and (b'"otherData"' in head or b'"build_id"' in head or b"action processing" in head)
    )


def load(path: Path) -> list[TimingSet]:
    return [read_bazel_profile(path)]


def read_bazel_profile(path: Path) -> TimingSet:
    name = str(path)
    found: list[TimedAction] = []
    starts, durs, tids = array("d"), array("d"), []
    tid_names: dict[int | str, str] = {}
    critical: list[TimedAction] = []
    marks: dict[tuple[str, str], list[float]] = {}
    lines = 0
    truncated = False
    for events, block_lines, cut_short in _blocks(path):
        lines += block_lines
        truncated = truncated or cut_short
        for ev in events:
            if ev.ph != "X":
                continue
            if ev.cat in ACTION_CATEGORIES:
                found.append(_action(ev))  # the block's events are freed as it goes
                starts.append(ev.ts)
                durs.append(ev.dur)
                tid = tid_names.get(ev.tid)
                tids.append(tid if tid is not None else tid_names.setdefault(ev.tid, str(ev.tid)))
            elif ev.cat == CRITICAL:
                critical.append(_critical(ev))
            elif ev.cat in (CACHE_CHECK, DOWNLOAD):
                marks.setdefault((ev.cat, str(ev.tid)), []).append(ev.ts)
    if lines == 0 and not found and not truncated:
        raise InputError(name, "a Chrome trace with a traceEvents array", "no events", line=1)
    for v in marks.values():
        v.sort()
    if marks:
        spans = zip(starts, durs, tids, strict=True)
        found = [a._replace(cache=_outcome(sp, marks)) for a, sp in zip(found, spans, strict=True)]
    del starts, durs, tids
    actions = sorted(found)
    notes = [f"{lines} trace event lines, {len(actions)} actions"]
    hits = sum(1 for a in actions if a.cache == HIT)
    looked = sum(1 for a in actions if a.cache)
    if looked:
        notes.append(f"cache: {hits} of {looked} looked-up actions were hits")
    if truncated:
        notes.append("profile truncated (no closing ']}'): read up to its last complete event")
    return TimingSet(
        source=name,
        format="bazel-profile",
        actions=tuple(actions),
        notes=tuple(notes),
        critical_path=tuple(sorted(critical)),
    )


def _within(times: list[float] | None, lo: float, hi: float) -> bool:
    if not times:
        return False
    i = bisect.bisect_left(times, lo)
    return i < len(times) and times[i] <= hi


def _outcome(span: tuple[float, float, str], marks: dict[tuple[str, str], list[float]]) -> str:
    """hit / miss / "" from the cache events inside the action's span (ts, dur, thread)."""
    ts, dur, tid = span
    lo, hi = ts, ts + max(dur, 0.0)
    if not _within(marks.get((CACHE_CHECK, tid)), lo, hi):
        return ""
    return HIT if _within(marks.get((DOWNLOAD, tid)), lo, hi) else MISS


def _critical(ev: _Event) -> TimedAction:
    """A critical path component: `action 'Compiling lib/core.cc'` names the action."""
    name = ev.name
    if name.startswith("action '") and name.endswith("'"):
        name = name[len("action '") : -1]
    return _action(msgspec.structs.replace(ev, name=name))


def _action(ev: _Event) -> TimedAction:
    name = ev.name
    label = mnemonic = output = source = ""
    args = ev.args
    if args is not None:
        if args.target:
            label = normalize_label(args.target)
        mnemonic = args.mnemonic or ""
    word, _, rest = name.partition(" ")
    for verb, mn in _VERBS_BY_WORD.get(word, ()):
        if name.startswith(verb):
            mnemonic = mnemonic or mn
            rest = name[len(verb) :]
            if " [" in rest:
                rest = rest.split(" [", 1)[0]
            rest = rest.strip()
            if "//" in rest:
                m = _LABEL_IN_NAME.search(rest)
                label = label or (normalize_label(m.group(1)) if m else "")
            elif mn == "CppCompile":
                source = rest
            else:
                output = rest
            break
    else:
        if not label and "//" in name:
            m = _LABEL_IN_NAME.search(name)
            if m:
                label = normalize_label(m.group(1))
    start = ev.ts / 1e6
    dur = ev.dur if ev.dur > 0 else 0.0
    return TimedAction(
        start,
        start + dur / 1e6,
        (output,) if output else (),
        label,
        mnemonic,
        0,
        name,
        source,
    )


def _blocks(path: Path) -> Iterator[tuple[list[_Event], int, bool]]:
    """(events that may be actions, lines read, whether the file was cut short) per block."""
    name = str(path)
    cap = DEFAULT_LIMITS.max_line_bytes
    with open_input(path) as f:
        head = f.read(1 << 16)
        m = _ARRAY_KEY.search(head)
        if m is None:
            found = head.lstrip()[:40]
            raise InputError(
                name,
                'a Chrome trace JSON object with "traceEvents"',
                describe_found(found) if found else "an empty file",
                line=1,
            )
        lineno = head[: m.end()].count(b"\n") + 1
        buf = head[m.end() :]
        eof = False
        while True:
            while not eof and len(buf) < BLOCK_BYTES:
                more = f.read(BLOCK_BYTES)
                eof = not more
                buf += more
            cut = len(buf) if eof else buf.rfind(b"\n")
            if cut <= 0 and not eof:
                if len(buf) > cap:
                    raise InputError(
                        name, f"a line of at most {cap} bytes", "a longer line", line=lineno
                    )
                more = f.read(BLOCK_BYTES)
                eof = not more
                buf += more
                continue
            block, buf = buf[:cut], buf[cut:]
            end = _array_end(block, eof)
            if end is not None:
                block = block[:end]
            events, cut_short = _decode_block(name, block, lineno, eof and end is None)
            yield events, block.count(b"\n"), cut_short
            lineno += block.count(b"\n")
            if end is not None or eof:
                return


#: A category read, as the value of an event's "cat" key: the literal `"cat"` lets the
#: regex engine skip ahead by a fast search (an alternation of the bare values alone is
#: tried at every byte, 3x slower).
_ANY_NEEDLE = re.compile(rb'"cat"\s*:\s*(?:' + b"|".join(re.escape(n) for n in _NEEDLES) + b")")


def _candidate_lines(block: bytes) -> list[tuple[int, bytes]]:
    """(byte offset in the block, line) of every line that mentions a category read: the
    needles found by one C-level scan, each line taken once."""
    out: list[tuple[int, bytes]] = []
    find, rfind = block.find, block.rfind
    line_end = -1
    for m in _ANY_NEEDLE.finditer(block):
        at = m.start()
        if at <= line_end:
            continue
        lo = rfind(b"\n", 0, at) + 1
        line_end = find(b"\n", at)
        if line_end < 0:
            line_end = len(block)
        out.append((lo, block[lo:line_end]))
    return out


def _decode_block(
    name: str, block: bytes, lineno: int, may_be_truncated: bool
) -> tuple[list[_Event], bool]:
    """Decode the candidate lines of a block in one msgspec call (per line on failure)."""
    found = _candidate_lines(block)
    tail = block.rstrip()
    cut_short = may_be_truncated and bool(tail) and not tail.endswith((b"}", b"},"))
    if cut_short:
        last = tail.rfind(b"\n") + 1
        found = [(at, ln) for at, ln in found if at < last]
    if not found:
        return [], cut_short
    body = b"".join(ln for _, ln in found).strip().rstrip(b",")
    try:
        return _DECODE_BLOCK.decode(b"[" + body + b"]"), cut_short
    except msgspec.DecodeError:
        pass
    if len(found) == 1 and found[0][1].count(b'"ph"') > 1:
        return _decode_whole(name, block, lineno), cut_short
    out: list[_Event] = []
    for at, raw in found:
        text = raw.strip().rstrip(b",")
        try:
            out.append(_DECODE_ONE.decode(text))
        except msgspec.DecodeError as exc:
            raise InputError(
                name,
                f"a trace event object ({exc})",
                describe_found(text),
                line=lineno + block.count(b"\n", 0, at),
            ) from None
    return out, cut_short


_TAIL_END = re.compile(rb"\]\s*\}\s*$")


def _array_end(block: bytes, eof: bool) -> int | None:
    """Where the `]` closing traceEvents starts in a block, None when it is not there."""
    tail = block[-4096:]
    base = len(block) - len(tail)
    for m in re.finditer(rb"(?:^|\n)[ \t\r]*\]", tail):
        return base + m.end() - 1
    if eof:
        m2 = _TAIL_END.search(tail)
        if m2 is not None:
            return base + m2.start()
    return None


def _decode_whole(name: str, block: bytes, lineno: int) -> list[_Event]:
    """Events all on one line (a non-Bazel writer): decode the rest as the trace object."""
    try:
        trace = _DECODE_WHOLE.decode(b'{"traceEvents":[' + block + b"]}")
    except msgspec.DecodeError:
        try:
            trace = _DECODE_WHOLE.decode(b'{"traceEvents":[' + block)
        except msgspec.DecodeError as exc:
            raise InputError(
                name,
                f"a JSON array of trace events ({exc})",
                describe_found(block[:60]),
                line=lineno,
            ) from None
    return list(trace.traceEvents)
