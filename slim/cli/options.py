"""The one table of input flags every analysing command shares, and the `Request` it fills."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from slim.app.session import Request

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class EvidenceFlag:
    """`--NAME FILE` (repeatable): files of one evidence kind."""

    flag: str
    param: str
    kind: str
    help: str


EVIDENCE_FLAGS: tuple[EvidenceFlag, ...] = (
    EvidenceFlag(
        "--trace", "traces", "trace", "Python import trace (-X importtime, -v, slim trace)."
    ),
    EvidenceFlag(
        "--linkmap", "linkmaps", "linkmap", "Linker map or GC report (GNU ld, gold, lld, mold)."
    ),
    EvidenceFlag(
        "--binary", "binaries", "binary", "ELF executable, shared library, object or archive."
    ),
    EvidenceFlag(
        "--compile",
        "compiles",
        "compile",
        "Compile-time deps: a depfile (-MD) or a directory of them, or `ninja -t deps` output.",
    ),
    EvidenceFlag(
        "--timings",
        "timings",
        "timings",
        ".ninja_log, Bazel --profile, clang -ftime-trace, Buck2 report.",
    ),
)


def graph_options(f: F) -> F:
    """--graph, --graph-format, --config, --no-cache."""
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
    return click.option("--no-cache", is_flag=True, help="Do not use the parsed-graph cache.")(f)


def evidence_options(f: F) -> F:
    """The evidence-file flags of EVIDENCE_FLAGS plus the per-root settings."""
    for e in reversed(EVIDENCE_FLAGS):
        f = click.option(e.flag, e.param, multiple=True, metavar="FILE", help=e.help)(f)
    f = click.option(
        "--workspace",
        type=click.Path(file_okay=False),
        default=None,
        help="Source tree root (static Python imports, BUILD files).",
    )(f)
    f = click.option(
        "--site-packages",
        "site_packages",
        multiple=True,
        type=click.Path(file_okay=False),
        metavar="DIR",
        help="Where third-party Python distributions are installed (dist-info RECORD).",
    )(f)
    f = click.option(
        "--repo-root",
        type=click.Path(file_okay=False),
        default=None,
        help="Repository root for SARIF URIs (default: git's, from the workspace).",
    )(f)
    f = click.option(
        "--history-days",
        type=click.IntRange(min=0),
        default=None,
        metavar="N",
        help="Days of git history behind the per-quarter savings (default 90; 0: none).",
    )(f)
    f = click.option(
        "--history-until",
        default=None,
        metavar="YYYY-MM-DD",
        help="End of the history window (default: the newest commit's date).",
    )(f)
    f = click.option(
        "--cpu-only/--no-cpu-only",
        default=None,
        help="Treat the root(s) as CPU-only binaries (overrides tags/config).",
    )(f)
    return click.option(
        "--cuda-archs",
        default=None,
        metavar="sm_80,sm_90",
        help="GPU architectures the binary is deployed on.",
    )(f)


def rule_options(f: F) -> F:
    f = click.option("--select", default="", metavar="CODES", help="Only these rule codes.")(f)
    return click.option("--ignore", default="", metavar="CODES", help="Skip these rule codes.")(f)


def _codes(text: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in text.split(",") if c.strip())


def request_from(kw: Mapping[str, Any], graphs: tuple[str, ...] | None = None) -> Request:
    """The `Request` of a command's keyword arguments (the flags above)."""
    from slim.app.session import Request

    archs = kw.get("cuda_archs") or ""
    return Request(
        graphs=tuple(Path(g) for g in (kw.get("graphs", ()) if graphs is None else graphs)),
        graph_format=kw.get("graph_format"),
        use_cache=not kw.get("no_cache", False),
        config_path=Path(kw["config_path"]) if kw.get("config_path") else None,
        evidence={e.kind: tuple(Path(p) for p in kw.get(e.param, ())) for e in EVIDENCE_FLAGS},
        workspace=Path(kw["workspace"]) if kw.get("workspace") else None,
        cpu_only=kw.get("cpu_only"),
        cuda_archs=tuple(a.strip() for a in archs.split(",") if a.strip()),
        site_packages=tuple(Path(p) for p in kw.get("site_packages", ())),
        repo_root=Path(kw["repo_root"]) if kw.get("repo_root") else None,
        select=_codes(kw.get("select", "")),
        ignore=_codes(kw.get("ignore", "")),
        history_days=kw.get("history_days"),
        history_until=kw.get("history_until"),
    )
