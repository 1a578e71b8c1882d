"""Every renderer on the one canonical report, against golden files, byte for byte."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.model.actions import Remove
from slim.model.findings import Confidence, Finding
from slim.model.report import Report
from slim.plan.fixes import buildozer_fix, cmake_fix
from slim.render import RENDERERS, get_renderer
from slim.render.markdown import MAX_CHARS, escape, marker
from tests.render.conftest import GOLDEN, ROOT, canonical_report, empty_report

SCHEMA = Path(__file__).parent.parent / "data" / "sarif" / "sarif-schema-2.1.0.json"
EXTENSIONS = {
    "text": "txt",
    "json": "json",
    "markdown": "md",
    "sarif": "sarif",
    "buildozer": "buildozer",
    "csv": "csv",
    "dot": "dot",
}


def rendered(report: Report, fmt: str) -> str:
    buf = io.StringIO()
    get_renderer(fmt)(report, buf)
    return buf.getvalue()


def test_every_registered_renderer_has_goldens() -> None:
    assert set(RENDERERS) == set(EXTENSIONS)


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
@pytest.mark.parametrize("which", ["report", "empty"])
def test_golden(fmt: str, which: str, update_goldens: bool) -> None:
    rep = canonical_report() if which == "report" else empty_report()
    text = rendered(rep, fmt)
    golden = GOLDEN / f"{which}.{EXTENSIONS[fmt]}"
    if update_goldens:
        golden.write_bytes(text.encode("utf-8"))
    assert golden.exists(), f"{golden} missing: run pytest --update-goldens"
    assert text.encode("utf-8") == golden.read_bytes()
    assert rendered(rep, fmt) == text
    assert rendered(canonical_report() if which == "report" else empty_report(), fmt) == text


def _validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


@pytest.mark.parametrize("which", ["report", "empty"])
def test_sarif_is_schema_valid(which: str) -> None:
    rep = canonical_report() if which == "report" else empty_report()
    doc = json.loads(rendered(rep, "sarif"))
    errors = sorted(_validator().iter_errors(doc), key=str)
    assert not errors, errors[0].message


def test_sarif_schema_rejects_a_broken_log() -> None:
    doc = json.loads(rendered(canonical_report(), "sarif"))
    doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert list(_validator().iter_errors(doc))


def test_sarif_content(report: Report) -> None:
    run = json.loads(rendered(report, "sarif"))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["SLIM001", "SLIM002", "SLIM003", "SLIM900"]
    assert rules[1]["help"]["text"].startswith("Keep it if it registers")
    by_dep = {
        r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]: r for r in run["results"]
    }
    safe = by_dep["//py/apps:tool -> //py/unused_lib:unused_lib"]
    phys = safe["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"] == {"uri": "py/apps/BUILD", "uriBaseId": "%SRCROOT%"}
    assert phys["region"] == {"startLine": 7}
    assert safe["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"] == {
        "startLine": 7,
        "startColumn": 1,
        "endLine": 8,
        "endColumn": 1,
    }
    unsafe = by_dep["//serving:cpu_server -> //native/weakhooks:weakhooks"]
    assert "fixes" not in unsafe
    assert unsafe["level"] == "note"
    uni = by_dep["//i18n:données_ü -> //kernels:cuda_kernels"]
    assert "fixes" not in uni
    kept = by_dep["//py/apps:tool -> //py/optional_lib:optional_lib"]
    assert kept["suppressions"][0]["justification"] == "loaded by name at runtime"
    assert kept["suppressions"][0]["kind"] == "inSource"


def test_sarif_fix_says_run_only_for_a_shell_command(report: Report) -> None:
    """A CMake edit is described, never offered as a command to run."""
    [safe] = [f for f in report.findings if f.dep == "//py/unused_lib:unused_lib"]
    assert safe.fix is not None
    assert safe.dep_line_alone
    assert isinstance(safe.fix.action, Remove)
    cmake = cmake_fix(safe.fix.action, safe.dep_location)
    edited = dataclasses.replace(
        report,
        findings=[dataclasses.replace(f, fix=cmake) if f is safe else f for f in report.findings],
    )
    for rep, says_run in ((report, True), (edited, False)):
        run = json.loads(rendered(rep, "sarif"))["runs"][0]
        [res] = [
            r
            for r in run["results"]
            if r["partialFingerprints"]["slimEdge/v1"].endswith("|//py/unused_lib:unused_lib")
        ]
        text = res["fixes"][0]["description"]["text"]
        assert ("or run: buildozer " in text) is says_run, text
        assert ("run:" in text) is says_run, text


def test_sarif_uris_are_relative_to_workspace_and_encoded(report: Report) -> None:
    from slim.render.sarif import uri

    assert uri("/repo/a b/BUILD", "/repo") == ("a%20b/BUILD", "%SRCROOT%")
    assert uri("/elsewhere/BUILD", "/repo") == ("file:///elsewhere/BUILD", None)
    assert uri("données/BUILD", None) == ("donn%C3%A9es/BUILD", "%SRCROOT%")


def test_markdown_structure(report: Report) -> None:
    md = rendered(report, "markdown")
    assert md.startswith(f"<!-- slim:{ROOT} -->\n")
    summary = md.splitlines()[1]
    assert "2 removable edges" in summary
    assert "1,050,624 bytes" in summary
    assert "measured; link estimated" in summary
    assert "1 suppressed" in summary
    assert md.count("<details>") == 5
    assert md.count("</details>") == 5
    block = re.search(r"```sh\n(.*?)```", md, re.S)
    assert block is not None
    assert block.group(1).splitlines() == [
        "buildozer 'remove deps //kernels:cuda_kernels' '//i18n:données_ü'",
        "buildozer 'remove deps //py/unused_lib:unused_lib' //py/apps:tool",
    ]
    assert "100% of .nv\\_fatbin &lt;sm\\_80&gt; and the binary is \\*CPU-only\\*" in md
    assert "weak hooks \\| may be used" in md
    assert "Evidence not given: binary" in md


def test_markdown_escapes_html_and_markdown() -> None:
    assert escape("<script>|*x*|`y`") == "&lt;script&gt;\\|\\*x\\*\\|\\`y\\`"
    assert escape("a\nb\r\nc") == "a b c"


def test_markdown_marker_is_stable_and_cannot_close_early(report: Report) -> None:
    assert marker(report) == marker(canonical_report())
    odd = dataclasses.replace(
        report, roots=(dataclasses.replace(report.roots[0], label="//a:x-->y"),)
    )
    assert marker(odd).count("-->") == 1


def _many(n: int) -> Report:
    base = canonical_report()
    findings = [
        Finding(
            code="SLIM001",
            name="unused-python-dep",
            target=f"//pkg{i // 10}:t{i}",
            dep=f"//lib{i}:lib{i}",
            verdict="dead",
            message=f"dep {i} <is> never imported | " + "x" * 40,
            confidence=Confidence.HIGH,
            removable=True,
            root=ROOT,
            fix=buildozer_fix(Remove(f"//pkg{i // 10}:t{i}", f"//lib{i}:lib{i}")),
        )
        for i in range(n)
    ]
    return Report.create(
        roots=list(base.roots),
        inputs=list(base.inputs),
        evidence=list(base.evidence),
        findings=findings,
        rules=list(base.rules),
    )


def test_markdown_stays_under_github_limit_with_5000_findings() -> None:
    md = rendered(_many(5000), "markdown")
    assert len(md) <= MAX_CHARS
    m = re.search(r"… and (\d+) more", md)
    assert m is not None
    shown = md.count("<details>")
    assert shown + int(m.group(1)) == 5000
    assert shown > 100
    assert md.startswith("<!-- slim:")
    assert "5000 removable edges" in md.splitlines()[1]


def test_markdown_small_report_is_not_cut() -> None:
    md = rendered(_many(20), "markdown")
    assert "more" not in md
    assert md.count("<details>") == 20


def test_csv_round_trips(report: Report) -> None:
    import csv

    rows = list(csv.DictReader(io.StringIO(rendered(report, "csv"))))
    assert len(rows) == 5
    uni = next(r for r in rows if r["target"] == "//i18n:données_ü")
    assert uni["message"] == "fatbin is 100% of .nv_fatbin <sm_80>\nand the binary is *CPU-only*"
    kept = next(r for r in rows if r["suppressed"])
    assert kept["suppressed"] == "loaded by name at runtime"


def test_dot_is_valid_graphviz(report: Report, tmp_path: Path) -> None:
    import shutil
    import subprocess

    dot = rendered(report, "dot")
    assert '"//py/apps:tool" -> "//py/unused_lib:unused_lib" [label="SLIM001", color="red"' in dot
    if shutil.which("dot") is None:
        pytest.skip("graphviz `dot` not installed: cannot check the DOT parses")
    res = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True, check=False)
    assert res.returncode == 0, res.stderr.decode()
    assert "données_ü" in res.stdout.decode()


def test_json_lists_suppressed(report: Report) -> None:
    doc = json.loads(rendered(report, "json"))
    assert [f["dep"] for f in doc["suppressed"]] == ["//py/optional_lib:optional_lib"]
    assert doc["suppressed"][0]["suppression"] == {
        "by": "py/apps/BUILD:8",
        "reason": "loaded by name at runtime",
        "in_source": True,
        "path": "py/apps/BUILD",
    }


MONOREPO = Path(__file__).resolve().parents[2] / "sample_graphs" / "monorepo"


def monorepo_evidence(binary: str = "cpu_server") -> list[str]:
    """The sample's evidence for one binary: the ELF, its archives, linker map, traces."""
    args = ["--binary", f"exports/bin/{binary}", "--workspace", "."]
    for a in sorted((MONOREPO / "exports" / "archives").glob("*/**/*.a")):
        args += ["--binary", a.relative_to(MONOREPO).as_posix()]
    args += ["--linkmap", f"exports/linkmaps/{binary}.lld.map"]
    args += ["--trace", "traces/server.importtime.txt"]
    return args


