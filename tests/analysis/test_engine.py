from __future__ import annotations

from slim.analysis.engine import analyze, same_evidence
from slim.analysis.registry import discover
from slim.model.context import AnalysisContext, has_native_code, has_python_code
from slim.model.facts import Facts
from slim.model.findings import Confidence, Finding, Rule
from slim.model.graph import EdgeKind, GraphBuilder
from slim.model.plugin import AnalyzerSpec

RULE = Rule("SLIM999", "test-rule", "A rule used by the engine tests.")


class _Flags:
    def analyze(self, ctx: AnalysisContext) -> list[Finding]:
        return [
            Finding(
                code="SLIM999",
                name="test-rule",
                target=ctx.root_label,
                dep="",
                verdict="seen",
                message="ran",
                confidence=Confidence.HIGH,
                removable=False,
                root=ctx.root_label,
            )
        ]


def _graph():  # type: ignore[no-untyped-def]
    b = GraphBuilder()
    py = b.add_target("//py:app", "py_binary")
    b.add_edge(py, b.add_target("//py:lib", "py_library"), EdgeKind.DEPS)
    cc = b.add_target("//cc:server", "cc_binary")
    b.add_edge(cc, b.add_target("//cc:lib", "cc_library"), EdgeKind.DEPS)
    return b.build()


def test_missing_evidence_is_a_finding_only_where_the_check_applies() -> None:
    g = _graph()
    spec = AnalyzerSpec(
        "native-test", (RULE,), frozenset({"linkmap"}), _Flags, applies=has_native_code
    )
    rep = analyze(
        g, same_evidence([g.ids["//py:app"], g.ids["//cc:server"]], Facts()), specs=[spec]
    )
    missing = [(f.code, f.root) for f in rep.findings]
    assert missing == [("SLIM900", "//cc:server")]
    assert "native-test not checked: no linkmap evidence given" in rep.findings[0].message


def test_analyzer_runs_when_evidence_is_given_and_applies() -> None:
    g = _graph()
    spec = AnalyzerSpec("py-test", (RULE,), frozenset(), _Flags, applies=has_python_code)
    rep = analyze(
        g, same_evidence([g.ids["//py:app"], g.ids["//cc:server"]], Facts()), specs=[spec]
    )
    assert [(f.code, f.root) for f in rep.findings] == [("SLIM999", "//py:app")]


def test_select_and_ignore() -> None:
    g = _graph()
    spec = AnalyzerSpec("any", (RULE,), frozenset(), _Flags)
    roots = same_evidence([g.ids["//py:app"]], Facts())
    assert analyze(g, roots, specs=[spec], ignore=["SLIM999"]).findings == ()
    assert len(analyze(g, roots, specs=[spec], select=["SLIM999"]).findings) == 1


def test_builtin_analyzers_are_registered_through_entry_points() -> None:
    codes = {r.code for spec in discover() for r in spec.rules}
    assert {"SLIM001", "SLIM002", "SLIM003", "SLIM004", "SLIM005"} <= codes
