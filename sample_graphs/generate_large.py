"""Seeded generator of large synthetic build graphs, for benchmarks and scale tests.

Writes a layered DAG (binaries on top, libraries in layers below, a bottom layer of
fan-in hubs every layer links against) as Bazel `query --output=streamed_jsonproto`
(one Target per line, shape of formats.md §1.6), Buck2 query JSON with attributes
(formats.md §2.2) or a CMake file API reply directory (codemodel 2.11, as CMake 4.4
writes it: an index, the codemodel, one target object per target). Output is streamed and
byte-identical for a given seed and size.

    python sample_graphs/generate_large.py --targets 1000000 --out graph.ndjson
    python sample_graphs/generate_large.py --format buck2 --targets 100000 --out graph.json
    python sample_graphs/generate_large.py --format cmake --targets 100000 --out reply/

Importable (`generate(...)`); slim itself never imports this module.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

FORMATS = ("bazel", "buck2", "cmake")
CHUNK = 8192


@dataclass(frozen=True)
class Shape:
    """How the graph is laid out: id ranges of the layers and which ids are what."""

    targets: int
    bins: int
    hubs: int
    layer_starts: tuple[int, ...]  # ascending; layer l = [starts[l], starts[l+1])

    def layer_of(self, ids: np.ndarray) -> np.ndarray:
        return np.searchsorted(np.asarray(self.layer_starts), ids, side="right") - 1


@dataclass(frozen=True)
class Stats:
    """What was written: rule targets, dependency edges (deps attribute), roots."""

    targets: int
    edges: int
    roots: int
    source_files: int
    bytes: int
    seed: int
    format: str


def make_shape(targets: int, layers: int = 10) -> Shape:
    if targets < 4:
        raise ValueError(f"--targets: expected at least 4, found {targets}")
    bins = max(2, targets // 2000)
    hubs = max(2, targets // 1000)
    middle = targets - bins - hubs
    n_mid = max(1, min(layers - 2, middle))
    starts = [0, bins]
    for k in range(1, n_mid):
        starts.append(bins + middle * k // n_mid)
    starts.append(targets - hubs)
    return Shape(targets, bins, hubs, tuple(starts))


def root_labels(targets: int) -> list[str]:
    """Labels of the binaries (the natural roots): //app/bin0:bin0, //app/bin1:bin1, ..."""
    return [f"//app/bin{i}:bin{i}" for i in range(make_shape(targets).bins)]


def _labels(shape: Shape) -> list[str]:
    """Bazel labels by id: //app/binN:binN, //lib/lL/pP:tI (8 per package), //base/hubH:hubH."""
    out = [f"//app/bin{i}:bin{i}" for i in range(shape.bins)]
    starts = shape.layer_starts
    for layer in range(1, len(starts) - 1):
        lo, hi = starts[layer], starts[layer + 1]
        out.extend(f"//lib/l{layer}/p{(i - lo) >> 3}:t{i}" for i in range(lo, hi))
    out.extend(f"//base/hub{h}:hub{h}" for h in range(shape.hubs))
    return out


def _draw_deps(
    rng: np.random.Generator, shape: Shape, lo: int, hi: int, avg: float
) -> tuple[np.ndarray, np.ndarray]:
    """Edges (src, dst) for sources lo..hi-1: dst > src always (a DAG), deduplicated."""
    n = shape.targets
    ids = np.arange(lo, hi, dtype=np.int64)
    layer = shape.layer_of(ids)
    starts = np.asarray((*shape.layer_starts, n), dtype=np.int64)
    hub_start = n - shape.hubs
    in_hub_layer = ids >= hub_start
    counts = np.clip(rng.poisson(avg, size=ids.size), 1, int(avg * 4) + 1)
    counts = np.where(in_hub_layer, np.minimum(2, n - 1 - ids), counts)
    counts = np.minimum(counts, n - 1 - ids)
    src = np.repeat(ids, counts)
    src_layer = np.repeat(layer, counts)
    m = src.size
    u = rng.random(m)
    pick = rng.random(m)
    # next layer (locality), any lower layer, or a hub (power law: a few hubs get most).
    nxt_lo = starts[np.minimum(src_layer + 1, len(starts) - 1)]
    nxt_hi = starts[np.minimum(src_layer + 2, len(starts) - 1)]
    nxt_lo = np.maximum(nxt_lo, src + 1)
    nxt_hi = np.maximum(nxt_hi, nxt_lo + 1)
    any_lo = src + 1
    dst_next = nxt_lo + (u * (nxt_hi - nxt_lo)).astype(np.int64)
    dst_any = any_lo + (u * (n - any_lo)).astype(np.int64)
    dst_hub = hub_start + (u**3 * shape.hubs).astype(np.int64)
    dst = np.where(pick < 0.55, dst_next, np.where(pick < 0.78, dst_any, dst_hub))
    dst = np.where(src >= hub_start, dst_any, dst)
    dst = np.minimum(np.maximum(dst, src + 1), n - 1)
    key = np.unique((src - lo) * n + dst)
    return key // n + lo, key % n