@pytest.fixture
def monorepo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    if not (MONOREPO / "exports" / "bazel" / "query.xml").is_file():
        pytest.skip("sample_graphs/monorepo exports not generated (sample_graphs/make_sample.sh)")
    monkeypatch.chdir(MONOREPO)
    empty = tmp_path / "slim.toml"
    empty.write_text("")
    return empty


def _slim(args: list[str]) -> str:
    from click.testing import CliRunner

    from slim.cli import cli

    res = CliRunner().invoke(cli, args, standalone_mode=False)
    assert res.exception is None, res.output
    return res.output


def test_monorepo_markdown_comment(monorepo: Path) -> None:
    base = ["report", "//serving:cpu_server", "--graph", "exports/bazel/query.xml"]
    base += ["--config", str(monorepo), *monorepo_evidence()]
    md = _slim([*base, "--format", "markdown"])
    doc = json.loads(_slim([*base, "--format", "json"]))
    removable = [f for f in doc["findings"] if f["removable"]]
    assert md.startswith("<!-- slim://serving:cpu_server -->\n")
    edge_word = "edge" if len(removable) == 1 else "edges"
    assert f"**{len(removable)} removable {edge_word}**" in md.splitlines()[1]
    for dep in ("legacy\\_io:legacy\\_io", "weakhooks:weakhooks"):
        assert f"| //serving:cpu\\_server → //native/{dep} |" in md
    for f in removable:
        assert f["fix"] in md
    assert md.count("<details><summary>SLIM") == len(doc["findings"])
    assert len(md) <= MAX_CHARS


