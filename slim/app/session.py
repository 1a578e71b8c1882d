"""The one pipeline every command runs: config -> graph -> roots -> evidence -> analysis.

A `Session` resolves, once, what the command line and the config say: the graph exports,
each root's own evidence (flags replace the config's files of the same kind; a root's
`[targets."//x"]` files reach that root only) and each root's options with their source.
`report`, `graph`, `why`, `review`, `apply`, `verify` and `cleanup` all go through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from slim.errors import ConfigError, InputError, UsageError
from slim.infra.config import Config, find_config, load_config

if TYPE_CHECKING:
    from slim.analysis.engine import Analysis, RootInput
    from slim.analysis.suppress import Keep
    from slim.infra.graph_view import GraphView
    from slim.infra.progress import Progress
    from slim.model.facts import Facts
    from slim.model.graph import BuildGraph
    from slim.model.history import ChangeHistory, NoHistory
    from slim.model.options import RootOptions
    from slim.model.plugin import AnalyzerSpec
    from slim.model.report import Report

#: Evidence kinds given as files, in the order they are read.
EVIDENCE_FILE_KINDS = ("trace", "linkmap", "binary", "compile", "timings")


@dataclass(frozen=True)
class Request:
    """What the command line asked for (the CLI fills it; no click past this point)."""

    graphs: tuple[Path, ...] = ()
    graph_format: str | None = None
    use_cache: bool = True
    config_path: Path | None = None
    evidence: Mapping[str, tuple[Path, ...]] = field(default_factory=dict)
    workspace: Path | None = None
    cpu_only: bool | None = None
    cuda_archs: tuple[str, ...] = ()
    site_packages: tuple[Path, ...] = ()
    repo_root: Path | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    history_days: int | None = None
    """Days of VCS history for the quarterly savings (None: the config's, else 90)."""
    history_until: str | None = None
    """End of the history window (YYYY-MM-DD); None: the newest commit's date."""


#: Days of history read when neither the command line nor the config says.
DEFAULT_HISTORY_DAYS = 90


def resolve_config(config_path: Path | None) -> Config:
    if config_path is not None:
        return load_config(config_path)
    return load_config(find_config(Path.cwd()))


def display(path: Path | None) -> str:
    """A config path as users see it (relative to the working directory when inside it)."""
    if path is None:
        return "the config"
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):  # outside the cwd; a symlink loop
        return str(path)


