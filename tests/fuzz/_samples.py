"""One real sample per input format (`slim.ingest.FORMATS`) and what a cut of it may do.

Samples are the real tool outputs under tests/data (one file each; the CMake file API
reply is a directory, mutated through one of its target files). Two are made from real
data at run time: Bazel's non-streamed query JSON (the streamed sample's targets in one
array, a layout `bazel query --output=jsonproto` writes) and a gcc `-MD` depfile.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from slim.ingest import find_format, load_evidence
from slim.model.canonical import graph_to_canonical
from slim.model.graph import GraphBuilder
from slim.model.native import SectionList

DATA = Path(__file__).parents[1] / "data"


@dataclass(frozen=True)
class Sample:
    """A format's sample and what is known of its completeness.

    `text`: a text format (an inserted NUL is damage). `json`: JSON documents (values can
    be swapped for ones of another type). `silent_cut(data, k)`: True where a cut at byte
    k cannot be told from a complete file (no end mark at that point), so a changed
    result is the format's limit, not a reader's bug. `member`: for a directory, the file
    inside it that is mutated.
    """

    fmt: str
    make: Callable[[Path], Path]
    text: bool = True
    json: bool = False
    silent_cut: Callable[[bytes, int], bool] = lambda data, k: False
    member: str = ""


def _copy(rel: str) -> Callable[[Path], Path]:
    def make(where: Path) -> Path:
        src = DATA / rel
        dst = where / src.name
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copyfile(src, dst)
        return dst

    return make


def _bazel_query_json(where: Path) -> Path:
    lines = (DATA / "bazel" / "query.streamed_jsonproto.ndjson").read_text().splitlines()
    dst = where / "query.jsonproto.json"
    dst.write_text("[" + ",\n".join(ln for ln in lines if ln.strip()) + "]\n")
    return dst


def _depfile(where: Path) -> Path:
    src = where / "dep src"
    src.mkdir(exist_ok=True)
    (src / "util.h").write_text("int util(void);\n")
    (src / "main.c").write_text(
        '#include <stdio.h>\n#include "util.h"\nint main(void){return util();}\n'
    )
    r = subprocess.run(
        ["gcc", "-MD", "-MP", "-c", "main.c", "-o", "main.o"],
        cwd=src,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return src / "main.d"


def at_line_start(data: bytes, k: int) -> bool:
    """A cut right after a newline: nothing says more lines should follow."""
    return k > 0 and data[k - 1 : k] == b"\n"


def at_record_start(data: bytes, k: int) -> bool:
    """A cut right after a blank line: records end there, nothing says more follow."""
    return k > 1 and data[k - 2 : k] == b"\n\n"


def after(mark: bytes) -> Callable[[bytes, int], bool]:
    """A cut at a line start past the last `mark` (a map's cross-reference table)."""

    def silent(data: bytes, k: int) -> bool:
        at = data.rfind(mark)
        return at >= 0 and k > at and at_line_start(data, k)

    return silent


def _any(data: bytes, k: int) -> bool:
    """Length-delimited or repeated messages: a cut at a message boundary reads as a
    shorter, complete file (protobuf has no end mark)."""
    return True


SAMPLES: dict[str, Sample] = {
    s.fmt: s
    for s in (
        Sample(
            "bazel-streamed-jsonproto",
            _copy("bazel/query.streamed_jsonproto.ndjson"),
            json=True,
            silent_cut=at_line_start,
        ),
        Sample("bazel-cquery-jsonproto", _copy("bazel/cquery.jsonproto.json"), json=True),
        Sample("bazel-jsonproto", _bazel_query_json, json=True),
        Sample("bazel-aquery-jsonproto", _copy("bazel/aquery.jsonproto.json"), json=True),
        Sample("bazel-xml", _copy("bazel/query.xml")),
        Sample("bazel-proto", _copy("bazel/query.pb"), text=False, silent_cut=_any),
        Sample(
            "bazel-streamed-proto", _copy("bazel/query.streamed.pb"), text=False, silent_cut=_any
        ),
        Sample("bazel-label-kind", _copy("bazel/query.label_kind.txt"), silent_cut=at_line_start),
        Sample("buck2-query-json", _copy("buck2/cquery_attributes.json"), json=True),
        Sample("buck2-targets-json", _copy("buck2/ctargets_json_report.json"), json=True),
        Sample(
            "cmake-file-api",
            _copy("cmake/cmake-4.4.5/reply"),
            json=True,
            member="target-app-Debug-303d14211b13d322a279.json",
        ),
        Sample("cmake-graphviz", _copy("cmake/cmake-4.4.5/graphviz/deps.dot")),
        Sample("ninja-graph", _copy("ninja/ninja-1.13.2/graph-app.dot")),
        Sample("ninja-deps", _copy("ninja/ninja-1.11.1/deps.txt"), silent_cut=at_record_start),
        Sample("buck2-dot", _copy("buck2/dot.attrs.golden.dot")),
        Sample("bazel-graph", _copy("bazel/query.graph.implicit-deps.dot")),
        Sample("ninja-log", _copy("ninja/ninja-1.13.2/ninja_log.txt"), silent_cut=at_line_start),
        Sample("clang-time-trace", _copy("timetrace/tt.time-trace.json"), json=True),
        Sample("bazel-profile", _copy("bazel/profile.json.gz"), text=False),
        Sample(
            "buck2-what-ran",
            _copy("buck2/timing/what-ran.jsonl"),
            json=True,
            silent_cut=at_line_start,
        ),
        Sample("buck2-build-report", _copy("buck2/timing/build_report.json"), json=True),
        Sample("sccache-stats", _copy("sccache/stats.two-clean-builds.json"), json=True),
        Sample("slim-import-trace", _copy("python/slimtrace/py3.11.jsonl"), json=True),
        Sample(
            "python-importtime", _copy("python/importtime/py3.12.txt"), silent_cut=at_line_start
        ),
        Sample("python-verbose", _copy("python/verbose/py3.13.v.txt")),
        Sample("python-audit-tsv", _copy("python/audit/py3.12.txt"), silent_cut=at_line_start),
        Sample("cuda-device-code", _copy("cuda/kern.fatbin"), text=False),
        Sample("elf", _copy("elf/libsample.so"), text=False),
        Sample(
            "ninja-deps-compile", _copy("ninja/ninja-1.13.2/deps.txt"), silent_cut=at_record_start
        ),
        Sample("depfile", _depfile, silent_cut=at_line_start),
        Sample("gnu-ld-map", _copy("linkmap/bfd.map"), silent_cut=after(b"\nCross Reference")),
        Sample("gold-map", _copy("linkmap/gold.map"), silent_cut=after(b"\nCross Reference")),
        Sample("lld-map", _copy("linkmap/lld.cref.map"), silent_cut=after(b"\nCross Reference")),
        Sample("mold-map", _copy("linkmap/mold.map")),
        Sample("ld64-map", _copy("linkmap/ld64lld.map"), silent_cut=after(b"\n# Symbols:")),
        Sample("msvc-map", _copy("linkmap/lld-link.map")),
        Sample(
            "print-gc-sections",
            _copy("linkmap/gold.print-gc-sections.txt"),
            silent_cut=at_line_start,
        ),
        Sample("lld-why-extract", _copy("linkmap/lld.why-extract.tsv"), silent_cut=at_line_start),
        Sample("lld-why-live", _copy("linkmap/lld.why-live.txt"), silent_cut=at_line_start),
    )
}


def load(fmt: str, path: Path) -> object:
    """What `slim` reads from `path` as `fmt` (a frozen graph, or the evidence facts)."""
    f = find_format(fmt)
    if f.evidence == "graph":
        b = GraphBuilder()
        f.load(path, b)
        return b.build()
    return load_evidence(path, f.evidence, fmt)[1]


def _plain(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, bytes):
        return obj.hex()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, set | frozenset):
        return sorted(_plain(v) for v in obj)
    if isinstance(obj, list | tuple | SectionList):
        return [_plain(v) for v in obj]
    return obj


def canonical(result: object, where: Path) -> str:
    """A comparable rendering of a reader's result, its file location made neutral."""
    from slim.model.graph import BuildGraph

    data = graph_to_canonical(result) if isinstance(result, BuildGraph) else _plain(result)
    return json.dumps(data, sort_keys=True, default=str).replace(str(where), "<DIR>")
