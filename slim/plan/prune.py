"""Turn removable findings into pruned targets, fix commands and savings.

Each removable edge becomes a `Cut`: a buildozer command for BUILD/BUCK graphs (`remove`,
or `move deps runtime_deps` when the verdict is `runtime-unused`: the dep is still needed
at run time, only not at link time), or, for CMake graphs, the `target_link_libraries`
line (file:line from the file API backtrace) to edit. Savings come from `plan.savings`.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from slim.model.facts import Facts
from slim.model.findings import Finding, Fix, Saving
from slim.model.graph import BuildGraph, EdgeKind, Location
from slim.model.labels import label_name
from slim.model.report import Proposal

if TYPE_CHECKING:
    from slim.plan.costs import CostModel
    from slim.plan.savings import Reach

RUNTIME_UNUSED = "runtime-unused"
DOWNGRADE_TO = "runtime_deps"


def buildozer_remove(attribute: str, dep: str, target: str) -> str:
    """`buildozer 'remove deps //x:y' //a:b` (quoted for a POSIX shell)."""
    return f"buildozer {shlex.quote(f'remove {attribute} {dep}')} {shlex.quote(target)}"


def buildozer_move(attribute: str, to: str, dep: str, target: str) -> str:
    """`buildozer 'move deps runtime_deps //x:y' //a:b`."""
    return f"buildozer {shlex.quote(f'move {attribute} {to} {dep}')} {shlex.quote(target)}"


@dataclass(frozen=True, slots=True)
class Cut:
    """One edge to cut (or downgrade) and how: a buildozer command or a CMake line."""

    root: str
    target: str
    dep: str
    attribute: str
    tool: str  # "buildozer" or "cmake"
    action: str  # "remove" or "move"
    to_attribute: str = ""
    location: Location | None = None
    code: str = ""
    confidence: str = ""
    cmake_location: Location | None = None

    def as_cmake(self) -> Cut | None:
        """The same cut as a CMake edit, when the graph also came from CMake's file API."""
        if self.tool == "cmake":
            return self
        if self.cmake_location is None:
            return None
        return dataclasses.replace(self, tool="cmake", location=self.cmake_location)

    @property
    def buildozer(self) -> str:
        """The command part of a `buildozer -f` line (`remove deps //x:y`)."""
        if self.action == "move":
            return f"move {self.attribute} {self.to_attribute} {self.dep}"
        return f"remove {self.attribute} {self.dep}"

    @property
    def cmake_dep(self) -> str:
        return label_name(self.dep)

    @property
    def cmake_target(self) -> str:
        return label_name(self.target)

    def command(self) -> str:
        if self.tool == "cmake":
            where = str(self.location) if self.location else "CMakeLists.txt"
            if self.action == "move":
                return (
                    f"# {where}: target_link_libraries({self.cmake_target} …): {self.cmake_dep} "
                    "is used at run time only; keep it loaded (no link-time equivalent in CMake)"
                )
            return (
                f"{where}: in target_link_libraries({self.cmake_target} …) remove {self.cmake_dep}"
            )
        if self.action == "move":
            return buildozer_move(self.attribute, self.to_attribute, self.dep, self.target)
        return buildozer_remove(self.attribute, self.dep, self.target)


def is_cmake_graph(graph: BuildGraph) -> bool:
    return any(f.startswith("cmake") for f in graph.formats)


def has_build_files(graph: BuildGraph) -> bool:
    """Whether the graph came (also) from Bazel or Buck2, whose BUILD/BUCK files buildozer edits."""
    return any(f.startswith(("bazel", "buck2")) for f in graph.formats)


def _is_cmake_file(loc: Location | None) -> bool:
    return loc is not None and loc.path.endswith(("CMakeLists.txt", ".cmake"))


def _attribute(f: Finding) -> str:
    attr = f.attribute or "deps"
    return "deps" if attr.startswith("deps (") or attr == "untyped" else attr


def cut_of(graph: BuildGraph, f: Finding) -> Cut | None:
    """The cut a removable edge finding proposes (None for binary-wide findings)."""
    if not f.removable or not f.dep:
        return None
    cmake = is_cmake_graph(graph)
    a, b = graph.lookup(f.target), graph.lookup(f.dep)
    loc = edge_loc = None
    if a is not None and b is not None:
        loc = graph.edge_location(a, b)
        edge_loc = graph.edge_locations.get((a, b))
    loc = loc or f.location
    cmake_loc = edge_loc if cmake and _is_cmake_file(edge_loc) else None
    move = f.verdict == RUNTIME_UNUSED
    attr = _attribute(f)
    tool = "cmake" if cmake and not has_build_files(graph) else "buildozer"
    return Cut(
        root=f.root,
        target=f.target,
        dep=f.dep,
        attribute=attr,
        tool=tool,
        cmake_location=cmake_loc if tool == "buildozer" else None,
        action="move" if move and attr != DOWNGRADE_TO else "remove",
        to_attribute=DOWNGRADE_TO if move else "",
        location=loc,
        code=f.code,
        confidence=f.confidence.value,
    )


