"""Reproductions from the SLIM001 validation on ML-style workspaces around real PyPI
packages that load code lazily (lazy_loader, apipkg): real programs using the installed
package's own code, really run and traced; brute force is the ground truth."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from importlib.metadata import distribution
from pathlib import Path

import pytest

from .harness import TRACE_KINDS, Dist, Program, assert_removals_safe, traced, verdicts

APP = "//app:main"
SUBMODULES = ("//imgkit:filters", "//imgkit:io")


def _real_dist(name: str, key: str) -> Dist:
    """The installed distribution `name`: its real module sources, copied."""
    files = distribution(name).files or []
    sources = {
        str(f): f.read_text()
        for f in files
        if str(f).startswith(f"{name}/") and str(f).endswith(".py")
    }
    assert sources, f"{name} has no module sources"
    return Dist(key, sources)


def _lazy_program(
    init: str, main: str, package: str, data: dict[str, str] | None = None
) -> Program:
    files = {
        "app/main.py": main,
        "imgkit/__init__.py": init,
        "imgkit/filters.py": "def blur(x):\n    return [v / 2 for v in x]\n",
        "imgkit/io.py": "def imread(p):\n    return 'read ' + p\n",
        "unused/__init__.py": "",
        **(data or {}),
    }
    return Program(
        files=files,
        targets={
            APP: (["main.py"], ["//imgkit:imgkit", *SUBMODULES, "//unused:unused"]),
            "//imgkit:imgkit": (["__init__.py"], [f"@pypi//{package}:pkg"]),
            "//imgkit:filters": (["filters.py"], []),
            "//imgkit:io": (["io.py"], []),
            "//unused:unused": (["__init__.py"], []),
            f"@pypi//{package}:pkg": ([], []),
        },
        roots={APP: "app.main"},
        dists=[_real_dist(package, package)],
        data={"//imgkit:imgkit": [d.split("/", 1)[1] for d in data]} if data else {},
    )


MAIN = "import imgkit\nprint(imgkit.imread('x'))\nprint(imgkit.blur([1, 2]))\n"
ATTACH = _lazy_program(
    "import lazy_loader as lazy\n"
    "__getattr__, __dir__, __all__ = lazy.attach(\n"
    "    __name__, submod_attrs={'io': ['imread'], 'filters': ['blur']}\n)\n",
    MAIN,
    "lazy_loader",
)
ATTACH_STUB = _lazy_program(
    "import lazy_loader as lazy\n"
    "__getattr__, __dir__, __all__ = lazy.attach_stub(__name__, __file__)\n",
    MAIN,
    "lazy_loader",
    data={"imgkit/__init__.pyi": "from .filters import blur\nfrom .io import imread\n"},
)
APIPKG = _lazy_program(
    "import apipkg\napipkg.initpkg(__name__, {'imread': '.io:imread', 'blur': '.filters:blur'})\n",
    MAIN,
    "apipkg",
)
GETATTR_LOAD = _lazy_program(
    "import lazy_loader as lazy\n"
    "_WHERE = {'imread': 'io', 'blur': 'filters'}\n"
    "def __getattr__(name):\n"
    "    if name in _WHERE:\n"
    "        return getattr(lazy.load(f'{__name__}.{_WHERE[name]}'), name)\n"
    "    raise AttributeError(name)\n",
    MAIN,
    "lazy_loader",
)
PROGRAMS = [ATTACH, ATTACH_STUB, APIPKG, GETATTR_LOAD]
IDS = ["lazy_loader-attach", "lazy_loader-attach_stub", "apipkg-initpkg", "getattr-lazy.load"]


@pytest.mark.parametrize("prog", PROGRAMS, ids=IDS)
def test_repro_package_handing_its_lookups_to_a_lazy_loader_keeps_its_submodules(
    tmp_path: Path, prog: Program
) -> None:
    """`imgkit/__init__.py` lets the real lazy_loader (or apipkg) import its submodules on
    attribute access; their names are only in a dict, a `.pyi` stub or strings relative to
    the package. From sources alone the edges to the targets owning imgkit/filters.py and
    imgkit/io.py are not dead (before: dead, medium, removable; the cut breaks the
    program), the truly unused edge still is."""
    ws = tmp_path / "ws"
    prog.write(ws)
    found = prog.judge(ws, {})
    got = verdicts(found)
    for sub in SUBMODULES:
        assert not prog.cut_is_safe(ws, APP, (APP, sub))
        f = got.get((APP, sub))
        assert f is None or not f.removable, f
    unused = got[(APP, "//unused:unused")]
    assert unused.verdict == "dead", unused
    assert unused.removable, unused
    assert assert_removals_safe(prog, ws, found) == 1


@pytest.mark.parametrize("how", TRACE_KINDS)
@pytest.mark.parametrize("prog", PROGRAMS, ids=IDS)
def test_lazy_loaded_submodules_under_every_trace_kind(
    tmp_path: Path, prog: Program, how: str
) -> None:
    """With a trace of the run, every removable verdict is a safe cut and the submodules
    the lazy loader imported are kept."""
    ws = tmp_path / "ws"
    prog.write(ws)
    traces: dict[str, Sequence[Path]] = {APP: [traced(prog, ws, APP, how)]}
    found = prog.judge(ws, traces)
    got = verdicts(found)
    for sub in SUBMODULES:
        f = got.get((APP, sub))
        assert f is None or not f.removable, f
    assert_removals_safe(prog, ws, found)


def _tzdata_program() -> Program:
    return Program(
        files={
            "app/main.py": (
                "import datetime\nimport zoneinfo\n"
                "zoneinfo.reset_tzpath(to=[])  # no system database: tzdata's files\n"
                "d = datetime.datetime(2024, 7, 1, 12, tzinfo=zoneinfo.ZoneInfo('Europe/Paris'))\n"
                "print(d.utcoffset())\n"
            ),
        },
        targets={
            APP: (["main.py"], ["@pypi//tzdata:pkg"]),
            "@pypi//tzdata:pkg": ([], []),
        },
        roots={APP: "app.main"},
        dists=[_real_dist("tzdata", "tzdata")],
    )


def _write_with_tzdata_files(prog: Program, ws: Path) -> None:
    """The workspace, and the real tzdata's zone files next to its module sources."""
    prog.write(ws)
    real = distribution("tzdata").locate_file("tzdata")
    shutil.copytree(str(real), Program.site(ws, "tzdata") / "tzdata", dirs_exist_ok=True)


