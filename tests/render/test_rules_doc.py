"""docs/rules.md is the rule table (`slim explain --all`), and every SARIF rule's helpUri
points at an anchor of it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from slim.cli import cli

REPO = Path(__file__).parents[2]


def test_docs_rules_page_is_the_rule_table() -> None:
    res = CliRunner().invoke(cli, ["explain", "--all"])
    assert res.exit_code == 0, res.output
    assert (REPO / "docs" / "rules.md").read_text(encoding="utf-8") == res.output


def test_explain_without_a_code_is_a_usage_error() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "slim", "explain"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert "--all" in proc.stderr


def test_sarif_rules_carry_help_uris_into_the_rules_page() -> None:
    sarif = json.loads((REPO / "tests" / "cli" / "golden" / "report.sarif").read_text())
    page = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert rules
    for r in rules:
        anchor = r["helpUri"].rsplit("#", 1)[1]
        assert r["helpUri"].split("#")[0].endswith("/docs/rules.md")
        assert f"## {anchor.upper()}\n" in page
