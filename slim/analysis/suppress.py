"""Suppressions: edges kept on purpose, with a reason, so a finding is counted, not dropped.

Two sources: a `# slim: keep(reason)` comment on the dep's line in BUILD/BUCK (found from
the finding's location file and the dep label text) and a `keep` list in the config. A kept
finding moves to `Report.suppressed`; a suppression that matches no finding becomes a
SLIM990 stale-suppression finding, so keep-lists do not rot.
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slim.analysis.conditional import (
    BUILD_FILES,
    kept_by_export,
    kept_in_select,
    select_of,
    unsure_without,
)
from slim.errors import ConfigError
from slim.model.columns import group_by_path
from slim.model.findings import Confidence, Finding, Suppression
from slim.model.graph import Location
from slim.model.labels import label_name, label_package, normalize_label
from slim.model.rules import STALE_SUPPRESSION

if TYPE_CHECKING:
    from slim.model.graph import BuildGraph

#: BUILD files larger than this are not searched for keep comments.
MAX_BUILD_BYTES = 16 * 1024 * 1024
_KEEP = re.compile(r"#\s*slim:\s*keep\((?P<reason>.*)\)")
_QUOTED = re.compile(r"""["']([^"'\s]+)["']""")


@dataclass(frozen=True, slots=True)
class Keep:
    """One suppression: the edge `target -> dep` (codes empty = any code), why, and where."""

    target: str
    dep: str
    reason: str
    source: str
    line: int | None = None
    codes: tuple[str, ...] = ()
    in_source: bool = False

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}" if self.line is not None else self.source

    def matches(self, f: Finding) -> bool:
        if (self.codes and f.code not in self.codes) or f.dep != self.dep:
            return False
        return self.target in ("", f.target)


def keeps_from_config(raw: dict[str, Any], path: Path | None) -> list[Keep]:
    """The config's `keep = [{target = "//a:b", dep = "//c:d", reason = "…"}, …]` entries."""
    items = raw.get("keep", [])
    if not items:
        return []
    where = f"{path}: keep" if path is not None else "keep"
    if not isinstance(items, list):
        raise ConfigError(f"{where}: expected a list of tables, found {items!r}")
    source = path.name if path is not None else "config"
    lines = path.read_text(encoding="utf-8").splitlines() if path is not None else []
    out = []
    for n, item in enumerate(items):
        at = f"{where}[{n}]"
        if not isinstance(item, dict):
            raise ConfigError(f"{at}: expected a table with dep and reason, found {item!r}")
        unknown = set(item) - {"target", "dep", "reason", "codes"}
        if unknown:
            raise ConfigError(
                f"{at}: unknown key {sorted(unknown)[0]!r} (expected codes, dep, reason, target)"
            )
        dep, reason = item.get("dep"), item.get("reason")
        if not isinstance(dep, str) or not dep:
            raise ConfigError(f'{at}: expected dep = "//label", found {dep!r}')
        if not isinstance(reason, str) or not reason.strip():
            raise ConfigError(f"{at}: expected a non-empty reason, found {reason!r}")
        target = item.get("target", "")
        if not isinstance(target, str):
            raise ConfigError(f"{at}: target: expected a label, found {target!r}")
        codes = item.get("codes", [])
        if isinstance(codes, str):
            codes = [codes]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{at}: codes: expected a list of rule codes, found {codes!r}")
        line = next((i for i, t in enumerate(lines, 1) if f'"{dep}"' in t), None)
        out.append(
            Keep(
                target=normalize_label(target) if target else "",
                dep=normalize_label(dep),
                reason=reason.strip(),
                source=source,
                line=line,
                codes=tuple(sorted(c.upper() for c in codes)),
            )
        )
    return out


def resolve(path: str, workspace: Path | None) -> Path | None:
    """A location's file on disk: as given, or under the workspace; None if not there."""
    candidates = [path]
    if workspace is not None and not os.path.isabs(path):
        candidates.append(os.path.join(workspace, path))
    for c in candidates:
        try:
            st = os.stat(c)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_BUILD_BYTES:
            return Path(c)
    return None


