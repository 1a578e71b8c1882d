"""Input readers, one module per real format, chosen by content (`sniff`) or by name.

`FORMATS` is the table `slim formats` prints. Graph readers have
`load(path, builder) -> None` and feed a shared `GraphBuilder`, so several exports (a
query plus an aquery, say) merge into one graph; evidence readers have
`load(path) -> list[fact]`. Modules are imported only when a file of their kind is read.
"""

from __future__ import annotations

import gc
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from slim.errors import UnknownFormatError, describe_found
from slim.ingest._io import check_input, looks_binary, read_head

if TYPE_CHECKING:
    from slim.model.graph import BuildGraph, GraphBuilder


@dataclass(frozen=True)
class Format:
    """One input format: its name, the evidence it gives, the reader and how to make it."""

    name: str
    evidence: str
    reader: str
    description: str
    command: str

    def _attr(self, attr: str) -> Callable[..., object]:
        module, _, prefix = self.reader.partition(":")
        mod = importlib.import_module(module)
        return cast("Callable[..., object]", getattr(mod, f"{attr}_{prefix}" if prefix else attr))

    def sniff(self, head: bytes, path: Path) -> bool:
        return bool(self._attr("sniff")(head, path))

    def load(self, path: Path, *args: object) -> object:
        check_input(path, directory=True)
        return self._attr("load")(path, *args)


def _f(name: str, evidence: str, reader: str, description: str, command: str) -> Format:
    return Format(name, evidence, reader, description, command)


