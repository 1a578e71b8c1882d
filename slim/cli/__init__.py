"""The `slim` command line (the only module that imports click).

Exit codes: 0 ok, 1 findings at or above --fail-on, 2 bad input/usage/config,
4 internal error (re-run with --debug for the traceback).
"""

from __future__ import annotations

import io
import itertools
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from slim.errors import ConfigError, SlimError, UsageError
from slim.infra.atomic import write_atomic

if TYPE_CHECKING:
    from slim.infra.config import Config
    from slim.model.context import Options
    from slim.model.facts import Facts
    from slim.model.graph import BuildGraph
    from slim.model.report import Report

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 4
REPORT_FORMATS = ("text", "json", "markdown", "sarif", "buildozer", "dot", "csv")
EVIDENCE_FLAGS = {
    "trace": "trace",
    "linkmap": "linkmap",
    "binary": "binary",
    "timings": "timings",
}


def write_output(text: str, output: Path | None) -> None:
    """Write to stdout, or atomically to `output` (never a partial file)."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_atomic(output, text.encode("utf-8"))


def _path_list(values: Sequence[str]) -> list[Path]:
    return [Path(v) for v in values]


def graph_options(f: F) -> F:
    f = click.option(
        "--graph-format",
        default=None,
        metavar="NAME",
        help="Read --graph as this format instead of sniffing it (see `slim formats`).",
    )(f)
    f = click.option(
        "--graph",
        "graphs",
        multiple=True,
        metavar="FILE",
        help="Build graph export (repeatable: a query plus an aquery, say).",
    )(f)
    f = click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False),
        default=None,
        help="Config file (default: nearest slim.toml or pyproject.toml).",
    )(f)
    f = click.option("--no-cache", is_flag=True, help="Do not use the parsed-graph cache.")(f)
    return f


def evidence_options(f: F) -> F:
    f = click.option(
        "--trace",
        "traces",
        multiple=True,
        metavar="FILE",
        help="Python import trace (-X importtime, -v, slim trace).",
    )(f)
    f = click.option(
        "--linkmap",
        "linkmaps",
        multiple=True,
        metavar="FILE",
        help="Linker map or GC report (GNU ld, gold, lld, mold).",
    )(f)
    f = click.option(
        "--binary",
        "binaries",
        multiple=True,
        metavar="FILE",
        help="ELF executable, shared library, object or archive.",
    )(f)
    f = click.option(
        "--timings",
        multiple=True,
        metavar="FILE",
        help=".ninja_log, Bazel --profile, clang -ftime-trace, Buck2 report.",
    )(f)
    f = click.option(
        "--workspace",
        type=click.Path(file_okay=False),
        default=None,
        help="Source tree root (static Python imports, BUILD files).",
    )(f)
    f = click.option(
        "--cpu-only/--no-cpu-only",
        default=None,
        help="Treat the root(s) as CPU-only binaries (overrides tags/config).",
    )(f)
    f = click.option(
        "--cuda-archs",
        default=None,
        metavar="sm_80,sm_90",
        help="GPU architectures the binary is deployed on.",
    )(f)
    return f


@dataclass
class Session:
    """What one command resolved from flags and config: the graph, facts and options."""

    config: Config
    graph_paths: list[Path] = field(default_factory=list)
    graph_format: str | None = None
    use_cache: bool = True


def _resolve_config(config_path: str | None) -> Config:
    from slim.infra.config import find_config, load_config

    if config_path is not None:
        return load_config(Path(config_path))
    return load_config(find_config(Path.cwd()))


def _session(
    config_path: str | None, graphs: Sequence[str], graph_format: str | None, no_cache: bool
) -> Session:
    cfg = _resolve_config(config_path)
    paths = _path_list(graphs) or cfg.inputs.get("graph", [])
    if not paths:
        raise UsageError(
            "no build graph: pass --graph FILE or name `graph` in slim.toml / [tool.slim]"
        )
    return Session(cfg, paths, graph_format or cfg.graph_format, not no_cache)


def _load_graph(s: Session) -> BuildGraph:
    from slim.infra.cache import load_graph_cached

    return load_graph_cached(s.graph_paths, s.graph_format, use_cache=s.use_cache, background=True)


def _near_labels(labels: Sequence[str], wanted: str, cap: int = 20_000) -> list[str]:
    """Candidates for a "did you mean": labels sharing the longest prefix that still
    matches something, at most `cap` of them (difflib is quadratic per candidate)."""
    prefix = wanted
    while prefix:
        near = [lab for lab in labels if lab.startswith(prefix)]
        if near:
            return near[:cap]
        cut = max(prefix.rfind("/", 0, len(prefix) - 1), prefix.rfind(":", 0, len(prefix) - 1))
        prefix = prefix[: cut + 1] if cut > 1 else ""
    return list(labels[:cap])


def _root_ids(graph: BuildGraph, labels: Sequence[str]) -> list[int]:
    ids = []
    for lab in labels:
        i = graph.lookup(lab)
        if i is None:
            import difflib

            close = difflib.get_close_matches(lab, _near_labels(graph.labels, lab), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(f"target {lab} is not in the graph{hint}")
        ids.append(i)
    return ids


def _load_facts(cfg: Config, labels: Sequence[str], flags: Mapping[str, Sequence[str]]) -> Facts:
    from slim.ingest import load_evidence
    from slim.model.facts import Facts, InputFile

    facts = Facts()
    seen: set[tuple[str, Path]] = set()
    for evidence in EVIDENCE_FLAGS:
        paths = _path_list(flags.get(evidence, ()))
        if not paths:
            paths = list(cfg.inputs.get(evidence, []))
            for lab in labels:
                paths.extend(cfg.for_target(lab).inputs.get(evidence, []))
        for p in paths:
            if (evidence, p) in seen:
                continue
            seen.add((evidence, p))
            fmt, loaded = load_evidence(p, evidence)
            facts.extend(loaded)
            facts.inputs.append(InputFile(evidence, p.as_posix(), fmt.name))
    return facts


def _options(
    cfg: Config,
    labels: Sequence[str],
    workspace: str | None,
    cpu_only: bool | None,
    cuda_archs: str | None,
) -> Options:
    from slim.model.context import Options

    ws = Path(workspace) if workspace else None
    archs = tuple(a.strip() for a in cuda_archs.split(",") if a.strip()) if cuda_archs else ()
    reason = "--cpu-only on the command line" if cpu_only is not None else ""
    # Per-target cpu_only/cuda_archs also go to `extra` keyed by label, so with several
    # roots each one keeps its own (the global fields take them only for a single root).
    extra: dict[str, str] = {"cuda_archs_from": "--cuda-archs"} if archs else {}
    for lab in labels:
        tc = cfg.for_target(lab)
        ws = ws or tc.workspace
        if tc.cuda_archs:
            extra[f"cuda_archs[{lab}]"] = ",".join(tc.cuda_archs)
        if tc.cpu_only is not None:
            extra[f"cpu_only[{lab}]"] = "true" if tc.cpu_only else "false"
            extra[f"cpu_only_reason[{lab}]"] = f"cpu_only in {_display(cfg.path)}"
        if len(labels) == 1:
            archs = archs or tc.cuda_archs
            if cpu_only is None and tc.cpu_only is not None:
                cpu_only = tc.cpu_only
                reason = f"cpu_only in {_display(cfg.path)}"
    ws = ws or cfg.workspace
    if ws is not None and not ws.is_dir():
        raise ConfigError(f"--workspace {ws}: expected a directory, found none")
    return Options(
        workspace=ws,
        cpu_only=cpu_only,
        cpu_only_reason=reason,
        cpu_only_tags=cfg.cpu_only_tags,
        cuda_archs=archs or cfg.cuda_archs,
        extra=extra,
    )


def _display(path: Path | None) -> str:
    if path is None:
        return "the config"
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _fails(report: Report, fail_on: str | None) -> bool:
    if not fail_on:
        return False
    levels = {"high": 3, "medium": 2, "low": 1}
    if fail_on in levels:
        return any(f.removable and f.confidence.rank >= levels[fail_on] for f in report.findings)
    if fail_on == "any":
        return any(f.removable for f in report.findings)
    codes = {c.strip() for c in fail_on.split(",")}
    return any(f.code in codes and f.removable for f in report.findings)


def render_report(report: Report, fmt: str) -> str:
    from slim.render import get_renderer

    buf = io.StringIO()
    get_renderer(fmt)(report, buf)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------
@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="slim-depgraph", prog_name="slim")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
def cli(debug: bool) -> None:
    """slim: find dead dependency edges in build graphs and propose how to cut them."""


@cli.command()
@click.argument("targets", nargs=-1)
@graph_options
@evidence_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(REPORT_FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write here (atomically) instead of stdout.",
)
@click.option(
    "--fail-on",
    default=None,
    metavar="LEVEL|CODES",
    help="Exit 1 on removable findings: high|medium|low confidence or more, a list of "
    "codes (SLIM001,SLIM002), or `any` removable finding.",
)
@click.option("--select", default="", metavar="CODES", help="Only these rule codes.")
@click.option("--ignore", default="", metavar="CODES", help="Skip these rule codes.")
def report(
    targets: tuple[str, ...],
    graphs: tuple[str, ...],
    graph_format: str | None,
    config_path: str | None,
    no_cache: bool,
    traces: tuple[str, ...],
    linkmaps: tuple[str, ...],
    binaries: tuple[str, ...],
    timings: tuple[str, ...],
    workspace: str | None,
    cpu_only: bool | None,
    cuda_archs: str | None,
    fmt: str,
    output: str | None,
    fail_on: str | None,
    select: str,
    ignore: str,
) -> int:
    """Analyze TARGET(s): closure, evidence, dead edges, proposed cuts."""
    from slim.analysis.engine import analyze

    s = _session(config_path, graphs, graph_format, no_cache)
    labels = list(targets) or list(s.config.roots)
    if not labels:
        raise UsageError("no target: pass TARGET or name `roots` in the config")
    graph = _load_graph(s)
    roots = _root_ids(graph, labels)
    labels = [graph.labels[r] for r in roots]
    flags = {"trace": traces, "linkmap": linkmaps, "binary": binaries, "timings": timings}
    facts = _load_facts(s.config, labels, flags)
    for p in s.graph_paths:
        from slim.model.facts import InputFile

        facts.inputs.append(InputFile("graph", p.as_posix(), ",".join(graph.formats)))
    opts = _options(s.config, labels, workspace, cpu_only, cuda_archs)
    rep = analyze(
        graph,
        roots,
        facts,
        opts,
        select=[c for c in select.split(",") if c],
        ignore=[c for c in ignore.split(",") if c],
        keep=_config_keeps(s.config),
    )
    write_output(render_report(rep, fmt), Path(output) if output else None)
    return EXIT_FINDINGS if _fails(rep, fail_on or s.config.fail_on) else EXIT_OK


@cli.command()
@click.argument("source")
@click.argument("dest")
@graph_options
@click.option("--limit", default=5, show_default=True, help="At most this many paths.")
@click.option(
    "--all-kinds", is_flag=True, help="Follow tool/implicit edges too (default: build edges only)."
)
def why(
    source: str,
    dest: str,
    graphs: tuple[str, ...],
    graph_format: str | None,
    config_path: str | None,
    no_cache: bool,
    limit: int,
    all_kinds: bool,
) -> int:
    """Show the shortest dependency path(s) from SOURCE to DEST."""
    from slim.model.graph import ALL_KINDS, BUILD_KINDS

    s = _session(config_path, graphs, graph_format, no_cache)
    graph = _load_graph(s)
    a, b = _root_ids(graph, [source, dest])
    kinds = ALL_KINDS if all_kinds else BUILD_KINDS
    paths = graph.shortest_paths(a, b, kinds, limit=limit)
    if not paths:
        click.echo(f"{graph.labels[a]} does not depend on {graph.labels[b]}", err=True)
        return EXIT_FINDINGS
    lines = []
    for n, path in enumerate(paths, 1):
        lines.append(f"path {n} ({len(path) - 1} edges):")
        lines.append(f"  {graph.labels[path[0]]}")
        for x, y in itertools.pairwise(path):
            attrs = ",".join(sorted({k.attribute for k in graph.edge_kinds(x, y) if k in kinds}))
            loc = graph.edge_location(x, y)
            where = f"  ({loc})" if loc else ""
            lines.append(f"    --{attrs}--> {graph.labels[y]}{where}")
    write_output("\n".join(lines) + "\n", None)
    return EXIT_OK


@cli.command("graph")
@click.argument("target")
@graph_options
@evidence_options
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False),
    help="out.svg, out.png or out.dot.",
)
@click.option("--depth", type=int, default=None, help="Only this many levels below TARGET.")
@click.option(
    "--collapse-packages/--no-collapse-packages",
    default=None,
    help="One node per package (default: when more than 200 targets).",
)
@click.option(
    "--reduce/--no-reduce",
    default=True,
    show_default=True,
    help="Transitive reduction (hide edges implied by longer paths).",
)
def graph_cmd(
    target: str,
    graphs: tuple[str, ...],
    graph_format: str | None,
    config_path: str | None,
    no_cache: bool,
    traces: tuple[str, ...],
    linkmaps: tuple[str, ...],
    binaries: tuple[str, ...],
    timings: tuple[str, ...],
    workspace: str | None,
    cpu_only: bool | None,
    cuda_archs: str | None,
    output: str,
    depth: int | None,
    collapse_packages: bool | None,
    reduce: bool,
) -> int:
    """Draw TARGET's dependency graph (dead edges highlighted when evidence is given)."""
    from slim.app.draw import DrawOptions, to_dot

    out = Path(output)
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in ("svg", "png", "dot", "gv", "pdf"):
        raise UsageError(f"-o {output}: expected a .svg, .png, .pdf or .dot file")
    s = _session(config_path, graphs, graph_format, no_cache)
    g = _load_graph(s)
    (root,) = _root_ids(g, [target])
    flags = {"trace": traces, "linkmap": linkmaps, "binary": binaries, "timings": timings}
    labels = [g.labels[root]]
    facts = _load_facts(s.config, labels, flags)
    dead: list[tuple[str, str]] = []
    if facts.inputs or workspace:
        from slim.analysis.engine import analyze

        rep = analyze(g, [root], facts, _options(s.config, labels, workspace, cpu_only, cuda_archs))
        dead = [(f.target, f.dep) for f in rep.findings if f.removable and f.dep]
    dot = to_dot(g, root, dead, DrawOptions(depth, collapse_packages, reduce))
    if suffix in ("dot", "gv"):
        write_output(dot, out)
        return EXIT_OK
    import shutil

    if shutil.which("dot") is None:
        raise UsageError(
            f"-o {output}: drawing {suffix.upper()} needs the Graphviz `dot` program, which is "
            "not on PATH (install graphviz, e.g. `apt-get install graphviz`), or write .dot"
        )
    import graphviz

    data = graphviz.Source(dot).pipe(format=suffix)
    write_atomic(out, data)
    return EXIT_OK


