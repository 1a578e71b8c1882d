"""Options a linter user expects: strict selectors and gates, linter exit codes, config
typos caught with FILE:LINE, missing inputs said in one line (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOT = "//serving:cpu_server"


def slim(*args: str, cwd: Path = REPO, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SLIM_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "slim", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


def _one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--select", "SLIM0002"), "did you mean SLIM002?"),
        (("--select", "F401"), "expected a rule code or prefix"),
        (("--ignore", "SLIM8"), "expected a rule code or prefix"),
        (("--fail-on", "hihg"), "did you mean high?"),
        (("--fail-on", "SLIM0001"), "did you mean SLIM001?"),
        (("--cuda-archs", "sm80"), "expected an architecture such as sm_80"),
    ],
)
def test_bad_selectors_and_gates_are_usage_errors(
    args: tuple[str, ...], says: str, tmp_path: Path
) -> None:
    assert says in _one_line_error(slim("report", ROOT, *args, cache=tmp_path))


def test_selectors_take_prefixes_and_any_case(tmp_path: Path) -> None:
    proc = slim("report", ROOT, "--select", "slim00", "--format", "json", cache=tmp_path)
    codes = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert codes == {"SLIM002", "SLIM003"}
    proc = slim("report", ROOT, "--ignore", "SLIM9,slim003", "--format", "json", cache=tmp_path)
    assert {f["code"] for f in json.loads(proc.stdout)["findings"]} == {"SLIM002"}


def test_exit_codes_like_a_linter(tmp_path: Path) -> None:
    assert slim("report", ROOT, cache=tmp_path).returncode == 1  # removable findings exist
    assert slim("report", ROOT, "--exit-zero", cache=tmp_path).returncode == 0
    assert slim("report", ROOT, "--fail-on", "HIGH", cache=tmp_path).returncode == 1
    assert slim("report", ROOT, "--fail-on", "SLIM004", cache=tmp_path).returncode == 0
    assert slim("report", ROOT, "--select", "SLIM001", cache=tmp_path).returncode == 0


def test_missing_graph_is_bad_input_not_an_internal_error(tmp_path: Path) -> None:
    err = _one_line_error(slim("report", "//a", "--graph", "nope.json", cache=tmp_path))
    assert "nope.json: expected a graph export, found no such file or directory" in err


def test_config_typo_in_any_table_names_its_line(tmp_path: Path) -> None:
    cfg = tmp_path / "slim.toml"
    cfg.write_text('graph = "g.json"\n\n[revisions.head]\ngraph = "h.json"\nlinkmpa = "x"\n')
    err = _one_line_error(slim("report", "//a", "--config", str(cfg), cache=tmp_path))
    assert f"{cfg}:5: expected one of" in err
    assert "unknown key 'linkmpa' (did you mean 'linkmap'?)" in err
    cfg.write_text('graph = "g.json"\nselect = ["SLIM0002"]\n')
    (tmp_path / "g.json").write_text((REPO / "tests/data/bazel/cquery.jsonproto.json").read_text())
    err = _one_line_error(slim("report", "//py:tool", "--config", str(cfg), cache=tmp_path))
    assert "select SLIM0002: expected a rule code or prefix" in err


def test_verify_checks_its_tools_before_building(tmp_path: Path) -> None:
    err = _one_line_error(
        slim("verify", ROOT, "--build-cmd", "no-such-build-tool-xyz all", cache=tmp_path)
    )
    assert "no-such-build-tool-xyz is not on PATH" in err


def test_label_forms_users_type(tmp_path: Path) -> None:
    """`//bin:the_binary` finds Buck2's `root//bin:the_binary`; a bare CMake target name
    finds its `//dir:name`; a name two targets share is an error naming both."""
    buck = REPO / "tests/data/buck2/cquery_attributes.json"
    proc = slim(
        "report", "//bin:the_binary", "--graph", str(buck), "--config", "/dev/null",
        "--format", "json", "--exit-zero", cache=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [r["label"] for r in json.loads(proc.stdout)["roots"]] == ["root//bin:the_binary"]
    reply = REPO / "sample_graphs/monorepo/exports/cmake/reply"
    proc = slim(
        "report", "cpu_server", "--graph", str(reply), "--config", "/dev/null", "--format",
        "json", "--exit-zero", cache=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [r["label"] for r in json.loads(proc.stdout)["roots"]] == ["//serving:cpu_server"]
    two = tmp_path / "g.dot"
    two.write_text(
        'digraph mygraph {\n  node [shape=box];\n  "//a:tool"\n  "//a:tool" -> "//b:lib"\n'
        '  "//c:tool"\n  "//c:tool" -> "//b:lib"\n  "//b:lib"\n}\n'
    )
    err = _one_line_error(slim("report", "tool", "--graph", str(two), cache=tmp_path))
    assert "target tool is ambiguous: it could be //a:tool, //c:tool" in err


def test_timings_of_another_build_are_not_measured_zero(tmp_path: Path) -> None:
    log = tmp_path / "other.ninja_log"
    log.write_text("# ninja log v5\n0\t1000\t0\tfoo/bar.o\tabc\n0\t2000\t0\tbaz/qux.o\tdef\n")
    proc = slim("report", ROOT, "--timings", str(log), "--exit-zero", cache=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "warning: 2 of 2 actions in the timings match no target" in proc.stdout
    legacy = "not measured (the timings cover no action of //native/legacy_io:legacy_io)"
    assert legacy in proc.stdout
    assert "(measured" not in proc.stdout


def test_locations_resolve_in_the_workspace_and_sarif_is_repository_relative(
    tmp_path: Path,
) -> None:
    from slim.app.locations import Localizer, source_root
    from slim.model.graph import Location

    ws = tmp_path / "repo" / "mono"
    (ws / "serving").mkdir(parents=True)
    (ws / "serving" / "BUILD").write_text("")
    loc = Localizer(ws).location(Location("/src/mlinfra/serving/BUILD", 15))
    assert loc == Location("serving/BUILD", 15)
    assert Localizer(ws).path("/src/mlinfra/nowhere/BUILD") == "/src/mlinfra/nowhere/BUILD"
    assert source_root(ws, tmp_path / "repo") == "mono"
    proc = slim("report", ROOT, "--format", "sarif", "--exit-zero", cache=tmp_path)
    results = json.loads(proc.stdout)["runs"][0]["results"]
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for r in results
        for loc in r["locations"]
        if "physicalLocation" in loc
    }
    assert uris == {"sample_graphs/monorepo/serving/CMakeLists.txt"}
    assert all((REPO / u).is_file() for u in uris)


def test_report_takes_patterns_as_cleanup_does(tmp_path: Path) -> None:
    """`slim report //py/...` reports every binary under //py (each root on its own)."""
    proc = slim("report", "//py/...", "--format", "json", cache=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    roots = {r["label"] for r in json.loads(proc.stdout)["roots"]}
    assert roots == {"//py/apps:server", "//py/apps:trainer"}
    _one_line_error(slim("report", "//nothere/...", cache=tmp_path))


def test_cache_lives_in_the_user_cache_directory_or_where_told(tmp_path: Path) -> None:
    """Never in the repository: `$XDG_CACHE_HOME/slim` by default (platformdirs), and
    `slim --cache-dir DIR` over `$SLIM_CACHE_DIR`."""
    env = {k: v for k, v in os.environ.items() if k != "SLIM_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    run = [sys.executable, "-m", "slim"]
    report = ["report", ROOT, "--exit-zero"]
    subprocess.run([*run, *report], cwd=REPO, env=env, check=True, capture_output=True)
    assert list((tmp_path / "xdg" / "slim" / "graphs").iterdir())
    told = tmp_path / "told"
    env["SLIM_CACHE_DIR"] = str(tmp_path / "env")
    subprocess.run(
        [*run, "--cache-dir", str(told), *report], cwd=REPO, env=env, check=True,
        capture_output=True,
    )  # fmt: skip
    assert list((told / "graphs").iterdir())
    assert not (tmp_path / "env").exists()
    assert not (REPO / ".slim-cache").exists()
