from __future__ import annotations

import subprocess
import sys

from slim.model.facts import Facts, InputFile


def test_may_hold_is_false_for_no_facts_or_a_module_never_imported() -> None:
    facts = Facts()
    assert not facts.may_hold("slim.model.facts")
    facts.add(InputFile("graph", "g.json", "bazel"))
    assert facts.may_hold("slim.model.facts")
    assert not facts.may_hold("slim_tests_no_such_module")


def test_facts_of_a_model_imported_later_are_seen() -> None:
    """The guard never hides a fact: a fact's module is imported before it can be made."""
    code = (
        "from slim.model.facts import Facts, InputFile\n"
        "f = Facts(); f.add(InputFile('graph', 'g', 'x'))\n"
        "print(f.may_hold('slim.model.native'))\n"
        "from slim.model.native import GcReport\n"
        "f.add(GcReport('o', 'bfd', ()))\n"
        "print(f.may_hold('slim.model.native'), len(f.of(GcReport)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "1"]