_SEEN: dict[tuple[str, str], tuple[int, list[str]] | None] = {}
_SEEN_MAX = 200_000
#: Paths not on disk; a file created mid-process is only seen by a new process (a run).
_MISSING: set[tuple[str, str]] = set()


class BuildFiles:
    """BUILD/BUCK/CMakeLists text, read on demand and remembered per process (by mtime)."""

    def __init__(self, workspace: Path | None) -> None:
        self.workspace = workspace

    def lines(self, path: str) -> list[str] | None:
        key = (str(self.workspace), path if os.path.isabs(path) else os.path.abspath(path))
        if key in _MISSING:
            return None
        real = resolve(path, self.workspace)
        if real is None:
            if len(_MISSING) > _SEEN_MAX:
                _MISSING.clear()
            _MISSING.add(key)
            return None
        try:
            stamp = real.stat().st_mtime_ns
            hit = _SEEN.get(key)
            if hit is not None and hit[0] == stamp:
                return hit[1]
            text = real.read_bytes().decode("utf-8", "replace").splitlines()
        except OSError:
            return None
        if len(_SEEN) > _SEEN_MAX:
            _SEEN.clear()
        _SEEN[key] = (stamp, text)
        return text


def _spellings(dep: str, target: str) -> set[str]:
    """How a BUILD file may spell `dep` inside `target`'s rule."""
    out = {dep}
    pkg, name = label_package(dep), label_name(dep)
    if pkg.rsplit("/", 1)[-1] == name:
        out.add(pkg)
    if label_package(target) == pkg:
        out.update({f":{name}", name})
    if dep.startswith("//"):
        out.update({f"@{dep}", f"@@{dep}"})
    return out


def _rule_span(lines: list[str], start: int) -> range:
    """Lines of the call that starts at 1-based `start`, up to its closing parenthesis."""
    depth = 0
    seen_open = False
    for i in range(start - 1, min(len(lines), start - 1 + 5000)):
        code = lines[i].split("#", 1)[0]
        depth += code.count("(") - code.count(")")
        seen_open = seen_open or "(" in code
        if seen_open and depth <= 0:
            return range(start, i + 2)
    return range(start, min(len(lines), start + 5000) + 1)


def dep_line(
    files: BuildFiles, location: Location | None, target: str, dep: str
) -> tuple[str, int, str] | None:
    """(file, line, text) of the line naming `dep` in the rule at `location`, if found."""
    if location is None or location.line is None:
        return None
    lines = files.lines(location.path)
    if not lines:
        return None
    spellings = _spellings(dep, target)
    cmake = location.path.rsplit("/", 1)[-1] == "CMakeLists.txt"
    bare = re.compile(rf"(?<![\w./:-]){re.escape(label_name(dep))}(?![\w./:-])")
    for n in _rule_span(lines, location.line):
        text = lines[n - 1]
        code = text.split("#", 1)[0]
        if any(m in spellings for m in _QUOTED.findall(code)) or (cmake and bare.search(code)):
            return location.path, n, text
    return None


def _comment_keep(text: str) -> str | None:
    m = _KEEP.search(text)
    return None if m is None else m.group("reason").strip()


@dataclass
class Outcome:
    """Findings after suppression: kept ones moved aside, stale suppressions as findings."""

    findings: list[Finding]
    suppressed: list[Finding]
    stale: list[Finding]


def _mark(f: Finding, keep: Keep) -> Finding:
    why = Suppression(keep.where, keep.reason, keep.in_source, keep.source)
    return dataclasses.replace(f, suppression=why)


def _with_dep_line(f: Finding, found: tuple[str, int, str] | None) -> Finding:
    if found is None:
        return f
    path, n, text = found
    code = text.split("#", 1)[0].strip().rstrip(",").strip()
    alone = len(_QUOTED.findall(code)) == 1 and _QUOTED.fullmatch(code) is not None
    return dataclasses.replace(f, dep_location=Location(path, n), dep_line_alone=alone)