def test_monorepo_sarif_is_schema_valid(monorepo: Path) -> None:
    text = _slim(
        [
            "report",
            "//serving:cpu_server",
            "--graph",
            "exports/bazel/query.xml",
            "--config",
            str(monorepo),
            *monorepo_evidence(),
            "--format",
            "sarif",
        ]
    )
    doc = json.loads(text)
    errors = list(_validator().iter_errors(doc))
    assert not errors, errors[0].message
    lines = {
        r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]: r["locations"][0]
        .get("physicalLocation", {})
        .get("region", {})
        .get("startLine")
        for r in doc["runs"][0]["results"]
    }
    build = (MONOREPO / "serving" / "BUILD").read_text().splitlines()
    for dep in ("legacy_io", "weakhooks"):
        line = lines[f"//serving:cpu_server -> //native/{dep}:{dep}"]
        assert build[line - 1].strip() == f'"//native/{dep}",'


def test_monorepo_config_sarif_and_markdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """`slim report` with no flag but the repository's slim.toml (the sample monorepo)."""
    cfg = MONOREPO.parent.parent / "slim.toml"
    if not cfg.is_file() or "sample_graphs/monorepo" not in cfg.read_text():
        pytest.skip("the repository's slim.toml for the sample monorepo is not there")
    monkeypatch.chdir(cfg.parent)
    doc = json.loads(_slim(["report", "--config", "slim.toml", "--format", "sarif"]))
    assert not list(_validator().iter_errors(doc))
    results = doc["runs"][0]["results"]
    assert results
    for r in results:
        uri = r["locations"][0].get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
        assert uri is None or not uri.startswith(("/", "file:"))
    md = _slim(["report", "--config", "slim.toml", "--format", "markdown"])
    assert md.startswith("<!-- slim://serving:cpu_server -->\n")
    assert len(md) <= MAX_CHARS


@settings(deadline=None, max_examples=200)
@given(st.text(max_size=200))
def test_escape_leaves_no_markup(text: str) -> None:
    out = escape(text)
    assert "\n" not in out
    assert "\r" not in out
    assert "<" not in out
    assert ">" not in out
    unescaped_pipe = re.search(r"(?<!\\)\|", out.replace("\\\\", ""))
    assert unescaped_pipe is None