@cli.command()
def formats() -> int:
    """List every supported input format and the command that produces it."""
    from slim.ingest import FORMATS

    lines = []
    for evidence in ("graph", "trace", "linkmap", "binary", "timings"):
        group = [f for f in FORMATS if f.evidence == evidence]
        if not group:
            continue
        lines.append(f"{evidence} (--{evidence}):")
        for f in group:
            lines.append(f"  {f.name:26} {f.description}")
            lines.append(f"  {'':26} $ {f.command}")
    write_output("\n".join(lines) + "\n", None)
    return EXIT_OK


@cli.command()
def analyzers() -> int:
    """List the registered analyzers and their rule codes."""
    from slim.analysis.engine import EVIDENCE_MISSING
    from slim.analysis.registry import discover

    lines = [f"{EVIDENCE_MISSING.code}  {EVIDENCE_MISSING.name:30} {EVIDENCE_MISSING.summary}"]
    for spec in discover():
        for r in spec.rules:
            need = ", ".join(sorted(spec.requires)) or "graph"
            lines.append(f"{r.code}  {r.name:30} {r.summary} (needs: {need})")
    write_output("\n".join(sorted(lines)) + "\n", None)
    return EXIT_OK


@cli.command()
@click.argument("code")
def explain(code: str) -> int:
    """Print the documentation of a rule code (SLIM001, ...)."""
    from slim.analysis.engine import EVIDENCE_MISSING
    from slim.analysis.registry import discover

    rules = {EVIDENCE_MISSING.code: EVIDENCE_MISSING}
    for spec in discover():
        rules.update({r.code: r for r in spec.rules})
    rule = rules.get(code.upper())
    if rule is None:
        raise UsageError(f"unknown rule {code}; known: {', '.join(sorted(rules))}")
    write_output(f"{rule.code} {rule.name}\n\n{rule.summary}\n\n{rule.help}\n", None)
    return EXIT_OK