_CC_PAD = "".join(
    f',{{"name":"{a}","type":"{t}"{v},"explicitlySpecified":false,"nodep":false}}'
    for a, t, v in (
        ("alwayslink", "BOOLEAN", ',"intValue":0,"stringValue":"false","booleanValue":false'),
        ("compatible_with", "LABEL_LIST", ""),
        ("copts", "STRING_LIST", ""),
        ("defines", "STRING_LIST", ""),
        ("deprecation", "STRING", ',"stringValue":""'),
        ("features", "STRING_LIST", ""),
        ("generator_function", "STRING", ',"stringValue":""'),
        ("generator_location", "STRING", ',"stringValue":""'),
        ("generator_name", "STRING", ',"stringValue":""'),
        ("hdrs", "LABEL_LIST", ""),
        ("implementation_deps", "LABEL_LIST", ""),
        ("includes", "STRING_LIST", ""),
        ("licenses", "STRING_LIST", ""),
        ("linkopts", "STRING_LIST", ""),
        ("linkstatic", "BOOLEAN", ',"intValue":0,"stringValue":"false","booleanValue":false'),
        ("restricted_to", "LABEL_LIST", ""),
        ("target_compatible_with", "LABEL_LIST", ""),
        ("testonly", "BOOLEAN", ',"intValue":0,"stringValue":"false","booleanValue":false'),
        ("toolchains", "LABEL_LIST", ""),
    )
)
_PY_PAD = "".join(
    f',{{"name":"{a}","type":"{t}"{v},"explicitlySpecified":false,"nodep":false}}'
    for a, t, v in (
        ("compatible_with", "LABEL_LIST", ""),
        ("deprecation", "STRING", ',"stringValue":""'),
        ("features", "STRING_LIST", ""),
        ("generator_function", "STRING", ',"stringValue":""'),
        ("generator_location", "STRING", ',"stringValue":""'),
        ("generator_name", "STRING", ',"stringValue":""'),
        ("imports", "STRING_LIST", ""),
        ("licenses", "STRING_LIST", ""),
        ("restricted_to", "LABEL_LIST", ""),
        ("srcs_version", "STRING", ',"stringValue":"PY2AND3"'),
        ("target_compatible_with", "LABEL_LIST", ""),
        ("testonly", "BOOLEAN", ',"intValue":0,"stringValue":"false","booleanValue":false'),
        ("toolchains", "LABEL_LIST", ""),
    )
)
_VIS = (
    ',{"name":"visibility","type":"STRING_LIST","stringListValue":["//visibility:public"],'
    '"explicitlySpecified":true,"nodep":true}'
)


