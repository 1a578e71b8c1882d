"""CUDA device code where it does not belong: SLIM003 and SLIM005.

SLIM003: a CPU-only root binary whose fatbins carry kernels. Each container is charged to
the linked input that brought it (linker-map `.nv_fatbin` input sections at the
container's address, or a byte-identical container in a given object/archive member),
then to that input's target; the finding names the first edge from non-GPU code into the
GPU-only subgraph and proposes cutting it, or pointing it at a CPU sibling.
SLIM005: fatbin entries for architectures the binary is not deployed on (`--cuda-archs`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from slim.model.actions import DropArchs, Remove, Replace
from slim.model.context import AnalysisContext, consumers, has_native_code
from slim.model.findings import Confidence, Evidence, Finding, Rule, Saving
from slim.model.gpu import DeviceCode, FatbinContainer, FatbinEntry, arch_name, parse_arch
from slim.model.graph import CODE_KINDS, BuildGraph
from slim.model.labels import label_name, label_package
from slim.model.native import LinkMap
from slim.model.ownership import Ownership
from slim.model.plugin import AnalyzerSpec

from ._gpu_details import ArchBytes, ArchsDetails, KernelsDetails, TargetShare

GPU_KERNELS = Rule(
    code="SLIM003",
    name="gpu-kernels-in-cpu-binary",
    summary="A CPU-only binary carries CUDA kernels (fatbins) that can never run.",
    help=(
        "The binary is CPU-only (a tag such as `cpu-only`, `cpu_only = true` in slim.toml, or "
        "--cpu-only) but its .nv_fatbin holds device code. slim names the kernels, the "
        "architectures and bytes, the target that brought them in (from the linker map or "
        "byte-identical fatbins in the given archives) and the first edge from non-GPU code "
        "into the GPU-only targets: cut it, or point it at the CPU variant when one exists."
    ),
)
UNUSED_ARCH = Rule(
    code="SLIM005",
    name="unused-cuda-arch",
    summary="Fatbin entries for GPU architectures the binary is never deployed on.",
    help=(
        "Given the deployed architectures (--cuda-archs sm_80,sm_90 or `cuda_archs` in "
        "slim.toml), cubins that no deployed GPU can load are dead weight: drop their "
        "-gencode flags. A cubin for sm_XY runs on sm_XZ with Z >= Y. PTX is JIT-compiled "
        "on newer GPUs and is reported as kept for forward compatibility, not as waste."
    ),
)
UNREADABLE = Rule(
    code="SLIM930",
    name="device-code-unreadable",
    summary="Part of a binary's CUDA device code could not be read.",
    help=(
        "A fatbin container or entry was corrupt, truncated or over the decompression "
        "limits. The rest of the binary was analyzed; GPU findings for it may be incomplete."
    ),
)

GPU_TAGS = frozenset(
    {"gpu", "cuda", "requires-gpu", "requires_gpu", "gpu-only", "gpu_only", "cuda-only"}
)
_DEVICE_SUFFIXES = (".cu", ".cuh")
_FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")


@dataclass(frozen=True, slots=True)
class Attribution:
    """Who contributed one container: the linked input, its owner, and how we know."""

    container: FatbinContainer
    input: str
    owner: int | None
    how: str
    evidence: Evidence


@dataclass
class _Share:
    """Device code charged to one contributing target."""

    containers: list[FatbinContainer] = field(default_factory=list)
    inputs: set[str] = field(default_factory=set)
    evidence: list[Evidence] = field(default_factory=list)
    how: set[str] = field(default_factory=set)

    @property
    def entries(self) -> list[FatbinEntry]:
        return [e for c in self.containers for e in c.entries]

    @property
    def bytes(self) -> int:
        return sum(c.size for c in self.containers)


# -- selecting the root's binary ------------------------------------------------------------
def _stem(path: str) -> str:
    name = PurePosixPath(path).name
    return name.split(".", 1)[0] if not name.startswith(".") else name


def root_binaries(ctx: AnalysisContext) -> tuple[list[DeviceCode], str]:
    """The root's executables/shared libraries among the device-code facts, and why."""
    own = Ownership.of(ctx.graph)
    name = label_name(ctx.root_label)
    linked = [
        d
        for d in ctx.facts.of(DeviceCode)
        if not d.member and (d.is_linked or (d.errors and not d.kind))
    ]
    mine = []
    for d in linked:
        owner = own.artifact_owner(d.path)
        stem = _stem(d.path)
        if owner == ctx.root or (owner is None and stem in (name, f"lib{name}")):
            mine.append(d)
    if mine:
        return sorted(mine, key=lambda d: d.path), "matched by name/ownership"
    unowned = [d for d in linked if own.artifact_owner(d.path) is None]
    if len(linked) == 1 and len(unowned) == 1:
        return unowned, "the only executable given"
    return [], ""


