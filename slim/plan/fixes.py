"""Actions written out: buildozer commands for BUILD/BUCK graphs, CMake edits for CMake.

The one place that knows how an action becomes text. Buck2 cell prefixes
(`root//a:b`) are written `//a:b`, which buildozer resolves from the repository root.
A CMake edit names the `target_link_libraries` line that declares the edge; a line that
declares edges of several targets (inside a `function()`, a `macro()`, a `foreach()`,
`target_link_libraries(${name} …)`) is never edited for one of them: the fix says which
targets share it and is left to the user.
"""

from __future__ import annotations

import shlex
from weakref import WeakKeyDictionary

from slim.model.actions import Action, DropArchs, Move, Remove, Replace
from slim.model.findings import Fix
from slim.model.graph import BuildGraph, Location
from slim.model.labels import label_name

BATCH_HEADER = "# slim: run from the repository root with `buildozer -f THIS_FILE`"


def buildozer_label(label: str) -> str:
    """`root//a:b` -> `//a:b` (buildozer knows no Buck2 cells); other labels unchanged."""
    cut = label.find("//")
    if cut > 0 and not label.startswith("@"):
        return label[cut:]
    return label


def is_cmake_graph(graph: BuildGraph) -> bool:
    return any(f.startswith("cmake") for f in graph.formats)


def has_build_files(graph: BuildGraph) -> bool:
    """Whether the graph came (also) from Bazel or Buck2, whose files buildozer edits."""
    return any(f.startswith(("bazel", "buck2")) for f in graph.formats)


def _buildozer_words(a: Action) -> str:
    dep = buildozer_label(a.dep)
    if isinstance(a, Remove):
        return f"remove {a.attribute} {dep}"
    if isinstance(a, Move):
        return f"move {a.from_attr} {a.to_attr} {dep}"
    if isinstance(a, Replace):
        return f"replace {a.attribute} {dep} {buildozer_label(a.with_dep)}"
    raise ValueError(f"no buildozer form for {a!r}")


def _description(a: Action) -> str:
    if isinstance(a, Move):
        return f"downgrade to a {a.to_attr} dependency (used at run time only)"
    if isinstance(a, Replace):
        return f"point the edge at {a.with_dep}"
    if isinstance(a, DropArchs):
        return "stop compiling device code no deployed GPU can load"
    return "remove the edge"


def buildozer_fix(a: Remove | Move | Replace, safe: bool = True) -> Fix:
    words = _buildozer_words(a)
    target = buildozer_label(a.target)
    return Fix(
        action=a,
        kind="buildozer",
        command=f"buildozer {shlex.quote(words)} {shlex.quote(target)}",
        description=_description(a),
        safe=safe,
        batch=f"{words}|{target}",
    )


def cmake_fix(a: Action, location: Location | None, safe: bool = True) -> Fix:
    """The edit of the `target_link_libraries` line at `location`, described (not a command)."""
    where = str(location) if location else "CMakeLists.txt"
    tgt, dep = label_name(a.target), label_name(a.dep)
    if isinstance(a, Remove):
        text = f"{where}: in target_link_libraries({tgt} …) remove {dep}"
    elif isinstance(a, Replace):
        text = (
            f"{where}: in target_link_libraries({tgt} …) replace {dep} with "
            f"{label_name(a.with_dep)}"
        )
    elif isinstance(a, Move):
        text = (
            f"{where}: target_link_libraries({tgt} …): {dep} is used at run time only; "
            "keep it loaded (CMake has no link-free runtime dependency)"
        )
    else:
        cmake_archs = ";".join(x.removeprefix("sm_") for x in a.archs)  # `90a` as CMake spells it
        text = f"remove {cmake_archs} from CUDA_ARCHITECTURES of {tgt} ({a.flags})"
    return Fix(
        action=a,
        kind="cmake",
        command=text,
        description=_description(a),
        safe=safe,
        location=location,
    )


_SHARED: WeakKeyDictionary[BuildGraph, dict[Location, set[int]]] = WeakKeyDictionary()


def sharing_targets(graph: BuildGraph, location: Location) -> list[str]:
    """Labels of every target with an edge declared at `location`."""
    index = _SHARED.get(graph)
    if index is None:
        index = _SHARED[graph] = {}
        for (t, _dep), loc in graph.edge_locations.items():
            index.setdefault(loc, set()).add(t)
    return sorted(graph.labels[t] for t in index.get(location, ()))