def _cuts_for(targets: Sequence[str], kw: dict[str, Any]) -> tuple[list[Any], Path]:
    """Run the analysis as `report` does; the cuts it proposes and the workspace."""
    from slim.analysis.engine import analyze
    from slim.plan.prune import cuts_of

    s = _session(kw["config_path"], kw["graphs"], kw["graph_format"], kw["no_cache"])
    labels = list(targets) or list(s.config.roots)
    if not labels:
        raise UsageError("no target: pass TARGET or name `roots` in the config")
    graph = _load_graph(s)
    roots = _root_ids(graph, labels)
    labels = [graph.labels[r] for r in roots]
    names = {"trace": "traces", "linkmap": "linkmaps", "binary": "binaries", "timings": "timings"}
    flags = {k: kw[v] for k, v in names.items()}
    facts = _load_facts(s.config, labels, flags)
    opts = _options(s.config, labels, kw["workspace"], kw["cpu_only"], kw["cuda_archs"])
    rep = analyze(graph, roots, facts, opts, keep=_config_keeps(s.config))
    root = opts.workspace or (s.config.path.parent if s.config.path else Path.cwd())
    return cuts_of(graph, rep.findings), root


@cli.command("apply")
@click.argument("targets", nargs=-1)
@graph_options
@evidence_options
@click.option("--write", is_flag=True, help="Change the files (default: a dry run).")
@click.option("--buildozer", "buildozer", default=None, metavar="PATH", help="buildozer binary.")
def apply_cmd(targets: tuple[str, ...], write: bool, buildozer: str | None, **kw: Any) -> int:
    """Cut the removable edges of TARGET(s) in BUILD/BUCK/CMake files (dry run by default)."""
    from slim.app.apply import apply_cuts

    cuts, root = _cuts_for(targets, kw)
    res = apply_cuts(cuts, root, write=write, buildozer=buildozer)
    write_output("\n".join(res.lines) + "\n", None)
    return EXIT_FINDINGS if res.failed else EXIT_OK


