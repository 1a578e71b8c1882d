from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from slim.cli import cli

CQUERY = Path(__file__).parents[1] / "data" / "bazel" / "cquery.jsonproto.json"


def run(*args: str) -> tuple[int, str, str]:
    """Run the installed entry point (exit-code mapping included) in a subprocess."""
    proc = subprocess.run(
        [sys.executable, "-m", "slim", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=tempfile.gettempdir(),
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_report_json_is_deterministic_and_states_missing_evidence(tmp_path: Path) -> None:
    out1, out2 = tmp_path / "a.json", tmp_path / "b.json"
    for out in (out1, out2):
        code, _, err = run(
            "report", "//py:tool", "--graph", str(CQUERY), "--format", "json", "-o", str(out)
        )
        assert code == 0, err
    assert out1.read_bytes() == out2.read_bytes()
    rep = json.loads(out1.read_text())
    assert rep["schema"] == "slim.report/2"
    (root,) = rep["roots"]
    assert root["label"] == "//py:tool"
    assert "//py:mypkg" in root["direct_deps"]
    missing = {e["kind"] for e in rep["evidence"] if not e["given"]}
    assert {"trace", "linkmap", "binary", "timings"} <= missing


def test_unknown_target_is_usage_error() -> None:
    code, out, err = run("report", "//py:toool", "--graph", str(CQUERY))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "//py:tool" in err  # the suggestion


def test_bad_input_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"results": [{"target": {"type": "RULE", "rule": {"name": 5}}}]}\n')
    code, out, err = run(
        "report", "//a:b", "--graph", str(bad), "--format", "json", "-o", str(tmp_path / "out.json")
    )
    assert out == ""
    assert code == 2
    assert err.startswith(f"slim: error: {bad}:1: expected ")
    assert err.count("\n") == 1
    assert not (tmp_path / "out.json").exists()


def test_unknown_format_names_supported(tmp_path: Path) -> None:
    f = tmp_path / "x.txt"
    f.write_text("hello\n")
    code, _, err = run("report", "//a:b", "--graph", str(f))
    assert code == 2
    assert "bazel-streamed-jsonproto" in err
    assert "cmake-file-api" in err


def test_why_prints_path_with_attribute_and_location() -> None:
    code, out, err = run("why", "//py:tool", "//py:mypkg", "--graph", str(CQUERY))
    assert code == 0, err
    assert "--deps--> //py:mypkg  (py/BUILD:7)" in out


@pytest.mark.parametrize("cmd", ["report", "why", "graph", "formats", "analyzers", "explain"])
def test_every_command_has_help(cmd: str) -> None:
    result = CliRunner().invoke(cli, [cmd, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys; from slim.cli import cli\n"
        "heavy = [m for m in ('numpy', 'scipy', 'networkx', 'lief', 'elftools', 'msgspec',"
        " 'graphviz', 'modulegraph') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""


@pytest.mark.parametrize("args", [["report", "--help"], ["formats"]])
def test_a_command_that_needs_no_numpy_imports_none(args: list[str]) -> None:
    code = (
        "import sys; from slim.cli.main import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "print('numpy' in sys.modules, file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout
    assert proc.stderr.strip() == "False"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
@pytest.mark.parametrize("chosen", [None, "2"])
def test_numpy_is_imported_on_one_blas_thread_unless_the_user_chose(chosen: str | None) -> None:
    """No BLAS worker thread is started (their start-up spin costs a warm query), and the
    programs slim runs see the user's environment, unchanged."""
    import os

    code = (
        "import os; from slim.cli.blas import numpy_on_one_blas_thread as f; f()\n"
        "import numpy.linalg\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if chosen is not None:
        env["OPENBLAS_NUM_THREADS"] = chosen
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    seen, threads = proc.stdout.split()
    assert seen == str(chosen)
    if chosen is None:
        assert threads == "1"


def test_binary_garbage_gets_a_byte_offset_and_hex(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(200, 256)) + b"\x00\x01\x02" * 100)
    code, out, err = run("report", "//py:tool", "--graph", str(CQUERY), "--binary", str(junk))
    assert (code, out) == (2, "")
    assert err.startswith(f"slim: error: {junk}:byte 0: expected a binary input (")
    assert "found binary data (c8 c9 ca cb" in err
    assert err.count("\n") == 1


def test_output_past_a_pipe_buffer_is_complete_when_the_process_ends(tmp_path: Path) -> None:
    """The command ends with os._exit once its output is flushed: what a pipe reads, and
    what `-o` wrote, is every byte the command produced, with its exit code."""
    lines = [
        json.dumps(
            {
                "type": "RULE",
                "rule": {
                    "name": "//app:bin",
                    "ruleClass": "cc_binary",
                    "attribute": [
                        {
                            "name": "deps",
                            "type": "LABEL_LIST",
                            "stringListValue": [f"//lib/p{i}:library_{i}" for i in range(1500)],
                        }
                    ],
                },
            }
        )
    ]
    lines += [
        json.dumps(
            {"type": "RULE", "rule": {"name": f"//lib/p{i}:library_{i}", "ruleClass": "cc_library"}}
        )
        for i in range(1500)
    ]
    export = tmp_path / "g.ndjson"
    export.write_text("\n".join(lines) + "\n")
    args = ["graph", "//app:bin", "--graph", str(export), "--no-collapse-packages", "--no-cache"]
    expected = CliRunner().invoke(cli, args)
    assert expected.exit_code == 0, expected.output
    assert len(expected.output) > 1 << 16
    code, out, err = run(*args)
    assert (code, err) == (0, "")
    assert out == expected.output
    dot = tmp_path / "out.dot"
    code, out, err = run(*args, "-o", str(dot))
    assert (code, out, err) == (0, "", "")
    assert dot.read_text() == expected.output


_LOADED = (
    "import sys; from slim.cli.main import main\n"
    "try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
    "mods = ('slim_analyzers.python.analyzer', 'slim_analyzers.native.analyzer',"
    " 'slim_analyzers.gpu.analyzer', 'slim.model.native', 'slim.model.linkage')\n"
    "print('loaded:' + ','.join(m for m in mods if m in sys.modules), file=sys.stderr)"
)


@pytest.mark.parametrize(
    ("extra", "loaded"),
    [
        ([], ""),
        (["--trace", "TRACE"], "slim_analyzers.python.analyzer"),
    ],
)
def test_a_report_loads_only_the_detectors_its_evidence_feeds(
    tmp_path: Path, extra: list[str], loaded: str
) -> None:
    """Rules, codes and missing-evidence hints come from each family's light modules; a
    detector and the models it reads are imported only for a root with its evidence."""
    trace = tmp_path / "trace.txt"
    trace.write_text(
        "import time: self [us] | cumulative | imported package\n"
        "import time:       100 |        100 | json\n"
    )
    args = [
        "report",
        "//py:tool",
        "--graph",
        str(CQUERY),
        "--format",
        "json",
        "--no-cache",
        "-o",
        str(tmp_path / "out.json"),
    ]
    args += [str(trace) if a == "TRACE" else a for a in extra]
    code = _LOADED.format(args=args)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert proc.stderr.strip().splitlines()[-1] == f"loaded:{loaded}"
    report = json.loads((tmp_path / "out.json").read_text())
    missing = {f["message"].split(" ")[0] for f in report["findings"] if f["code"] == "SLIM900"}
    assert ("SLIM001/SLIM901/SLIM902/SLIM903" in missing) is not loaded
