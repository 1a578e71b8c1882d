"""`edit_cmake_text`: the dep is removed from the `target_link_libraries` statement the fix
names, never from a comment, a generator expression or the next statement."""

from __future__ import annotations

import pytest

from slim.app.apply import edit_cmake_text
from slim.errors import UsageError
from slim.model.actions import Remove
from slim.model.edges import Location
from slim.model.findings import Fix


def _edit(text: str, line: int, dep: str = "foo") -> tuple[str, str]:
    fix = Fix(Remove("//:app", f"//:{dep}"), "cmake", "", location=Location("CMakeLists.txt", line))
    return edit_cmake_text(text, fix)


def test_the_dep_is_removed_from_its_statement() -> None:
    text = "add_executable(app a.c)\ntarget_link_libraries(app PRIVATE core foo)\n"
    new, done = _edit(text, 2)
    assert new == "add_executable(app a.c)\ntarget_link_libraries(app PRIVATE core)\n"
    assert done == "CMakeLists.txt:2: removed foo"


def test_a_comment_naming_the_dep_is_left_alone() -> None:
    text = "target_link_libraries(app PRIVATE\n  core  # core parses what foo writes\n  foo)\n"
    new, done = _edit(text, 1)
    assert new == "target_link_libraries(app PRIVATE\n  core  # core parses what foo writes\n)\n"
    assert done == "CMakeLists.txt:3: removed foo"


def test_the_next_statement_is_never_edited() -> None:
    """The statement at the fix's line ends on that line without the dep (a variable
    names it): the `foo` of the next statement, another target's, is not the edge."""
    text = (
        "target_link_libraries(app PRIVATE core ${backend})\n"
        "target_link_libraries(other PRIVATE foo)\n"
    )
    with pytest.raises(UsageError, match="expected foo in target_link_libraries"):
        _edit(text, 1)


def test_a_quoted_argument_is_removed_whole() -> None:
    new, _ = _edit('target_link_libraries(app PRIVATE core "foo")\n', 1)
    assert new == "target_link_libraries(app PRIVATE core)\n"


@pytest.mark.parametrize(
    "statement",
    [
        "target_link_libraries(app PRIVATE $<$<BOOL:${X}>:foo>)",
        'target_link_libraries(app PRIVATE "libs: foo")',
        "target_link_libraries(app PRIVATE core) # foo",
        "target_link_libraries(foo PRIVATE core)",  # the target, not a dep
    ],
)
def test_a_dep_the_statement_does_not_name_plainly_is_refused(statement: str) -> None:
    with pytest.raises(UsageError):
        _edit(statement + "\n", 1)


def test_a_call_split_over_lines_is_read_as_one() -> None:
    """The target on the line after the call's name is still the target; the dep on the
    one after that is the edit."""
    new, done = _edit("target_link_libraries(\n  foo PRIVATE\n  foo)\n", 1)
    assert new == "target_link_libraries(\n  foo PRIVATE)\n"
    assert done == "CMakeLists.txt:3: removed foo"
    with pytest.raises(UsageError):
        _edit("target_link_libraries(\n  foo PRIVATE core)\nadd_library(foo x.c)\n", 1)
