"""SARIF 2.1.0 for code-scanning UIs: one rule per SLIM code, results at the edge's BUILD line.

URIs are relative to the source root (`%SRCROOT%`) when the location is relative, or to
the workspace slim was given; absolute paths outside it become `file://` URIs. A deletion
fix is offered only where the dep sits alone on its line (found while checking
suppressions), so applying it never touches a neighbouring dep.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TextIO
from urllib.parse import quote

from slim import __version__
from slim.model.findings import Finding
from slim.model.report import Report
from slim.render.json import saving_to_dict
from slim.render.rules_doc import help_uri

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
JsonObj = dict[str, object]


def _level(f: Finding) -> str:
    if f.removable:
        return "warning" if f.confidence.value != "low" else "note"
    return "note"


def _rule_name(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("-"))


def _workspace(report: Report) -> str | None:
    for e in report.evidence:
        if e.kind == "source" and e.files:
            return e.files[0].rstrip("/")
    return None


def uri(path: str, workspace: str | None, source_root: str = "") -> tuple[str, str | None]:
    """(uri, uriBaseId) for a location path: relative to the repository root (`%SRCROOT%`)
    when it lies in the workspace, else a `file://` URI."""
    p = PurePosixPath(path.replace("\\", "/"))
    if workspace and p.is_absolute():
        with contextlib.suppress(ValueError):
            p = p.relative_to(workspace)
    if p.is_absolute():
        return "file://" + quote(p.as_posix(), safe="/"), None
    if source_root:
        p = PurePosixPath(source_root) / p
    return quote(p.as_posix(), safe="/"), "%SRCROOT%"


@dataclass(frozen=True)
class _Where:
    """How a report's paths map to URIs: its workspace, and that under the repository."""

    workspace: str | None
    source_root: str = ""


def _artifact(path: str, where: _Where) -> JsonObj:
    u, base = uri(path, where.workspace, where.source_root)
    out: JsonObj = {"uri": u}
    if base is not None:
        out["uriBaseId"] = base
    return out


def _location(f: Finding, where: _Where) -> JsonObj | None:
    loc = f.dep_location or f.location
    if loc is None:
        return None
    phys: JsonObj = {"artifactLocation": _artifact(loc.path, where)}
    if loc.line is not None and loc.line >= 1:
        phys["region"] = {"startLine": loc.line}
    elif loc.offset is not None:
        phys["region"] = {"byteOffset": loc.offset}
    return {"physicalLocation": phys}


def _fixes(f: Finding, where: _Where) -> list[JsonObj]:
    loc = f.dep_location
    if (
        f.fix is None
        or loc is None
        or loc.line is None
        or not f.removable
        or not f.dep_line_alone
        or f.fix.action.verb != "remove"
    ):
        return []
    line = loc.line
    how = f"or run: {f.fix.command}" if f.fix.runnable else f.fix.command
    return [
        {
            "description": {"text": f"Remove {f.dep} from {f.target} ({how})"},
            "artifactChanges": [
                {
                    "artifactLocation": _artifact(loc.path, where),
                    "replacements": [
                        {
                            "deletedRegion": {
                                "startLine": line,
                                "startColumn": 1,
                                "endLine": line + 1,
                                "endColumn": 1,
                            }
                        }
                    ],
                }
            ],
        }
    ]


def _result(f: Finding, rule_index: dict[str, int], where: _Where) -> JsonObj:
    text = f.message
    if f.fix is not None:
        text += f"\nFix: {f.fix.command}"
    logical: JsonObj = {"fullyQualifiedName": f"{f.target} -> {f.dep}" if f.dep else f.target}
    res: JsonObj = {
        "ruleId": f.code,
        "ruleIndex": rule_index[f.code],
        "level": _level(f),
        "message": {"text": text},
        "locations": [],
        "partialFingerprints": {"slimEdge/v1": f"{f.code}|{f.root}|{f.target}|{f.dep}"},
        "properties": {
            "confidence": f.confidence.value,
            "removable": f.removable,
            "root": f.root,
            "verdict": f.verdict,
            "saving": saving_to_dict(f.saving),
            "evidence": [
                {"source": e.source, "line": e.line, "offset": e.offset, "detail": e.detail}
                for e in f.evidence
            ],
        },
    }
    loc = _location(f, where)
    res["locations"] = [
        ({} if loc is None else loc) | {"logicalLocations": [logical]},
    ]
    fixes = _fixes(f, where)
    if fixes:
        res["fixes"] = fixes
    if f.suppression is not None:
        res["suppressions"] = [
            {
                "kind": "inSource" if f.suppression.in_source else "external",
                "justification": f.suppression.reason,
                "location": {
                    "physicalLocation": {"artifactLocation": _artifact(f.suppression.path, where)}
                },
            }
        ]
    return res


def to_sarif(report: Report) -> JsonObj:
    where = _Where(_workspace(report), report.source_root)
    codes = {r.code for r in report.rules}
    extra = sorted({f.code for f in (*report.findings, *report.suppressed)} - codes)
    rules: list[JsonObj] = [
        {
            "id": r.code,
            "name": _rule_name(r.name),
            "shortDescription": {"text": r.summary or r.name},
            "fullDescription": {"text": r.summary or r.name},
            "help": {"text": r.help or r.summary or r.name},
            "helpUri": help_uri(r.code),
        }
        for r in report.rules
    ]
    rules.extend({"id": c, "shortDescription": {"text": c}} for c in extra)
    rule_index = {str(r["id"]): i for i, r in enumerate(rules)}
    results = [_result(f, rule_index, where) for f in (*report.findings, *report.suppressed)]
    run: JsonObj = {
        "tool": {
            "driver": {
                "name": "slim",
                "semanticVersion": __version__,
                "rules": rules,
            }
        },
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the repository root"}}},
        "results": results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(report: Report, out: TextIO) -> None:
    json.dump(to_sarif(report), out, indent=2, sort_keys=True, ensure_ascii=False)
    out.write("\n")
