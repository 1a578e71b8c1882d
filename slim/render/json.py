"""`slim.report/1` JSON: the canonical machine-readable report (schema in docs/report.md)."""

from __future__ import annotations

import json
from typing import TextIO

from slim.model.findings import Evidence, Finding, Saving
from slim.model.report import SCHEMA, Proposal, Report

JsonValue = object


def saving_to_dict(s: Saving | None) -> dict[str, JsonValue] | None:
    if s is None:
        return None
    return {
        "basis": s.basis,
        "bytes": s.bytes,
        "compile_seconds": round(s.compile_seconds, 3),
        "link_seconds": round(s.link_seconds, 3),
        "targets_removed": s.targets_removed,
    }


def evidence_to_dict(e: Evidence) -> dict[str, JsonValue]:
    return {
        "analyzer": e.analyzer,
        "detail": e.detail,
        "line": e.line,
        "offset": e.offset,
        "source": e.source,
    }


def finding_to_dict(f: Finding) -> dict[str, JsonValue]:
    return {
        "attribute": f.attribute,
        "code": f.code,
        "confidence": f.confidence.value,
        "data": dict(f.data),
        "evidence": [evidence_to_dict(e) for e in f.evidence],
        "fix": None if f.fix is None else f.fix.command,
        "from": f.target,
        "kind": f.name,
        "location": None if f.location is None else str(f.location),
        "message": f.message,
        "removable": f.removable,
        "root": f.root,
        "saving": saving_to_dict(f.saving),
        "to": f.dep,
        "verdict": f.verdict,
    }


def proposal_to_dict(p: Proposal) -> dict[str, JsonValue]:
    return {
        "codes": list(p.codes),
        "commands": list(p.commands),
        "new_deps": list(p.new_deps),
        "remove": list(p.remove),
        "root": p.root,
        "saving": saving_to_dict(p.saving),
        "target": p.target,
    }


def report_to_dict(report: Report) -> dict[str, JsonValue]:
    return {
        "schema": SCHEMA,
        "roots": [
            {
                "closure": {
                    "by_kind": dict(r.by_kind),
                    "edges": r.edges,
                    "edges_by_attribute": dict(r.edges_by_attribute),
                    "targets": r.targets,
                },
                "direct_deps": list(r.direct_deps),
                "kind": r.kind,
                "label": r.label,
            }
            for r in report.roots
        ],
        "inputs": [i.as_dict() for i in report.inputs],
        "evidence": [
            {
                "description": e.description,
                "files": list(e.files),
                "given": e.given,
                "kind": e.kind,
                "note": e.note,
            }
            for e in report.evidence
        ],
        "findings": [finding_to_dict(f) for f in report.findings],
        "suppressed": [finding_to_dict(f) for f in report.suppressed],
        "proposals": [proposal_to_dict(p) for p in report.proposals],
        "rules": [
            {"code": r.code, "help": r.help, "name": r.name, "summary": r.summary}
            for r in report.rules
        ],
        "notes": list(report.notes),
        "totals": dict(report.totals),
    }


def render(report: Report, out: TextIO) -> None:
    json.dump(report_to_dict(report), out, indent=2, sort_keys=True, ensure_ascii=False)
    out.write("\n")