# -- attribution ----------------------------------------------------------------------------
def attribute(ctx: AnalysisContext, binary: DeviceCode) -> list[Attribution | None]:
    """For each container of `binary`: who contributed it, or None when unknown."""
    own = Ownership.of(ctx.graph)
    by_address = _map_sections(ctx, binary)
    by_digest: dict[str, list[DeviceCode]] = defaultdict(list)
    for d in ctx.facts.of(DeviceCode):
        if d.kind in ("rel", "fatbin"):
            for c in d.containers:
                if c.digest:
                    by_digest[c.digest].append(d)
    out: list[Attribution | None] = []
    for c in binary.containers:
        hit = by_address.get(c.address) if c.address else None
        if hit is not None:
            lm, file, line = hit
            owner = own.artifact_owner(file)
            ev = Evidence(
                lm.path,
                f"{file} contributed the {c.section} input section at {c.address:#x} "
                f"({c.size} bytes)",
                line=line,
                analyzer="gpu_kernels",
            )
            out.append(Attribution(c, file, owner, "linkmap", ev))
            continue
        objs = by_digest.get(c.digest, []) if c.digest else []
        owners = {own.artifact_owner(d.name) for d in objs}
        if objs and len(owners) == 1:
            d = objs[0]
            ev = Evidence(
                d.path,
                f"{d.name} holds a byte-identical fatbin container ({c.size} bytes)",
                offset=next(x.offset for x in d.containers if x.digest == c.digest),
                analyzer="gpu_kernels",
            )
            out.append(Attribution(c, d.name, owners.pop(), "identical bytes", ev))
            continue
        out.append(None)
    return out


def _map_sections(ctx: AnalysisContext, binary: DeviceCode) -> dict[int, tuple[LinkMap, str, int]]:
    """Start address -> (map, input file, line) of fatbin input sections of this binary's maps."""
    maps = ctx.facts.of(LinkMap)
    stem = _stem(binary.path)
    named = [m for m in maps if stem in (_stem(m.output), _stem(m.path))]
    starts = {c.address for c in binary.containers if c.address}
    out: dict[int, tuple[LinkMap, str, int]] = {}
    for m in sorted(named or maps, key=lambda m: m.path):
        found: dict[int, tuple[LinkMap, str, int]] = {}
        for inp in m.inputs:
            for s in inp.sections:
                if s.name in _FATBIN_SECTIONS and s.address in starts and s.size:
                    found[s.address] = (m, inp.file, s.line)
        if found and (named or set(found) == starts):
            for k, v in found.items():
                out.setdefault(k, v)
    return out


# -- the GPU-only subgraph ---------------------------------------------------------------------
def gpu_specific(graph: BuildGraph, i: int, contributors: Iterable[int] = ()) -> bool:
    """Device code is its purpose: it contributes fatbins, or a tag/kind/source says CUDA."""
    if i in set(contributors):
        return True
    t = graph.target(i)
    if {x.lower() for x in t.tags} & GPU_TAGS:
        return True
    if "cuda" in t.kind.lower():
        return True
    return any(s.endswith(_DEVICE_SUFFIXES) for s in t.srcs)


