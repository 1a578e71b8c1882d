"""SLIM003 gpu-kernels-in-cpu-binary: a CPU-only root binary whose fatbins carry kernels.

Each container is charged to the target that brought it (`_attribution`); the finding
names the first edge from non-GPU code into the GPU-only subgraph and proposes cutting
it, or pointing it at a CPU sibling. Device code no edge explains (the root's own, from
an unowned input, or of unknown origin) is reported for the binary as a whole.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from slim.model.actions import Remove, Replace
from slim.model.context import AnalysisContext, consumers
from slim.model.findings import Confidence, Evidence, Finding, Saving
from slim.model.gpu import DeviceCode, FatbinContainer
from slim.model.graph import CODE_KINDS, BuildGraph

from .._findings import on_edge, on_root
from ._attribution import (
    Share,
    attribute,
    code_path,
    cpu_variant,
    entry_edges,
    gpu_specific,
    is_cpu_only,
)
from ._details import KernelsDetails, TargetShare
from ._fatbins import arch_rows, by_arch, container_evidence, fmt_bytes, kernel_names
from ._variant_proof import VariantProof, prove
from .rules import GPU_KERNELS


@dataclass(frozen=True)
class _Common:
    """What every SLIM003 finding of one binary shares."""

    reason: str
    binary: str
    binary_match: str = ""


def _code_attribute(g: BuildGraph, u: int, v: int) -> str:
    """The attribute that declares `u -> v` (a CMake `deps (PUBLIC)` is `deps`)."""
    kinds = [k for k in g.edge_kinds(u, v) if k in CODE_KINDS]
    attr = kinds[0].attribute if kinds else "deps"
    return "deps" if attr.startswith("deps (") else attr


def _kernels_details(
    g: BuildGraph,
    edge: tuple[int, int],
    to_u: list[int],
    also: list[int],
    mine: list[int],
    shares: dict[int, Share],
    common: _Common,
    variant: int | None,
) -> KernelsDetails:
    """What an edge into GPU-only code brings: kernels, bytes per arch and per target."""
    u, v = edge
    entries = [e for t in mine for e in shares[t].entries]
    targets = tuple(
        TargetShare(
            g.labels[t],
            shares[t].bytes,
            tuple(sorted(shares[t].inputs)),
            " -> ".join(g.labels[x] for x in to_u + code_path(g, v, t)),
        )
        for t in mine
    )
    return KernelsDetails(
        binary=common.binary,
        cpu_only_source=common.reason,
        kernels=tuple(kernel_names(entries)),
        archs=arch_rows(entries, dict.fromkeys(by_arch(entries), "in CPU-only binary")),
        bytes=sum(shares[t].bytes for t in mine),
        targets=targets,
        cut=f"{g.labels[u]} -> {g.labels[v]}",
        cpu_variant=g.labels[variant] if variant is not None else "",
        also_reached_from=tuple(g.labels[x] for x in also),
        attribution=tuple(sorted({h for t in mine for h in shares[t].how})),
        binary_match=common.binary_match,
    )


def _edge_message(
    ctx: AnalysisContext,
    edge: tuple[str, str],
    d: KernelsDetails,
    mine: list[int],
    cut_ok: bool,
    kept: str,
) -> str:
    kernels = d.kernels
    names = ", ".join(kernels[:8]) + (f", … ({len(kernels)} in all)" if len(kernels) > 8 else "")
    via = f" (path: {d.targets[0].path})" if d.targets else ""
    variant = (
        f"; point it at the CPU variant {d.cpu_variant}"
        if d.cpu_variant
        else "; no CPU variant found in the graph"
    )
    sources = ", ".join(ctx.graph.labels[t] for t in mine)
    archs = ", ".join(a.arch for a in d.archs)
    message = (
        f"{ctx.root_label} is CPU-only ({d.cpu_only_source}) but carries {len(kernels)} CUDA "
        f"kernel(s) for {archs} ({fmt_bytes(d.bytes)} of device code) from {sources}{via}: "
        f"{names}. Cut {d.cut}, the first edge into GPU-only code{variant}"
        + ("" if cut_ok else " (other paths still reach the kernels)")
    )
    _src, dep = edge
    if d.also_reached_from:
        message += (
            f". {dep} is also linked directly by {', '.join(d.also_reached_from)} (a "
            "propagated PUBLIC link goes away with the cut; a declared one must be cut too)"
        )
    if kept:
        message += f". Not removable: {kept}"
    return message


def _kept_because(ctx: AnalysisContext, src: str, gpu_users: list[str]) -> str:
    """Why the cut is not proposed: other binaries sharing the edge may need the kernels."""
    if not gpu_users:
        return ""
    return (
        f"the edge is shared, and {', '.join(gpu_users)} "
        f"{'is' if len(gpu_users) == 1 else 'are'} not CPU-only and may need the "
        f"kernels; give {ctx.root_label} its own CPU build of {src} instead"
    )


@dataclass
class _Charged:
    """A binary's containers with device code: per contributing target of the closure,
    of unknown origin, or from an input no target of the closure owns."""

    shares: dict[int, Share] = field(default_factory=lambda: defaultdict(Share))
    unknown: list[FatbinContainer] = field(default_factory=list)
    outside: dict[str, list[FatbinContainer]] = field(default_factory=lambda: defaultdict(list))


def _charge(ctx: AnalysisContext, b: DeviceCode) -> _Charged:
    closure = set(ctx.closure.tolist())
    out = _Charged()
    for c, a in zip(b.containers, attribute(ctx, b), strict=True):
        if not c.entries:
            continue
        if a is None:
            out.unknown.append(c)
        elif a.owner is None or a.owner not in closure:
            out.outside[a.input].append(c)
        else:
            s = out.shares[a.owner]
            s.containers.append(c)
            s.inputs.add(a.input)
            s.evidence.append(a.evidence)
            s.how.add(a.how)
    out.unknown, out.outside = _device_linked(b, out.shares, out.unknown, out.outside)
    return out


def findings(ctx: AnalysisContext, b: DeviceCode, reason: str, basis: str) -> Iterator[Finding]:
    """SLIM003 for a CPU-only root's binary `b`: one finding per GPU-only target entered
    (its entering edge is the cut), and binary-wide ones for what no edge explains: the
    root's own device code, contributors no edge leads into, unknown and unowned inputs."""
    g = ctx.graph
    charged = _charge(ctx, b)
    shares = charged.shares
    common = _Common(reason, b.path, basis)
    done: set[int] = set()
    if ctx.root in shares:
        done.add(ctx.root)
        yield _binary_wide(
            ctx,
            b,
            shares[ctx.root].containers,
            common,
            f"{ctx.root_label}'s own objects carry the device code (its sources are "
            "compiled by nvcc)",
            shares[ctx.root].evidence,
            Confidence.HIGH,
        )
    yield from _entry_findings(ctx, b, shares, common, done)
    for t in sorted(set(shares) - done, key=lambda i: g.labels[i]):
        yield _binary_wide(
            ctx,
            b,
            shares[t].containers,
            common,
            f"charged to {g.labels[t]}, but no edge from non-GPU code leads into it "
            f"({ctx.root_label} itself looks GPU-specific by tag, kind or .cu sources)",
            shares[t].evidence,
            Confidence.MEDIUM,
            targets=(TargetShare(g.labels[t], shares[t].bytes),),
        )
    if charged.unknown:
        yield _unattributed(ctx, b, charged.unknown, common, set(shares))
    for inp, cs in sorted(charged.outside.items()):
        yield _binary_wide(
            ctx,
            b,
            cs,
            common,
            f"the device code comes from {inp}, which no target in the closure of "
            f"{ctx.root_label} owns (a prebuilt or toolchain library?)",
            [],
            Confidence.MEDIUM,
        )


