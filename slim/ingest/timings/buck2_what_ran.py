"""`buck2 log what-ran` (tabulated, `--format json`, `--format csv`): actions per target.

Identities look like `cell//pkg:name (config) (category identifier)`; the label is what
precedes the first ` (`, the category is the first word of the last group. Only the
JSON form carries `duration`, formatted by Buck2's `fmt_duration` (`S.ds`, `M:SS.ds`,
`H:MM:SS.ds`); tabulated and CSV records give actions without times, which are counted.
The executor says the cache outcome: `cache` is a hit (outputs fetched, nothing run),
`local`, `re`, `worker` ran the action (a miss). Durations have no start times, so
what-ran gives no schedule (no wall-clock figure).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import msgspec

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_text_lines
from slim.model.labels import normalize_label
from slim.model.timing import HIT, MISS, TimedAction, TimingSet

_DURATION = re.compile(r"^(?:(?:(\d+):)?(\d+):)?(\d+(?:\.\d+)?)s?$")
CSV_HEADER = "reason,identity,executor,reproducer"


class _Repro(msgspec.Struct):
    executor: str = ""


class _Record(msgspec.Struct):
    reason: str
    identity: str
    reproducer: _Repro | None = None
    duration: str | None = None


_DECODE = msgspec.json.Decoder(_Record)


def sniff(head: bytes, path: Path) -> bool:
    del path
    first = head.split(b"\n", 1)[0].strip()
    if first.startswith(b"{"):
        return b'"reason"' in first and b'"identity"' in first
    if first.startswith(CSV_HEADER.encode()):
        return True
    cols = first.split(b"\t")
    return (
        len(cols) >= 4
        and cols[0] in (b"build", b"test", b"test.run", b"run")
        and (b"//" in cols[1])
    )


def parse_duration(text: str) -> float | None:
    """Seconds from Buck2's `fmt_duration` text (`0.1s`, `1:00.0s`, `2:03:04.5s`, `1`)."""
    m = _DURATION.match(text.strip())
    if m is None:
        return None
    hours, mins, secs = m.groups()
    return int(hours or 0) * 3600 + int(mins or 0) * 60 + float(secs)


def split_identity(identity: str) -> tuple[str, str]:
    """(label, category) of an identity; label empty when the identity names none."""
    category = ""
    rest = identity
    if rest.endswith(")"):
        cut = rest.rfind(" (")
        if cut > 0 and rest.count(" (") >= 2:
            category = rest[cut + 2 : -1].split(" ", 1)[0]
            rest = rest[:cut]
    label = rest.split(" (", 1)[0].strip()
    if "//" not in label:
        return "", category
    return normalize_label(label), category


def _cache(executor: str) -> str:
    e = executor.strip().lower()
    if not e:
        return ""
    return HIT if e == "cache" else MISS


def load(path: Path) -> list[TimingSet]:
    return [read_what_ran(path)]


def read_what_ran(path: Path) -> TimingSet:
    name = str(path)
    actions: list[TimedAction] = []
    untimed = 0
    form = ""
    clock = 0.0
    for lineno, line in iter_text_lines(path, whole=True):
        if not line.strip():
            continue
        if not form:
            form = "json" if line.lstrip().startswith("{") else "tabulated"
            if line.startswith(CSV_HEADER):
                form = "csv"
                continue
        if form == "json":
            try:
                rec = _DECODE.decode(line)
            except msgspec.DecodeError as exc:
                raise InputError(
                    name, f"a what-ran JSON record ({exc})", describe_found(line), line=lineno
                ) from None
            reason, identity = rec.reason, rec.identity
            executor = rec.reproducer.executor if rec.reproducer else ""
            seconds = None
            if rec.duration is not None:
                seconds = parse_duration(rec.duration)
                if seconds is None:
                    raise InputError(
                        name, "a duration like 1.5s or 1:02.3s", repr(rec.duration), line=lineno
                    )
        else:
            cols = next(csv.reader(io.StringIO(line))) if form == "csv" else line.split("\t", 3)
            if len(cols) < 4:
                if form == "tabulated" and actions:
                    continue  # --show-std-err text after a record
                raise InputError(
                    name,
                    "reason, identity, executor, reproducer columns",
                    describe_found(line),
                    line=lineno,
                )
            reason, identity, executor = cols[0], cols[1], cols[2]
            seconds = None
        label, category = split_identity(identity)
        if seconds is None:
            untimed += 1
            seconds = 0.0
        actions.append(
            TimedAction(
                start=clock,
                end=clock + seconds,
                label=label,
                mnemonic=category,
                description=f"{reason} {identity} [{executor}]",
                cache=_cache(executor),
            )
        )
        clock += seconds
    if not actions:
        raise InputError(name, "buck2 log what-ran records", "none", line=1)
    notes = [f"what-ran {form}: {len(actions)} actions"]
    if untimed:
        notes.append(f"{untimed} action(s) without a duration (only --format json has one)")
    return TimingSet(
        source=name, format="buck2-what-ran", actions=tuple(actions), notes=tuple(notes)
    )
