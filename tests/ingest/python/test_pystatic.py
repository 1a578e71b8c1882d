"""Static import extraction with `ast` (slim.ingest.python.pystatic): kinds, lines,
relative imports, loaders, bad bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.ingest.python.pystatic import scan_source

CODE = b"""\
import os, sys as system
from typing import TYPE_CHECKING
from . import sibling
from .. import uncle
from .sub.mod import name1, name2
import importlib
PLUGIN = importlib.import_module("plugins.fast")
REL = importlib.import_module(".rel", package="pkg.inner")
ALSO = __import__("legacy")
DYN = importlib.import_module(os.environ["X"])

try:
    import ujson as json
except ImportError:
    import json
try:
    import not_guarded
except KeyError:
    pass

if TYPE_CHECKING:
    from collections.abc import Iterator
else:
    import runtime_only

class C:
    import in_class_body

def f():
    import lazy_mod
    if TYPE_CHECKING:
        import lazy_typing
    return importlib.import_module("lazy.plugin")

g = lambda: __import__("in_lambda")
"""


def kinds(
    code: bytes, module: str = "pkg.inner.mod", pkg: bool = False
) -> dict[str, tuple[str, int]]:
    res = scan_source(code, "x.py", module, pkg)
    assert res.error == ""
    return {i.module: (i.kind, i.line) for i in res.imports}


def test_kinds_and_lines() -> None:
    k = kinds(CODE)
    assert k["os"] == ("top-level", 1)
    assert k["sys"] == ("top-level", 1)
    assert k["pkg.inner"] == ("top-level", 3)  # from . import sibling
    assert k["pkg"] == ("top-level", 4)
    assert k["pkg.inner.sub.mod"] == ("top-level", 5)
    assert k["plugins.fast"] == ("importlib", 7)
    assert k["pkg.inner.rel"] == ("importlib", 8)
    assert k["legacy"] == ("importlib", 9)
    assert k["ujson"] == ("optional", 13)
    assert k["json"] == ("optional", 15)  # the fallback in the handler is conditional too
    assert k["not_guarded"] == ("top-level", 17)
    assert k["collections.abc"] == ("typing-only", 22)
    assert k["runtime_only"] == ("top-level", 24)
    assert k["in_class_body"] == ("top-level", 27)  # class bodies run at import
    assert k["lazy_mod"] == ("lazy", 30)
    assert k["lazy_typing"] == ("typing-only", 32)
    assert k["lazy.plugin"] == ("lazy", 33)
    assert k["in_lambda"] == ("lazy", 35)


def test_from_import_names_are_candidates() -> None:
    res = scan_source(CODE, "x.py", "pkg.inner.mod")
    sib = next(i for i in res.imports if i.line == 3)
    assert sib.candidates() == ("pkg.inner", "pkg.inner.sibling")
    sub = next(i for i in res.imports if i.line == 5)
    assert sub.names == ("name1", "name2")


def test_computed_dynamic_import_is_a_loader_that_reaches_everything() -> None:
    res = scan_source(CODE, "x.py", "pkg.inner.mod")
    (computed,) = res.loaders
    assert (computed.line, computed.kind, computed.prefix) == (10, "computed", "")
    assert computed.reaches("anything.at.all")
    assert res.unresolved == ()


LOADERS = b"""import importlib, importlib.util, runpy, pkgutil
from importlib import resources
from importlib.metadata import entry_points
from importlib.util import spec_from_file_location
name = "x"
a = importlib.import_module(f"plugins.{name}")
b = importlib.import_module("codecs_" + name)
c = importlib.import_module("fmt.%s" % name)
d = importlib.import_module("tpl.{}".format(name))
e = importlib.import_module("." + name, __name__)
f = importlib.util.find_spec("probe.mod")
g = resources.files("assets.pkg")
h = pkgutil.get_data("blobs", "x.bin")
i = runpy.run_module("tools.cli")
j = spec_from_file_location("m", "/plugins/m.py")
k = runpy.run_path(name)
exec(open(name).read())
for ep in entry_points(group="myapp.plugins"):
    ep.load()
