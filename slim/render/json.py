"""`slim.report/2` JSON: the canonical machine-readable report (every field in docs/report.md)."""

from __future__ import annotations

import json
from typing import TextIO

from slim.model.actions import action_to_json
from slim.model.findings import Evidence, Finding, Fix, QuarterSaving, Saving, WallSaving
from slim.model.graph import Location
from slim.model.jsontypes import JSON
from slim.model.report import SCHEMA, HistoryWindow, Proposal, Report, RootSchedule, SavingsSummary


def location_to_dict(loc: Location | None) -> dict[str, JSON] | None:
    if loc is None:
        return None
    return {"path": loc.path, "line": loc.line, "offset": loc.offset}


def saving_to_dict(s: Saving | None) -> dict[str, JSON] | None:
    if s is None:
        return None
    return {
        "compile_seconds": s.compile_seconds,
        "link_seconds": s.link_seconds,
        "bytes": s.bytes,
        "targets_removed": s.targets_removed,
        "removed": list(s.removed),
        "added": list(s.added),
        "basis": {"compile": s.compile_basis, "link": s.link_basis, "bytes": s.bytes_basis},
        "wall": wall_to_dict(s.wall),
        "quarter": quarter_to_dict(s.quarter),
    }


def wall_to_dict(w: WallSaving | None) -> dict[str, JSON] | None:
    if w is None:
        return None
    return {
        "seconds": w.seconds,
        "before_seconds": w.before,
        "after_seconds": w.after,
        "jobs": w.jobs,
        "critical_path": w.critical,
        "measured": w.measured,
        "basis": w.basis,
    }


def quarter_to_dict(q: QuarterSaving | None) -> dict[str, JSON] | None:
    if q is None:
        return None
    return {
        "cpu_seconds": q.cpu_seconds,
        "cpu_hours": round(q.cpu_hours, 4),
        "rebuilds": q.rebuilds,
        "commits": q.commits,
        "miss_ratio": q.miss_ratio,
        "miss_ratio_source": q.miss_source,
        "basis": {"rebuilds": q.rebuilds_basis, "miss_ratio": q.miss_basis},
    }


def schedule_to_dict(s: RootSchedule) -> dict[str, JSON]:
    return {
        "root": s.root,
        "jobs": s.jobs,
        "seconds": s.seconds,
        "critical_seconds": s.critical_seconds,
        "critical_path": list(s.critical_path),
        "tool_critical_path": list(s.tool_critical_path),
        "source": s.source,
    }


def history_to_dict(h: HistoryWindow | None) -> dict[str, JSON] | None:
    if h is None:
        return None
    return {
        "source": h.source,
        "days": h.days,
        "until": h.until,
        "anchor": h.anchor,
        "commits": h.commits,
        "covered_days": h.covered_days,
    }


def evidence_to_dict(e: Evidence) -> dict[str, JSON]:
    return {
        "analyzer": e.analyzer,
        "detail": e.detail,
        "line": e.line,
        "offset": e.offset,
        "source": e.source,
    }


def fix_to_dict(x: Fix | None) -> dict[str, JSON] | None:
    if x is None:
        return None
    return {
        "kind": x.kind,
        "command": x.command,
        "runnable": x.runnable,
        "batch": x.batch,
        "description": x.description,
        "safe": x.safe,
        "location": location_to_dict(x.location),
    }


def finding_to_dict(f: Finding) -> dict[str, JSON]:
    return {
        "code": f.code,
        "name": f.name,
        "root": f.root,
        "target": f.target,
        "dep": f.dep,
        "attribute": f.attribute,
        "verdict": f.verdict,
        "confidence": f.confidence.value,
        "removable": f.removable,
        "message": f.message,
        "location": location_to_dict(f.location),
        "dep_location": location_to_dict(f.dep_location),
        "dep_line_alone": f.dep_line_alone,
        "evidence": [evidence_to_dict(e) for e in f.evidence],
        "action": None if f.action is None else action_to_json(f.action),
        "fix": fix_to_dict(f.fix),
        "saving": saving_to_dict(f.saving),
        "details": None if f.details is None else f.details.to_json(),
        "suppression": None
        if f.suppression is None
        else {
            "by": f.suppression.by,
            "path": f.suppression.path,
            "reason": f.suppression.reason,
            "in_source": f.suppression.in_source,
        },
        "review": f.review,
        "kept_because": f.kept_because,
    }