def _entry_findings(
    ctx: AnalysisContext,
    b: DeviceCode,
    shares: dict[int, Share],
    common: _Common,
    done: set[int],
) -> Iterator[Finding]:
    """One finding per GPU-only target the first edges from non-GPU code enter, for the
    contributors below it (added to `done`)."""
    g = ctx.graph
    contributors = set(shares)
    edges = entry_edges(g, ctx.root, contributors - done)
    left = set(g.closure_without(ctx.root, edges, CODE_KINDS).tolist())
    cut_ok = not (left & (contributors - done))
    sources: dict[int, list[int]] = defaultdict(list)
    for u, v in edges:
        sources[v].append(u)
    for v, us in sorted(sources.items(), key=lambda kv: g.labels[kv[0]]):
        below = set(g.closure([v], CODE_KINDS).tolist())
        mine = sorted(contributors & below - done, key=lambda i: g.labels[i])
        if not mine:
            continue
        hops = {u: code_path(g, ctx.root, u) for u in us}
        u = max(us, key=lambda x: (len(hops[x]), g.labels[x]))
        also = sorted((x for x in us if x != u), key=lambda x: g.labels[x])
        yield _edge_finding(
            ctx, b, (u, v), hops[u], also, mine, shares, contributors, common, cut_ok
        )
        done.update(mine)


def _device_linked(
    b: DeviceCode,
    shares: dict[int, Share],
    unknown: list[FatbinContainer],
    outside: dict[str, list[FatbinContainer]],
) -> tuple[list[FatbinContainer], dict[str, list[FatbinContainer]]]:
    """Charge nvcc's device-link images (`-rdc`) to the one target whose relocatable
    fatbins define every kernel in them; other unowned containers stay as they are."""
    owners: dict[str, set[int]] = defaultdict(set)
    for t, sh in shares.items():
        for e in sh.entries:
            for k in e.kernels or ():
                owners[k.mangled].add(t)

    def charge(c: FatbinContainer, source: str) -> bool:
        names = {k.mangled for e in c.entries for k in e.kernels or ()}
        if not names or not names <= owners.keys():
            return False
        who = set().union(*(owners[n] for n in names))
        if len(who) != 1:
            return False
        sh = shares[who.pop()]
        sh.containers.append(c)
        sh.how.add("device link")
        sh.evidence.append(
            Evidence(
                b.path,
                f"{c.section}+{c.section_offset:#x} ({source}) is a device-link image whose "
                f"kernels ({', '.join(sorted(names))}) are all defined in this target's "
                "relocatable fatbins",
                offset=c.offset,
                analyzer="gpu_kernels",
            )
        )
        return True

    still_unknown = [c for c in unknown if not charge(c, "contributor unknown")]
    still_outside: dict[str, list[FatbinContainer]] = {}
    for inp, cs in outside.items():
        rest = [c for c in cs if not charge(c, inp)]
        if rest:
            still_outside[inp] = rest
    return still_unknown, still_outside