@pytest.mark.parametrize("how", ["importtime", "static"])
def test_repro_zoneinfo_loads_the_tzdata_package(tmp_path: Path, how: str) -> None:
    """`zoneinfo.ZoneInfo('Europe/Paris')` without a system time zone database reads the
    real tzdata package (`importlib.resources.files('tzdata.zoneinfo.Europe')`, PEP 615):
    no source names tzdata and `-X importtime` prints no row for it, so the edge is no
    dead one (before: dead, high/medium, removable; the cut raises
    ZoneInfoNotFoundError)."""
    prog = _tzdata_program()
    ws = tmp_path / "ws"
    _write_with_tzdata_files(prog, ws)
    traces: dict[str, Sequence[Path]] = (
        {APP: [traced(prog, ws, APP, how)]} if how != "static" else {}
    )
    found = prog.judge(ws, traces)
    assert not prog.cut_is_safe(ws, APP, (APP, "@pypi//tzdata:pkg"))
    f = verdicts(found).get((APP, "@pypi//tzdata:pkg"))
    assert f is None or not f.removable, f


def _metadata_program(main: str) -> Program:
    return Program(
        files={"app/main.py": main},
        targets={
            APP: (["main.py"], ["@pypi//pyyamlish:pkg", "@pypi//unusedish:pkg"]),
            "@pypi//pyyamlish:pkg": ([], []),
            "@pypi//unusedish:pkg": ([], []),
        },
        roots={APP: "app.main"},
        dists=[
            Dist("pyyamlish", {"yamlish/__init__.py": "X = 1\n"}),
            Dist("unusedish", {"unusedish/__init__.py": "X = 1\n"}),
        ],
    )


