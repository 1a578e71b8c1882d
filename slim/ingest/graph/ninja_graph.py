"""`ninja -t graph`: build edges between FILES, read back into targets.

The DOT has pointer ids (different on every run; nodes are keyed by their `label`, the
path), file nodes, ellipse nodes for build edges with several inputs or outputs (`edge ->
output`, `input -> edge [arrowhead=none]`, order-only inputs `style=dotted`) and direct
`in -> out [label=" rule"]` edges for one-input, one-output build edges. Nodes ninja did
not visit carry no label and are skipped (a note counts them).

Model: a target is the output of a link or archive edge (CMake's
`<LANG>_{EXECUTABLE,STATIC_LIBRARY,SHARED_LIBRARY,MODULE_LIBRARY}_LINKER__<name>_<config>`
rules, or any rule whose name contains `link`, or that writes `.a/.so/.dylib/.dll/.lib`),
or a bare-named phony that groups objects (a CMake object library, kind `object_library`)
or anything else (a custom target, kind `custom`). A phony naming exactly one target's
output is an alias, and so are the outputs of a `*SYMLINK*` edge (CMake's versioned
`libfoo.so -> libfoo.so.1.2` links). Labels follow `cmake_fileapi.cmake_label`: CMake
targets are `//<dir>:<name>` (dir from the target's `<dir>/CMakeFiles/<name>.dir/`
objects, else the output's directory), other outputs `//<dir>:<file name>`. Objects belong
to the target whose `CMakeFiles/<name>.dir/` holds them, else to the phony group listing
them, else to the one link consuming them; they and the target's outputs become
artifacts, and the sources compiled into them the target's `srcs`. Target A depends on B
when an input of A's edge is B's output or an object B owns (`EdgeKind.UNTYPED`; only
order-only: ORDER_ONLY; reached through another of A's deps too: IMPLICIT, as A's link
line names it only because that dep needs it).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from slim.ingest.graph.cmake_fileapi import cmake_label
from slim.ingest.graph.dot import DotEdge, DotNode, graph_name, parse_file
from slim.model.graph import EdgeKind, GraphBuilder

_CMAKE_LINK = re.compile(
    r"^\w+?_(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|SHARED_MODULE)_LINKER__(.+)$"
)
_CMAKE_OBJDIR = re.compile(r"^(?:(.*)/)?CMakeFiles/([^/]+)\.dir/")
CMAKE_KINDS = {
    "EXECUTABLE": "executable",
    "STATIC_LIBRARY": "static_library",
    "SHARED_LIBRARY": "shared_library",
    "MODULE_LIBRARY": "module_library",
    "SHARED_MODULE": "module_library",
}
EXT_KINDS = {
    ".a": "static_library",
    ".lib": "static_library",
    ".so": "shared_library",
    ".dylib": "shared_library",
    ".dll": "shared_library",
}
OBJECT_EXTS = (".o", ".obj")
SKIP_PHONIES = frozenset(
    {"all", "clean", "install", "help", "test", "package", "edit_cache", "rebuild_cache"}
)


@dataclass
class BuildEdge:
    """One ninja build statement as the graph shows it."""

    rule: str
    inputs: list[str] = field(default_factory=list)
    order_only: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)


def sniff(head: bytes, path: Path) -> bool:
    return graph_name(head) == "ninja"


def read_edges(path: Path) -> tuple[list[BuildEdge], int]:
    """The build edges of a `-t graph` file and how many unlabeled node ids were skipped."""
    labels: dict[str, str] = {}
    rules: dict[str, BuildEdge] = {}
    links: list[DotEdge] = []
    for st in parse_file(path):
        if isinstance(st, DotNode):
            label = st.attrs.get("label", st.id)
            if st.attrs.get("shape") == "ellipse":
                rules[st.id] = BuildEdge(label)
            else:
                labels[st.id] = label
        elif isinstance(st, DotEdge):
            links.append(st)
    edges = list(rules.values())
    unlabeled: set[str] = set()
    for e in links:
        if e.src in rules:
            if e.dst in labels:
                rules[e.src].outputs.append(labels[e.dst])
            else:
                unlabeled.add(e.dst)
        elif e.dst in rules:
            if e.src in labels:
                side = (
                    rules[e.dst].order_only
                    if e.attrs.get("style") == "dotted"
                    else rules[e.dst].inputs
                )
                side.append(labels[e.src])
            else:
                unlabeled.add(e.src)
        elif e.src in labels and e.dst in labels:
            edges.append(
                BuildEdge(e.attrs.get("label", "").strip(), [labels[e.src]], [], [labels[e.dst]])
            )
        else:
            unlabeled.update(x for x in (e.src, e.dst) if x not in labels)
    return edges, len(unlabeled)


def _is_object(p: str) -> bool:
    return p.endswith(OBJECT_EXTS)


def link_target(e: BuildEdge) -> tuple[str, str] | None:
    """(name, kind) when `e` links or archives a target, None otherwise."""
    if not e.outputs or e.rule == "phony" or "symlink" in e.rule.lower():
        return None
    out = e.outputs[0]
    base = posixpath.basename(out)
    m = _CMAKE_LINK.match(e.rule)
    if m is not None:
        # CMake >= 3.20 appends `_<config>` (maybe empty); prefer what the output name shows.
        rest = m.group(2)
        stripped = rest.rpartition("_")[0] if "_" in rest else rest
        return (rest if rest in base else stripped), CMAKE_KINDS[m.group(1)]
    ext = posixpath.splitext(base)[1].lower()
    if ".so." in base:
        ext = ".so"
    if "link" in e.rule.lower() or ext in EXT_KINDS:
        return base, EXT_KINDS.get(ext, "executable")
    return None


class _Model:
    def __init__(self, edges: list[BuildEdge]) -> None:
        self.edges = edges
        self.producer: dict[str, BuildEdge] = {}
        for e in edges:
            for o in e.outputs:
                self.producer.setdefault(o, e)
        self.label_of_edge: dict[int, str] = {}
        self.kind: dict[str, str] = {}
        self.rule: dict[str, str] = {}
        self.target_of_path: dict[str, str] = {}
        self.owner: dict[str, str] = {}

    def targets(self) -> None:
        for e in self.edges:
            lt = link_target(e)
            if lt is None:
                continue
            name, kind = lt
            directory = posixpath.dirname(e.outputs[0])
            for p in e.inputs:
                m = _CMAKE_OBJDIR.match(p)
                if m is not None and m.group(2) == name:
                    directory = m.group(1) or ""
                    break
            self.add(e, cmake_label(directory, name), kind)
        for e in self.edges:  # libfoo.so, libfoo.so.1 -> libfoo.so.1.2 (CMake VERSION)
            if "symlink" in e.rule.lower():
                owners = {self.target_of_path.get(p) for p in e.inputs}
                owner = owners.pop() if len(owners) == 1 else None
                if owner is not None:
                    for o in e.outputs:
                        self.target_of_path.setdefault(o, owner)
        for e in self.edges:
            if e.rule != "phony" or len(e.outputs) != 1:
                continue
            out = e.outputs[0]
            if "/" in out or out in SKIP_PHONIES or out.startswith("cmake_") or not e.inputs:
                continue
            owners = {self.target_of_path.get(p) for p in e.inputs}
            alias_of = owners.pop() if len(owners) == 1 else None
            if alias_of is not None:
                self.target_of_path[out] = alias_of
                continue
            kind = "object_library" if all(_is_object(p) for p in e.inputs) else "custom"
            self.add(e, cmake_label("", out), kind)

    def add(self, e: BuildEdge, label: str, kind: str) -> None:
        self.label_of_edge[id(e)] = label
        self.kind.setdefault(label, kind)
        self.rule.setdefault(label, e.rule)
        for o in e.outputs:
            self.target_of_path.setdefault(o, label)

    def ownership(self) -> int:
        known = set(self.label_of_edge.values())
        consumers: dict[str, set[str]] = {}
        groups: dict[str, str] = {}
        for e in self.edges:
            label = self.label_of_edge.get(id(e))
            if label is None:
                continue
            for p in e.inputs:
                if _is_object(p):
                    consumers.setdefault(p, set()).add(label)
                    if e.rule == "phony":
                        groups.setdefault(p, label)
        unowned = 0
        for obj in sorted(consumers):
            m = _CMAKE_OBJDIR.match(obj)
            cmake = cmake_label(m.group(1) or "", m.group(2)) if m else None
            if cmake in known:
                self.owner[obj] = cmake
            elif obj in groups:
                self.owner[obj] = groups[obj]
            elif len(consumers[obj]) == 1:
                self.owner[obj] = next(iter(consumers[obj]))
            else:
                unowned += 1
        return unowned

    def provider(self, path: str) -> str | None:
        return self.target_of_path.get(path) or self.owner.get(path)


def _reached_through_others(owner: str, direct: dict[str, set[str]]) -> set[str]:
    """Targets `owner` reaches through one of its direct deps (a static library's own
    deps on the link line): those edges are not the owner's own, they become IMPLICIT."""
    seen: set[str] = set()
    stack = [c for d in direct[owner] for c in direct.get(d, ())]
    while stack:
        x = stack.pop()
        if x not in seen:
            seen.add(x)
            stack.extend(direct.get(x, ()))
    return seen