def _with_fix(graph: BuildGraph, f: Finding) -> Finding:
    if f.fix is not None:
        return f
    cut = cut_of(graph, f)
    if cut is None:
        return f
    kind = "cmake" if cut.tool == "cmake" else "buildozer"
    desc = "downgrade to a runtime dependency" if cut.action == "move" else "remove the edge"
    return dataclasses.replace(
        f, fix=Fix(cut.command(), kind=kind, description=desc, safe=cut.action == "remove")
    )


def _new_deps(graph: BuildGraph, target: str, attribute: str, removed: set[str]) -> tuple[str, ...]:
    t = graph.lookup(target)
    if t is None:
        return ()
    kinds = {k for k in EdgeKind if k.attribute == attribute} or {EdgeKind.DEPS}
    if attribute == "deps":
        kinds |= {EdgeKind.UNTYPED}
    return tuple(
        sorted(
            {
                graph.labels[e.dep]
                for e in graph.out_edges(t, frozenset(kinds))
                if graph.labels[e.dep] not in removed
            }
        )
    )


def _commands(graph: BuildGraph, fs: list[Finding]) -> tuple[str, ...]:
    """Each finding's fix, plus the CMake edit when the same edge is also in a CMakeLists."""
    out = {f.fix.command for f in fs if f.fix is not None}
    for f in fs:
        cut = own_cut(graph, f)
        alt = cut.as_cmake() if cut is not None and cut.tool != "cmake" else None
        if alt is not None:
            out.add(alt.command())
    return tuple(sorted(out))


#: Finding data keys naming what an analyzer's fix puts in place of the cut dep.
REPLACEMENT_KEYS = ("replacement", "cpu_variant")


def _net_of_replacement(
    graph: BuildGraph,
    f: Finding,
    root: int,
    gone: tuple[int, ...],
    worth: Saving,
    model: CostModel,
    reach: Reach,
) -> Saving:
    """A replacing fix builds its replacement: subtract what it adds to the root's build."""
    import numpy as np

    data = dict(f.data)
    label = next((str(data[k]) for k in REPLACEMENT_KEYS if data.get(k)), "")
    rep = graph.lookup(label) if label else None
    if rep is None:
        return worth
    staying = reach.reach_mask([root]).copy()
    staying[np.asarray(gone, dtype=np.int64)] = False
    added = np.flatnonzero(reach.reach_mask([rep]) & ~staying).astype(np.int64)
    comp, _, _ = model.arrays(added)
    return dataclasses.replace(
        worth,
        compile_seconds=worth.compile_seconds - float(comp.sum()),
        basis=f"{worth.basis}; net of {len(added)} target(s) {label} adds",
    )


def _merge(planned: Saving, analyzer: Saving | None) -> Saving:
    """The planner's times and targets; an analyzer's measured bytes (with their basis) win."""
    if analyzer is None or not analyzer.bytes or planned.bytes:
        if analyzer is not None and not planned.bytes and analyzer.basis:
            basis = f"{planned.basis}; bytes: {analyzer.basis}"
            return dataclasses.replace(planned, basis=basis)
        return planned
    return dataclasses.replace(
        planned, bytes=analyzer.bytes, basis=f"{planned.basis}; bytes: {analyzer.basis}"
    )


def _fmt_saving(s: Saving) -> str:
    return f"{s.compile_seconds:.3f}s compile, {s.link_seconds:.3f}s link ({s.basis})"