def _unless_selected(graph: BuildGraph, files: BuildFiles, f: Finding) -> Finding:
    """`f`, kept when its rule names the dep inside a `select()` (its BUILD file says so,
    or the export) or links it in some configurations only; at most medium when a Bazel
    or Buck2 rule's BUILD file cannot be read (see `conditional`)."""
    if not f.removable:
        return f
    loc = f.location
    lines = files.lines(loc.path) if loc is not None and loc.line is not None else None
    if lines and loc is not None and loc.line is not None:
        at = select_of(lines, _rule_span(lines, loc.line), _spellings(f.dep, f.target))
        if at is not None:
            return kept_in_select(f, f"{loc.path}:{at}")
    kept = kept_by_export(graph, f)
    if kept is not None:
        return kept
    if lines is None and loc is not None and loc.path.rsplit("/", 1)[-1] in BUILD_FILES:
        return unsure_without(f, loc.path)
    return f


def _stale(keep: Keep) -> Finding:
    edge = f"{keep.target} -> {keep.dep}" if keep.target else f"* -> {keep.dep}"
    return Finding(
        code=STALE_SUPPRESSION.code,
        name=STALE_SUPPRESSION.name,
        target=keep.target,
        dep=keep.dep,
        verdict="stale",
        message=f"suppression of {edge} at {keep.where} matches no finding in this run "
        f"(reason given: {keep.reason or 'none'})",
        confidence=Confidence.HIGH,
        removable=False,
        location=Location(keep.source, keep.line),
    )


_HAS_COMMENT: weakref.WeakKeyDictionary[BuildGraph, dict[tuple[str, str], bool]] = (
    weakref.WeakKeyDictionary()
)


def _commented_targets(
    graph: BuildGraph, files: BuildFiles, ids: Iterable[int] | None = None
) -> list[int]:
    """Ids (sorted) among `ids` (default: all) declared in a file holding a `slim:` comment.

    Whether a file has one is remembered per graph, so only the files of the targets asked
    about are read, each once (a report reads its root's closure, not the monorepo).
    """
    seen = _HAS_COMMENT.setdefault(graph, {})
    ws = str(files.workspace)
    by_path = group_by_path(graph.locations, range(len(graph)) if ids is None else ids)
    out: list[int] = []
    for path, targets in by_path.items():
        has = seen.get((ws, path))
        if has is None:
            lines = files.lines(path)
            has = seen[(ws, path)] = bool(lines) and any("slim:" in x for x in lines or ())
        if has:
            out.extend(targets)
    return sorted(out)


def comment_keeps(graph: BuildGraph, target_ids: Iterable[int], files: BuildFiles) -> list[Keep]:
    """Every `# slim: keep(...)` on a dep line of the rules of `target_ids`."""
    out = []
    for t in _commented_targets(graph, files, target_ids):
        loc = graph.locations[t]
        lines = files.lines(loc.path)
        if lines and loc.line is not None:
            out.extend(_keeps_in_rule(graph.labels[t], loc.path, lines, loc.line))
    return out


def _keeps_in_rule(target: str, path: str, lines: list[str], start: int) -> list[Keep]:
    out = []
    for n in _rule_span(lines, start):
        reason = _comment_keep(lines[n - 1])
        if reason is None:
            continue
        code = lines[n - 1].split("#", 1)[0]
        for text in _QUOTED.findall(code):
            dep = normalize_label(text, label_package(target))
            out.append(Keep(target, dep, reason, path, n, in_source=True))
    return out


def apply(
    graph: BuildGraph,
    roots: Sequence[int],
    findings: Sequence[Finding],
    workspace: Path | None,
    keeps: Sequence[Keep] = (),
) -> Outcome:
    """Split `findings` into reported and suppressed; list suppressions that match nothing."""
    files = BuildFiles(workspace)
    located = [
        _unless_selected(
            graph, files, _with_dep_line(f, dep_line(files, f.location, f.target, f.dep))
        )
        if f.dep
        else f
        for f in findings
    ]
    in_files = comment_keeps(graph, graph.closure(roots).tolist(), files) if roots else []
    candidates = [*keeps, *in_files]
    used: set[Keep] = set()
    kept, suppressed = [], []
    for f in located:
        hit = next((k for k in candidates if k.matches(f)), None) if f.dep else None
        if hit is None:
            kept.append(f)
        else:
            used.add(hit)
            suppressed.append(_mark(f, hit))
    stale = [_stale(k) for k in sorted(set(candidates) - used, key=lambda k: (k.where, k.dep))]
    return Outcome(kept, suppressed, stale)
