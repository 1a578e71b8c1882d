"""clang `-ftime-trace` JSON: one compile's wall time, split into frontend and backend.

clang writes `<object stem>.json` next to the object, so the object path is taken from
the trace's own file name. `Total …` summary rows are aggregates and are not events of
the timeline; they are used only when `ExecuteCompiler` itself is missing.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from slim.errors import InputError, describe_found
from slim.ingest._io import read_limited
from slim.model.timing import TimedAction, TimingSet

MAX_BYTES = 512 * 1024 * 1024
TOP_HEADERS = 5


class _Args(msgspec.Struct):
    detail: str | None = None


class _Event(msgspec.Struct):
    name: str = ""
    ph: str = ""
    ts: float = 0.0
    dur: float = 0.0
    args: _Args | None = None


class _Trace(msgspec.Struct):
    traceEvents: list[_Event]  # noqa: N815 - the Chrome trace field name
    beginningOfTime: int | None = None  # noqa: N815


_DECODE = msgspec.json.Decoder(_Trace)


def sniff(head: bytes, path: Path) -> bool:
    del path
    return head.lstrip().startswith(b'{"traceEvents"') and (
        b'"ExecuteCompiler"' in head
        or b'"Source"' in head
        or b'"Frontend"' in head
        or b'"ParseClass"' in head
    )


def object_for(path: Path) -> str:
    """`out/a.json` -> `out/a.o` (clang's naming); `a.time-trace.json` -> `a.o`."""
    name = path.name
    for suffix in (".time-trace.json", ".json"):
        if name.endswith(suffix):
            return str(path.with_name(name[: -len(suffix)] + ".o"))
    return str(path.with_suffix(".o"))


def load(path: Path) -> list[TimingSet]:
    return [read_time_trace(path)]


def read_time_trace(path: Path) -> TimingSet:
    name = str(path)
    data = read_limited(path, MAX_BYTES, "a time trace")
    if not data.strip():
        raise InputError(name, "a clang -ftime-trace JSON object", "an empty file", line=1)
    try:
        trace = _DECODE.decode(data)
    except msgspec.DecodeError as exc:
        line = _line_of(data, str(exc))
        raise InputError(
            name, f"a clang -ftime-trace JSON object ({exc})", describe_found(data[:40]), line=line
        ) from None
    phases: dict[str, float] = {}
    totals: dict[str, float] = {}
    headers: dict[str, float] = {}
    for ev in trace.traceEvents:
        if ev.ph != "X":
            continue
        if ev.name.startswith("Total "):
            totals[ev.name[6:]] = ev.dur
        elif ev.name in ("ExecuteCompiler", "Frontend", "Backend"):
            phases[ev.name] = phases.get(ev.name, 0.0) + ev.dur
        elif ev.name == "Source" and ev.args is not None and ev.args.detail:
            headers[ev.args.detail] = max(headers.get(ev.args.detail, 0.0), ev.dur)
    total = phases.get("ExecuteCompiler", totals.get("ExecuteCompiler"))
    if total is None:
        raise InputError(
            name, "an ExecuteCompiler event (clang -ftime-trace)", "none in traceEvents"
        )
    front = phases.get("Frontend", 0.0) / 1e3
    back = phases.get("Backend", 0.0) / 1e3
    action = TimedAction(
        start=0.0,
        end=total / 1e6,
        outputs=(object_for(path),),
        mnemonic="ExecuteCompiler",
        description=f"clang: frontend {front:.1f} ms, backend {back:.1f} ms",
    )
    top = sorted(headers.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_HEADERS]
    notes = tuple(f"header {h}: {d / 1e3:.1f} ms" for h, d in top)
    return TimingSet(source=name, format="clang-time-trace", actions=(action,), notes=notes)


def _line_of(data: bytes, message: str) -> int:
    """msgspec names a byte position (`at byte N`); turn it into a 1-based line."""
    marker = "at byte "
    at = message.rfind(marker)
    if at < 0:
        return 1
    digits = "".join(ch for ch in message[at + len(marker) :] if ch.isdigit())
    pos = int(digits) if digits else 0
    return data[:pos].count(b"\n") + 1
