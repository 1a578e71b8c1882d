"""`slim review`: what a change introduced or touched, between a base and a head graph.

Both revisions are analyzed with the same evidence and rules; the review report keeps the
head's findings that are new or changed (verdict, confidence), plus per-root deltas
(closure size, removable targets). Evidence-missing findings are always kept: a check
that did not run is never read as "nothing introduced".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slim.app.session import Request, Session, resolve_config
from slim.errors import ConfigError, UsageError
from slim.model.findings import Finding
from slim.model.graph import BuildGraph
from slim.model.report import Report, ReviewSummary, RootDelta

if TYPE_CHECKING:
    from slim.analysis.engine import Analysis, RootInput

EVIDENCE_KEYS = ("graph", "trace", "linkmap", "binary", "compile", "timings")
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


def diff_findings(
    base: Sequence[Finding], head: Sequence[Finding]
) -> tuple[list[Finding], list[Key]]:
    """Head findings the change introduced or touched (marked in `review`), and the keys
    of base findings the change fixed. Evidence-missing findings are always kept."""
    old = {key(f): f for f in base}
    picked: list[Finding] = []
    for f in head:
        prev = old.get(key(f))
        if f.code == MISSING_CODE:
            why = "not-checked"
        elif prev is None:
            why = "new"
        elif _state(prev) != _state(f):
            why = f"changed (was {prev.verdict}, {prev.confidence.value})"
        else:
            continue
        picked.append(dataclasses.replace(f, review=why))
    head_keys = {key(f) for f in head}
    fixed = sorted(k for k in old if k not in head_keys and k[0] != MISSING_CODE)
    return picked, fixed


def summarize(
    base: Report, head: Report, picked: Sequence[Finding], fixed: Sequence[Key]
) -> tuple[ReviewSummary, list[str]]:
    """Per-root deltas (closure, edges, removable targets) and the notes that say them."""
    notes: list[str] = []
    deltas = []
    base_roots = {r.label: r for r in base.roots}
    for r in head.roots:
        b = base_roots.get(r.label)
        new_gpu = any(f.code == GPU_CODE and f.root == r.label for f in picked) and not any(
            f.code == GPU_CODE and f.root == r.label for f in base.findings
        )
        if b is None:
            notes.append(f"{r.label}: new binary ({r.targets} targets)")
            deltas.append(RootDelta(r.label, r.targets, r.edges, 0, True, new_gpu))
            continue
        d_targets, d_edges = r.targets - b.targets, r.edges - b.edges
        d_removable = _removable_targets(head, r.label) - _removable_targets(base, r.label)
        deltas.append(RootDelta(r.label, d_targets, d_edges, d_removable, False, new_gpu))
        notes.append(
            f"{r.label}: closure {b.targets} -> {r.targets} targets ({d_targets:+d}), "
            f"{b.edges} -> {r.edges} edges ({d_edges:+d}); removable targets {d_removable:+d}"
        )
        if new_gpu:
            notes.append(f"{r.label}: CPU-only binary newly carries GPU kernels")
    labels = [f"{c} {t} -> {d}" if d else f"{c} {t}" for c, _, t, d in fixed]
    if labels:
        more = f" and {len(labels) - 10} more" if len(labels) > 10 else ""
        notes.append(f"fixed by this change: {', '.join(labels[:10])}{more}")
    summary = ReviewSummary(
        introduced=sum(1 for f in picked if f.review == "new"),
        changed=sum(1 for f in picked if f.review.startswith("changed")),
        fixed=tuple(labels),
        deltas=tuple(deltas),
    )
    return summary, notes


def _removable_targets(report: Report, root: str) -> int:
    s = report.savings.of(root)
    return 0 if s is None else s.targets_removed


SideAnalysis = Callable[["BuildGraph", Sequence[int]], tuple[list["RootInput"], "Analysis"]]


def review(
    base: BuildGraph, head: BuildGraph, labels: Sequence[str], analyze_side: SideAnalysis
) -> Report:
    """Analyze `labels` in both graphs (`analyze_side(graph, ids) -> (roots, analysis)`),
    keep what the change introduced or touched, and plan only that on the head graph.

    A root absent from the base is a new binary: everything it has is introduced.
    """
    from slim.analysis.engine import build_report

    head_ids = []
    for lab in labels:
        i = head.lookup(lab)
        if i is None:
            raise UsageError(f"target {lab} is not in the head graph")
        head_ids.append(i)
    base_ids = [j for j in (base.lookup(head.labels[i]) for i in head_ids) if j is not None]
    heads, a_head = analyze_side(head, head_ids)
    bases, a_base = analyze_side(base, base_ids)
    picked, fixed = diff_findings(a_base.findings, a_head.findings)
    summary, notes = summarize(
        build_report(base, bases, a_base), build_report(head, heads, a_head), picked, fixed
    )
    old = {key(f) for f in a_base.suppressed}
    mine = dataclasses.replace(
        a_head, findings=picked, suppressed=[f for f in a_head.suppressed if key(f) not in old]
    )
    return build_report(head, heads, mine, review=summary, notes=notes)


def run_review(
    request: Request,
    targets: Sequence[str],
    sides: Mapping[str, tuple[tuple[Path, ...], str | None]],
) -> Report:
    """`review` of `targets` between the base and head side (each `(graph files, revision
    name)`: graph files win, else the config's named revision)."""
    cfg = resolve_config(request.config_path)
    revs = revisions_from_config(cfg.raw, cfg.path) if "revisions" in cfg.raw else {}
    sessions: dict[str, Session] = {}
    for name in ("base", "head"):
        graphs, rev = sides.get(name, ((), None))
        if graphs:
            sessions[name] = Session(request, cfg, graphs)
        elif revs:
            r = pick_revision(revs, rev or name)
            own = {k: v for k, v in r.inputs.items() if k != "graph"}
            given = {k: v for k, v in request.evidence.items() if v}
            side_request = dataclasses.replace(request, evidence={**own, **given})
            sessions[name] = Session(side_request, cfg, r.inputs["graph"])
        else:
            raise UsageError(f"no {name} graph: pass --{name}-graph FILE or name `revisions`")
    by_graph = {id(s.graph): s for s in sessions.values()}

    def side(graph: BuildGraph, ids: Sequence[int]) -> tuple[list[RootInput], Analysis]:
        session = by_graph[id(graph)]
        session.roots = list(ids)
        return session.root_inputs(ids), session.analysis(ids)

    labels = list(targets) or list(cfg.roots)
    if not labels:
        raise UsageError("no target: pass TARGET or name `roots` in the config")
    rep = review(sessions["base"].graph, sessions["head"].graph, labels, side)
    return sessions["head"].localized(rep)
