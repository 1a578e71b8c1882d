"""A tiny test analyzer (entry-point style) for the review/cleanup/suppression plumbing.

It flags a `deps` edge as dead when the dep carries the tag `unused`, and a CPU-only root
(tag `cpu-only`) whose closure holds a `cuda_library`; the code under test is everything
downstream of the analyzer: suppression, planning, diffing, ranking, storage.
"""

from __future__ import annotations

from collections.abc import Iterator

from slim.model.context import AnalysisContext
from slim.model.findings import Confidence, Evidence, Finding, Rule
from slim.model.graph import EdgeKind, GraphBuilder, Location
from slim.model.plugin import AnalyzerSpec

DEAD = Rule("SLIM080", "tagged-unused", "A dep tagged `unused` in the graph.", "Test rule.")
GPU = Rule("SLIM003", "gpu-kernels-in-cpu-binary", "CUDA kernels in a CPU-only binary.", "")
DEPS = frozenset({EdgeKind.DEPS})


class TaggedDead:
    def analyze(self, ctx: AnalysisContext) -> Iterator[Finding]:
        g = ctx.graph
        closure = ctx.closure.tolist()
        for t in closure:
            for e in g.out_edges(t, DEPS):
                if "unused" not in g.tags.get(e.dep, ()):
                    continue
                loc = g.edge_location(t, e.dep)
                ev = () if loc is None else (Evidence(loc.path, "dep tagged unused", loc.line),)
                yield Finding(
                    code=DEAD.code,
                    name=DEAD.name,
                    target=g.labels[t],
                    dep=g.labels[e.dep],
                    verdict="dead",
                    message=f"{g.labels[e.dep]} is tagged unused",
                    confidence=Confidence.HIGH,
                    removable=True,
                    root=ctx.root_label,
                    attribute="deps",
                    location=loc,
                    evidence=ev,
                )
        if "cpu-only" in g.tags.get(ctx.root, ()):
            for t in closure:
                if g.kinds[t] == "cuda_library":
                    yield Finding(
                        code=GPU.code,
                        name=GPU.name,
                        target=ctx.root_label,
                        dep=g.labels[t],
                        verdict="dead",
                        message=f"CPU-only binary links CUDA kernels of {g.labels[t]}",
                        confidence=Confidence.MEDIUM,
                        removable=False,
                        root=ctx.root_label,
                    )


SPEC = AnalyzerSpec(name="tagged-dead", rules=(DEAD, GPU), requires=frozenset(), factory=TaggedDead)
REF = "tests.tagged_dead:SPEC"


def build(
    edges: dict[str, list[str]],
    *,
    binaries: tuple[str, ...] = (),
    tags: dict[str, tuple[str, ...]] | None = None,
    kinds: dict[str, str] | None = None,
    locations: dict[str, Location] | None = None,
    attrs: dict[str, dict[str, str]] | None = None,
):  # type: ignore[no-untyped-def]
    """A graph from `{target: [deps]}` (every label described)."""
    b = GraphBuilder()
    labels = sorted(set(edges) | {d for ds in edges.values() for d in ds})
    for lab in labels:
        kind = (kinds or {}).get(lab) or ("cc_binary" if lab in binaries else "cc_library")
        b.add_target(
            lab,
            kind,
            tags=(tags or {}).get(lab, ()),
            location=(locations or {}).get(lab),
            attrs=dict((attrs or {}).get(lab, {})) or None,
        )
    for t, ds in edges.items():
        for d in ds:
            b.add_edge(b.lookup(t), b.lookup(d), EdgeKind.DEPS)  # type: ignore[arg-type]
    return b.build()


def write_streamed_jsonproto(
    path,  # type: ignore[no-untyped-def]
    edges: dict[str, list[str]],
    *,
    binaries: tuple[str, ...] = (),
    tags: dict[str, tuple[str, ...]] | None = None,
    kinds: dict[str, str] | None = None,
) -> None:
    """The graph as `bazel query --output=streamed_jsonproto` writes it (rules only)."""
    import json

    labels = sorted(set(edges) | {d for ds in edges.values() for d in ds})
    lines = []
    for n, lab in enumerate(labels, 1):
        kind = (kinds or {}).get(lab) or ("cc_binary" if lab in binaries else "cc_library")
        attrs = [
            {"name": "deps", "type": "LABEL_LIST", "stringListValue": sorted(edges.get(lab, []))},
            {
                "name": "tags",
                "type": "STRING_LIST",
                "stringListValue": list((tags or {}).get(lab, ())),
            },
        ]
        pkg = lab[2:].split(":")[0]
        rule = {
            "name": lab,
            "ruleClass": kind,
            "location": f"{pkg}/BUILD:{n}:1",
            "attribute": attrs,
        }
        lines.append(json.dumps({"type": "RULE", "rule": rule}))
    path.write_text("\n".join(lines) + "\n")


class KillOnce(TaggedDead):
    """Kills its worker process the first time it sees `//app:b` (a marker file remembers)."""

    def analyze(self, ctx: AnalysisContext) -> Iterator[Finding]:
        import os
        from pathlib import Path

        marker = os.environ.get("SLIM_TEST_KILL_MARKER")
        if marker and ctx.root_label == "//app:b" and not Path(marker).exists():
            Path(marker).write_text("killed")
            os._exit(9)
        yield from super().analyze(ctx)


KILLER = AnalyzerSpec(name="tagged-dead", rules=(DEAD, GPU), requires=frozenset(), factory=KillOnce)


class SlowOnB(TaggedDead):
    """With SLIM_TEST_SLOW=1, takes a minute on `//app:b` (still running at an interrupt)."""

    def analyze(self, ctx: AnalysisContext) -> Iterator[Finding]:
        import os
        import time

        if ctx.root_label == "//app:b" and os.environ.get("SLIM_TEST_SLOW") == "1":
            time.sleep(60)
        yield from super().analyze(ctx)


SLOW = AnalyzerSpec(name="tagged-dead", rules=(DEAD, GPU), requires=frozenset(), factory=SlowOnB)