def _edge_finding(
    ctx: AnalysisContext,
    b: DeviceCode,
    edge: tuple[int, int],
    to_u: list[int],
    also: list[int],
    mine: list[int],
    shares: dict[int, Share],
    contributors: set[int],
    common: _Common,
    cut_ok: bool,
) -> Finding:
    """One SLIM003 per GPU-only target entered: its deepest entering edge is the cut.

    Shallower edges into the same target (a CMake PUBLIC link propagated to the root,
    say) are named as well: they go away with the cut or must be cut too. The edge is
    proposed only when every binary that shares it is CPU-only.
    """
    g = ctx.graph
    u, v = edge
    attr = _code_attribute(g, u, v)
    variant = cpu_variant(g, v, contributors)
    w = variant[0] if variant is not None else None
    details = _kernels_details(g, edge, to_u, also, mine, shares, common, w)
    gpu_users = [g.labels[c] for c in consumers(ctx, u) if not is_cpu_only(ctx, c)]
    exact = all(shares[t].how for t in mine)
    src, dep = g.labels[u], g.labels[v]
    kept = _kept_because(ctx, src, gpu_users)
    proof = prove(ctx, u, v, w) if w is not None and cut_ok and not kept else VariantProof()
    kept = kept or proof.kept_because
    details = dataclasses.replace(details, missing_evidence=proof.missing)
    return on_edge(
        GPU_KERNELS,
        g,
        edge,
        ctx.root_label,
        attr,
        "gpu-code-in-cpu-binary",
        _edge_message(ctx, (src, dep), details, mine, cut_ok, kept),
        Confidence.HIGH if exact and cut_ok else Confidence.MEDIUM,
        removable=w is not None and cut_ok and not kept,
        evidence=tuple(
            [ev for t in mine for ev in shares[t].evidence]
            + [container_evidence(b, c) for t in mine for c in shares[t].containers]
            + list(proof.evidence)
        ),
        action=Replace(src, dep, g.labels[w], attr) if w is not None else Remove(src, dep, attr),
        saving=Saving(bytes=details.bytes, bytes_basis="fatbin bytes"),
        details=details,
        kept_because=kept,
    )


def _unattributed(
    ctx: AnalysisContext,
    b: DeviceCode,
    containers: list[FatbinContainer],
    common: _Common,
    contributors: set[int],
) -> Finding:
    g = ctx.graph
    candidates = sorted(
        g.labels[i]
        for i in ctx.closure.tolist()
        if i != ctx.root and gpu_specific(g, i, contributors)
    )
    hint = (
        f"; GPU-specific targets in its closure (by tag, kind or .cu sources): "
        f"{', '.join(candidates)}"
        if candidates
        else ""
    )
    return _binary_wide(
        ctx,
        b,
        containers,
        common,
        "which linked input contributed it is unknown (pass the linker map with --linkmap, "
        f"or the static libraries with --binary){hint}",
        [],
        Confidence.HIGH,
        candidates=tuple(candidates),
    )


def _binary_wide(
    ctx: AnalysisContext,
    b: DeviceCode,
    containers: list[FatbinContainer],
    common: _Common,
    why: str,
    evidence: list[Evidence],
    confidence: Confidence,
    targets: tuple[TargetShare, ...] = (),
    candidates: tuple[str, ...] = (),
) -> Finding:
    entries = [e for c in containers for e in c.entries]
    kernels = kernel_names(entries)
    arch_bytes = by_arch(entries)
    total = sum(c.size for c in containers)
    details = KernelsDetails(
        binary=common.binary,
        cpu_only_source=common.reason,
        kernels=tuple(kernels),
        archs=arch_rows(entries, dict.fromkeys(arch_bytes, "in CPU-only binary")),
        bytes=total,
        targets=targets,
        binary_match=common.binary_match,
        candidates=candidates,
    )
    return on_root(
        GPU_KERNELS,
        ctx.root_label,
        "gpu-code-in-cpu-binary",
        f"{ctx.root_label} is CPU-only ({common.reason}) but carries {len(kernels)} CUDA "
        f"kernel(s) for {', '.join(arch_bytes)} ({fmt_bytes(total)} of device code: "
        f"{', '.join(kernels[:8]) or 'no kernel symbols'}); {why}",
        confidence=confidence,
        evidence=tuple(evidence + [container_evidence(b, c) for c in containers]),
        saving=Saving(bytes=total, bytes_basis="fatbin bytes"),
        details=details,
    )