def entry_edges(graph: BuildGraph, root: int, contributors: set[int]) -> list[tuple[int, int]]:
    """First edges from non-GPU code into GPU-specific targets that reach a contributor."""
    reaches = set(graph.reverse_closure(sorted(contributors), CODE_KINDS).tolist())
    gpu = {i for i in reaches if gpu_specific(graph, i, contributors)}
    if root in gpu:
        return []
    seen = {root}
    frontier = [root]
    edges: set[tuple[int, int]] = set()
    while frontier:
        nxt = []
        for u in frontier:
            for e in graph.out_edges(u, CODE_KINDS):
                v = e.dep
                if v not in reaches:
                    continue
                if v in gpu:
                    edges.add((u, v))
                elif v not in seen:
                    seen.add(v)
                    nxt.append(v)
        frontier = nxt
    return sorted(edges, key=lambda uv: (graph.labels[uv[0]], graph.labels[uv[1]]))


def cpu_variant(
    graph: BuildGraph, gpu_target: int, contributors: set[int]
) -> tuple[int, bool] | None:
    """A sibling target without device code offering the same API: (id, shares a header)."""
    t = graph.target(gpu_target)
    pkg = label_package(t.label)
    files = {PurePosixPath(s).name for s in t.srcs if not s.endswith(_DEVICE_SUFFIXES)}
    base = t.name.lower()
    names = {base.replace(w, "cpu") for w in ("cuda", "gpu") if w in base}
    found: list[tuple[bool, str, int]] = []
    for i, lab in enumerate(graph.labels):
        if i == gpu_target or label_package(lab) != pkg or not graph.kinds[i]:
            continue
        if i in contributors or gpu_specific(graph, i, contributors):
            continue
        other = graph.target(i)
        both_libs = other.kind.endswith("library") and t.kind.endswith("library")
        if other.kind != t.kind and not both_libs:
            continue
        shared = bool(files & {PurePosixPath(s).name for s in other.srcs})
        if shared or other.name.lower() in names:
            found.append((not shared, lab, i))
    if not found:
        return None
    _, _, best = min(found)
    return best, not min(found)[0]


# -- helpers -----------------------------------------------------------------------------------
def _path(graph: BuildGraph, source: int, dest: int) -> list[int]:
    """One shortest code path source -> dest (just [source] when they are the same)."""
    if source == dest:
        return [source]
    paths = graph.shortest_paths(source, dest, CODE_KINDS, limit=1)
    return paths[0] if paths else [source, dest]


def cpu_only(ctx: AnalysisContext) -> tuple[bool, str]:
    """Whether the root is CPU-only, and what says so (resolved once by the session:
    flag, per-target config, a tag on the root, or the global config)."""
    opts = ctx.options
    if opts.cpu_only is not None:
        return opts.cpu_only, opts.cpu_only_source
    tags = {t.lower(): t for t in ctx.root_target.tags}
    for want in opts.cpu_only_tags:
        if want.lower() in tags:
            return True, f"tag '{tags[want.lower()]}' on {ctx.root_label}"
    return False, ""


def _is_cpu_only(ctx: AnalysisContext, binary: int) -> bool:
    """Whether another binary of the graph is CPU-only (its options, else its tags)."""
    if binary == ctx.root:
        return True
    label = ctx.graph.labels[binary]
    opts = ctx.options_of(label)
    if opts.cpu_only is not None:
        return opts.cpu_only
    tags = {t.lower() for t in ctx.graph.tags.get(binary, ())}
    return any(t.lower() in tags for t in opts.cpu_only_tags)


def deployed_archs(ctx: AnalysisContext) -> tuple[str, ...]:
    """The GPU architectures the root is deployed on (`--cuda-archs` or the config)."""
    return ctx.options.cuda_archs


