"""The commands: parse flags into a `Request`, call a use case in `slim.app`, write, exit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from slim.cli.main import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, cli, encode_output, write_output
from slim.cli.options import evidence_options, graph_options, request_from, rule_options
from slim.errors import UsageError

REPORT_FORMATS = ("text", "json", "markdown", "sarif", "buildozer", "dot", "csv")


def _output(f: Any) -> Any:
    return click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False),
        default=None,
        help="Write here (atomically) instead of stdout.",
    )(f)


def _fail_on(f: Any) -> Any:
    f = click.option(
        "--exit-zero", is_flag=True, help="Exit 0 even when removable findings exist."
    )(f)
    return click.option(
        "--fail-on",
        default=None,
        metavar="LEVEL|CODES",
        help="Exit 1 only on removable findings at this confidence or more (high, medium, "
        "low), of these codes (SLIM001,SLIM002), or `any` (the default).",
    )(f)


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
@_output
@_fail_on
@rule_options
@click.option("-v", "--verbose", count=True, help="Every evidence line, file and note.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the one-line summary.")
@click.option("--statistics", is_flag=True, help="Counts of findings by rule code.")
def report(
    targets: tuple[str, ...],
    fmt: str,
    output: str | None,
    verbose: int,
    quiet: bool,
    statistics: bool,
    **kw: Any,
) -> int:
    """Analyze TARGET(s): the removable cuts by saving, what was kept, missing evidence."""
    from slim.app.report import fails, render
    from slim.app.session import Session

    session = Session(request_from(kw))
    gate = session.fail_on(kw["fail_on"])
    rep = session.report(session.select_roots(targets))
    verbosity = 0 if quiet else 1 + verbose
    write_output(render(rep, fmt, verbosity, statistics), Path(output) if output else None)
    return EXIT_FINDINGS if fails(rep, gate, kw["exit_zero"]) else EXIT_OK


@cli.command()
@click.argument("source")
@click.argument("dest")
@graph_options
@click.option("--limit", default=5, show_default=True, help="At most this many paths.")
@click.option(
    "--all-kinds", is_flag=True, help="Follow tool/implicit edges too (default: build edges only)."
)
def why(source: str, dest: str, limit: int, all_kinds: bool, **kw: Any) -> int:
    """Show the shortest dependency path(s) from SOURCE to DEST."""
    from slim.app.session import Session
    from slim.app.why import why as answer

    got = answer(Session(request_from(kw)), source, dest, limit=limit, all_kinds=all_kinds)
    if not got.lines:
        click.echo(f"{got.source} does not depend on {got.dest}", err=True)
        return EXIT_FINDINGS
    write_output("\n".join(got.lines) + "\n", None)
    return EXIT_OK


@cli.command("graph")
@click.argument("target")
@graph_options
@evidence_options
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="out.svg, out.png, out.pdf or out.dot (default: DOT on stdout).",
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
    output: str | None,
    depth: int | None,
    collapse_packages: bool | None,
    reduce: bool,
    **kw: Any,
) -> int:
    """Draw TARGET's dependency graph (dead edges highlighted when evidence is given)."""
    from slim.app.draw import DrawOptions, draw
    from slim.app.session import Session

    out = Path(output) if output else None
    session = Session(request_from(kw))
    data = draw(session, target, out, DrawOptions(depth, collapse_packages, reduce))
    if out is None:
        write_output(data.decode("utf-8"), None)
        return EXIT_OK
    from slim.infra.atomic import write_atomic

    write_atomic(out, data)
    return EXIT_OK


@cli.command()
def formats() -> int:
    """List every supported input format and the command that produces it."""
    from slim.ingest import FORMATS

    lines = []
    for evidence in ("graph", "trace", "linkmap", "binary", "compile", "timings"):
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
    """List every rule code a report can emit, and the evidence each needs."""
    from slim.analysis.registry import discover
    from slim.model.rules import rule_table

    lines = []
    for code, (rule, spec) in rule_table(discover()).items():
        need = "core" if spec is None else ", ".join(sorted(spec.requires)) or "graph"
        lines.append(f"{code}  {rule.name:30} {rule.summary} (needs: {need})")
    write_output("\n".join(lines) + "\n", None)
    return EXIT_OK