def shared_line_fix(a: Action, location: Location, others: list[str], safe: bool) -> Fix:
    """Prose for a cut whose declaring line also declares other targets' edges."""
    tgt, dep = label_name(a.target), label_name(a.dep)
    shown = ", ".join(others[:4]) + (f" and {len(others) - 4} more" if len(others) > 4 else "")
    text = (
        f"{location}: this target_link_libraries line declares the edges of "
        f"{len(others) + 1} targets ({a.target}, {shown}: a function, macro or loop); "
        f"removing {dep} there removes it from all of them. Remove it for {tgt} only "
        f'(e.g. wrap the line in if(NOT <name> STREQUAL "{tgt}")), by hand'
    )
    return Fix(
        action=a,
        kind="text",
        command=text,
        description=_description(a),
        safe=safe,
        location=location,
    )


def by_hand_fix(a: Remove | Move | Replace, safe: bool = True) -> Fix:
    """A graph with no BUILD, BUCK or CMake file to edit (a ninja graph: meson, GN, a
    generator of its own): what to change, said in words."""
    if isinstance(a, Replace):
        change = f"depend on {a.with_dep} instead of {a.dep}"
    elif isinstance(a, Move):
        change = f"keep {a.dep} at run time only"
    else:
        change = f"stop depending on {a.dep}"
    return Fix(
        action=a,
        kind="text",
        command=(
            f"in the build description that generates {a.target}, {change} "
            "(the graph names no build file to edit)"
        ),
        description=_description(a),
        safe=safe,
    )


def text_fix(a: DropArchs) -> Fix:
    return Fix(
        action=a,
        kind="text",
        command=f"drop {a.flags} from the nvcc flags of {a.target}",
        description=_description(a),
    )


def edge_location(graph: BuildGraph, target: str, dep: str) -> Location | None:
    """The line declaring `target -> dep`: the export's per-edge line, else the rule's."""
    a, b = graph.lookup(target), graph.lookup(dep)
    if a is None or b is None:
        return None
    return graph.edge_location(a, b)


def _cmake_location(graph: BuildGraph, a: Action) -> Location | None:
    x, y = graph.lookup(a.target), graph.lookup(a.dep) if a.dep else None
    if x is None or y is None:
        return None
    loc = graph.edge_locations.get((x, y))
    return loc if _is_cmake_file(loc) else None


def _is_cmake_file(loc: Location | None) -> bool:
    return loc is not None and loc.path.endswith(("CMakeLists.txt", ".cmake"))


def write(
    graph: BuildGraph, a: Action, safe: bool = True, dep_line: Location | None = None
) -> tuple[Fix, ...]:
    """Every way to apply `a` on this graph, the primary one first: buildozer where the
    graph has BUILD/BUCK files, plus the CMake edit where a CMakeLists declares the edge
    (at `dep_line`, the line naming the dep, when it is known)."""
    if isinstance(a, DropArchs):
        return (cmake_fix(a, None, safe),) if is_cmake_graph(graph) else (text_fix(a),)
    declared = _cmake_location(graph, a)
    cmake_loc = dep_line if _is_cmake_file(dep_line) else declared
    if is_cmake_graph(graph) and not has_build_files(graph):
        loc = cmake_loc or edge_location(graph, a.target, a.dep)
        return (_cmake_or_shared(graph, a, loc, declared or loc, safe),)
    if graph.formats and not has_build_files(graph) and cmake_loc is None:
        return (by_hand_fix(a, safe),)
    primary = buildozer_fix(a, safe)
    if cmake_loc is not None:
        return (primary, _cmake_or_shared(graph, a, cmake_loc, declared, safe))
    return (primary,)


def _cmake_or_shared(
    graph: BuildGraph, a: Action, loc: Location | None, declared: Location | None, safe: bool
) -> Fix:
    """The edit at `loc`, or prose when the call `declared` (where the edge's
    `target_link_libraries` starts) declares other targets' edges too."""
    others = [t for t in sharing_targets(graph, declared) if t != a.target] if declared else []
    if declared is not None and others:
        return shared_line_fix(a, declared, others, safe)
    return cmake_fix(a, loc, safe)