VERSION_OF = _metadata_program(
    "from importlib import metadata\nprint('yaml', metadata.version('PyYamlish'))\n"
)
DISTRIBUTION_OF = _metadata_program(
    "from importlib.metadata import distribution as dist\n"
    "print(dist('PyYamlish>=1.0'.split('>')[0]).metadata['Name'])\n"
)
REQUIRES_OF = _metadata_program(
    "import importlib.metadata\nprint(importlib.metadata.requires('pyyamlish'))\n"
)


@pytest.mark.parametrize("how", [*TRACE_KINDS, "static"])
@pytest.mark.parametrize(
    "prog",
    [VERSION_OF, DISTRIBUTION_OF, REQUIRES_OF],
    ids=["metadata.version", "distribution-computed", "importlib.metadata.requires"],
)
def test_repro_reading_a_distributions_metadata_is_a_use_of_it(
    tmp_path: Path, prog: Program, how: str
) -> None:
    """`importlib.metadata.version('PyYamlish')` reads the dist-info of the distribution
    the edge brings (ML scripts log their libraries' versions this way); no module of it
    is imported and no trace kind records the read, so the edge is no dead one (before:
    dead, high/medium, removable; the cut raises PackageNotFoundError). The unused
    distribution is still dead when the name is literal."""
    ws = tmp_path / "ws"
    prog.write(ws)
    traces: dict[str, Sequence[Path]] = (
        {APP: [traced(prog, ws, APP, how)]} if how != "static" else {}
    )
    found = prog.judge(ws, traces)
    assert not prog.cut_is_safe(ws, APP, (APP, "@pypi//pyyamlish:pkg"))
    got = verdicts(found)
    f = got.get((APP, "@pypi//pyyamlish:pkg"))
    assert f is None or not f.removable, f
    unused = got[(APP, "@pypi//unusedish:pkg")]
    assert unused.removable is (prog is not DISTRIBUTION_OF), unused
    assert_removals_safe(prog, ws, found)


JSONPICKLE = Program(
    files={
        "app/main.py": (
            "import os\nimport jsonpickle\n"
            "HERE = os.path.dirname(os.path.abspath(__file__))\n"
            "with open(os.path.join(HERE, 'payload.json')) as f:\n"
            "    p = jsonpickle.decode(f.read())\n"
            "print(type(p).__name__, p.x)\n"
        ),
        "app/payload.json": '{"py/object": "models.point.Point", "x": 3}\n',
        "models/__init__.py": "",
        "models/point.py": "class Point:\n    def __init__(self, x=0):\n        self.x = x\n",
        "unused/__init__.py": "",
    },
    targets={
        APP: (["main.py"], ["@pypi//jsonpickle:pkg", "//models:point", "//unused:unused"]),
        "//models:point": (["__init__.py", "point.py"], []),
        "//unused:unused": (["__init__.py"], []),
        "@pypi//jsonpickle:pkg": ([], []),
    },
    roots={APP: "app.main"},
    dists=[_real_dist("jsonpickle", "jsonpickle")],
    data={APP: ["payload.json"]},
)


def test_repro_class_named_in_a_shipped_payload_is_kept(tmp_path: Path) -> None:
    """The real jsonpickle imports `models.point` because the payload the program ships
    as data names `models.point.Point`; no source string does. From sources alone the
    edge is not dead (before: dead, medium, removable; the cut breaks the decode); the
    truly unused edge still is."""
    ws = tmp_path / "ws"
    JSONPICKLE.write(ws)
    found = JSONPICKLE.judge(ws, {})
    assert not JSONPICKLE.cut_is_safe(ws, APP, (APP, "//models:point"))
    got = verdicts(found)
    f = got.get((APP, "//models:point"))
    assert f is None or not f.removable, f
    assert got[(APP, "//unused:unused")].removable
    assert assert_removals_safe(JSONPICKLE, ws, found) == 1