all_eps = entry_points().select(group="other.group")
any_eps = entry_points()
own = resources.files(__package__)
"""


def test_loaders_by_kind_with_the_literal_head_of_computed_names() -> None:
    res = scan_source(LOADERS, "x.py", "app.main")
    loaders = {(ld.line, ld.kind, ld.prefix) for ld in res.loaders}
    assert loaders == {
        (6, "computed", "plugins."),
        (7, "computed", "codecs_"),
        (8, "computed", "fmt."),
        (9, "computed", "tpl."),
        (10, "computed", "app."),
        (15, "file", ""),
        (16, "file", ""),
        (17, "file", ""),
        (18, "entry-points", "myapp.plugins"),
        (20, "entry-points", "other.group"),
        (21, "entry-points", ""),
    }
    by_line = {i.line: i for i in res.imports if i.dynamic}
    assert {ln: (i.module, i.via) for ln, i in by_line.items()} == {
        11: ("probe.mod", "find_spec"),
        12: ("assets.pkg", "files"),
        13: ("blobs", "get_data"),
        14: ("tools.cli", "run_module"),
    }
    assert by_line[12].describe() == 'files("assets.pkg") (importlib)'
    computed = next(ld for ld in res.loaders if ld.line == 6)
    assert computed.reaches("plugins.fast")
    assert not computed.reaches("codecs_zstd")


def test_names_only_count_where_a_loading_module_provides_them() -> None:
    res = scan_source(b"def files(x):\n    return x\nfiles(some_var)\nrun_path(y)\n", "x.py", "m")
    assert res.loaders == ()
    assert res.imports == ()


def test_package_init_defines_and_module_getattr() -> None:
    code = b"from .core import Tensor as T\nimport numpy as np\nVERSION = '1'\ndef helper(): ...\n"
    res = scan_source(code, "p/__init__.py", "p", is_package=True)
    assert res.defines == {"T", "np", "VERSION", "helper"}
    assert not res.module_getattr
    lazy = (
        b"import importlib\ndef __getattr__(name):\n"
        b"    return importlib.import_module('.' + name, __name__)\n"
    )
    res = scan_source(lazy, "p/__init__.py", "p", is_package=True)
    assert res.module_getattr
    assert [(ld.kind, ld.prefix) for ld in res.loaders] == [("computed", "p.")]


def test_relative_import_in_package_init() -> None:
    k = kinds(b"from . import a\nfrom .b import c\n", "slimpkg", pkg=True)
    assert set(k) == {"slimpkg", "slimpkg.b"}


def test_relative_import_above_top_is_unresolved() -> None:
    res = scan_source(b"from ... import x\n", "x.py", "top")
    assert res.imports == ()
    assert res.unresolved == (1,)


def test_not_import_module_of_other_objects() -> None:
    assert kinds(b"loader.import_module('x')\n") == {}


@pytest.mark.parametrize(
    ("data", "line", "expected"),
    [
        (b"def f(:\n", 1, "expected valid Python syntax, found a syntax error"),
        (b"x = 1\ny = '\xff'\n", 2, "expected utf-8 text"),
        (b"x = 1\0\n", 1, "a NUL byte"),
        (b"# -*- coding: klingon -*-\nx=1\n", 1, "coding"),
    ],
)
def test_unreadable_source_is_a_result_not_an_exception(
    data: bytes, line: int, expected: str
) -> None:
    res = scan_source(data, "bad.py", "bad")
    assert expected in res.error
    assert res.error_line == line
    assert res.imports == ()


def test_coding_cookie_is_honoured() -> None:
    res = scan_source("# -*- coding: latin-1 -*-\nimport café\n".encode("latin-1"), "l.py", "l")
    assert res.error == ""
    assert [i.module for i in res.imports] == ["café"]


@settings(deadline=None, max_examples=200)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    res = scan_source(data, "h.py", "h")
    assert (res.error == "") or (res.imports == ())


@settings(deadline=None, max_examples=100)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(text: str) -> None:
    scan_source(text.encode("utf-8", "surrogatepass"), "h.py", "pkg.h")


def test_multiline_call_and_form_feed_lines() -> None:
    code = b"x = 1\x0c# page\nimport importlib\nm = importlib.import_module(\n    'deep.mod'\n)\n"
    res = scan_source(code, "ff.py", "ff")
    (dyn,) = [i for i in res.imports if i.dynamic]
    assert (dyn.module, dyn.line) == ("deep.mod", 3)


ALIASES = b"""import importlib as il
import importlib.resources as ir
import pkgutil as pu
from importlib import import_module as load
from importlib.util import find_spec as probe
from importlib.resources import files as resource_files
import importlib
loader = importlib.import_module
a = il.import_module("a.mod")
b = load("b.mod")
c = ir.files("c_pkg")
d = pu.get_data("d_pkg", "x.bin")
e = probe("e_mod")
f = resource_files("f_pkg")
g = loader("g.mod")
h = load(f"plugins.{a}")
"""


def test_loader_calls_are_matched_by_what_their_name_is_bound_to() -> None:
    res = scan_source(ALIASES, "x.py", "app.main")
    dyn = {(i.line, i.module, i.via) for i in res.imports if i.dynamic}
    assert dyn == {
        (9, "a.mod", "import_module"),
        (10, "b.mod", "import_module"),
        (11, "c_pkg", "files"),
        (12, "d_pkg", "get_data"),
        (13, "e_mod", "find_spec"),
        (14, "f_pkg", "files"),
        (15, "g.mod", "import_module"),
    }
    assert [(ld.line, ld.kind, ld.prefix) for ld in res.loaders] == [(16, "computed", "plugins.")]


def test_a_local_function_of_a_loader_name_is_no_loader() -> None:
    code = b"from mylib import load\nimport pickle as p\ndef files(x):\n    return x\n"
    code += b"load('x.y')\nfiles('z')\np.dumps(1)\n"
    res = scan_source(code, "x.py", "m")
    assert res.loaders == ()
    assert [i.module for i in res.imports] == ["mylib", "pickle"]


STDLIB_MACHINERY = b"""import logging.config, pickle, sys, unittest, yaml
from pickle import loads as unpickle
import pydoc
obj = pickle.load(open("x", "rb"))
obj2 = unpickle(b"")
logging.config.fileConfig("log.ini")
logging.config.dictConfig(CONFIG)
logging.config.dictConfig({"handlers": {"h": {"class": "handlers.custom.Shout"}}})
suite = unittest.defaultTestLoader.discover(".", pattern="check_*.py")
suite2 = unittest.TestLoader().discover(".")
names = unittest.defaultTestLoader.loadTestsFromNames(["tests.test_a.T", NAME])
sys.path.insert(0, "scripts")
sys.path[:0] = ["more"]
y = yaml.load(open("c.yaml"), Loader=yaml.SafeLoader)
z = yaml.load(open("c.yaml"), Loader=yaml.Loader)
cls = pydoc.locate("models.point.Point")
exec("import codecs_x.zstd as m\\nfrom . import sibling")
eval(expr)
"""


def test_standard_library_machinery_that_imports_by_name() -> None:
    res = scan_source(STDLIB_MACHINERY, "x.py", "pkg.mod")
    loaders = {(ld.line, ld.kind, ld.prefix) for ld in res.loaders}
    assert loaders == {
        (4, "by-data", ""),
        (5, "by-data", ""),
        (6, "by-data", ""),
        (7, "by-data", ""),  # a computed configuration
        (9, "discover", "check_*.py"),
        (10, "discover", "test*.py"),  # unittest's default pattern
        (11, "computed", ""),  # NAME
        (12, "path", ""),
        (13, "path", ""),
        (15, "by-data", ""),  # yaml.Loader constructs python objects by name
        (18, "file", ""),
    }
    dyn = {(i.line, i.module, i.via) for i in res.imports if i.via}
    assert dyn == {
        (11, "tests.test_a.T", "loadTestsFromNames"),
        (16, "models.point.Point", "locate"),
        (17, "codecs_x.zstd", "exec"),
        (17, "pkg", "exec"),  # `from . import sibling` inside the exec'd code
    }
    assert (8, "handlers.custom.Shout") in res.named


def test_strings_that_spell_dotted_names_are_kept_with_their_lines() -> None:
    code = (
        b"EXT = ['app_ext.shout', 'toc']\nX = f'a.b'\nY = b'c.d'\nZ = 'a b'\nW = \"pkg.mod:func\"\n"
    )
    res = scan_source(code, "x.py", "m")
    assert res.named == ((1, "app_ext.shout"), (1, "toc"), (5, "pkg.mod:func"))


def test_star_import_and_all() -> None:
    init = b"from .core import *\n__all__ = ['csvfmt', 'Tensor']\n__all__ += ['jsonfmt']\n"
    res = scan_source(init, "fmt/__init__.py", "fmt", is_package=True)
    assert res.all_names == ("csvfmt", "Tensor", "jsonfmt")
    assert not res.all_computed
    star = next(i for i in res.imports if i.module == "fmt.core")
    assert star.names == ("*",)
    assert star.candidates() == ("fmt.core",)
    assert star.describe() == "from fmt.core import * (top-level)"
    computed = scan_source(
        b"from .a import __all__ as a_all\n__all__ = a_all + ['x']\n", "p/__init__.py", "p", True
    )
    assert computed.all_computed


def test_an_init_binding_its_own_submodule_does_not_define_an_attribute() -> None:
    code = b"from . import name\nfrom pkg import sub\nimport pkg.core as core\n"
    code += b"from .impl import Thing\n"
    res = scan_source(code, "pkg/__init__.py", "pkg", is_package=True)
    assert res.defines == {"Thing"}


def test_a_name_only_a_literal_loop_binds_imports_each_value() -> None:
    """requests/compat.py: `for lib in ("chardet", "charset_normalizer"):
    importlib.import_module(lib)` under try/except ImportError imports one of the two."""
    code = (
        b"import importlib\n\ndef detect():\n    found = None\n"
        b"    for lib in ('chardet', 'charset_normalizer'):\n"
        b"        try:\n            found = importlib.import_module(lib)\n"
        b"        except ImportError:\n            pass\n    return found\n"
        b"for other in ('a', 'b'):\n    other = other.upper()\n    importlib.import_module(other)\n"
    )
    res = scan_source(code, "requests/compat.py", "requests.compat")
    dyn = {(i.module, i.kind) for i in res.imports if i.dynamic}
    assert dyn == {("chardet", "optional"), ("charset_normalizer", "optional")}
    # `other` is reassigned in the loop: a computed name
    assert [(ld.line, ld.kind, ld.prefix) for ld in res.loaders] == [(13, "computed", "")]


def test_a_process_running_the_interpreter_is_a_loader() -> None:
    code = (
        b"import os, subprocess, sys\n"
        b"subprocess.run([sys.executable, '-m', 'tools.x'])\n"
        b"subprocess.check_call(['python3', 'script.py'])\n"
        b"subprocess.run(['git', 'status'])\n"
        b"os.system('ls')\n"
    )
    res = scan_source(code, "x.py", "m")
    assert [(ld.line, ld.kind) for ld in res.loaders] == [(2, "spawn"), (3, "spawn")]


@pytest.mark.parametrize(
    ("code", "lazy"),
    [
        (
            b"import lazy_loader as lazy\n__getattr__, __dir__, __all__ = lazy.attach(__name__)\n",
            True,
        ),
        (b"import apipkg\napipkg.initpkg(__name__, {'f': '.io:f'})\n", True),
        (b"import sys\nsys.modules[__name__] = object()\n", True),
        (b"__path__ = __import__('pkgutil').extend_path(__path__, __name__)\n", False),
        (b"from pkgutil import extend_path\n__path__ = extend_path(__path__, __name__)\n", False),
        (b"import logging\nlog = logging.getLogger(__name__)\n", False),
    ],
)
def test_package_init_handing_lookups_away(code: bytes, lazy: bool) -> None:
    """A package `__init__` that lets other code resolve its attributes may import any
    submodule (`p.`); one that only extends its path or names a logger does not."""
    res = scan_source(code, "p/__init__.py", "p", is_package=True)
    assert [(ld.kind, ld.prefix) for ld in res.loaders] == ([("computed", "p.")] if lazy else [])


DUNDER = b"""\
a = __import__('helper', globals(), None, ['K'], 1)
b = __import__('', globals(), None, ['sibling'], 1)
c = __import__('mod', level=2, fromlist=('x', 'y'))
d = __import__('plugins', fromlist=['fast', '*'])
e = __import__('absolute')
f = __import__('pkg2', fromlist=names)
g = __import__('pkg3', globals(), None, [], lvl)
h = __import__(name, globals(), None, [], 1)
i = __import__(*args)
j = __import__(__name__, fromlist=['sub'])
"""


def test_dunder_import_level_and_fromlist() -> None:
    """`__import__` imports as the statements it stands for do: relative to the
    caller's package when `level` > 0, each literal `fromlist` name a candidate
    submodule; a computed level, name or fromlist is a loader."""
    res = scan_source(DUNDER, "x.py", "pkg.inner.mod")
    by_line = {i.line: (i.module, i.names) for i in res.imports}
    assert by_line[1] == ("pkg.inner.helper", ("K",))
    assert by_line[2] == ("pkg.inner", ("sibling",))
    assert by_line[3] == ("pkg.mod", ("x", "y"))
    assert by_line[4] == ("plugins", ("*", "fast"))
    assert by_line[5] == ("absolute", ())
    assert by_line[6] == ("pkg2", ())
    assert by_line[10] == ("pkg.inner.mod", ("sub",))
    assert not {7, 8, 9} & set(by_line)
    loaders = {ld.line: ld.prefix for ld in res.loaders if ld.kind == "computed"}
    assert loaders == {6: "pkg2.", 7: "", 8: "pkg.inner.", 9: ""}
    assert next(i for i in res.imports if i.line == 1).candidates() == (
        "pkg.inner.helper",
        "pkg.inner.helper.K",
    )


def test_a_loading_call_with_spread_arguments_is_computed() -> None:
    code = b"import importlib\nm = importlib.import_module(*spec)\n"
    code += b"n = importlib.import_module(**kw)\n"
    res = scan_source(code, "x.py", "pkg.mod")
    assert [(ld.line, ld.kind, ld.prefix) for ld in res.loaders] == [
        (2, "computed", ""),
        (3, "computed", ""),
    ]