# Order matters: the first format whose sniff matches wins, so specific before generic.
FORMATS: tuple[Format, ...] = (
    # -- build graphs ------------------------------------------------------------------
    _f(
        "bazel-streamed-jsonproto",
        "graph",
        "slim.ingest.graph.bazel_jsonproto:streamed",
        "Bazel query, one JSON Target per line",
        "bazel query 'deps(//app)' --output=streamed_jsonproto > graph.ndjson",
    ),
    _f(
        "bazel-cquery-jsonproto",
        "graph",
        "slim.ingest.graph.bazel_jsonproto:cquery",
        "Bazel cquery JSON ({results: [...]}, configured targets)",
        "bazel cquery 'deps(//app)' --output=jsonproto > cquery.json",
    ),
    _f(
        "bazel-jsonproto",
        "graph",
        "slim.ingest.graph.bazel_jsonproto:query",
        "Bazel query JSON (all layouts: objects back to back, [..][..] batches)",
        "bazel query 'deps(//app)' --output=jsonproto > query.json",
    ),
    _f(
        "bazel-aquery-jsonproto",
        "graph",
        "slim.ingest.graph.bazel_aquery",
        "Bazel aquery action graph: which target produced each object/archive",
        "bazel aquery 'deps(//app)' --output=jsonproto > aquery.json",
    ),
    _f(
        "bazel-xml",
        "graph",
        "slim.ingest.graph.bazel_xml",
        "Bazel query XML",
        "bazel query 'deps(//app)' --output=xml > graph.xml",
    ),
    _f(
        "bazel-proto",
        "graph",
        "slim.ingest.graph.bazel_proto:query_result",
        "Bazel query binary proto (one QueryResult)",
        "bazel query 'deps(//app)' --output=proto > graph.pb",
    ),
    _f(
        "bazel-streamed-proto",
        "graph",
        "slim.ingest.graph.bazel_proto:streamed",
        "Bazel query length-delimited Target protos",
        "bazel query 'deps(//app)' --output=streamed_proto > graph.pbs",
    ),
    _f(
        "bazel-label-kind",
        "graph",
        "slim.ingest.graph.bazel_label_kind",
        "Bazel query/cquery label_kind (nodes only, no edges)",
        "bazel query 'deps(//app)' --output=label_kind > targets.txt",
    ),
    _f(
        "buck2-query-json",
        "graph",
        "slim.ingest.graph.buck2_scan:query",
        "Buck2 cquery/uquery JSON (attributes; plain label lists give nodes only)",
        "buck2 cquery 'deps(//app:app)' --output-attribute '^buck\\.' "
        "--output-attribute '^(deps|exported_deps|srcs|base_module|labels)$' "
        "--output-attribute '^exported_(lang_|platform_)?preprocessor_flags$' > graph.json",
    ),
    _f(
        "buck2-targets-json",
        "graph",
        "slim.ingest.graph.buck2_json:targets",
        "Buck2 targets --json / --json-lines, ctargets --json-report",
        "buck2 targets //... --json > targets.json",
    ),
    _f(
        "cmake-file-api",
        "graph",
        "slim.ingest.graph.cmake_fileapi",
        "CMake file API codemodel-v2 reply directory (2.0 to 2.11)",
        "touch build/.cmake/api/v1/query/codemodel-v2 && cmake -S . -B build "
        "# then pass build/.cmake/api/v1/reply",
    ),
    _f(
        "cmake-graphviz",
        "graph",
        "slim.ingest.graph.cmake_graphviz",
        "CMake --graphviz output",
        "cmake -S . -B build --graphviz=build/deps.dot",
    ),
    _f(
        "ninja-graph",
        "graph",
        "slim.ingest.graph.ninja_graph",
        "ninja -t graph (build edges between files)",
        "ninja -C build -t graph > ninja-graph.dot",
    ),
    _f(
        "ninja-deps",
        "graph",
        "slim.ingest.graph.ninja_deps",
        "ninja -t deps (headers each object was compiled from)",
        "ninja -C build -t deps > ninja-deps.txt",
    ),
    _f(
        "buck2-dot",
        "graph",
        "slim.ingest.graph.buck2_dot",
        "Buck2 query DOT (dot and dot_compact)",
        "buck2 uquery 'deps(//app:app)' --output-format dot > graph.dot",
    ),
    _f(
        "bazel-graph",
        "graph",
        "slim.ingest.graph.bazel_dot",
        "Bazel query/cquery --output=graph (DOT, factored or not)",
        "bazel query 'deps(//app)' --output=graph > graph.dot",
    ),
    # -- build timings -----------------------------------------------------------------
    _f(
        "ninja-log",
        "timings",
        "slim.ingest.timings.ninja_log",
        ".ninja_log v5-v7 (per-command times; the last build of each output)",
        "cp build/.ninja_log ninja_log.txt",
    ),
    _f(
        "clang-time-trace",
        "timings",
        "slim.ingest.timings.clang_time_trace",
        "clang -ftime-trace JSON (one compile: frontend/backend split)",
        "clang++ -ftime-trace -c a.cc -o out/a.o   # writes out/a.json",
    ),
    _f(
        "bazel-profile",
        "timings",
        "slim.ingest.timings.bazel_profile",
        "Bazel --profile Chrome trace (gzipped or not; streamed)",
        "bazel build //app --profile=profile.json.gz",
    ),
    _f(
        "buck2-what-ran",
        "timings",
        "slim.ingest.timings.buck2_what_ran",
        "buck2 log what-ran (json with durations; tabulated/csv without)",
        "buck2 log what-ran --format json > what-ran.jsonl",
    ),
    _f(
        "buck2-build-report",
        "timings",
        "slim.ingest.timings.buck2_build_report",
        "Buck2 --build-report (outputs per target, build_metrics)",
        "buck2 build //app:app --build-report=report.json",
    ),
    _f(
        "sccache-stats",
        "timings",
        "slim.ingest.timings.sccache_stats",
        "sccache --show-stats --stats-format=json (cache hits and misses per language)",
        "sccache --show-stats --stats-format=json > sccache-stats.json",
    ),
    # -- Python import traces ------------------------------------------------------------
    _f(
        "slim-import-trace",
        "trace",
        "slim.ingest.python.audit_trace",
        "slim trace recording (audit hook, JSON lines, importer of each module)",
        "slim trace -o imports.jsonl -- python -m app",
    ),
    _f(
        "python-importtime",
        "trace",
        "slim.ingest.python.importtime",
        "python -X importtime stderr (3.7-3.14, =2 cached rows; other lines skipped)",
        "python -X importtime -m app 2> importtime.txt",
    ),
    _f(
        "python-verbose",
        "trace",
        "slim.ingest.python.python_verbose",
        "python -v stderr (import lines; importers from code-object nesting)",
        "python -v -m app 2> verbose.txt",
    ),
    _f(
        "python-audit-tsv",
        "trace",
        "slim.ingest.python.audit_trace:tsv",
        "sys.addaudithook import events printed as import<TAB>module<TAB>filename=...",
        "python audit_imports.py > audit.txt",
    ),
    # Standalone device code only (fatbin magic, or ELF for e_machine CUDA); must stay
    # before a generic ELF reader. Host ELF files get their DeviceCode from that reader.
    _f(
        "cuda-device-code",
        "binary",
        "slim.ingest.binary.fatbin",
        "standalone CUDA fatbin or cubin (containers, entries per arch, kernels)",
        "nvcc -fatbin kern.cu -o kern.fatbin   # or: nvcc -cubin -arch=sm_90 kern.cu",
    ),
    _f(
        "elf",
        "binary",
        "slim.ingest.binary.elf",
        "ELF executable, shared library, object or ar archive (symbols, DT_NEEDED, sections)",
        "pass bazel-bin/app/app, its .so deps and the lib*.a of the deps you question",
    ),
    # -- compile-time dependencies -------------------------------------------------------
    _f(
        "ninja-deps-compile",
        "compile",
        "slim.ingest.compile.ninja_deps",
        "ninja -t deps (source and headers each object was compiled from)",
        "ninja -C build -t deps > ninja-deps.txt",
    ),
    _f(
        "depfile",
        "compile",
        "slim.ingest.compile.depfile",
        "compiler depfiles (-MD/-MMD make rules), one .d file or a directory of them",
        "gcc -MD -c a.cc -o a.o   # writes a.d; CMake Makefiles: build/**/*.o.d",
    ),
    # -- linker maps and GC reports ------------------------------------------------------
    _f(
        "gnu-ld-map",
        "linkmap",
        "slim.ingest.linkmap.ld_map",
        "GNU ld (bfd) -Map, with or without --cref",
        "gcc ... -Wl,-Map=app.map,--cref,--gc-sections",
    ),
    _f(
        "gold-map",
        "linkmap",
        "slim.ingest.linkmap.gold_map",
        "gold -Map, with or without --cref",
        "gcc -fuse-ld=gold ... -Wl,-Map=app.map,--cref,--gc-sections",
    ),
    _f(
        "lld-map",
        "linkmap",
        "slim.ingest.linkmap.lld_map",
        "lld --Map (VMA LMA Size Align columns; --cref table appended)",
        "clang -fuse-ld=lld ... -Wl,--Map=app.map,--cref,--gc-sections",
    ),
    _f(
        "mold-map",
        "linkmap",
        "slim.ingest.linkmap.mold_map",
        "mold -Map (VMA Size Align columns, decimal sizes)",
        "gcc -fuse-ld=mold ... -Wl,-Map=app.map,--gc-sections",
    ),
    _f(
        "ld64-map",
        "linkmap",
        "slim.ingest.linkmap.ld64_map",
        "Apple ld64 -map (ld64.lld too): atoms kept and dead-stripped per object",
        "clang ... -Wl,-map,app.map,-dead_strip",
    ),
    _f(
        "msvc-map",
        "linkmap",
        "slim.ingest.linkmap.msvc_map",
        "MSVC link.exe /MAP (lld-link /map): publics by value per object",
        "link.exe ... /MAP:app.map /OPT:REF",
    ),
    _f(
        "print-gc-sections",
        "linkmap",
        "slim.ingest.linkmap.gc_sections",
        "--print-gc-sections output of bfd/gold (stderr) or lld/mold (stdout)",
        "gcc ... -Wl,--gc-sections,--print-gc-sections 2> gc.txt   # lld/mold: > gc.txt",
    ),
    _f(
        "lld-why-extract",
        "linkmap",
        "slim.ingest.linkmap.lld_why:extract",
        "lld --why-extract TSV (which reference extracted each archive member)",
        "clang -fuse-ld=lld ... -Wl,--why-extract=why-extract.tsv",
    ),
    _f(
        "lld-why-live",
        "linkmap",
        "slim.ingest.linkmap.lld_why:live",
        "lld --why-live report (one reference chain per live symbol; LLD 16+)",
        "clang -fuse-ld=lld ... -Wl,--gc-sections,--why-live='pattern' > why-live.txt",
    ),
)


