"""`slim review`: what a change introduced or touched, between a base and a head graph.

Both revisions are analyzed with the same evidence and rules; the review report keeps the
head's findings that are new or changed (verdict, confidence), plus per-root deltas
(closure size, removable targets). Evidence-missing findings are always kept: a check
that did not run is never read as "nothing introduced".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slim.errors import ConfigError, UsageError
from slim.model.findings import Finding
from slim.model.graph import BuildGraph
from slim.model.report import Report

EVIDENCE_KEYS = ("graph", "trace", "linkmap", "binary", "timings")
GPU_CODE = "SLIM003"
MISSING_CODE = "SLIM900"

Key = tuple[str, str, str, str]


@dataclass(frozen=True)
class Revision:
    """One named revision from the config: its graph exports and evidence files."""

    name: str
    inputs: Mapping[str, tuple[Path, ...]]


def revisions_from_config(raw: Mapping[str, Any], path: Path | None) -> dict[str, Revision]:
    """`revisions = { base = { graph = "…" }, head = { graph = "…", trace = [...] } }`."""
    table = raw.get("revisions", {})
    where = f"{path}: revisions" if path is not None else "revisions"
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table of named revisions, found {table!r}")
    base = path.parent if path is not None else Path()
    out = {}
    for name, rev in sorted(table.items()):
        if not isinstance(rev, dict):
            raise ConfigError(f"{where}.{name}: expected a table, found {rev!r}")
        inputs: dict[str, tuple[Path, ...]] = {}
        for key, value in rev.items():
            if key not in EVIDENCE_KEYS:
                raise ConfigError(
                    f"{where}.{name}: unknown key {key!r} (expected {', '.join(EVIDENCE_KEYS)})"
                )
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                raise ConfigError(f"{where}.{name}.{key}: expected a path or a list of paths")
            inputs[key] = tuple(_relative(base / i) for i in items)
        if not inputs.get("graph"):
            raise ConfigError(f"{where}.{name}: expected a graph, found none")
        out[name] = Revision(name, inputs)
    return out


def _relative(path: Path) -> Path:
    """Relative to the working directory when inside it (reports never leak $HOME)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except (ValueError, OSError):
        return path


def pick_revision(revisions: Mapping[str, Revision], name: str) -> Revision:
    if name not in revisions:
        known = ", ".join(sorted(revisions)) or "none"
        raise UsageError(f"revision {name!r} is not in the config's `revisions` (known: {known})")
    return revisions[name]


def key(f: Finding) -> Key:
    return (f.code, f.root, f.target, f.dep)


def _state(f: Finding) -> tuple[object, ...]:
    return (f.verdict, f.removable, f.confidence.value)


def _removable_targets(report: Report, root: str) -> int:
    value = dict(report.totals).get(f"targets_removed[{root}]", 0)
    return int(value) if isinstance(value, int | float) else 0


def diff_reports(base: Report, head: Report) -> Report:
    """The head report reduced to what the change introduced or touched, with deltas."""
    old = {key(f): f for f in base.findings}
    picked: list[Finding] = []
    for f in head.findings:
        prev = old.get(key(f))
        if f.code == MISSING_CODE:
            why = "not-checked"
        elif prev is None:
            why = "new"
        elif _state(prev) != _state(f):
            why = f"changed (was {prev.verdict}, {prev.confidence.value})"
        else:
            continue
        picked.append(dataclasses.replace(f, data=tuple(sorted((*f.data, ("review", why))))))
    head_keys = {key(f) for f in head.findings}
    fixed = sorted(k for k in old if k not in head_keys and k[0] != MISSING_CODE)
    old_suppressed = {key(f) for f in base.suppressed}
    suppressed = [f for f in head.suppressed if key(f) not in old_suppressed]
    notes: list[str] = []
    totals: dict[str, float | int | str] = {
        "introduced": sum(1 for f in picked if dict(f.data).get("review") == "new"),
        "changed": sum(1 for f in picked if str(dict(f.data).get("review")).startswith("chan")),
        "fixed": len(fixed),
        "findings": len(picked),
        "removable": sum(1 for f in picked if f.removable),
    }
    base_roots = {r.label: r for r in base.roots}
    for r in head.roots:
        b = base_roots.get(r.label)
        if b is None:
            notes.append(f"{r.label}: new binary ({r.targets} targets)")
            continue
        d_targets, d_edges = r.targets - b.targets, r.edges - b.edges
        d_removable = _removable_targets(head, r.label) - _removable_targets(base, r.label)
        totals[f"delta.targets[{r.label}]"] = d_targets
        totals[f"delta.edges[{r.label}]"] = d_edges
        totals[f"delta.removable_targets[{r.label}]"] = d_removable
        notes.append(
            f"{r.label}: closure {b.targets} -> {r.targets} targets ({d_targets:+d}), "
            f"{b.edges} -> {r.edges} edges ({d_edges:+d}); removable targets {d_removable:+d}"
        )
        new_gpu = any(f.code == GPU_CODE and f.root == r.label for f in picked) and not any(
            f.code == GPU_CODE and f.root == r.label for f in base.findings
        )
        if new_gpu:
            notes.append(f"{r.label}: CPU-only binary newly carries GPU kernels")
    if fixed:
        shown = ", ".join(f"{c} {t} -> {d}" if d else f"{c} {t}" for c, _, t, d in fixed[:10])
        more = f" and {len(fixed) - 10} more" if len(fixed) > 10 else ""
        notes.append(f"fixed by this change: {shown}{more}")
    proposals = []
    for p in head.proposals:
        mine = [f for f in picked if f.removable and (f.root, f.target) == (p.root, p.target)]
        remove = tuple(d for d in p.remove if any(f.dep == d for f in mine))
        if remove:
            proposals.append(
                dataclasses.replace(
                    p,
                    remove=remove,
                    new_deps=tuple(sorted({*p.new_deps, *p.remove} - set(remove))),
                    commands=tuple(sorted({f.fix.command for f in mine if f.fix is not None})),
                )
            )
    return Report.create(
        roots=list(head.roots),
        inputs=list(head.inputs),
        evidence=list(head.evidence),
        findings=picked,
        rules=list(head.rules),
        proposals=proposals,
        notes=[*notes, *head.notes],
        totals=totals,
        suppressed=suppressed,
    )


def review(
    base: BuildGraph,
    head: BuildGraph,
    labels: Sequence[str],
    analyze_side: Any,
) -> Report:
    """Analyze `labels` in both graphs (`analyze_side(graph, root_ids) -> Report`) and diff.

    A root absent from the base is a new binary: everything it has is introduced.
    """
    head_ids = []
    for lab in labels:
        i = head.lookup(lab)
        if i is None:
            raise UsageError(f"target {lab} is not in the head graph")
        head_ids.append(i)
    base_ids = [j for j in (base.lookup(head.labels[i]) for i in head_ids) if j is not None]
    head_report: Report = analyze_side(head, head_ids)
    base_report: Report = analyze_side(base, base_ids)
    return diff_reports(base_report, head_report)