def load(path: Path, builder: GraphBuilder) -> None:
    """Read `ninja -t graph` output into `builder` (model in the module docstring)."""
    edges, unlabeled = read_edges(path)
    m = _Model(edges)
    m.targets()
    unowned = m.ownership()
    srcs: dict[str, set[str]] = {}
    for obj, owner in m.owner.items():
        builder.add_artifact(obj, owner)
        producer = m.producer.get(obj)
        if producer is not None:
            for p in producer.inputs:
                if p not in m.producer and not _is_object(p):
                    srcs.setdefault(owner, set()).add(p)
    for label in sorted(m.kind):
        builder.add_target(
            label,
            m.kind[label],
            srcs=sorted(srcs.get(label, ())),
            attrs={"ninja_rule": m.rule[label]},
        )
    for p, label in sorted(m.target_of_path.items()):
        producer = m.producer.get(p)
        if producer is not None and producer.rule != "phony":
            builder.add_artifact(p, label)
    direct: dict[str, set[str]] = {}
    order: dict[str, set[str]] = {}
    for e in edges:
        edge_owner = m.label_of_edge.get(id(e))
        if edge_owner is None:
            continue
        mine = direct.setdefault(edge_owner, set())
        for p in e.inputs:
            dep = m.provider(p)
            if dep is not None and dep != edge_owner:
                mine.add(dep)
        later = order.setdefault(edge_owner, set())
        for p in e.order_only:
            dep = m.provider(p)
            if dep is not None and dep != edge_owner:
                later.add(dep)
    for owner in sorted(direct):
        i = builder.intern(owner)
        implied = _reached_through_others(owner, direct)
        for dep in sorted(direct[owner]):
            kind = EdgeKind.IMPLICIT if dep in implied else EdgeKind.UNTYPED
            builder.add_edge(i, builder.intern(dep), kind)
        for dep in sorted(order[owner] - direct[owner]):
            builder.add_edge(i, builder.intern(dep), EdgeKind.ORDER_ONLY)
    builder.notes.append(
        "ninja graph: targets are link/archive outputs and bare-named phony groups; "
        "edges untyped (ninja has no attribute names)"
    )
    if unlabeled:
        builder.notes.append(
            f"ninja graph {path.name}: {unlabeled} node(s) without a label skipped "
            "(outputs of edges outside the requested targets)"
        )
    if unowned:
        builder.notes.append(
            f"ninja graph {path.name}: {unowned} object(s) linked by several targets, owner unknown"
        )