@cli.command("verify")
@click.argument("targets", nargs=-1)
@graph_options
@evidence_options
@click.option("--build-cmd", required=True, help="Build command, run from the scratch copy.")
@click.option("--test-cmd", default=None, help="Test command, run after a passing build.")
@click.option("--worktree", is_flag=True, help="Use a git worktree instead of a copy.")
@click.option("--timeout", type=float, default=None, help="Seconds per build/test run.")
@click.option("--buildozer", "buildozer", default=None, metavar="PATH", help="buildozer binary.")
def verify_cmd(
    targets: tuple[str, ...],
    build_cmd: str,
    test_cmd: str | None,
    worktree: bool,
    timeout: float | None,
    buildozer: str | None,
    **kw: Any,
) -> int:
    """Prove the cuts of TARGET(s): rebuild a scratch copy without them; report what held."""
    from slim.app.verify import verify

    cuts, root = _cuts_for(targets, kw)
    rep = verify(
        cuts,
        root,
        build_cmd,
        test_cmd,
        mode="worktree" if worktree else "copy",
        timeout=timeout,
        buildozer=buildozer,
    )
    write_output("\n".join(rep.lines) + "\n", None)
    if not rep.baseline_ok:
        return EXIT_INPUT
    return EXIT_FINDINGS if rep.broke else EXIT_OK