def _fmt_bytes(n: int) -> str:
    return f"{n:,} bytes"


def _arch_key(name: str) -> tuple[int, int, str]:
    return (parse_arch(name) or 0, name.startswith("compute"), name)


def _by_arch(entries: Iterable[FatbinEntry]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for e in entries:
        out[e.arch_name] += e.stored_bytes
    return dict(sorted(out.items(), key=lambda kv: _arch_key(kv[0])))


def _kernels(entries: Iterable[FatbinEntry]) -> list[str]:
    names = {k.mangled: k.display for e in entries for k in e.kernels or ()}
    return sorted(names.values())


def _container_evidence(binary: DeviceCode, c: FatbinContainer) -> Evidence:
    parts = ", ".join(
        f"{e.arch_name} {e.kind} {e.stored_bytes} B" + (f" {e.compression}" if e.compressed else "")
        for e in c.entries
    )
    kernels = _kernels(c.entries)
    shown = "; kernels: " + ", ".join(kernels) if kernels else "; no kernels"
    return Evidence(
        binary.path,
        f"fatbin container at {c.section}+{c.section_offset:#x}: {parts}{shown}",
        offset=c.offset,
        analyzer="gpu_kernels",
    )


def _archs(entries: Iterable[FatbinEntry], status: dict[str, str]) -> tuple[ArchBytes, ...]:
    return tuple(ArchBytes(a, n, status.get(a, "")) for a, n in _by_arch(entries).items())


@dataclass(frozen=True)
class _Common:
    """What every SLIM003 finding of one binary shares."""

    reason: str
    binary: str
    binary_match: str = ""


# -- the analyzer ------------------------------------------------------------------------------
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
    shares: dict[int, _Share],
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
            " -> ".join(g.labels[x] for x in to_u + _path(g, v, t)),
        )
        for t in mine
    )
    return KernelsDetails(
        binary=common.binary,
        cpu_only_source=common.reason,
        kernels=tuple(_kernels(entries)),
        archs=_archs(entries, dict.fromkeys(_by_arch(entries), "in CPU-only binary")),
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
    gpu_users: list[str],
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
        f"kernel(s) for {archs} ({_fmt_bytes(d.bytes)} of device code) from {sources}{via}: "
        f"{names}. Cut {d.cut}, the first edge into GPU-only code{variant}"
        + ("" if cut_ok else " (other paths still reach the kernels)")
    )
    src, dep = edge
    if d.also_reached_from:
        message += (
            f". {dep} is also linked directly by {', '.join(d.also_reached_from)} (a "
            "propagated PUBLIC link goes away with the cut; a declared one must be cut too)"
        )
    if gpu_users:
        message += (
            f". Not removable: the edge is shared, and {', '.join(gpu_users)} "
            f"{'is' if len(gpu_users) == 1 else 'are'} not CPU-only and may need the "
            f"kernels; give {ctx.root_label} its own CPU build of {src} instead"
        )
    return message


