"""`.ninja_log` (v5, v6, v7): per-command build times from ninja's append-only log.

Each line is `start_ms<TAB>end_ms<TAB>mtime<TAB>output<TAB>hash`; times restart at 0 on
every ninja invocation. ninja writes lines in completion order, so an end time going
backwards (as ninjatracing does) or an output repeated within a run starts a new run.
Lines of one multi-output edge share (start, end, hash)
and become one action; CMake's relative+absolute duplicate outputs fold the same way.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from slim.errors import InputError, describe_found
from slim.ingest._io import iter_lines, open_input
from slim.model.timing import TimedAction, TimingSet

_HEADER = re.compile(rb"^# ninja log v(\d+)\s*$")
_HASH = re.compile(rb"[0-9a-fA-F]{1,16}")
SUPPORTED_VERSIONS = (5, 6, 7)
LAST_RUN = -1


def sniff(head: bytes, path: Path) -> bool:
    del path
    return _HEADER.match(head.split(b"\n", 1)[0].rstrip(b"\r")) is not None


def load(path: Path, run: int = LAST_RUN) -> list[TimingSet]:
    """The actions of one build run (`LAST_RUN`: each output's last build, across runs)."""
    return [read_ninja_log(path, run)]


def read_ninja_log(path: Path, run: int = LAST_RUN) -> TimingSet:
    """Stream the log keeping only what the chosen run needs (each output's latest line)."""
    name = str(path)
    # Kept records: (run, start, end, hash, output) tuples, one per output at most.
    kept: dict[str, tuple[int, int, int, str, str]] = {}
    current = 0
    lines_read = 0
    seen: set[str] = set()
    last_end = -1
    with open_input(path) as f:
        lines = iter_lines(f, name, whole=True)  # ninja ends every line; else it was cut
        first = next(lines, None)
        if first is None:
            raise InputError(name, "a '# ninja log vN' header", "an empty file", line=1)
        m = _HEADER.match(first[1])
        if m is None:
            raise InputError(name, "a '# ninja log vN' header", describe_found(first[1]), line=1)
        version = int(m.group(1))
        if version not in SUPPORTED_VERSIONS:
            raise InputError(name, "ninja log v5, v6 or v7", f"v{version}", line=1)
        for lineno, raw in lines:
            if not raw:
                continue
            if raw.startswith(b"# ninja log v"):
                # `ninja -t recompact` or a version upgrade rewrites the header mid-file.
                if seen:
                    current += 1
                seen = set()
                last_end = -1
                continue
            parts = raw.split(b"\t", 4)
            if len(parts) != 5:
                raise InputError(
                    name,
                    "5 tab-separated fields (start end mtime output hash)",
                    f"{len(parts)} field(s): {describe_found(raw)}",
                    line=lineno,
                )
            try:
                start, end = int(parts[0]), int(parts[1])
                int(parts[2])
            except ValueError:
                raise InputError(
                    name, "integer start, end and mtime", describe_found(raw), line=lineno
                ) from None
            if start < 0 or end < start:
                raise InputError(
                    name, "0 <= start <= end", f"start {start}, end {end}", line=lineno
                )
            if _HASH.fullmatch(parts[4]) is None:
                raise InputError(
                    name,
                    "a hex command hash (the 5th field)",
                    describe_found(parts[4]),
                    line=lineno,
                )
            # a path is bytes to ninja: one that is not UTF-8 (Latin-1) is kept as it is
            output = parts[3].decode("utf-8", "surrogateescape")
            digest = parts[4].decode("ascii")
            if not output:
                raise InputError(name, "an output path", "an empty field", line=lineno)
            if lines_read and (output in seen or end < last_end):
                current += 1
                seen = set()
            seen.add(output)
            last_end = end
            lines_read += 1
            if run in (LAST_RUN, current):
                kept[output] = (current, start, end, digest, output)
    runs = current + 1 if lines_read else 0
    if run != LAST_RUN and not 0 <= run < max(runs, 1):
        raise InputError(name, f"a build run between 0 and {runs - 1}", f"run {run}")
    return _select(name, list(kept.values()), runs, run)


def _canonical(output: str, outputs: set[str]) -> str | None:
    """The relative spelling of an absolute output CMake also lists relatively, else None."""
    if not os.path.isabs(output) and not output.startswith("<"):
        return None
    for cand in outputs:
        if cand != output and output.endswith("/" + cand):
            return cand
    return None


def _select(
    name: str, chosen: list[tuple[int, int, int, str, str]], runs: int, run: int
) -> TimingSet:
    groups: dict[tuple[int, int, int, str], list[str]] = {}
    for r_run, start, end, digest, output in chosen:
        groups.setdefault((r_run, start, end, digest), []).append(output)
    actions = []
    folded = 0
    for (r_run, start, end, _digest), outs in groups.items():
        names = set(outs)
        kept = sorted(o for o in names if _canonical(o, names) is None)
        folded += len(names) - len(kept)
        actions.append(
            TimedAction(
                start=start / 1000.0,
                end=end / 1000.0,
                outputs=tuple(kept),
                run=r_run,
            )
        )
    actions.sort(key=lambda a: (a.run, a.start, a.end, a.outputs))
    notes = []
    if runs > 1:
        which = "each output's last build" if run == LAST_RUN else f"run {run}"
        notes.append(f"{runs} ninja runs in the log; using {which}")
    if folded:
        notes.append(f"{folded} absolute duplicate output path(s) folded into relative ones")
    return TimingSet(
        source=name,
        format="ninja-log",
        actions=tuple(actions),
        runs=runs,
        run=run,
        notes=tuple(notes),
    )