def _config_keeps(cfg: Config) -> list[Any]:
    from slim.analysis.suppress import keeps_from_config

    return keeps_from_config(cfg.raw, cfg.path)


def _evidence_flags(kw: Mapping[str, Any]) -> dict[str, Sequence[str]]:
    names = {"trace": "traces", "linkmap": "linkmaps", "binary": "binaries", "timings": "timings"}
    return {k: kw[v] for k, v in names.items()}


@cli.command("review")
@click.argument("targets", nargs=-1)
@click.option("--base-graph", multiple=True, metavar="FILE", help="Graph export before the change.")
@click.option("--head-graph", multiple=True, metavar="FILE", help="Graph export after the change.")
@click.option("--base", "base_rev", default=None, metavar="NAME", help="Config revision (base).")
@click.option("--head", "head_rev", default=None, metavar="NAME", help="Config revision (head).")
@click.option("--graph-format", default=None, metavar="NAME", help="Read graphs as this format.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None)
@click.option("--no-cache", is_flag=True, help="Do not use the parsed-graph cache.")
@evidence_options
@click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS), default="markdown")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None)
@click.option("--fail-on", default=None, metavar="LEVEL|CODES", help="As for `slim report`.")
@click.option("--select", default="", metavar="CODES", help="Only these rule codes.")
@click.option("--ignore", default="", metavar="CODES", help="Skip these rule codes.")
def review_cmd(
    targets: tuple[str, ...],
    base_graph: tuple[str, ...],
    head_graph: tuple[str, ...],
    base_rev: str | None,
    head_rev: str | None,
    fmt: str,
    output: str | None,
    fail_on: str | None,
    select: str,
    ignore: str,
    **kw: Any,
) -> int:
    """Report only what a change introduced or touched between a base and a head graph."""
    from slim.analysis.engine import analyze
    from slim.app.review import pick_revision, review, revisions_from_config
    from slim.model.facts import InputFile

    cfg = _resolve_config(kw["config_path"])
    fmt_in = kw["graph_format"] or cfg.graph_format
    flags = _evidence_flags(kw)
    sides: dict[str, tuple[list[Path], dict[str, Sequence[str]]]] = {}
    revs = revisions_from_config(cfg.raw, cfg.path) if "revisions" in cfg.raw else {}
    for side, graphs, rev in (("base", base_graph, base_rev), ("head", head_graph, head_rev)):
        if graphs:
            sides[side] = (_path_list(graphs), dict(flags))
        elif revs:
            r = pick_revision(revs, rev or side)
            own = {k: [str(p) for p in v] for k, v in r.inputs.items() if k != "graph"}
            given = {k: v for k, v in flags.items() if v}
            sides[side] = (list(r.inputs["graph"]), {**own, **given})
        else:
            raise UsageError(f"no {side} graph: pass --{side}-graph FILE or name `revisions`")
    labels = list(targets) or list(cfg.roots)
    if not labels:
        raise UsageError("no target: pass TARGET or name `roots` in the config")
    keep = _config_keeps(cfg)
    opts = _options(cfg, labels, kw["workspace"], kw["cpu_only"], kw["cuda_archs"])
    loaded = {}
    for side, (paths, side_flags) in sides.items():
        graph = _load_graph(Session(cfg, paths, fmt_in, not kw["no_cache"]))
        facts = _load_facts(cfg, labels, side_flags)
        fmts = ",".join(graph.formats)
        facts.inputs.extend(InputFile("graph", p.as_posix(), fmts) for p in paths)
        loaded[side] = (graph, facts)

    def side_report(graph: BuildGraph, roots: list[int]) -> Report:
        facts = loaded["head"][1] if graph is loaded["head"][0] else loaded["base"][1]
        return analyze(
            graph,
            roots,
            facts,
            opts,
            select=[c for c in select.split(",") if c],
            ignore=[c for c in ignore.split(",") if c],
            keep=keep,
        )

    rep = review(loaded["base"][0], loaded["head"][0], labels, side_report)
    write_output(render_report(rep, fmt), Path(output) if output else None)
    return EXIT_FINDINGS if _fails(rep, fail_on or cfg.fail_on) else EXIT_OK