def proposal_to_dict(p: Proposal) -> dict[str, JSON]:
    return {
        "root": p.root,
        "target": p.target,
        "codes": list(p.codes),
        "remove": list(p.remove),
        "new_deps": list(p.new_deps),
        "fixes": [fix_to_dict(x) for x in p.fixes],
        "saving": saving_to_dict(p.saving),
    }


def savings_to_dict(s: SavingsSummary) -> dict[str, JSON]:
    return {
        "total": saving_to_dict(s.total),
        "per_root": [{"root": r, "saving": saving_to_dict(v)} for r, v in s.per_root],
        "excluded": [
            {"code": e.code, "root": e.root, "target": e.target, "dep": e.dep, "reason": e.reason}
            for e in s.excluded
        ],
        "schedules": [schedule_to_dict(x) for x in s.schedules],
        "history": history_to_dict(s.history),
        "history_note": s.history_note,
    }


def report_to_dict(report: Report) -> dict[str, JSON]:
    t = report.timings
    rv = report.review
    return {
        "schema": SCHEMA,
        "summary": {
            "findings": len(report.findings),
            "removable": len(report.removable),
            "suppressed": len(report.suppressed),
        },
        "roots": [
            {
                "label": r.label,
                "kind": r.kind,
                "closure": {
                    "targets": r.targets,
                    "edges": r.edges,
                    "by_kind": dict(r.by_kind),
                    "edges_by_attribute": dict(r.edges_by_attribute),
                },
                "direct_deps": list(r.direct_deps),
            }
            for r in report.roots
        ],
        "inputs": [i.as_dict() for i in report.inputs],
        "evidence": [
            {
                "kind": e.kind,
                "given": e.given,
                "description": e.description,
                "files": list(e.files),
                "note": e.note,
            }
            for e in report.evidence
        ],
        "findings": [finding_to_dict(f) for f in report.findings],
        "suppressed": [finding_to_dict(f) for f in report.suppressed],
        "proposals": [proposal_to_dict(p) for p in report.proposals],
        "savings": savings_to_dict(report.savings),
        "timings": None
        if t is None
        else {
            "actions": t.actions,
            "attributed": t.attributed,
            "unattributed": t.unattributed,
            "unattributed_seconds": t.unattributed_seconds,
            "cache": [
                {"target": lab, "hits": h, "misses": m, "hit_ratio": round(h / (h + m), 4)}
                for lab, h, m in t.cache
            ],
            "cache_stats": [
                {"source": src, "language": lang, "hits": h, "misses": m}
                for src, lang, h, m in t.cache_stats
            ],
        },
        "review": None
        if rv is None
        else {
            "introduced": rv.introduced,
            "changed": rv.changed,
            "fixed": list(rv.fixed),
            "deltas": [
                {
                    "root": d.root,
                    "targets": d.targets,
                    "edges": d.edges,
                    "removable_targets": d.removable_targets,
                    "new_binary": d.new_binary,
                    "new_gpu_code": d.new_gpu_code,
                }
                for d in rv.deltas
            ],
        },
        "rules": [
            {"code": r.code, "name": r.name, "summary": r.summary, "help": r.help}
            for r in report.rules
        ],
        "notes": list(report.notes),
    }


def render(report: Report, out: TextIO) -> None:
    json.dump(report_to_dict(report), out, indent=2, sort_keys=True, ensure_ascii=False)
    out.write("\n")
