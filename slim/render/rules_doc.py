"""The rule table as a Markdown page (`slim explain --all` writes docs/rules.md): one
anchor per code, which SARIF `helpUri`s point at."""

from __future__ import annotations

from slim.model.findings import Rule
from slim.model.plugin import AnalyzerSpec

DOCS_URL = "https://github.com/slim-depgraph/slim/blob/main/docs"


def anchor(code: str) -> str:
    return code.lower()


def help_uri(code: str, docs_url: str = DOCS_URL) -> str:
    return f"{docs_url.rstrip('/')}/rules.md#{anchor(code)}"


def rules_markdown(table: dict[str, tuple[Rule, AnalyzerSpec | None]]) -> str:
    lines = [
        "# Rules",
        "",
        "Every code a report can emit (`slim explain CODE` prints one; this page is",
        "`slim explain --all`). Select with `--select`/`--ignore` (codes or prefixes).",
        "",
        "| code | name | analyzer | summary |",
        "|---|---|---|---|",
    ]
    for code, (rule, spec) in table.items():
        who = spec.name if spec is not None else "core"
        lines.append(f"| [{code}](#{anchor(code)}) | `{rule.name}` | {who} | {rule.summary} |")
    for code, (rule, spec) in table.items():
        lines += ["", f"## {code}", "", f"`{rule.name}`: {rule.summary}", "", rule.help]
        if spec is not None and spec.missing_hint:
            lines += ["", f"Evidence: {spec.missing_hint}"]
    return "\n".join(lines) + "\n"