OWN_VERSION = Program(
    files={
        "app/main.py": "import mylib\nprint(mylib.__version__)\n",
        "mylib/__init__.py": (
            "import importlib.metadata\n"
            "try:\n    __version__ = importlib.metadata.version(__name__)\n"
            "except importlib.metadata.PackageNotFoundError:\n    __version__ = 'dev'\n"
        ),
    },
    targets={
        APP: (["main.py"], ["//mylib:mylib", "@pypi//unusedish:pkg"]),
        "//mylib:mylib": (["__init__.py"], []),
        "@pypi//unusedish:pkg": ([], []),
    },
    roots={APP: "app.main"},
    dists=[Dist("unusedish", {"unusedish/__init__.py": "X = 1\n"})],
)


@pytest.mark.parametrize("how", [*TRACE_KINDS, "static"])
def test_own_version_read_leaves_third_party_edges_judged(tmp_path: Path, how: str) -> None:
    """`importlib.metadata.version(__name__)` in a first-party package reads its own
    distribution: the unused third-party edge stays dead and removable."""
    ws = tmp_path / "ws"
    OWN_VERSION.write(ws)
    traces: dict[str, Sequence[Path]] = (
        {APP: [traced(OWN_VERSION, ws, APP, how)]} if how != "static" else {}
    )
    found = OWN_VERSION.judge(ws, traces)
    f = verdicts(found)[(APP, "@pypi//unusedish:pkg")]
    assert f.verdict == "dead", f
    assert assert_removals_safe(OWN_VERSION, ws, found) == 1


def _plugin_host(main: str, host: str) -> Program:
    return Program(
        files={"app/main.py": main},
        targets={
            APP: (
                ["main.py"],
                [f"@pypi//{host}:pkg", "@pypi//helloplug:pkg", "@pypi//unusedish:pkg"],
            ),
            f"@pypi//{host}:pkg": ([], []),
            "@pypi//helloplug:pkg": ([], []),
            "@pypi//unusedish:pkg": ([], []),
        },
        roots={APP: "app.main"},
        dists=[
            _real_dist(host, host),
            Dist(
                "helloplug",
                {"helloplug/__init__.py": "def hello(s='hi'):\n    return s.upper()\n"},
                entry_points="[host.plugins]\nhello = helloplug:hello\n",
            ),
            Dist("unusedish", {"unusedish/__init__.py": "X = 1\n"}),
        ],
    )


PLUGGY_HOST = _plugin_host(
    "import pluggy\n"
    "pm = pluggy.PluginManager('host')\n"
    "print(pm.load_setuptools_entrypoints('host.plugins'))\n"
    "print(sorted(name for name, _ in pm.list_name_plugin()))\n",
    "pluggy",
)
STEVEDORE_HOST = _plugin_host(
    "import os\n"
    "os.environ['XDG_CACHE_HOME'] = os.path.abspath('xdg-cache')\n"
    "from stevedore import driver\n"
    "mgr = driver.DriverManager(namespace='host.plugins', name='hello')\n"
    "print(mgr.driver('x'))\n",
    "stevedore",
)


@pytest.mark.parametrize("prog", [PLUGGY_HOST, STEVEDORE_HOST], ids=["pluggy", "stevedore"])
def test_repro_plugin_host_loading_a_group_uses_the_dists_declaring_it(
    tmp_path: Path, prog: Program
) -> None:
    """The real pluggy (`load_setuptools_entrypoints('host.plugins')`) or stevedore
    (`DriverManager(namespace='host.plugins', ...)`) imports the plugin whose dist-info
    declares the group: from sources alone that edge is a use (before: dead, medium,
    removable; the cut loads no plugin); the unused dist is still dead."""
    ws = tmp_path / "ws"
    prog.write(ws)
    found = prog.judge(ws, {})
    assert not prog.cut_is_safe(ws, APP, (APP, "@pypi//helloplug:pkg"))
    got = verdicts(found)
    f = got.get((APP, "@pypi//helloplug:pkg"))
    assert f is None or not f.removable, f
    assert got[(APP, "@pypi//unusedish:pkg")].removable
    assert assert_removals_safe(prog, ws, found) == 1