def formats_for(evidence: str) -> list[Format]:
    return [f for f in FORMATS if f.evidence == evidence]


def find_format(name: str) -> Format:
    for f in FORMATS:
        if f.name == name:
            return f
    names = ", ".join(f.name for f in FORMATS)
    raise UnknownFormatError("--format", f"one of {names}", repr(name))


def detect(path: Path, evidence: str) -> Format:
    """The format of `path` among those giving `evidence`; an error names the supported ones."""
    check_input(path, directory=True)
    head = read_head(path)
    candidates = formats_for(evidence)
    for fmt in candidates:
        if fmt.sniff(head, path):
            return fmt
    names = ", ".join(f.name for f in candidates)
    expected = f"a {evidence} input ({names}; see `slim formats`)"
    if path.is_dir():
        raise UnknownFormatError(str(path), expected, "a directory (is a directory)")
    if head and looks_binary(head):
        raise UnknownFormatError(str(path), expected, describe_found(head), offset=0)
    first = head.split(b"\n", 1)[0]
    raise UnknownFormatError(
        str(path), expected, describe_found(first) if head else "an empty file", line=1
    )


#: Graph formats whose edges come without the compile flags a target hands its dependants.
FLAGS_UNSEEN = frozenset(
    {"ninja-graph", "cmake-graphviz", "buck2-dot", "bazel-graph", "bazel-label-kind"}
)
#: Graph formats that show those flags only when the query asked for the attributes.
FLAGS_IF_ASKED = frozenset({"buck2-query-json", "buck2-targets-json"})


