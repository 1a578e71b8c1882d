"""Real traces of real packages (pandas, scipy, scikit-learn) read by every trace reader.

Their names are not all identifiers (`_sysconfigdata__linux_x86_64-linux-gnu`, which
`sysconfig` loads by file name), and they are long and deep. Each reader is checked
against an independent parse written here with a different algorithm: importtime rows
read backwards as a pre-order with an indentation stack, `-v` importers as the innermost
enclosing code-object interval, slim trace records as plain JSON. The stored samples
(tests/data/python/real/) have goldens; the same checks also run on traces recorded now,
from one run seen by all three recorders at once (`slim trace` around
`python -X importtime -v`), so the module sets can be compared across readers too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.python import audit_trace, importtime, python_verbose
from slim.model.pytrace import ImportTrace
from tests.ingest._pytrace_golden import check_trace_golden

REAL = Path(__file__).parents[2] / "data" / "python" / "real"
SYSCONFIGDATA = "_sysconfigdata_"
SLIM = [sys.executable, "-c", "from slim.cli import main; main()"]

# ---------------------------------------------------------------- independent parses


def parse_importtime(text: str) -> dict[str, set[str]]:
    """importtime rows reversed are a pre-order walk: a stack of names by indentation."""
    rows: list[tuple[int, str]] = []
    for line in text.splitlines():
        if not line.startswith("import time:") or line.rstrip().endswith("imported package"):
            continue
        field = line.split("|", 2)[2]
        assert field[0] == " "
        body = field[1:]
        name = body.strip()
        rows.append(((len(body) - len(body.lstrip(" "))) // 2, name))
    importers: dict[str, set[str]] = defaultdict(set)
    stack: list[str] = []
    for depth, name in reversed(rows):
        del stack[depth:]
        importers[name].add(stack[depth - 1] if depth and len(stack) >= depth else "")
        stack.append(name)
    return importers


def _dotted(path: str) -> str:
    """`/x/a/b/__pycache__/c.cpython-311.pyc` -> `.x.a.b.c`; `__init__` dropped."""
    head, sep, tail = path.rpartition("/__pycache__/")
    if sep:
        path = head + "/" + tail.split(".")[0]
    else:
        path = path.rsplit(".", 1)[0] if path.endswith(".py") else path
    path = path.removesuffix("/__init__")
    return path.replace("/", ".")


def _import_name(line: str) -> str | None:
    """`import 'a.b' # <loader>`, `import _imp # builtin` -> the module name."""
    rest = line[len("import ") :]
    if rest[:1] in ("'", '"'):
        end = rest.index(rest[0] + " # ", 1)
        return rest[1:end]
    if " # " in rest:
        return rest.split(" # ", 1)[0]
    return None


def parse_verbose(text: str) -> dict[str, set[str]]:
    """`-v`: each module's code runs from `# code object from` (or `# extension module ...
    loaded from`) to its `import '...'` line; a module's importer is the module whose
    interval most closely encloses its `import` line (`""` when that one never finished)."""
    opens: list[tuple[int, str]] = []  # (line, dotted path or module name)
    closed: dict[int, tuple[int, str]] = {}  # open line -> (close line, module)
    imports: list[tuple[int, str]] = []
    for i, line in enumerate(text.splitlines()):
        if line.startswith("# code object from "):
            opens.append((i, _dotted(line[len("# code object from ") :].strip("'"))))
        elif line.startswith("# extension module ") and " loaded from " in line:
            opens.append((i, "." + line.split("'")[1]))
        elif line.startswith("import ") and not line.startswith("import time:"):
            name = _import_name(line)
            if name is None:
                continue
            imports.append((i, name))
            own = [o for o, key in opens if o not in closed and key.endswith("." + name)]
            if own:
                closed[own[-1]] = (i, name)
    intervals: list[tuple[int, float, str]] = [(o, c, n) for o, (c, n) in closed.items()]

    def innermost(pos: int, exclude: int = -1) -> tuple[int, float, str] | None:
        inside = [iv for iv in intervals if iv[0] < pos < iv[1] and iv[0] != exclude]
        return max(inside, default=None)

    # A module that started but never finished: open until the module around it finishes.
    for o, _key in opens:
        if o not in closed:
            around = innermost(o)
            intervals.append((o, around[1] if around else float("inf"), ""))
    importers: dict[str, set[str]] = defaultdict(set)
    own_open = {c: o for o, (c, _n) in closed.items()}
    for i, name in imports:
        iv = innermost(i, own_open.get(i, -1))
        importers[name].add(iv[2] if iv else "")
    return importers


def parse_slim_trace(text: str) -> tuple[dict[str, set[str]], set[str]]:
    importers: dict[str, set[str]] = defaultdict(set)
    failed: set[str] = set()
    for line in text.splitlines():
        rec = json.loads(line)
        if "import" in rec:
            importers[rec["import"]].add(rec["importer"])
        failed.update(rec.get("failed", ()))
    return importers, failed


def tree(trace: ImportTrace) -> dict[str, set[str]]:
    return {m.name: set(m.importers) for m in trace.modules}


def check_against_independent(trace: ImportTrace, text: str) -> None:
    if trace.format == "python-importtime":
        expected = parse_importtime(text)
    elif trace.format == "python-verbose":
        expected = parse_verbose(text)
    else:
        expected, failed = parse_slim_trace(text)
        assert set(trace.failed) == failed
    assert len(trace.modules) == len(expected)
    assert tree(trace) == expected


# ---------------------------------------------------------------- stored samples

SAMPLES = {
    "pandas.importtime.txt": "python-importtime",
    "scipy.v.txt": "python-verbose",
    "sklearn.slimtrace.jsonl": "slim-import-trace",
}
LOADERS = {
    "python-importtime": importtime.load,
    "python-verbose": python_verbose.load,
    "slim-import-trace": audit_trace.load,
}


def test_samples_present() -> None:
    found = sorted(p.name for p in REAL.iterdir() if not p.name.endswith(".expected.json"))
    assert found == sorted(SAMPLES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_real_sample_golden(name: str, request: pytest.FixtureRequest) -> None:
    sample = REAL / name
    assert detect(sample, "trace").name == SAMPLES[name]
    trace = LOADERS[SAMPLES[name]](sample)
    check_trace_golden(trace, sample, request)
    check_against_independent(trace, sample.read_text(encoding="utf-8"))
    sysconfig = [m for m in trace.modules if m.name.startswith(SYSCONFIGDATA)]
    assert [m.name for m in sysconfig] == ["_sysconfigdata__linux_x86_64-linux-gnu"]


def test_real_sample_facts() -> None:
    """Facts of the stored runs, read off the files by hand."""
    it = importtime.load(REAL / "pandas.importtime.txt").by_name()
    assert len(it) == 582
    assert it["pandas"].importers == ("",)
    # sysconfig.get_config_vars() imports it by name (`__import__`) while
    # pandas.compat._constants runs: importtime nests it there (line 188), not under sysconfig
    assert it["_sysconfigdata__linux_x86_64-linux-gnu"].importers == ("pandas.compat._constants",)
    # pyarrow is optional: importtime writes its row although the import failed
    assert it["pyarrow"].importers == ("pandas.compat.pyarrow",)

    v = python_verbose.load(REAL / "scipy.v.txt").by_name()
    assert len(v) == 204
    assert v["scipy"].importers == ("",)
    # `-v` sees the code object that is running: scipy._lib._testutils (line 538)
    assert v["_sysconfigdata__linux_x86_64-linux-gnu"].importers == ("scipy._lib._testutils",)
    assert v["_sysconfigdata__linux_x86_64-linux-gnu"].file.endswith(
        "/_sysconfigdata__linux_x86_64-linux-gnu"
    )
    # imported while the Cython extension scipy._lib._ccallback_c ran its module code
    assert v["scipy._lib._ccallback_c"].file.endswith(".so")

    st = audit_trace.load(REAL / "sklearn.slimtrace.jsonl")
    by = st.by_name()
    assert len(by) == 1438
    assert by["sklearn"].importers == ("__main__",)
    # the audit hook reads the frame that called `__import__`: sysconfig (line 259)
    assert by["_sysconfigdata__linux_x86_64-linux-gnu"].importers == ("sysconfig",)
    assert "pyarrow" in st.failed


# ---------------------------------------------------------------- recorded now


@pytest.fixture(scope="module", params=["pandas", "scipy", "sklearn"])
def recorded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    """One run of `import PKG` seen by all three recorders: (stderr, slim trace)."""
    out = tmp_path_factory.mktemp(request.param)
    jsonl, stderr = out / "trace.jsonl", out / "stderr.txt"
    program = [sys.executable, "-X", "importtime", "-v", "-c", f"import {request.param}"]
    with stderr.open("wb") as err:
        done = subprocess.run([*SLIM, "trace", "-o", str(jsonl), "--", *program], stderr=err)
    assert done.returncode == 0, stderr.read_text(errors="replace")[-2000:]
    return stderr, jsonl


def test_recorded_traces_read(recorded: tuple[Path, Path]) -> None:
    stderr, jsonl = recorded
    text = stderr.read_text(encoding="utf-8")
    it = importtime.load(stderr)
    v = python_verbose.load(stderr)
    st = audit_trace.load(jsonl)
    for trace, raw in ((it, text), (v, text), (st, jsonl.read_text(encoding="utf-8"))):
        check_against_independent(trace, raw)
        assert any(m.name.startswith(SYSCONFIGDATA) and "-" in m.name for m in trace.modules)


def test_recorded_traces_agree(recorded: tuple[Path, Path]) -> None:
    """The same run through three recorders: the module sets differ only where the
    recorders are known to differ."""
    stderr, jsonl = recorded
    it = importtime.load(stderr)
    v = python_verbose.load(stderr)
    st = audit_trace.load(jsonl)
    audit_all = {m.name for m in st.modules}
    # `-v` prints only imports that finished; the recorder saw all of them
    assert v.names() - audit_all == {"sitecustomize"}
    assert not set(st.failed) & v.names()
    # importtime rows before slim's sitecustomize came before the recorder was installed
    rows = [
        ln
        for ln in stderr.read_text(encoding="utf-8").splitlines()
        if ln.startswith("import time:")
    ]
    at = next(i for i, ln in enumerate(rows) if ln.endswith(" sitecustomize"))
    startup = {ln.split("|", 2)[2].strip() for ln in rows[:at]}
    assert it.names() - audit_all <= startup | {"sitecustomize"}
    # what the recorder has that `-v` has not: modules the interpreter creates itself, and
    # entries a module put into sys.modules without an import (`typing` adds `typing.io`
    # and `typing.re`), which the recorder's start-up snapshot holds when a `.pth` file
    # imported their parent before it was installed
    loaded = audit_all - set(st.failed)
    builtin = set(sys.builtin_module_names)
    created = builtin | {
        "__main__",
        "os.path",
        "importlib._bootstrap",
        "importlib._bootstrap_external",
    }
    snapshot = {m.name for m in st.modules if m.importers == ("",) and m.import_line is None}
    extra = loaded - v.names() - created
    assert all(name in snapshot and name.rpartition(".")[0] in v.names() for name in extra), extra


# ---------------------------------------------------------------- names CPython can print


@pytest.mark.parametrize(
    "name", ["_sysconfigdata__linux_x86_64-linux-gnu", "1st-plugin", "café.ünï", "__phello__.spam"]
)
def test_any_printable_module_name(tmp_path: Path, name: str) -> None:
    row = f"import time:        10 |         10 | {name}\n"
    p = tmp_path / "it.txt"
    p.write_bytes(row.encode())
    assert importtime.load(p).names() == {name}
    p = tmp_path / "v.txt"
    p.write_text(
        f"import {name!r} # <class '_frozen_importlib.FrozenImporter'>\n# clear builtins._\n",
        encoding="utf-8",
    )
    assert python_verbose.load(p).names() == {name}
    p = tmp_path / "st.jsonl"
    p.write_text(
        '{"slim-import-trace": 1}\n'
        + json.dumps({"import": name, "importer": name})
        + '\n{"end": true, "failed": []}\n',
        encoding="utf-8",
    )
    assert audit_trace.load(p).by_name()[name].importers == (name,)


def test_verbose_repr_quoting(tmp_path: Path) -> None:
    p = tmp_path / "v.txt"
    p.write_text(
        "import _frozen_importlib # frozen\n"
        'import "it\'s" # <_frozen_importlib_external.SourceFileLoader object at 0x1>\n'
        "import 'caf\\xe9' # <_frozen_importlib_external.SourceFileLoader object at 0x2>\n"
        "# clear builtins._\n",
        encoding="utf-8",
    )
    assert python_verbose.load(p).names() == {"_frozen_importlib", "it's", "café"}


@pytest.mark.parametrize(
    ("reader", "content", "expected"),
    [
        (python_verbose.load, b"import 'bad name' # <x>\n", "a module name"),
        (python_verbose.load, b"import 'tab\\tname' # <x>\n", "a module name"),
        (python_verbose.load, b"import '' # <x>\n", "a module name"),
        (audit_trace.load, b'{"slim-import-trace": 1}\n{"import": "a b"}\n', "a module name"),
        (audit_trace.load, b'{"slim-import-trace": 1}\n{"import": ""}\n', "a module name"),
        (audit_trace.load, b'{"slim-import-trace": 1}\n{"import": 3}\n', "a module name"),
        (audit_trace.load_tsv, b"import\tx y\tfilename=None\n", "a module name"),
    ],
)
def test_garbage_names_rejected(
    tmp_path: Path, reader: object, content: bytes, expected: str
) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        reader(p)  # type: ignore[operator]
    msg = str(exc.value)
    assert msg.startswith(f"{p}:")
    assert ": expected " in msg
    assert expected in msg
    assert "\n" not in msg
