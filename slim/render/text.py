"""Terminal report, the important thing first: removable cuts by saving, then what was kept
(grouped, shortened), then one line per missing evidence kind, then a one-line summary.

`verbosity`: 0 prints the summary only (`--quiet`), 1 the default, 2 every evidence line
and every file (`--verbose`). Long lists are cut with a count and how to see the rest.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import TextIO

from slim.model.findings import Finding
from slim.model.report import Report
from slim.render._format import (
    edge,
    figure_lines,
    proposal_phrase,
    saving_phrase,
    totals_phrase,
    where,
)

#: At the default verbosity: removable findings shown in full, kept groups listed.
MAX_REMOVABLE = 25
MAX_KEPT = 15
MAX_FILES = 3


@dataclass(frozen=True)
class TextOptions:
    verbosity: int = 1
    statistics: bool = False


def _saving_key(f: Finding) -> tuple[float, int, int, tuple[str, ...]]:
    s = f.saving
    if s is None:
        return (0.0, 0, 0, f.sort_key)
    return (-s.seconds, -s.targets_removed, -s.bytes, f.sort_key)


def _first_sentence(text: str, limit: int = 160) -> str:
    head = text.split(". ", 1)[0].rstrip(".")
    return head if len(head) <= limit else head[: limit - 1] + "…"


def _short(f: Finding) -> list[str]:
    """A kept finding at the default verbosity: its first sentence, and why it is not
    removable and what evidence would decide it, when the analyzer says."""
    lines = [_first_sentence(f.message)]
    if f.kept_because:
        lines.append(_first_sentence(f"Not removable: {f.kept_because}.", 240))
    return lines


def _removable_lines(f: Finding, verbose: bool, report: Report) -> list[str]:
    head = f"  {f.code} {edge(f)}  [{f.verdict}, {f.confidence.value}]"
    if f.saving is not None:
        head += f"  saves {f.saving.seconds:.1f} s"
    lines = [head, f"      {f.message}"]
    if f.details is not None:
        lines.extend(f"      {x}" for x in f.details.text_lines())
    loc = f.dep_location or f.location
    if loc is not None:
        lines.append(f"      declared at {loc}")
    shown = f.evidence if verbose else f.evidence[:2]
    lines.extend(f"      evidence: {where(e)}: {e.detail}" for e in shown)
    if len(f.evidence) > len(shown):
        lines.append(f"      … {len(f.evidence) - len(shown)} more evidence lines (-v)")
    if f.saving is not None:
        lines.append(f"      CPU saved: {saving_phrase(f.saving)}")
        lines.extend(f"      {x}" for x in figure_lines(f.saving, report.savings))
    if f.fix is not None:
        lines.append(f"      fix: {f.fix.command}")
    return lines


def _kept_lines(kept: list[Finding], verbose: bool) -> list[str]:
    """Kept findings, one line per (code, dep, verdict), the most repeated first: repeated
    ones name their targets."""
    groups: dict[tuple[str, str, str], list[Finding]] = defaultdict(list)
    for f in kept:
        groups[(f.code, f.dep or f.target, f.verdict)].append(f)
    lines = []
    items = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    shown = items if verbose else items[:MAX_KEPT]
    for (code, dep, verdict), fs in shown:
        f = fs[0]
        if len(fs) == 1:
            lines.append(f"  {code} {edge(f)}  [{verdict}, {f.confidence.value}]")
        else:
            who = sorted({x.target for x in fs})
            listed = ", ".join(who[:MAX_FILES]) + (
                f", … {len(who) - MAX_FILES} more" if len(who) > MAX_FILES else ""
            )
            lines.append(f"  {code} {dep}  [{verdict}] from {len(who)} targets: {listed}")
        lines.extend(f"      {x}" for x in ([f.message] if verbose else _short(f)))
        if verbose and f.details is not None:
            lines.extend(f"      {x}" for x in f.details.text_lines())
    if len(items) > len(shown):
        lines.append(f"  … and {len(items) - len(shown)} more (-v, or --format json)")
    return lines


def _files(files: tuple[str, ...], verbose: bool) -> str:
    if verbose or len(files) <= MAX_FILES:
        return ", ".join(files)
    kinds = Counter("archive" if f.endswith(".a") else "file" for f in files)
    return ", ".join(f"{n} {k}{'' if n == 1 else 's'}" for k, n in sorted(kinds.items()))


def _evidence_lines(report: Report, verbose: bool) -> list[str]:
    lines = []
    for e in report.evidence:
        if not e.given:
            lines.append(f"  MISSING {e.kind}: {e.description}")
        elif verbose:
            note = f" ({e.note})" if e.note else ""
            lines.append(f"  given   {e.kind}: {', '.join(e.files)}{note}")
    given = [f"{e.kind} ({_files(e.files, False)})" for e in report.evidence if e.given]
    if given and not verbose:
        lines.append(f"  given: {'; '.join(given)}")
    return lines


def summary_line(report: Report) -> str:
    """`3 findings, 2 removable; saving 12.1 s compile, …` (the totals every output shows)."""
    n, r = len(report.findings), len(report.removable)
    line = f"{n} finding{'' if n == 1 else 's'}, {r} removable"
    if report.suppressed:
        line += f", {len(report.suppressed)} suppressed"
    if r:
        line += f"; saving of every removable cut at once: {totals_phrase(report.savings.total)}"
    return line


def _statistics(report: Report) -> list[str]:
    counts = Counter((f.code, f.name) for f in report.findings)
    removable = Counter(f.code for f in report.removable)
    return [
        f"{n:6}  {code} {name}  ({removable[code]} removable)"
        for (code, name), n in sorted(counts.items())
    ]


def render_text(report: Report, opts: TextOptions) -> str:
    verbose = opts.verbosity >= 2
    lines: list[str] = []
    if opts.verbosity >= 1:
        lines.extend(_body(report, verbose))
    if opts.statistics:
        lines.extend(["statistics:", *_statistics(report), ""])
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def _body(report: Report, verbose: bool) -> list[str]:
    lines = []
    t = report.timings
    if t is not None and t.actions and t.attributed * 2 < t.actions:
        lines.append(
            f"warning: {t.unattributed} of {t.actions} actions in the timings match no target "
            "of the graph: timings of a different build? Savings fall back to the model."
        )
    for r in report.roots:
        lines.append(
            f"{r.label} ({r.kind or 'unknown kind'}): {r.targets} targets, {r.edges} edges, "
            f"{len(r.direct_deps)} direct deps"
        )
    removable = sorted(report.removable, key=_saving_key)
    if removable:
        shown = removable if verbose else removable[:MAX_REMOVABLE]
        lines += ["", f"removable ({len(removable)}, largest saving first):"]
        for f in shown:
            lines.extend(_removable_lines(f, verbose, report))
        if len(removable) > len(shown):
            lines.append(f"  … and {len(removable) - len(shown)} more (-v, or --format json)")
    kept = [f for f in report.findings if not f.removable]
    if kept:
        lines += ["", f"kept ({len(kept)}):", *_kept_lines(kept, verbose)]
    if report.proposals and verbose:
        lines += ["", "proposals:"]
        for p in report.proposals:
            lines.append(f"  {p.target}: {proposal_phrase(p)}")
            lines.extend(f"    {x.command}" for x in p.fixes)
    if report.suppressed:
        lines += ["", f"suppressed ({len(report.suppressed)}, kept on purpose):"]
        for f in report.suppressed:
            why = f.suppression
            reason, by = (why.reason, why.by) if why is not None else ("", "")
            lines.append(f"  {f.code} {edge(f)}: {reason} ({by})")
    lines.extend(_schedule_lines(report))
    lines += ["", "evidence:", *_evidence_lines(report, verbose)]
    notes = report.notes if verbose else report.notes[:3]
    lines.extend(f"note: {n}" for n in notes)
    if len(report.notes) > len(notes):
        lines.append(f"note: … {len(report.notes) - len(notes)} more (-v)")
    lines.append("")
    return lines


def _schedule_lines(report: Report) -> list[str]:
    """Each root's clean build at -jN, its critical path, and the history window."""
    sv = report.savings
    lines = []
    for sc in sv.schedules:
        path = " -> ".join(sc.critical_path) or "none"
        lines.append(
            f"  {sc.root}: clean build {sc.seconds:.1f} s at -j{sc.jobs} (re-scheduled from "
            f"{sc.source}); critical path {sc.critical_seconds:.1f} s: {path}"
        )
        if sc.tool_critical_path:
            lines.append(
                f"    the build tool's own critical path: {'; '.join(sc.tool_critical_path)}"
            )
    t = report.timings
    if t is not None and t.cache:
        hits = sum(h for _, h, _ in t.cache)
        looked = sum(h + m for _, h, m in t.cache)
        lines.append(
            f"  cache: {hits} of {looked} looked-up actions hit, over {len(t.cache)} targets "
            "(per target in --format json)"
        )
    if t is not None and t.cache_stats:
        parts = ", ".join(f"{lang} {h} hits, {m} misses" for _, lang, h, m in t.cache_stats)
        lines.append(f"  compiler cache: {parts}")
    if sv.history is not None:
        lines.append(f"  history: {sv.history.phrase} ({sv.history.source})")
    elif sv.history_note and report.removable:
        lines.append(f"  history: none ({sv.history_note})")
    return ["", "build:", *lines] if lines else []


def render(report: Report, out: TextIO) -> None:
    out.write(render_text(report, TextOptions()))
