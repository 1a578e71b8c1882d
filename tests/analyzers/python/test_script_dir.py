"""Names a py_binary's main script directory gives the modules beside it."""

from __future__ import annotations

from slim_analyzers.python._ownership import Owned
from slim_analyzers.python._script_dir import add_script_names, script_dir

from slim.model.graph import BuildGraph, GraphBuilder
from slim.model.pymodules import PySource


def _graph(
    kind: str, label: str, srcs: list[str], main: str | None = None
) -> tuple[BuildGraph, int]:
    b = GraphBuilder()
    attrs = {"main": main} if main else {}
    b.add_target(label, kind, srcs=srcs, attrs=attrs)  # type: ignore[arg-type]
    g = b.build()
    return g, g.ids[label]


def test_the_main_file_is_the_main_attribute_or_the_target_s_name() -> None:
    g, i = _graph("py_binary", "//app:tool", ["//app:tool.py", "//app:lib.py"])
    assert script_dir(g, i) == "app"
    g, i = _graph("py_test", "//app:t", ["//app:bin/run.py"], main="//app:bin/run.py")
    assert script_dir(g, i) == "app/bin"
    g, i = _graph("py_binary", "//app:t", ["//app:run.py"], main="run.py")
    assert script_dir(g, i) == "app"
    g, i = _graph("py_binary", "//:t", ["//:t.py"])
    assert script_dir(g, i) == ""


def test_no_script_directory_when_the_main_file_is_not_run_as_a_script_or_unknown() -> None:
    g, i = _graph("python_binary", "root//app:tool", ["root//app:tool.py"])
    assert script_dir(g, i) is None
    g, i = _graph("py_library", "//app:tool", ["//app:tool.py"])
    assert script_dir(g, i) is None
    g, i = _graph("py_binary", "//app:tool", ["//app:other.py"])
    assert script_dir(g, i) is None
    g, i = _graph("py_binary", "@ext//app:tool", ["@ext//app:tool.py"])
    assert script_dir(g, i) is None


def test_modules_under_the_directory_get_their_relative_names_too() -> None:
    o = Owned(
        modules={"app.util", "app.helpers", "app.helpers.fmt", "lib.x", "src.app.deep"},
        sources=(
            PySource("app/util.py", ("app.util",), False),
            PySource("app/helpers/__init__.py", ("app.helpers",), True),
            PySource("app/helpers/fmt.py", ("app.helpers.fmt",), False),
            PySource("lib/x.py", ("lib.x",), False),
            PySource("application/y.py", ("application.y",), False),
        ),
    )
    add_script_names([o], "app")
    names = {s.path: s.modules for s in o.sources}
    assert names["app/util.py"] == ("app.util", "util")
    assert names["app/helpers/__init__.py"] == ("app.helpers", "helpers")
    assert names["app/helpers/fmt.py"] == ("app.helpers.fmt", "helpers.fmt")
    assert names["lib/x.py"] == ("lib.x",)
    assert names["application/y.py"] == ("application.y",)
    assert {"util", "helpers", "helpers.fmt"} <= o.modules