def _kinds(shape: Shape, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per id: 0 cc, 1 py, 2 cuda; and whether a binary is tagged cpu-only (every 4th)."""
    u = rng.random(shape.targets)
    lang = np.where(u < 0.3, 1, np.where(u < 0.32, 2, 0)).astype(np.int8)
    lang[shape.targets - shape.hubs :] = 0
    lang[: shape.bins] = np.where(np.arange(shape.bins) % 4 == 3, 1, 0)
    cpu_only = np.zeros(shape.targets, dtype=bool)
    cpu_only[1 : shape.bins : 4] = True  # //app/bin1:bin1, bin5, bin9, ...
    return lang, cpu_only


def _bazel_lines(
    shape: Shape, labels: list[str], seed: int, avg: float, chunk: int
) -> Iterator[tuple[str, int, int]]:
    """(text, rules, edges) per chunk of Bazel streamed_jsonproto."""
    rng = np.random.default_rng(seed)
    lang, cpu_only = _kinds(shape, rng)
    bins = shape.bins
    for lo in range(0, shape.targets, chunk):
        hi = min(shape.targets, lo + chunk)
        src, dst = _draw_deps(rng, shape, lo, hi, avg)
        bounds = np.searchsorted(src, np.arange(lo, hi + 1))
        dst_l = dst.tolist()
        lines: list[str] = []
        for i in range(lo, hi):
            name = labels[i]
            colon = name.index(":")
            pkg = name[2:colon]
            k = int(lang[i])
            ext = (".cc", ".py", ".cu")[k]
            src_file = f"{name[:colon]}:{name[colon + 1 :]}{ext}"
            deps = [labels[d] for d in dst_l[bounds[i - lo] : bounds[i - lo + 1]]]
            dq = '","'.join(deps)
            if i < bins:
                cls = "py_binary" if k == 1 else "cc_binary"
            else:
                cls = ("cc_library", "py_library", "cc_library")[k]
            tags = []
            if i < bins and cpu_only[i]:
                tags.append("cpu-only")
            if k == 2:
                tags.append("cuda")
            attrs = [
                f'{{"name":"deps","type":"LABEL_LIST","stringListValue":["{dq}"],'
                '"explicitlySpecified":true,"nodep":false}'
                if deps
                else '{"name":"deps","type":"LABEL_LIST","explicitlySpecified":false,'
                '"nodep":false}',
                f',{{"name":"name","type":"STRING","stringValue":"{name[colon + 1 :]}",'
                '"explicitlySpecified":true,"nodep":false}',
                f',{{"name":"srcs","type":"LABEL_LIST","stringListValue":["{src_file}"],'
                '"explicitlySpecified":true,"nodep":false}',
                (
                    ',{"name":"tags","type":"STRING_LIST","stringListValue":["'
                    + '","'.join(tags)
                    + '"],"explicitlySpecified":true,"nodep":false}'
                )
                if tags
                else ',{"name":"tags","type":"STRING_LIST","explicitlySpecified":false,'
                '"nodep":false}',
                _PY_PAD if k == 1 else _CC_PAD,
                _VIS,
            ]
            rule_input = '","'.join(sorted([*deps, src_file]))
            lines.append(
                f'{{"type":"RULE","rule":{{"name":"{name}","ruleClass":"{cls}",'
                f'"location":"{pkg}/BUILD:{(i & 63) * 7 + 1}:{1 + (i & 1) * 10}",'
                f'"attribute":[{"".join(attrs)}],"ruleInput":["{rule_input}"]}}}}\n'
            )
            lines.append(
                f'{{"type":"SOURCE_FILE","sourceFile":{{"name":"{src_file}",'
                f'"location":"{pkg}/{src_file[colon + 1 :]}:1:1"}}}}\n'
            )
        yield "".join(lines), hi - lo, int(src.size)


def _buck2_lines(
    shape: Shape, labels: list[str], seed: int, avg: float, chunk: int
) -> Iterator[tuple[str, int, int]]:
    """(text, rules, edges) per chunk of a Buck2 `uquery --output-attribute` JSON object."""
    rng = np.random.default_rng(seed)
    lang, cpu_only = _kinds(shape, rng)
    cell = ["root" + lab for lab in labels]
    bins = shape.bins
    first = True
    for lo in range(0, shape.targets, chunk):
        hi = min(shape.targets, lo + chunk)
        src, dst = _draw_deps(rng, shape, lo, hi, avg)
        bounds = np.searchsorted(src, np.arange(lo, hi + 1))
        dst_l = dst.tolist()
        parts: list[str] = ["{\n"] if first else []
        first = False
        for i in range(lo, hi):
            name = cell[i]
            colon = name.index(":")
            k = int(lang[i])
            ext = (".cpp", ".py", ".cu")[k]
            if i < bins:
                typ = "python_binary" if k == 1 else "cxx_binary"
            else:
                typ = ("cxx_library", "python_library", "cxx_library")[k]
            deps = '", "'.join(cell[d] for d in dst_l[bounds[i - lo] : bounds[i - lo + 1]])
            deps_json = f'["{deps}"]' if deps else "[]"
            tags = []
            if i < bins and cpu_only[i]:
                tags.append("cpu-only")
            if k == 2:
                tags.append("cuda")
            tags_json = '["' + '", "'.join(tags) + '"]' if tags else "[]"
            sep = ",\n" if i else ""
            parts.append(
                f'{sep}  "{name}": {{"buck.type": "{typ}", '
                f'"buck.package": "{name[:colon]}:BUCK", "buck.deps": {deps_json}, '
                f'"deps": {deps_json}, "srcs": ["{name[:colon]}/{name[colon + 1 :]}{ext}"], '
                f'"labels": {tags_json}}}'
            )
        if hi == shape.targets:
            parts.append("\n}\n")
        yield "".join(parts), hi - lo, int(src.size)


def _cmake_target(i: int, label: str, deps: list[str], executable: bool) -> str:
    """The target object of one CMake target: an `add_*` line and a `target_link_libraries`
    line of its directory's CMakeLists.txt, one C++ source, its link libraries."""
    colon = label.index(":")
    d, name = label[2:colon], label[colon + 1 :]
    line = (i & 63) * 7 + 1
    ids = [f'{{"backtrace":2,"id":"{x[x.index(":") + 1 :]}::@{_dir_hash(x)}"}}' for x in deps]
    dep_json = ",".join(ids)
    if executable:
        libs = ",".join(
            f'{{"backtrace":2,"fragment":"{x[2 : x.index(":")]}/lib{x[x.index(":") + 1 :]}.a",'
            '"role":"libraries"}'
            for x in deps
        )
        kind, disk = "EXECUTABLE", name
        link = f',"link":{{"commandFragments":[{libs}],"language":"CXX"}}'
        command = "add_executable"
    else:
        kind, disk, link, command = "STATIC_LIBRARY", f"lib{name}.a", "", "add_library"
    return (
        f'{{"archive":{{}},"artifacts":[{{"path":"{d}/{disk}"}}],"backtrace":1,'
        f'"backtraceGraph":{{"commands":["{command}","target_link_libraries"],'
        f'"files":["{d}/CMakeLists.txt"],"nodes":[{{"file":0}},'
        f'{{"command":0,"file":0,"line":{line},"parent":0}},'
        f'{{"command":1,"file":0,"line":{line + 1},"parent":0}}]}},'
        f'"codemodelVersion":{{"major":2,"minor":11}},'
        f'"compileGroups":[{{"compileCommandFragments":[{{"fragment":"-g"}}],'
        f'"language":"CXX","sourceIndexes":[0]}}],'
        f'"dependencies":[{dep_json}],"id":"{name}::@{_dir_hash(label)}"{link},'
        f'"linkLibraries":[{dep_json}],"name":"{name}","nameOnDisk":"{disk}",'
        f'"paths":{{"build":"{d}","source":"{d}"}},'
        f'"sources":[{{"backtrace":1,"compileGroupIndex":0,"path":"{d}/{name}.cc",'
        f'"sourceGroupIndex":0}}],"type":"{kind}"}}\n'
    )


def _dir_hash(label: str) -> str:
    """The directory part of a CMake target id (CMake writes a hash of the directory)."""
    import hashlib

    return hashlib.sha1(label[2 : label.index(":")].encode()).hexdigest()[:20]


def write_cmake(
    reply: Path, *, targets: int, avg_deps: float = 16.0, seed: int = 0, chunk: int = CHUNK
) -> Stats:
    """A CMake file API reply directory at `reply` (made here): the index, the codemodel
    and one target object per target, with the same graph as the other formats."""
    shape = make_shape(targets)
    labels = _labels(shape)
    rng = np.random.default_rng(seed)
    _kinds(shape, rng)  # the same draws as the other formats, so the same edges
    reply.mkdir(parents=True)
    dirs: dict[str, int] = {".": 0}
    refs: list[str] = []
    edges = size = 0
    for lo in range(0, shape.targets, chunk):
        hi = min(shape.targets, lo + chunk)
        src, dst = _draw_deps(rng, shape, lo, hi, avg_deps)
        bounds = np.searchsorted(src, np.arange(lo, hi + 1))
        dst_l = dst.tolist()
        for i in range(lo, hi):
            label = labels[i]
            deps = [labels[x] for x in dst_l[bounds[i - lo] : bounds[i - lo + 1]]]
            text = _cmake_target(i, label, deps, i < shape.bins)
            colon = label.index(":")
            name = label[colon + 1 :]
            json_file = f"target-{name}-Debug-{i:020x}.json"
            (reply / json_file).write_text(text, encoding="ascii")
            d = dirs.setdefault(label[2:colon], len(dirs))
            refs.append(
                f'{{"directoryIndex":{d},"id":"{name}::@{_dir_hash(label)}",'
                f'"jsonFile":"{json_file}","name":"{name}","projectIndex":0}}'
            )
            size += len(text)
        edges += int(src.size)
    directories = ",".join(f'{{"build":"{d}","source":"{d}"}}' for d in dirs)
    codemodel = (
        '{"configurations":[{"directories":[' + directories + '],"name":"Debug",'
        '"projects":[{"name":"big"}],"targets":[' + ",".join(refs) + "]}],"
        '"kind":"codemodel","paths":{"build":"/work/build","source":"/work/src"},'
        '"version":{"major":2,"minor":11}}\n'
    )
    (reply / "codemodel-v2-0000000000000000big.json").write_text(codemodel, encoding="ascii")
    index = (
        '{"cmake":{"generator":{"multiConfig":false,"name":"Ninja"},'
        '"version":{"major":4,"minor":4,"patch":5,"string":"4.4.5"}},'
        '"objects":[{"jsonFile":"codemodel-v2-0000000000000000big.json","kind":"codemodel",'
        '"version":{"major":2,"minor":11}}],"reply":{}}\n'
    )
    (reply / "index-2026-12-01T00-00-00-0000.json").write_text(index, encoding="ascii")
    size += len(codemodel) + len(index)
    return Stats(targets, edges, shape.bins, targets, size, seed, "cmake")


def write(
    out: TextIO,
    *,
    targets: int,
    avg_deps: float = 16.0,
    seed: int = 0,
    fmt: str = "bazel",
    chunk: int = CHUNK,
) -> Stats:
    """Stream the graph to `out`, one write per `chunk` targets; returns what was written.

    The random draws are made per chunk, so the bytes depend on (seed, targets, avg_deps,
    chunk); keep the default chunk for reproducible inputs.
    """
    if fmt not in FORMATS:
        raise ValueError(f"--format: expected one of {', '.join(FORMATS)}, found {fmt!r}")
    if fmt == "cmake":
        raise ValueError("--format cmake writes a reply directory: give --out DIR")
    shape = make_shape(targets)
    labels = _labels(shape)
    gen = _bazel_lines if fmt == "bazel" else _buck2_lines
    rules = edges = size = 0
    for text, n, e in gen(shape, labels, seed, avg_deps, chunk):
        out.write(text)
        rules += n
        edges += e
        size += len(text)
    files = rules if fmt == "bazel" else 0
    return Stats(rules, edges, shape.bins, files, size, seed, fmt)


def generate(
    path: Path, *, targets: int, avg_deps: float = 16.0, seed: int = 0, fmt: str = "bazel"
) -> Stats:
    """Write the graph to `path` (atomically: a temporary file renamed at the end)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    if fmt == "cmake":
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
        try:
            stats = write_cmake(tmp, targets=targets, avg_deps=avg_deps, seed=seed)
            shutil.rmtree(path, ignore_errors=True)
            tmp.replace(path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return stats
    try:
        with tmp.open("w", encoding="ascii", newline="\n", buffering=1 << 20) as f:
            stats = write(f, targets=targets, avg_deps=avg_deps, seed=seed, fmt=fmt)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return stats


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--targets", type=int, default=100_000, help="rule targets (default 100000)")
    p.add_argument("--avg-deps", type=float, default=16.0, help="mean deps per target")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--format", choices=FORMATS, default="bazel")
    p.add_argument("--out", type=Path, default=None, help="output file (default: stdout)")
    a = p.parse_args(argv)
    if a.out is None:
        stats = write(sys.stdout, targets=a.targets, avg_deps=a.avg_deps, seed=a.seed, fmt=a.format)
    else:
        stats = generate(a.out, targets=a.targets, avg_deps=a.avg_deps, seed=a.seed, fmt=a.format)
    print(" ".join(f"{k}={v}" for k, v in asdict(stats).items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