class GpuKernels:
    """SLIM003 for CPU-only roots, SLIM005 when the deployed architectures are known."""

    def analyze(self, ctx: AnalysisContext) -> Iterator[Finding]:
        is_cpu, reason = cpu_only(ctx)
        archs = deployed_archs(ctx)
        binaries, basis = root_binaries(ctx)
        if not binaries:
            if is_cpu or archs:
                yield self._not_found(ctx)
            return
        for b in binaries:
            yield from self._unreadable(ctx, b)
            if not b.has_device_code:
                continue
            if is_cpu:
                yield from self._gpu_in_cpu(ctx, b, reason, basis)
            elif archs:
                yield from self._unused_archs(ctx, b, archs)

    # SLIM900 ------------------------------------------------------------------------------
    def _not_found(self, ctx: AnalysisContext) -> Finding:
        given = sorted({d.path for d in ctx.facts.of(DeviceCode) if d.is_linked})
        what = f" (given: {', '.join(given)})" if given else ""
        return Finding(
            code="SLIM900",
            name="evidence-missing",
            target=ctx.root_label,
            dep="",
            root=ctx.root_label,
            verdict="not-checked",
            message=f"SLIM003/SLIM005 not checked: no executable or shared library of "
            f"{ctx.root_label} among the --binary inputs{what}",
            confidence=Confidence.HIGH,
            removable=False,
        )

    def _unreadable(self, ctx: AnalysisContext, b: DeviceCode) -> Iterator[Finding]:
        if not b.errors:
            return
        evidence = []
        for err in b.errors:
            offset = None
            if ": byte " in err:
                tail = err.split(": byte ", 1)[1].split(":", 1)[0]
                offset = int(tail) if tail.isdigit() else None
            evidence.append(Evidence(b.path, err, offset=offset, analyzer="gpu_kernels"))
        yield Finding(
            code=UNREADABLE.code,
            name=UNREADABLE.name,
            target=ctx.root_label,
            dep="",
            root=ctx.root_label,
            verdict="partial",
            message=f"{len(b.errors)} part(s) of the device code of {b.path} could not be "
            f"read; GPU findings for it may be incomplete: {b.errors[0]}",
            confidence=Confidence.HIGH,
            removable=False,
            evidence=tuple(evidence),
        )

    # SLIM003 ------------------------------------------------------------------------------
    def _gpu_in_cpu(
        self, ctx: AnalysisContext, b: DeviceCode, reason: str, basis: str
    ) -> Iterator[Finding]:
        g = ctx.graph
        closure = set(ctx.closure.tolist())
        shares: dict[int, _Share] = defaultdict(_Share)
        unknown: list[FatbinContainer] = []
        outside: dict[str, list[FatbinContainer]] = defaultdict(list)
        for c, a in zip(b.containers, attribute(ctx, b), strict=True):
            if not c.entries:
                continue
            if a is None:
                unknown.append(c)
            elif a.owner is None or a.owner not in closure:
                outside[a.input].append(c)
            else:
                s = shares[a.owner]
                s.containers.append(c)
                s.inputs.add(a.input)
                s.evidence.append(a.evidence)
                s.how.add(a.how)
        unknown, outside = self._device_linked(b, shares, unknown, outside)
        contributors = set(shares)
        common = _Common(reason, b.path, basis)
        done: set[int] = set()
        if ctx.root in contributors:
            done.add(ctx.root)
            yield self._binary_wide(
                ctx,
                b,
                shares[ctx.root].containers,
                common,
                f"{ctx.root_label}'s own objects carry the device code (its sources are "
                "compiled by nvcc)",
                shares[ctx.root].evidence,
                Confidence.HIGH,
            )
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
            hops = {u: _path(g, ctx.root, u) for u in us}
            u = max(us, key=lambda x: (len(hops[x]), g.labels[x]))
            also = sorted((x for x in us if x != u), key=lambda x: g.labels[x])
            yield self._edge_finding(
                ctx, b, (u, v), hops[u], also, mine, shares, contributors, common, cut_ok
            )
            done.update(mine)
        for t in sorted(contributors - done, key=lambda i: g.labels[i]):
            yield self._binary_wide(
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
        if unknown:
            yield self._unattributed(ctx, b, unknown, common, contributors)
        for inp, cs in sorted(outside.items()):
            yield self._binary_wide(
                ctx,
                b,
                cs,
                common,
                f"the device code comes from {inp}, which no target in the closure of "
                f"{ctx.root_label} owns (a prebuilt or toolchain library?)",
                [],
                Confidence.MEDIUM,
            )

    @staticmethod
    def _device_linked(
        b: DeviceCode,
        shares: dict[int, _Share],
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
        self,
        ctx: AnalysisContext,
        b: DeviceCode,
        edge: tuple[int, int],
        to_u: list[int],
        also: list[int],
        mine: list[int],
        shares: dict[int, _Share],
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
        gpu_users = [g.labels[c] for c in consumers(ctx, u) if not _is_cpu_only(ctx, c)]
        exact = all(shares[t].how for t in mine)
        src, dep = g.labels[u], g.labels[v]
        return Finding(
            code=GPU_KERNELS.code,
            name=GPU_KERNELS.name,
            target=src,
            dep=dep,
            root=ctx.root_label,
            verdict="gpu-code-in-cpu-binary",
            message=_edge_message(ctx, (src, dep), details, mine, cut_ok, gpu_users),
            confidence=Confidence.HIGH if exact and cut_ok else Confidence.MEDIUM,
            removable=w is not None and cut_ok and not gpu_users,
            attribute=attr,
            location=g.edge_location(u, v),
            evidence=tuple(
                [ev for t in mine for ev in shares[t].evidence]
                + [_container_evidence(b, c) for t in mine for c in shares[t].containers]
            ),
            action=Replace(src, dep, g.labels[w], attr)
            if w is not None
            else Remove(src, dep, attr),
            saving=Saving(bytes=details.bytes, bytes_basis="fatbin bytes"),
            details=details,
        )

    def _unattributed(
        self,
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
        return self._binary_wide(
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
        self,
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
        kernels = _kernels(entries)
        arch_bytes = _by_arch(entries)
        total = sum(c.size for c in containers)
        details = KernelsDetails(
            binary=common.binary,
            cpu_only_source=common.reason,
            kernels=tuple(kernels),
            archs=_archs(entries, dict.fromkeys(arch_bytes, "in CPU-only binary")),
            bytes=total,
            targets=targets,
            binary_match=common.binary_match,
            candidates=candidates,
        )
        return Finding(
            code=GPU_KERNELS.code,
            name=GPU_KERNELS.name,
            target=ctx.root_label,
            dep="",
            root=ctx.root_label,
            verdict="gpu-code-in-cpu-binary",
            message=(
                f"{ctx.root_label} is CPU-only ({common.reason}) but carries {len(kernels)} CUDA "
                f"kernel(s) for {', '.join(arch_bytes)} ({_fmt_bytes(total)} of device code: "
                f"{', '.join(kernels[:8]) or 'no kernel symbols'}); {why}"
            ),
            confidence=confidence,
            removable=False,
            evidence=tuple(evidence + [_container_evidence(b, c) for c in containers]),
            saving=Saving(bytes=total, bytes_basis="fatbin bytes"),
            details=details,
        )

    # SLIM005 ------------------------------------------------------------------------------
    def _unused_archs(
        self, ctx: AnalysisContext, b: DeviceCode, archs: tuple[str, ...]
    ) -> Iterator[Finding]:
        g = ctx.graph
        deployed = sorted({a for a in (parse_arch(x) for x in archs) if a is not None})
        groups: dict[str, tuple[list[FatbinContainer], list[Evidence]]] = defaultdict(
            lambda: ([], [])
        )
        for c, a in zip(b.containers, attribute(ctx, b), strict=True):
            owner = g.labels[a.owner] if a is not None and a.owner is not None else ctx.root_label
            groups[owner][0].append(c)
            if a is not None:
                groups[owner][1].append(a.evidence)
        for owner, (containers, attributions) in sorted(groups.items()):
            f = _arch_finding(ctx, b, owner, containers, attributions, deployed)
            if f is not None:
                yield f


def _arch_finding(
    ctx: AnalysisContext,
    b: DeviceCode,
    owner: str,
    containers: list[FatbinContainer],
    attributions: list[Evidence],
    deployed: list[int],
) -> Finding | None:
    """SLIM005 for one owner's containers: entries no deployed GPU can load, or a deployed
    GPU with no image at all; None when every entry has its use."""
    entries = [e for c in containers for e in c.entries]
    status = _arch_status(entries, deployed)
    unused = [e for e in entries if status[e.arch_name] == "unused"]
    missing = [d for d in deployed if status.get(f"sm_{d}") == "no image"]
    if not unused and not missing:
        return None
    drop = sorted({e.arch for e in unused})
    flags = " ".join(f"-gencode arch=compute_{a},code=sm_{a}" for a in drop)
    waste = sum(e.stored_bytes for e in unused)
    rows = _archs(entries, status) + tuple(ArchBytes(f"sm_{d}", 0, "no image") for d in missing)
    details = ArchsDetails(
        binary=b.path,
        deployed=tuple(arch_name(d) for d in deployed),
        archs=rows,
        unused_bytes=waste,
        gencode_drop=flags,
    )
    return Finding(
        code=UNUSED_ARCH.code,
        name=UNUSED_ARCH.name,
        target=owner,
        dep="",
        root=ctx.root_label,
        verdict="unused-arch" if unused else "missing-arch",
        message=f"{b.path}: " + "; ".join(_arch_parts(entries, drop, waste, details, owner)),
        confidence=Confidence.HIGH,
        removable=False,
        evidence=tuple(attributions + [_container_evidence(b, c) for c in containers]),
        action=DropArchs(owner, tuple(arch_name(a) for a in drop), flags) if unused else None,
        saving=Saving(bytes=waste, bytes_basis="fatbin bytes") if unused else None,
        details=details,
    )


def _arch_parts(
    entries: list[FatbinEntry], drop: list[int], waste: int, d: ArchsDetails, owner: str
) -> list[str]:
    parts = []
    if drop:
        n = sum(1 for e in entries if e.arch in drop and e.is_cubin)
        parts.append(
            f"{n} fatbin entr{'y' if n == 1 else 'ies'} for "
            f"{', '.join(arch_name(a) for a in drop)} ({_fmt_bytes(waste)}) cannot load "
            f"on the deployed {', '.join(d.deployed)}: drop {d.gencode_drop} "
            f"from the nvcc flags of {owner}"
        )
    ptx = sorted({e.arch_name for e in entries if e.is_ptx}, key=_arch_key)
    if ptx:
        parts.append(f"PTX {', '.join(ptx)} kept for forward compatibility (JIT), not waste")
    parts += [
        f"no cubin or PTX in it can run on the deployed {a.arch}"
        for a in d.archs
        if a.status == "no image"
    ]
    return parts


def _arch_status(entries: list[FatbinEntry], deployed: list[int]) -> dict[str, str]:
    """Per `sm_NN`/`compute_NN`: deployed, unused, ptx (JIT or forward compatibility)."""
    status: dict[str, str] = {}
    cubin_runs: set[int] = set()
    for e in entries:
        if not e.is_cubin:
            continue
        runs_on = [d for d in deployed if d // 10 == e.arch // 10 and d >= e.arch]
        cubin_runs.update(runs_on)
        status[e.arch_name] = "deployed" if runs_on else "unused"
    for e in entries:
        if e.is_ptx:
            jit = [d for d in deployed if d >= e.arch and d not in cubin_runs]
            status[e.arch_name] = (
                f"ptx: JIT for {','.join(arch_name(d) for d in jit)}"
                if jit
                else "ptx: forward compatibility"
            )
    for d in deployed:
        if d not in cubin_runs and not any(e.is_ptx and d >= e.arch for e in entries):
            status[f"sm_{d}"] = "no image"
    for e in entries:
        status.setdefault(e.arch_name, "other")
    return status


SPEC = AnalyzerSpec(
    name="gpu-kernels",
    rules=(GPU_KERNELS, UNUSED_ARCH, UNREADABLE),
    requires=frozenset({"binary"}),
    factory=GpuKernels,
    missing_hint="Pass the binary (--binary bazel-bin/app/app) and, to charge each kernel to "
    "its target, the linker map (--linkmap) or the static libraries (--binary lib.a).",
    applies=has_native_code,
)

__all__ = ["SPEC", "GpuKernels"]