def test_byte_identical_across_processes(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = (
        "import io, sys\n"
        "from slim.render import get_renderer\n"
        "from tests.render.conftest import canonical_report\n"
        "for fmt in sorted(" + repr(sorted(EXTENSIONS)) + "):\n"
        "    buf = io.StringIO(); get_renderer(fmt)(canonical_report(), buf)\n"
        "    sys.stdout.buffer.write(fmt.encode() + b'\\0' + buf.getvalue().encode() + b'\\0')\n"
    )
    repo = Path(__file__).resolve().parents[2]
    outs = []
    for seed in ("1", "2"):
        env = {**__import__("os").environ, "PYTHONHASHSEED": seed}
        res = subprocess.run(
            [sys.executable, "-c", script], cwd=repo, env=env, capture_output=True, check=True
        )
        outs.append(res.stdout)
    assert outs[0] == outs[1]
    parts = outs[0].split(b"\0")
    for fmt, text in zip(parts[0::2], parts[1::2], strict=False):
        golden = GOLDEN / f"report.{EXTENSIONS[fmt.decode()]}"
        assert text == golden.read_bytes(), fmt


def test_text_puts_removable_first_groups_kept_and_ends_with_the_summary() -> None:
    from slim.render.text import MAX_KEPT, TextOptions, render_text

    base = canonical_report()
    kept = [
        Finding(
            code="SLIM901",
            name="python-ownership-unknown",
            target=f"//app:t{i}",
            dep="//third_party/py:numpy",
            verdict="ownership-unknown",
            message="numpy provides no Python modules slim can see. Pass --site-packages.",
            confidence=Confidence.LOW,
            removable=False,
            root=ROOT,
        )
        for i in range(6)
    ]
    many = [
        Finding("SLIM002", "x", ROOT, f"//lib:k{i}", "kept", "m", Confidence.LOW, False, root=ROOT)
        for i in range(MAX_KEPT + 5)
    ]
    rep = Report.create(
        roots=list(base.roots),
        inputs=[],
        evidence=list(base.evidence),
        findings=[*base.findings, *kept, *many],
        rules=list(base.rules),
        savings=base.savings,
    )
    text = render_text(rep, TextOptions())
    lines = text.splitlines()
    assert lines[2].startswith("removable (2, largest saving first):")
    assert text.index("removable (") < text.index("\nkept (") < text.index("\nevidence:\n")
    assert lines[-1].startswith(f"{len(rep.findings)} findings, 2 removable; saving")
    one = [x for x in lines if "//third_party/py:numpy" in x]
    assert one == ["  SLIM901 //third_party/py:numpy  [ownership-unknown] from 6 targets: "
                   "//app:t0, //app:t1, //app:t2, … 3 more"]  # fmt: skip
    assert "… and 8 more (-v, or --format json)" in text  # 23 groups, 15 shown
    full = render_text(rep, TextOptions(verbosity=2))
    assert "//lib:k19" in full
    assert render_text(rep, TextOptions(verbosity=0)) == lines[-1] + "\n"
    stats = render_text(rep, TextOptions(verbosity=0, statistics=True))
    assert "     6  SLIM901 python-ownership-unknown  (0 removable)" in stats


def test_text_says_why_a_kept_finding_is_not_removable() -> None:
    """A kept finding's first sentence says what the link shows; why it stays and which
    evidence would decide it (the analyzer's `kept_because`, not read back from the
    message) is shown too, not only with -v."""
    from slim.render.text import TextOptions, render_text

    base = canonical_report()
    why = (
        "Not removable: whether the compile of //app:a includes //lib:b's headers is "
        "unknown (pass --compile with `ninja -C build -t deps > deps.txt`)"
    )
    kept = Finding(
        "SLIM002",
        "unreferenced-native-dep",
        "//app:a",
        "//lib:b",
        "unreferenced",
        f"//lib:b contributes no code and no referenced symbol to //app:a. {why}.",
        Confidence.MEDIUM,
        False,
        root=ROOT,
        kept_because=why.removeprefix("Not removable: "),
    )
    plain = Finding(
        "SLIM002", "x", "//app:a", "//lib:c", "kept", "One. Not removable: two.",
        Confidence.LOW, False, root=ROOT,
    )  # fmt: skip
    rep = Report.create(
        roots=list(base.roots),
        inputs=[],
        evidence=list(base.evidence),
        findings=[kept, plain],
        rules=list(base.rules),
        savings=base.savings,
    )
    lines = render_text(rep, TextOptions()).splitlines()
    at = lines.index("  SLIM002 //app:a -> //lib:b  [unreferenced, medium]")
    assert lines[at + 1 : at + 3] == [
        "      //lib:b contributes no code and no referenced symbol to //app:a",
        f"      {why}",
    ]
    at = lines.index("  SLIM002 //app:a -> //lib:c  [kept, low]")
    assert lines[at + 1] == "      One"
    assert not lines[at + 2].startswith("      ")