@cli.command("cleanup")
@click.argument("patterns", nargs=-1)
@graph_options
@evidence_options
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: CPUs).",
)
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Dask scheduler address.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None, help="SQLite file.")
@click.option(
    "--out-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Write backlog.{md,csv,json,buildozer} here (default: Markdown to stdout).",
)
@click.option("--fresh", is_flag=True, help="Start a new run instead of resuming one.")
@click.option("--select", default="", metavar="CODES", help="Only these rule codes.")
@click.option("--ignore", default="", metavar="CODES", help="Skip these rule codes.")
def cleanup_cmd(
    patterns: tuple[str, ...],
    jobs: int | None,
    scheduler: str | None,
    db_path: str | None,
    out_dir: str | None,
    fresh: bool,
    select: str,
    ignore: str,
    **kw: Any,
) -> int:
    """Analyze every binary in scope (//..., a pattern, or `roots`); rank a backlog by owner."""
    from slim.app import cleanup as cu
    from slim.infra.cache import cache_key

    s = _session(kw["config_path"], kw["graphs"], kw["graph_format"], kw["no_cache"])
    scope = list(patterns) or list(s.config.roots) or ["//..."]
    graph = _load_graph(s)
    roots = cu.select_roots(graph, scope)
    facts = _load_facts(s.config, roots, _evidence_flags(kw))
    evidence: dict[str, list[str]] = {}
    for i in facts.inputs:
        evidence.setdefault(i.evidence, []).append(i.path)
    opts = _options(s.config, roots, kw["workspace"], kw["cpu_only"], kw["cuda_archs"])
    job = cu.Job(
        graph_paths=tuple(p.as_posix() for p in s.graph_paths),
        graph_format=s.graph_format,
        use_cache=s.use_cache,
        evidence=tuple((k, tuple(v)) for k, v in sorted(evidence.items())),
        options=opts,
        select=tuple(c for c in select.split(",") if c),
        ignore=tuple(c for c in ignore.split(",") if c),
        keep=tuple(_config_keeps(s.config)),
    )
    db = cu.open_db(Path(db_path) if db_path else cu.default_db(s.config.path))
    bar: Any = None
    try:
        if sys.stderr.isatty():
            bar = click.progressbar(length=len(roots), label="slim cleanup", file=sys.stderr)
            bar.__enter__()

        def progress(done: int, total: int) -> None:
            if bar is not None:
                bar.update(done - bar.pos)

        stats = cu.run_cleanup(
            db,
            job,
            graph,
            cache_key(s.graph_paths, s.graph_format),
            roots,
            " ".join(scope),
            jobs=jobs or cu.cpu_count(),
            scheduler=scheduler,
            fresh=fresh,
            progress=progress,
            facts=facts,
        )
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    owners = cu.Owners.load(s.config.raw, s.config.path, opts.workspace)
    backlog = cu.finish(db, stats.run, graph, owners)
    db.close()
    outputs = dict(cu.iter_outputs(backlog))
    if out_dir:
        for name, text in outputs.items():
            write_output(text, Path(out_dir) / name)
    else:
        write_output(outputs["backlog.md"], None)
    click.echo(
        f"slim cleanup: run {stats.run}: {stats.roots} roots ({stats.resumed} resumed), "
        f"{stats.seconds:.1f} s, per-root median {stats.median_root_seconds:.3f} s; "
        f"{cu.since_line(backlog)}; {cu.trend_line(backlog)}",
        err=True,
    )
    return EXIT_OK


@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False),
    help="Write the import trace here (JSON lines; pass it to --trace).",
)
@click.option(
    "--importtime",
    is_flag=True,
    help="Record with -X importtime instead of an audit hook (Python 3.7; no import lines).",
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def trace(output: str, importtime: bool, command: tuple[str, ...]) -> int:
    """Run COMMAND (after --) and record the Python modules it imports, with their importers.

    The program's output, input and exit code are its own: slim exits with its status.
    """
    from slim.app.trace import record

    return record(list(command), Path(output), importtime=importtime)


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point: map errors to exit codes and one-line messages."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or bool(os.environ.get("SLIM_DEBUG"))
    try:
        rv = cli.main(args=args, prog_name="slim", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("slim: interrupted", err=True)
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_INPUT)
    except SlimError as exc:
        if debug:
            raise
        click.echo(f"slim: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("slim: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(EXIT_OK)
    except Exception as exc:
        if debug:
            raise
        click.echo(
            f"slim: internal error: {type(exc).__name__}: {exc} "
            "(re-run with --debug for the traceback, and please report it)",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)
    sys.exit(rv if isinstance(rv, int) else EXIT_OK)
