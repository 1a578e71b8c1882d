"""Who contributed a binary's device code, and where the GPU-only part of the graph starts.

The root's binary is chosen among the device-code facts by ownership or name. Each fatbin
container is charged to the linked input that brought it (linker-map `.nv_fatbin` input
sections at the container's address, or a byte-identical container in a given object or
archive member), then to that input's target. From the contributors, the first edges from
non-GPU code into the GPU-specific targets, and a CPU sibling to point such an edge at.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from slim.model.context import AnalysisContext
from slim.model.findings import Evidence
from slim.model.gpu import DeviceCode, FatbinContainer, FatbinEntry
from slim.model.graph import CODE_KINDS, BuildGraph
from slim.model.labels import label_name, label_package
from slim.model.native import LinkMap
from slim.model.ownership import Ownership

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
class Share:
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
def code_path(graph: BuildGraph, source: int, dest: int) -> list[int]:
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


def is_cpu_only(ctx: AnalysisContext, binary: int) -> bool:
    """Whether another binary of the graph is CPU-only (its options, else its tags)."""
    if binary == ctx.root:
        return True
    label = ctx.graph.labels[binary]
    opts = ctx.options_of(label)
    if opts.cpu_only is not None:
        return opts.cpu_only
    tags = {t.lower() for t in ctx.graph.tags.get(binary, ())}
    return any(t.lower() in tags for t in opts.cpu_only_tags)