def plan_report(
    graph: BuildGraph,
    roots: Sequence[int],
    findings: list[Finding],
    facts: Facts,
) -> tuple[list[Proposal], list[Finding], dict[str, float | int | str]]:
    """Proposals per (root, target), findings completed with fixes and savings, totals."""
    from slim.plan.costs import build_costs
    from slim.plan.savings import Reach, edge_saving, plan_savings

    model = build_costs(graph, facts)
    reach = Reach(graph)
    out: list[Finding] = []
    for f in findings:
        f = _with_fix(graph, f)
        if f.removable and f.dep:
            r = graph.lookup(f.root) if f.root else graph.lookup(f.target)
            a, b = graph.lookup(f.target), graph.lookup(f.dep)
            if r is not None and a is not None and b is not None:
                if f.verdict == RUNTIME_UNUSED:
                    worth = Saving(basis=f"{DOWNGRADE_TO}: still built, only not linked")
                else:
                    worth, gone = edge_saving(graph, r, (a, b), model, reach)
                    worth = _net_of_replacement(graph, f, r, gone, worth, model, reach)
                f = dataclasses.replace(f, saving=_merge(worth, f.saving))
        out.append(f)
    findings = out
    cuts: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    pure: list[Finding] = []
    for f in findings:
        if f.removable and f.dep:
            cuts[(f.root, f.target)].append(f)
            cut = own_cut(graph, f)
            if cut is not None and cut.action == "remove":
                pure.append(f)
    proposals = []
    for (root, target), fs in sorted(cuts.items()):
        removed = {f.dep for f in fs}
        attrs = sorted({_attribute(f) for f in fs})
        r, t = graph.lookup(root) if root else None, graph.lookup(target)
        saving: Saving | None = None
        kept = {f.dep for f in fs if f in pure}
        if r is not None and t is not None and kept:
            edges = [(t, d) for d in (graph.lookup(x) for x in sorted(kept)) if d is not None]
            saving = plan_savings(graph, [r], {r: edges}, model, reach).per_root[r]
        proposals.append(
            Proposal(
                root=root,
                target=target,
                remove=tuple(sorted(removed)),
                new_deps=_new_deps(graph, target, attrs[0], removed),
                commands=_commands(graph, fs),
                saving=saving,
                codes=tuple(sorted({f.code for f in fs})),
            )
        )
    totals: dict[str, float | int | str] = {
        "findings": len(findings),
        "removable": sum(1 for f in findings if f.removable),
    }
    if model.actions:
        totals["timings.actions"] = model.actions
        totals["timings.unattributed_actions"] = model.unattributed
        totals["timings.unattributed_seconds"] = round(model.unattributed_seconds, 3)
        for i, note in enumerate(model.notes):
            totals[f"note:timings.{i}"] = note
    by_root: dict[int, list[tuple[int, int]]] = {}
    for r in roots:
        edges = []
        for f in pure:
            if f.root == graph.labels[r]:
                a, b = graph.lookup(f.target), graph.lookup(f.dep)
                if a is not None and b is not None:
                    edges.append((a, b))
        if edges:
            by_root[r] = edges
    others = sum(1 for fs in cuts.values() for f in fs if f not in pure)
    if others:
        totals["saving.not_in_totals"] = others
    if by_root:
        plan = plan_savings(graph, list(by_root), by_root, model, reach)
        for r, s in plan.per_root.items():
            lab = graph.labels[r]
            totals[f"targets_removed[{lab}]"] = s.targets_removed
            totals[f"saving[{lab}]"] = _fmt_saving(s)
            totals[f"saving.compile_seconds[{lab}]"] = round(s.compile_seconds, 3)
            totals[f"saving.link_seconds[{lab}]"] = round(s.link_seconds, 3)
        g = plan.global_saving
        totals["saving.global"] = _fmt_saving(g)
        totals["saving.global.compile_seconds"] = round(g.compile_seconds, 3)
        totals["saving.global.link_seconds"] = round(g.link_seconds, 3)
        totals["saving.global.targets_removed"] = g.targets_removed
        totals["saving.global.basis"] = g.basis
    return proposals, findings, totals


def own_cut(graph: BuildGraph, f: Finding) -> Cut | None:
    """The cut of a finding whose fix is slim's own removal or downgrade (not an analyzer's
    replacement, say, which `apply` and `verify` must not turn into a removal)."""
    cut = cut_of(graph, f)
    if cut is None or f.fix is None:
        return cut
    alt = cut.as_cmake()
    return cut if f.fix.command in (cut.command(), alt.command() if alt else "") else None


def cuts_of(graph: BuildGraph, findings: Sequence[Finding]) -> list[Cut]:
    """Every distinct cut the removable findings propose, sorted."""
    seen: dict[tuple[str, str, str], Cut] = {}
    for f in findings:
        c = own_cut(graph, f)
        if c is not None:
            seen.setdefault((c.target, c.dep, c.action), c)
    return sorted(seen.values(), key=lambda c: (c.target, c.dep, c.action))