@cli.command()
@click.argument("code", required=False)
@click.option("--all", "all_rules", is_flag=True, help="Every rule, as Markdown (docs/rules.md).")
def explain(code: str | None, all_rules: bool) -> int:
    """Print the documentation of a rule code (SLIM001, ...), or of every rule."""
    from slim.analysis.registry import discover
    from slim.model.rules import rule_table

    table = rule_table(discover())
    if all_rules:
        from slim.render.rules_doc import rules_markdown

        write_output(rules_markdown(table), None)
        return EXIT_OK
    if code is None:
        raise UsageError("explain: give a rule CODE (slim analyzers lists them) or --all")
    hit = table.get(code.upper())
    if hit is None:
        raise UsageError(f"unknown rule {code}; known: {', '.join(table)}")
    rule = hit[0]
    write_output(f"{rule.code} {rule.name}\n\n{rule.summary}\n\n{rule.help}\n", None)
    return EXIT_OK


@cli.command("apply")
@click.argument("targets", nargs=-1)
@graph_options
@evidence_options
@click.option("--write", is_flag=True, help="Change the files (default: a dry run).")
@click.option("--buildozer", "buildozer", default=None, metavar="PATH", help="buildozer binary.")
def apply_cmd(targets: tuple[str, ...], write: bool, buildozer: str | None, **kw: Any) -> int:
    """Cut the removable edges of TARGET(s) in BUILD/BUCK/CMake files (dry run by default)."""
    from slim.app.apply import apply_cuts, session_cuts
    from slim.app.session import Session

    cuts, root = session_cuts(Session(request_from(kw)), targets)
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
    from slim.app.apply import session_cuts
    from slim.app.session import Session
    from slim.app.verify import verify

    cuts, root = session_cuts(Session(request_from(kw)), targets)
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
@_output
@_fail_on
@rule_options
def review_cmd(
    targets: tuple[str, ...],
    base_graph: tuple[str, ...],
    head_graph: tuple[str, ...],
    base_rev: str | None,
    head_rev: str | None,
    fmt: str,
    output: str | None,
    **kw: Any,
) -> int:
    """Report only what a change introduced or touched between a base and a head graph."""
    from slim.app.report import fails, render
    from slim.app.review import run_review

    request = request_from(kw, graphs=())
    sides = {
        "base": (tuple(Path(p) for p in base_graph), base_rev),
        "head": (tuple(Path(p) for p in head_graph), head_rev),
    }
    from slim.app.session import Session, resolve_config

    check = Session(request, resolve_config(request.config_path))
    gate = check.fail_on(kw["fail_on"])
    rep = run_review(check.checked_request(), targets, sides)
    write_output(render(rep, fmt), Path(output) if output else None)
    return EXIT_FINDINGS if fails(rep, gate, kw["exit_zero"]) else EXIT_OK


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
@rule_options
def cleanup_cmd(
    patterns: tuple[str, ...],
    jobs: int | None,
    scheduler: str | None,
    db_path: str | None,
    out_dir: str | None,
    fresh: bool,
    **kw: Any,
) -> int:
    """Analyze every binary in scope (//..., a pattern, or `roots`); rank a backlog by saving."""
    from slim.app import cleanup as cu
    from slim.app.session import Session

    session = Session(request_from(kw))
    bar: Any = None
    try:
        if sys.stderr.isatty():
            bar = click.progressbar(length=1, label="slim cleanup", file=sys.stderr)
            bar.__enter__()

        def progress(done: int, total: int) -> None:
            if bar is not None:
                bar.length = total
                bar.update(done - bar.pos)

        backlog, stats = cu.run(
            session,
            patterns,
            jobs=jobs or cu.cpu_count(),
            scheduler=scheduler,
            db_path=Path(db_path) if db_path else None,
            fresh=fresh,
            progress=progress,
        )
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    outputs = dict(cu.iter_outputs(backlog))
    if out_dir:
        from slim.infra.atomic import write_all_atomic

        write_all_atomic(
            {Path(out_dir) / name: encode_output(text) for name, text in outputs.items()}
        )
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
