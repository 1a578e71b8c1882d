"""Real Python programs, really run and traced, judged by SLIM001 and by brute force.

A `Program` is a small workspace (sources, Bazel-like targets with srcs and deps, optional
installed distributions). `trace()` runs it for real (`-X importtime`, `-v`, `slim trace`)
from a runfiles tree that holds only the sources of the root's closure, as a hermetic
`py_binary` would. `cut_is_safe()` is the ground truth: rebuild the runfiles without the
edge and run again; the cut is safe when the program prints the same and exits 0.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from slim_analyzers.python import SPEC

from slim.analysis.engine import RootInput, analyze
from slim.ingest import load_evidence
from slim.model.facts import Facts, InputFile
from slim.model.findings import Finding
from slim.model.graph import BuildGraph, EdgeKind, GraphBuilder, Location
from slim.model.options import RootOptions
from slim.model.pytrace import ImportTrace

TRACE_KINDS = ("importtime", "verbose", "slimtrace")


@dataclass
class Dist:
    """An installed distribution: its files (module sources, entry_points.txt)."""

    name: str
    files: dict[str, str]
    entry_points: str = ""
    #: its target lists the files as srcs (`@pypi//name:site-packages/...`), as
    #: rules_python spokes do, the files also under `external/pypi/name/site-packages/`
    listed: bool = False


@dataclass
class Program:
    files: dict[str, str]
    #: label -> (srcs relative to the package, deps); a label `//pkg:name` has its
    #: sources under `pkg/`; a label starting `@pypi//` stands for an installed dist.
    targets: dict[str, tuple[list[str], list[str]]]
    roots: dict[str, str]  # root label -> the module `python -m` runs
    dists: list[Dist] = field(default_factory=list)
    testonly: frozenset[str] = frozenset()
    #: label -> files (relative to the package) its `data` ships in the runfiles
    data: dict[str, list[str]] = field(default_factory=dict)
    #: labels that are `alias` rules (their one dep is the `actual`)
    aliases: frozenset[str] = frozenset()
    #: workspace files a genrule makes: written under bazel-bin/, not in the source tree
    generated: frozenset[str] = frozenset()
    #: root label -> command-line arguments of the run
    args: dict[str, list[str]] = field(default_factory=dict)
    #: roots whose main file runs as a script (`python app/main.py`, as Bazel runs a
    #: py_binary: its directory first on sys.path), not with `-m`
    scripts: frozenset[str] = frozenset()

    # -- the build --------------------------------------------------------------------------
    def graph(self, cut: tuple[str, str] | None = None) -> BuildGraph:
        b = GraphBuilder()
        ids: dict[str, int] = {}
        for label, (srcs, _) in self.targets.items():
            if label in self.aliases:
                ids[label] = b.add_target(label, "alias")
                continue
            if label.startswith("@"):
                dist = self.dist_of(label)
                if dist is not None and dist.listed:
                    files = [f"{label.split(':')[0]}:site-packages/{f}" for f in dist.files]
                    ids[label] = b.add_target(label, "py_library", srcs=files)
                else:
                    ids[label] = b.intern(label)
                continue
            pkg = label.split(":")[0]
            files = [f"{pkg}:{s}" for s in srcs]
            for f in files:
                b.add_file(f)
            kind = "py_binary" if label in self.roots else "py_library"
            if label in self.roots and label in self.testonly:
                kind = "py_test"
            attrs: dict[str, object] = {"testonly": True} if label in self.testonly else {}
            ids[label] = b.add_target(
                label,
                kind,
                location=Location(f"{pkg[2:]}/BUILD", 1),
                srcs=files,
                attrs=attrs,  # type: ignore[arg-type]
            )
        for label, (_, deps) in self.targets.items():
            for d in deps:
                if (label, d) != cut:
                    b.add_edge(ids[label], ids[d], EdgeKind.DEPS, Location(f"{label}/BUILD", 2))
        for label, files in self.data.items():
            pkg = label.split(":")[0]
            for f in files:
                b.add_edge(ids[label], b.add_file(f"{pkg}:{f}"), EdgeKind.DATA)
        return b.build()

    def closure(self, root: str, cut: tuple[str, str] | None = None) -> list[str]:
        seen = [root]
        todo = [root]
        while todo:
            t = todo.pop()
            for d in self.targets[t][1]:
                if (t, d) != cut and d not in seen:
                    seen.append(d)
                    todo.append(d)
        return seen

    def source(self, ws: Path, rel: str) -> Path:
        """Where a workspace file is: bazel-bin/ for a generated one."""
        return ws / "bazel-bin" / rel if rel in self.generated else ws / rel

    def write(self, ws: Path) -> None:
        for rel, text in self.files.items():
            p = self.source(ws, rel)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        for d in self.dists:
            site = self.site(ws, d.name)
            for rel, text in d.files.items():
                p = site / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
            info = site / f"{d.name}-1.0.dist-info"
            info.mkdir(parents=True, exist_ok=True)
            rows = [f"{rel},sha256=x,{len(text)}" for rel, text in d.files.items()]
            (info / "RECORD").write_text("\n".join([*rows, f"{info.name}/RECORD,,"]) + "\n")
            (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {d.name}\nVersion: 1.0\n")
            if d.entry_points:
                (info / "entry_points.txt").write_text(d.entry_points)
            if d.listed:
                for rel, text in d.files.items():
                    p = ws / "external" / "pypi" / d.name / "site-packages" / rel
                    p.parent.mkdir(parents=True, exist_ok=True)
                    p.write_text(text)

    def dist_of(self, label: str) -> Dist | None:
        """The dist an `@pypi//name:pkg` label stands for."""
        name = label.split("//", 1)[1].split(":", 1)[0]
        return next((d for d in self.dists if d.name == name), None)

    @staticmethod
    def site(ws: Path, dist: str) -> Path:
        return ws / "_site" / dist

    def site_dirs(self, ws: Path) -> list[Path]:
        return [self.site(ws, d.name) for d in self.dists]

    # -- running it -------------------------------------------------------------------------
    def runfiles(self, ws: Path, root: str, out: Path, cut: tuple[str, str] | None) -> list[str]:
        """Copy the closure's sources to `out`; the PYTHONPATH of the run."""
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        path = [str(out)]
        for t in self.closure(root, cut):
            if t in self.aliases:
                continue
            if t.startswith("@"):
                name = t.split("//", 1)[1].split(":", 1)[0]
                path.append(str(self.site(ws, name)))
                continue
            pkg = t.split(":")[0][2:]
            for s in [*self.targets[t][0], *self.data.get(t, ())]:
                dst = out / pkg / s
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(self.source(ws, f"{pkg}/{s}"), dst)
        return path

    def run(
        self, ws: Path, root: str, *, cut: tuple[str, str] | None = None, how: str = "plain"
    ) -> tuple[subprocess.CompletedProcess[str], Path | None]:
        rf = ws.parent / f"runfiles-{abs(hash((root, cut, how)))}"
        path = self.runfiles(ws, root, rf, cut)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env["PYTHONPATH"] = os.pathsep.join(path)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        main = self.roots[root]
        how_run = [main.replace(".", "/") + ".py"] if root in self.scripts else ["-m", main]
        py = [sys.executable, "-S", *how_run, *self.args.get(root, ())]
        trace: Path | None = None
        if how == "importtime":
            py.insert(2, "-Ximporttime")
        elif how == "verbose":
            py.insert(2, "-v")
        elif how == "slimtrace":
            trace = ws.parent / f"{root.strip('/').replace(':', '_').replace('/', '_')}.slimtrace"
            py.remove("-S")  # the recorder is a sitecustomize
            py = [sys.executable, "-m", "slim", "trace", "-o", str(trace), "--", *py]
        proc = subprocess.run(py, cwd=rf, env=env, capture_output=True, text=True, check=False)
        if how in ("importtime", "verbose"):
            trace = ws.parent / f"{root.strip('/').replace(':', '_').replace('/', '_')}.{how}"
            trace.write_text(proc.stderr)
        return proc, trace

    def cut_is_safe(self, ws: Path, root: str, edge: tuple[str, str]) -> bool:
        base, _ = self.run(ws, root)
        assert base.returncode == 0, base.stderr
        after, _ = self.run(ws, root, cut=edge)
        return after.returncode == 0 and after.stdout == base.stdout

    # -- judging it -------------------------------------------------------------------------
    def judge(
        self, ws: Path, traces: dict[str, Sequence[Path]], roots: Sequence[str] | None = None
    ) -> list[Finding]:
        """SLIM001's findings, each root with its own traces."""
        g = self.graph()
        inputs = []
        for r in roots or list(self.roots):
            facts = Facts()
            for p in traces.get(r, ()):
                fmt, loaded = load_evidence(p, "trace")
                facts.extend(loaded)
                facts.inputs.append(InputFile("trace", str(p), fmt.name))
            opts = RootOptions(workspace=ws, site_packages=tuple(self.site_dirs(ws)))
            inputs.append(RootInput(g.ids[r], facts, opts))
        return list(analyze(g, inputs, specs=[SPEC]).findings)


def traced(prog: Program, ws: Path, root: str, how: str) -> Path:
    proc, trace = prog.run(ws, root, how=how)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert trace is not None
    return trace


def verdicts(findings: Sequence[Finding], code: str = "SLIM001") -> dict[tuple[str, str], Finding]:
    return {(f.target, f.dep): f for f in findings if f.code == code}


def assert_removals_safe(prog: Program, ws: Path, findings: Sequence[Finding]) -> int:
    """Brute force: every removable finding's cut, applied and run, changes nothing."""
    n = 0
    for f in findings:
        if f.removable:
            root = f.root
            assert prog.cut_is_safe(ws, root, (f.target, f.dep)), f
            n += 1
    return n


def trace_kinds_of(paths: Sequence[Path]) -> set[str]:
    return {p.suffix.lstrip(".") for p in paths}


__all__ = [
    "TRACE_KINDS",
    "Dist",
    "ImportTrace",
    "Program",
    "assert_removals_safe",
    "trace_kinds_of",
    "traced",
    "verdicts",
]