def flags_unseen(fmt: str, flag_attributes_seen: bool) -> bool:
    """Whether an export of format `fmt` leaves unseen the compile flags its targets hand
    their dependants (`BuildGraph.flags_unseen`)."""
    return fmt in FLAGS_UNSEEN or (fmt in FLAGS_IF_ASKED and not flag_attributes_seen)


def load_graph(
    paths: Sequence[Path], fmt: str | None = None, builder: GraphBuilder | None = None
) -> BuildGraph:
    """Read every graph export into one builder and freeze it."""
    from slim.model.graph import GraphBuilder

    b = builder or GraphBuilder()
    # Millions of long-lived small objects: the cyclic GC would rescan them over and over.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        earlier: dict[int, None] = {}
        for p in paths:
            f = find_format(fmt) if fmt else detect(p, "graph")
            if len(paths) > 1:
                b.described = set()
            flags_before = b.flag_attributes_seen
            f.load(p, b)
            b.formats.append(f.name)
            if flags_unseen(f.name, b.flag_attributes_seen > flags_before):
                b.flags_unseen.append(f.name)
            if b.described is not None:
                _check_lines_up(b, p, earlier, b.described)
                earlier.update(dict.fromkeys(sorted(b.described)))
        b.described = None
        return b.build()
    finally:
        if was_enabled:
            gc.enable()


def _check_lines_up(b: GraphBuilder, path: Path, earlier: dict[int, None], now: set[int]) -> None:
    """One note when an export describes targets the earlier ones mostly do not (names
    that do not line up: `//serving:runtime` vs `//serving:serving_runtime`); the targets
    only one side describes get attr `unmatched_export` (which export)."""
    if not earlier or not now:
        return
    shared = sum(1 for i in now if i in earlier)
    if shared * 2 >= min(len(now), len(earlier)):
        return
    mine = next((b.label_of(i) for i in sorted(now) if i not in earlier), "")
    theirs = next(iter(earlier))
    b.notes.append(
        f"graph exports do not line up: {path} describes {len(now)} targets, only {shared} "
        f"of them described by the exports before it (e.g. {mine} vs {b.label_of(theirs)}); "
        "evidence one export's targets own is not charged to the other's targets"
    )
    for i in now:
        if i not in earlier:
            b.set_attr(i, "unmatched_export", str(path))
    for i in earlier:
        if i not in now:
            b.set_attr(i, "unmatched_export", f"the exports before {path}")


def load_evidence(path: Path, evidence: str, fmt: str | None = None) -> tuple[Format, list[object]]:
    """Read one evidence file (trace, linker map, binary, timings) into typed facts."""
    f = find_format(fmt) if fmt else detect(path, evidence)
    facts = f.load(path)
    if not isinstance(facts, list):
        facts = [facts]
    if f.name == "elf":
        # One binary, two readers: symbols (elf) and CUDA device code (fatbin, never raises).
        from slim.ingest.binary.fatbin import device_code_of

        facts = [*facts, *device_code_of(path)]
    return f, facts