class Session:
    """One command's resolved inputs; the graph and evidence files are read on demand, once."""

    def __init__(
        self, request: Request, config: Config | None = None, graphs: Sequence[Path] = ()
    ) -> None:
        self.request = request
        self.config = config if config is not None else resolve_config(request.config_path)
        self.graph_paths = list(graphs or request.graphs or self.config.inputs.get("graph", []))
        self.graph_format = request.graph_format or self.config.graph_format
        self._loaded: dict[tuple[str, Path], tuple[str, list[object]]] = {}
        self._facts: dict[str, Facts] = {}
        self._options: dict[str, RootOptions] = {}
        self.roots: list[int] = []
        self._checked = False
        self._history: ChangeHistory | NoHistory | None = None
        self.specs: list[AnalyzerSpec] | None = None
        """Analyzers to run instead of the registered ones (a cleanup job's chosen set)."""
        self._registered: list[AnalyzerSpec] | None = None
        self.closure_route = True
        """Whether a graph-only query may read just its roots' closure (see `_try_closure`)."""

    # -- checks -----------------------------------------------------------------------------
    def analyzer_specs(self) -> list[AnalyzerSpec]:
        """The analyzers this session runs: `specs` when set, else the registered ones,
        found once per session and their entry points remembered across runs while the
        installed metadata is unchanged (reading it costs 20-50 ms a query)."""
        if self.specs is not None:
            return self.specs
        if self._registered is None:
            from slim.analysis.registry import GROUP, discover, registered
            from slim.infra.cache import cache_dir
            from slim.infra.plugins import cached_entry_points

            if self.request.use_cache:
                self._registered = discover(cached_entry_points(GROUP, cache_dir(), registered))
            else:
                self._registered = discover()
        return self._registered

    def rule_codes(self) -> list[str]:
        """Every code a report can emit (core rules and the analyzers')."""
        from slim.model.rules import rule_table

        return list(rule_table(self.analyzer_specs()))

    def checked_request(self) -> Request:
        """The request with selectors and architectures checked (config values too, flags
        winning) and normalized; a bad one is a usage error with a "did you mean"."""
        import dataclasses

        from slim.app.selectors import check_archs, check_selectors

        codes = self.rule_codes()
        where = display(self.config.path)
        select = self.request.select or self.config.select
        ignore = self.request.ignore or self.config.ignore
        src = "--select" if self.request.select else f"{where}: select"
        isrc = "--ignore" if self.request.ignore else f"{where}: ignore"
        self.request = dataclasses.replace(
            self.request,
            select=check_selectors(src, select, codes),
            ignore=check_selectors(isrc, ignore, codes),
            cuda_archs=check_archs("--cuda-archs", self.request.cuda_archs),
        )
        check_archs(f"{where}: cuda_archs", self.config.cuda_archs)
        for label, tc in self.config.targets.items():
            check_archs(f"{where}: targets.{label!r}.cuda_archs", tc.cuda_archs)
        return self.request

    def fail_on(self, flag: str | None) -> str | None:
        """`--fail-on`, else the config's `fail_on`, checked and normalized."""
        from slim.app.selectors import check_fail_on

        if flag is not None:
            return check_fail_on("--fail-on", flag, self.rule_codes())
        where = f"{display(self.config.path)}: fail_on"
        return check_fail_on(where, self.config.fail_on, self.rule_codes())

    # -- graph ------------------------------------------------------------------------------
    @cached_property
    def graph(self) -> BuildGraph:
        from slim.infra.cache import load_graph_cached

        if not self.graph_paths:
            raise UsageError(
                "no build graph: pass --graph FILE or name `graph` in slim.toml / [tool.slim]"
            )
        for p in self.graph_paths:
            must_exist(p, "a graph export")
        from slim.infra.progress import size_text

        size = sum(p.stat().st_size for p in self.graph_paths if p.is_file())
        what = ", ".join(display(p) for p in self.graph_paths)
        with self.progress.step(f"reading {what} ({size_text(size)})"):
            return load_graph_cached(
                self.graph_paths,
                self.graph_format,
                use_cache=self.request.use_cache,
            )

    def cached_view(self, labels: Sequence[str]) -> tuple[GraphView, list[int]] | None:
        """The cached whole graph (or, for a graph-only query, the kept closure of
        `labels`) as a numpy-free view, with the ids of `labels`, when such an entry names
        every label as given or in its normalized spelling (else `root_ids` answers)."""
        if "graph" in self.__dict__ or not self.request.use_cache or not self.graph_paths:
            return None
        for p in self.graph_paths:
            must_exist(p, "a graph export")
        from slim.infra.cache import cache_key
        from slim.infra.graph_view import open_view

        key = cache_key(self.graph_paths, self.graph_format)
        view = open_view(key)
        if view is None and self.closure_route and self._graph_only(labels):
            from slim.infra.cache import closure_key, mark_used
            from slim.model.labels import normalize_label

            roots = tuple(normalize_label(lab) for lab in labels)
            view = open_view(closure_key(key, roots), closure_of=roots)
            if view is not None:
                mark_used(closure_key(key, roots))
        if view is None:
            return None
        try:
            ids = [view.lookup(lab) for lab in labels]
        except (IndexError, ValueError):  # a damaged index: `root_ids` reports and rebuilds
            return None
        if any(i is None for i in ids):
            return None
        return view, [i for i in ids if i is not None]

    def _try_closure(self, labels: Sequence[str]) -> None:
        """Read only `labels`' closure when that gives the same answer as the whole graph:
        nothing but the graph is judged (no evidence files, no workspace), one
        streamed_jsonproto or Buck2 JSON export (the cache's kept closure of `labels`, or
        its whole graph, is mapped instead when there is one)."""
        if "graph" in self.__dict__ or not self.closure_route or not self._graph_only(labels):
            return
        from slim.infra.cache import load_closure_graph
        from slim.infra.progress import size_text

        path = self.graph_paths[0]
        size = size_text(path.stat().st_size) if path.is_file() else "?"
        with self.progress.step(f"reading the closure of {', '.join(labels)} ({size})"):
            g = load_closure_graph(
                path, self.graph_format, labels, use_cache=self.request.use_cache
            )
        if g is not None and (not g.closure_of or all(g.lookup(x) is not None for x in labels)):
            self.__dict__["graph"] = g

    def _graph_only(self, labels: Sequence[str]) -> bool:
        if len(self.graph_paths) != 1 or not labels:
            return False
        if any(lab.endswith("...") or "//" not in lab for lab in labels):
            return False
        req, cfg = self.request, self.config
        for lab in labels:
            if self._files(lab) or req.workspace or cfg.for_target(lab).workspace:
                return False
        return cfg.workspace is None

    @cached_property
    def progress(self) -> Progress:
        from slim.infra.progress import Progress

        return Progress()

    def root_ids(self, labels: Sequence[str]) -> list[int]:
        """Graph ids of `labels`; an unknown label is a usage error with a "did you mean"."""
        self._try_closure(labels)
        ids = []
        for lab in labels:
            i = self.graph.lookup(lab)
            if i is None:
                i = self._typed_form(lab)
            if i is None:
                import difflib

                near = near_labels(self.graph.labels, lab)
                close = difflib.get_close_matches(lab, near, n=3)
                hint = f" (did you mean {', '.join(close)}?)" if close else ""
                raise UsageError(f"target {lab} is not in the graph{hint}")
            ids.append(i)
        return ids

    def _typed_form(self, wanted: str) -> int | None:
        """A label as users type it: `//pkg:name` on a Buck2 graph (`root//pkg:name`, the
        one cell that has it) or a bare CMake target name (`//dir:name`); ambiguity is a
        usage error naming the candidates."""
        labels = self.graph.labels
        if wanted.startswith("//"):
            cands = [x for x in labels if x.endswith(wanted) and x.find("//") > 0]
        elif "//" not in wanted and ":" not in wanted:
            cands = [x for x in labels if x.rsplit(":", 1)[-1] == wanted and "//" in x]
        else:
            return None
        if len(cands) > 1:
            shown = ", ".join(sorted(cands)[:5])
            raise UsageError(f"target {wanted} is ambiguous: it could be {shown}")
        return self.graph.lookup(cands[0]) if cands else None

    def select_roots(self, targets: Sequence[str]) -> list[int]:
        """The roots of this run: `targets`, else the config's `roots`."""
        labels = list(targets) or list(self.config.roots)
        if not labels:
            raise UsageError("no target: pass TARGET or name `roots` in the config")
        if any(lab.endswith("...") for lab in labels):
            from slim.app.cleanup.scope import select_roots

            patterns = [lab for lab in labels if lab.endswith("...")]
            exact = [lab for lab in labels if not lab.endswith("...")]
            expanded = select_roots(self.graph, patterns)
            labels = list(dict.fromkeys([*expanded, *exact]))
        self.roots = self.root_ids(labels)
        return self.roots

    # -- evidence ---------------------------------------------------------------------------
    def _load(self, kind: str, path: Path) -> tuple[str, list[object]]:
        hit = self._loaded.get((kind, path))
        if hit is None:
            must_exist(path, f"a {kind} file")
            from slim.ingest import load_evidence

            with self.progress.step(f"reading {kind} {display(path)}"):
                fmt, facts = load_evidence(path, kind)
            hit = self._loaded[(kind, path)] = (fmt.name, list(facts))
        return hit

    def _files(self, label: str, own_only: bool = False) -> list[tuple[str, Path]]:
        out: list[tuple[str, Path]] = []
        own = self.config.for_target(label).inputs
        for kind in EVIDENCE_FILE_KINDS:
            flag = self.request.evidence.get(kind, ())
            if own_only:
                paths = [] if flag else list(own.get(kind, []))
            else:
                paths = list(flag) or [*self.config.inputs.get(kind, []), *own.get(kind, [])]
            out.extend((kind, p) for p in dict.fromkeys(paths))
        return out

    def facts_for(self, label: str) -> Facts:
        """The evidence `label` is judged on: global inputs plus its own (read once), and
        the graph exports it came from."""
        from slim.model.facts import InputFile

        hit = self._facts.get(label)
        if hit is None:
            hit = self._facts[label] = self._facts_of(self._files(label))
            hit.add(self.history(label))
            formats = ",".join(self.graph.formats)
            hit.inputs.extend(InputFile("graph", p.as_posix(), formats) for p in self.graph_paths)
        return hit

    def _facts_of(self, files: Sequence[tuple[str, Path]]) -> Facts:
        from slim.model.facts import Facts, InputFile

        facts = Facts()
        for kind, p in files:
            fmt, loaded = self._load(kind, p)
            facts.extend(loaded)
            facts.inputs.append(InputFile(kind, p.as_posix(), fmt))
        return facts

    def history(self, label: str) -> ChangeHistory | NoHistory:
        """The workspace's change history (read once), or why there is none."""
        if self._history is None:
            self._history = self._read_history(label)
        return self._history

    def _read_history(self, label: str) -> ChangeHistory | NoHistory:
        from slim.model.history import NoHistory

        req, cfg = self.request, self.config
        days = req.history_days if req.history_days is not None else cfg.history_days
        if days == 0:
            src = (
                "--history-days 0"
                if req.history_days == 0
                else f"history_days = 0 in {display(cfg.path)}"
            )
            return NoHistory(src)
        ws = self.options_for(label).workspace or cfg.workspace
        if ws is None:
            return NoHistory("no workspace given (--workspace), so no VCS history")
        from slim.ingest.vcs.git_log import read_history

        with self.progress.step(f"reading the git history of {display(ws)}"):
            h = read_history(
                ws, days if days is not None else DEFAULT_HISTORY_DAYS, req.history_until
            )
        return h if h is not None else NoHistory(f"{display(ws)} is not in a git work tree")

    def evidence_of(self, label: str) -> Facts | None:
        """The evidence of another binary (a root of this run, or one the config gives
        files for); None when nothing was given for it."""
        if any(self.graph.labels[r] == label for r in self.roots):
            return self.facts_for(label)
        own = self._files(label, own_only=True)
        return self._facts_of(own) if own else None

    # -- options ----------------------------------------------------------------------------
    def options_for(self, label: str) -> RootOptions:
        """`label`'s options, each with the source that decided it (flag > target > tag >
        config)."""
        hit = self._options.get(label)
        if hit is None:
            hit = self._options[label] = self._resolve_options(label)
        return hit

    def _resolve_options(self, label: str) -> RootOptions:
        from slim.model.options import RootOptions

        req, cfg = self.request, self.config
        tc = cfg.for_target(label)
        where = display(cfg.path)
        ws = req.workspace or tc.workspace or cfg.workspace
        if ws is not None and not ws.is_dir():
            raise ConfigError(f"workspace {ws}: expected a directory, found none")
        cpu_only, cpu_source = self._cpu_only(label, where)
        archs, archs_source = req.cuda_archs, "--cuda-archs"
        if not archs:
            archs, archs_source = tc.cuda_archs, f"cuda_archs in {where} [targets.{label!r}]"
        if not archs:
            archs, archs_source = cfg.cuda_archs, f"cuda_archs in {where}"
        return RootOptions(
            workspace=ws,
            cpu_only=cpu_only,
            cpu_only_source=cpu_source,
            cuda_archs=archs,
            cuda_archs_source=archs_source if archs else "",
            site_packages=req.site_packages or tc.site_packages or cfg.site_packages,
            module_map=cfg.modules,
            cpu_only_tags=cfg.cpu_only_tags,
        )

    def _cpu_only(self, label: str, where: str) -> tuple[bool | None, str]:
        if self.request.cpu_only is not None:
            return self.request.cpu_only, "--cpu-only on the command line"
        tc = self.config.for_target(label)
        if tc.cpu_only is not None:
            return tc.cpu_only, f"cpu_only in {where}"
        i = self.graph.lookup(label)
        tags = {t.lower(): t for t in (self.graph.tags.get(i, ()) if i is not None else ())}
        for want in self.config.cpu_only_tags:
            if want.lower() in tags:
                return True, f"tag '{tags[want.lower()]}' on {label}"
        return None, ""

    # -- analysis ---------------------------------------------------------------------------
    def root_inputs(self, ids: Sequence[int]) -> list[RootInput]:
        from slim.analysis.engine import RootInput

        out = []
        for r in ids:
            label = self.graph.labels[r]
            out.append(RootInput(r, self.facts_for(label), self.options_for(label)))
        return out

    def keeps(self) -> list[Keep]:
        from slim.analysis.suppress import keeps_from_config

        return keeps_from_config(self.config.raw, self.config.path)

    def analyzes(self, label: str) -> bool:
        """Whether a report of `label` can say more than which evidence is missing: an
        analyzer runs on the evidence given (one that needs none always does), or a
        configured keep could be reported stale."""
        given = self.facts_for(label).kinds_given(
            workspace=self.options_for(label).workspace is not None
        )
        specs = self.analyzer_specs()
        return any(not s.requires or s.requires & given for s in specs) or bool(self.keeps())

    def analysis(self, ids: Sequence[int]) -> Analysis:
        """Findings for `ids` (each root on its own evidence), suppressions applied."""
        if not self._checked:
            self.checked_request()
            self._checked = True
        inputs = self.root_inputs(ids)
        what = self.graph.labels[ids[0]] if len(ids) == 1 else f"{len(ids)} roots"
        with self.progress.step(f"analyzing {what}"):
            return self._run(inputs)

    def _run(self, inputs: Sequence[RootInput]) -> Analysis:
        from slim.analysis.engine import run_analyzers

        return run_analyzers(
            self.graph,
            inputs,
            select=self.request.select,
            ignore=self.request.ignore,
            keep=self.keeps(),
            specs=self.analyzer_specs(),
            evidence_of=self.evidence_of,
            options_of=self.options_for,
        )

    def report(self, ids: Sequence[int]) -> Report:
        """The planned report of `ids`, its locations in this workspace."""
        from slim.analysis.engine import build_report

        return self.localized(build_report(self.graph, self.root_inputs(ids), self.analysis(ids)))

    def localized(self, report: Report) -> Report:
        """Locations from an export made on another machine (`/src/x/serving/BUILD`) mapped
        into the workspace (`serving/BUILD`), and the workspace's place in the repository."""
        import dataclasses

        from slim.app.locations import Localizer, source_root

        ws = next((self.options_for(r.label).workspace for r in report.roots), None)
        ws = ws or self.config.workspace
        if ws is None:
            return report
        loc = Localizer(ws)
        return dataclasses.replace(
            report,
            findings=tuple(loc.finding(f) for f in report.findings),
            suppressed=tuple(loc.finding(f) for f in report.suppressed),
            source_root=source_root(ws, self.request.repo_root),
        )


def must_exist(path: Path, what: str) -> None:
    """A missing input, a symlink loop or a special file (FIFO, device, socket) is bad
    input (exit 2), said in one line, before any reading."""
    from slim.ingest._io import check_input

    if not path.exists() and not path.is_symlink():
        raise InputError(str(path), what, "no such file or directory")
    check_input(path, directory=True)


def near_labels(labels: Sequence[str], wanted: str, cap: int = 20_000) -> list[str]:
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
