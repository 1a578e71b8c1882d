"""Buck2 `--build-report` JSON: which outputs each target produced, and build metrics.

The report has no per-action times; it gives the output -> target map (so timings from
other files attribute to targets) and, when enabled, `build_metrics` aggregates.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from slim.errors import InputError, describe_found
from slim.ingest._io import read_limited
from slim.ingest._jsonpath import line_of
from slim.model.labels import normalize_label, split_configuration
from slim.model.timing import ArtifactOwners, TimingSet

MAX_BYTES = 1024 * 1024 * 1024
METRICS = (
    "full_graph_execution_time_ms",
    "local_execution_time_ms",
    "remote_execution_time_ms",
    "local_executions",
    "remote_executions",
    "remote_cache_hits",
    "declared_actions",
)


class _Entry(msgspec.Struct):
    success: str = ""
    outputs: dict[str, list[str]] = {}
    other_outputs: dict[str, list[str]] = {}
    configured: dict[str, _Entry] = {}


class _Report(msgspec.Struct):
    results: dict[str, _Entry]
    success: bool | None = None
    truncated: bool = False
    build_metrics: dict[str, float | int | str | None] | None = None


_DECODE = msgspec.json.Decoder(_Report)


def sniff(head: bytes, path: Path) -> bool:
    del path
    return (
        head.lstrip().startswith(b"{")
        and b'"results"' in head
        and (b'"configured"' in head or b'"truncated"' in head or b'"trace_id"' in head)
    )


def load(path: Path) -> list[object]:
    owners, timing = read_build_report(path)
    return [timing, owners]


def read_build_report(path: Path) -> tuple[ArtifactOwners, TimingSet]:
    name = str(path)
    data = read_limited(path, MAX_BYTES, "a build report")
    if not data.strip():
        raise InputError(name, "a Buck2 build report JSON object", "an empty file", line=1)
    try:
        rep = _DECODE.decode(data)
    except msgspec.DecodeError as exc:
        line = line_of(data, str(exc))  # a wrong type: the line of its field
        excerpt = data.split(b"\n", line)[line - 1] if data.count(b"\n") >= line - 1 else b""
        raise InputError(
            name, f"a Buck2 build report ({exc})", describe_found(excerpt.strip()[:60]), line=line
        ) from None
    owners: dict[str, str] = {}
    for raw_label, entry in rep.results.items():
        label = normalize_label(split_configuration(raw_label)[0])
        for e in (entry, *entry.configured.values()):
            for paths in (*e.outputs.values(), *e.other_outputs.values()):
                for p in paths:
                    owners.setdefault(p, label)
    notes = [f"{len(rep.results)} targets, {len(owners)} outputs"]
    if rep.truncated:
        notes.append("build report truncated by Buck2: some targets are missing")
    metrics = rep.build_metrics or {}
    for key in METRICS:
        if key in metrics and metrics[key] is not None:
            notes.append(f"{key} = {metrics[key]}")
    if not metrics:
        notes.append("no build_metrics (enable them to get execution times)")
    timing = TimingSet(source=name, format="buck2-build-report", actions=(), notes=tuple(notes))
    return ArtifactOwners(name, tuple(sorted(owners.items()))), timing
