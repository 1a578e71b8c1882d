"""The calls that load modules by a name or a path no import statement shows, by what they
are bound to (`owner`.`name`, after `_bindings`): importlib and its helpers, resources,
file loaders, entry points, and the standard-library machinery that imports what its input
names (unpickling, logging configuration, unittest discovery, `sys.path` changes).
"""

from __future__ import annotations

import ast
from enum import Enum


class Call(Enum):
    """What a recognised call does with its arguments."""

    IMPORT = "import"  # a literal name is an import; a computed one may reach anything
    HELPER = "helper"  # a literal name is an import; the helper's own body holds the rest
    RESOURCE = "resource"  # a literal package is read (imported); computed may reach any
    NAMES = "names"  # a literal name or list of names, each imported (unittest names)
    FILE = "file"  # runs code from a file or string the scan cannot read
    ENTRY_POINTS = "entry-points"
    BY_DATA = "by-data"  # imports whatever its input data names (pickle, logging config)
    DISCOVER = "discover"  # imports the test files a pattern matches (unittest discovery)
    PATH = "path"  # changes sys.path: any import may then load a file by a shorter name
    SPAWN = "spawn"  # starts a process: a Python one runs code no trace follows
    EXEC = "exec"  # exec/eval/compile: a literal is code to scan, anything else a FILE
    DIST = "dist"  # reads an installed distribution's metadata (`metadata.version("PyYAML")`)


_IMPORTERS = frozenset({"import_module", "__import__", "find_spec", "run_module", "find_loader"})
HELPERS = frozenset(
    {"lazy_import", "_lazy_import", "lazy_module", "import_optional_dependency", "import_string"}
)
_RESOURCES = frozenset(
    {"files", "read_text", "read_binary", "open_text", "open_binary", "path", "contents"}
)
_PKG_RESOURCES = frozenset(
    {"resource_filename", "resource_string", "resource_stream", "resource_exists"}
)
_FILE_LOADERS = frozenset(
    {
        "spec_from_file_location",
        "SourceFileLoader",
        "SourcelessFileLoader",
        "ExtensionFileLoader",
        "run_path",
        "load_source",
        "load_compiled",
        "load_dynamic",
    }
)
_ENTRY_POINTS = frozenset({"entry_points", "iter_entry_points"})
#: Plugin hosts that load the entry points of a group they are given: pluggy's
#: `PluginManager.load_setuptools_entrypoints(group)`, stevedore's managers (`namespace=`).
PLUGIN_HOST_CALLS = frozenset({"load_setuptools_entrypoints"})
STEVEDORE_MANAGERS = frozenset(
    {
        "ExtensionManager",
        "NamedExtensionManager",
        "EnabledExtensionManager",
        "DispatchExtensionManager",
        "NameDispatchExtensionManager",
        "HookManager",
        "DriverManager",
    }
)
#: Reads of an installed distribution's dist-info by its distribution name.
_DIST_READS = frozenset({"version", "distribution", "metadata", "requires", "files"})
_METADATA_MODULES = frozenset({"importlib.metadata", "importlib_metadata"})
_DIST_CALLS = frozenset(
    {
        "pkg_resources.get_distribution",
        "pkg_resources.require",
        *(f"{m}.Distribution.from_name" for m in _METADATA_MODULES),
    }
)
#: Functions that import the modules their input names (`owner.name` once bound).
_BY_DATA = frozenset(
    {
        "pickle.load",
        "pickle.loads",
        "pickle.Unpickler",
        "_pickle.load",
        "_pickle.loads",
        "_pickle.Unpickler",
        "cPickle.load",
        "cPickle.loads",
        "dill.load",
        "dill.loads",
        "cloudpickle.load",
        "cloudpickle.loads",
        "joblib.load",
        "shelve.open",
        "pandas.read_pickle",
        "logging.config.fileConfig",
        "logging.config.listen",
        "yaml.unsafe_load",
        "yaml.unsafe_load_all",
    }
)
#: Name resolvers that import the module part of a literal `a.b.C` / `a.b:C`.
_RESOLVERS = frozenset({"pydoc.locate", "pkgutil.resolve_name"})
_SAFE_YAML = frozenset({"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader", "FullLoader"})
BUILTINS = frozenset({"__import__", "exec", "eval", "compile", "import_module", *HELPERS})


#: Calls that start a process (a Python child runs modules or files no trace follows).
_SPAWNS = frozenset(
    {
        "subprocess.run",
        "subprocess.Popen",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "os.system",
        "os.popen",
        *(f"os.{n}" for n in ("execv", "execve", "execvp", "execvpe", "execl", "execlp")),
        *(f"os.{n}" for n in ("spawnv", "spawnve", "spawnvp", "spawnl", "spawnlp")),
        "asyncio.create_subprocess_exec",
        "asyncio.create_subprocess_shell",
    }
)


#: Every name a loading call may have: a local alias of one of them is worth a look.
_LOADING_NAMES = frozenset(
    {
        *_IMPORTERS,
        *HELPERS,
        *_RESOURCES,
        *_PKG_RESOURCES,
        *_FILE_LOADERS,
        *_ENTRY_POINTS,
        *PLUGIN_HOST_CALLS,
        *STEVEDORE_MANAGERS,
        *_DIST_READS,
        "get_distribution",
        "require",
        "from_name",
        "get_data",
        "exec",
        "eval",
        "compile",
        "discover",
        "loadTestsFromName",
        "loadTestsFromNames",
        "dictConfig",
        *(q.rsplit(".", 1)[1] for q in _BY_DATA | _RESOLVERS | _SPAWNS),
    }
)


def may_load(q: str) -> bool:
    """Whether the dotted name `q` (a binding's target) may be a loading function or
    the `sys.path` list."""
    return q.rsplit(".", 1)[-1] in _LOADING_NAMES or q.startswith("sys.path")


def _kw(n: ast.Call, *names: str) -> ast.expr | None:
    return next((k.value for k in n.keywords if k.arg in names), None)


def _constant(node: ast.expr | None, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _by_data(full: str, n: ast.Call) -> bool:
    """Whether the call imports what its data names (`full`: `owner.name`)."""
    if full in _BY_DATA:
        return True
    if full == "logging.config.dictConfig":
        return not (n.args and isinstance(n.args[0], ast.Dict))  # a literal's names are read
    if full in ("yaml.load", "yaml.load_all"):
        loader = _kw(n, "Loader")
        if loader is None and len(n.args) > 1:
            loader = n.args[1]
        tail = loader.attr if isinstance(loader, ast.Attribute) else getattr(loader, "id", "")
        return tail not in _SAFE_YAML
    if full == "numpy.load":
        return _constant(_kw(n, "allow_pickle"), True)
    if full == "torch.load":
        return not _constant(_kw(n, "weights_only"), True)
    return False


def classify(owner: str, name: str, n: ast.Call) -> Call | None:
    """What the call `owner.name(...)` does, None if it loads nothing by name."""
    full = f"{owner}.{name}" if owner else name
    if name in _IMPORTERS:
        return Call.IMPORT if name != "import_module" or owner in ("", "importlib") else None
    if name in HELPERS:
        return Call.HELPER
    if full in _RESOLVERS:
        return Call.IMPORT
    if name in _RESOURCES and (owner.endswith("resources") or not owner):
        return Call.RESOURCE
    if name in _PKG_RESOURCES and owner in ("", "pkg_resources"):
        return Call.RESOURCE
    if name == "get_data" and owner in ("", "pkgutil"):
        return Call.RESOURCE
    if name in _FILE_LOADERS or full == "pytest.main":
        return Call.FILE
    if name in ("exec", "eval", "compile") and owner in ("", "builtins"):
        return Call.EXEC
    if name == "exec":
        return Call.EXEC  # `obj.exec(...)`: may be the builtin under another name
    if name in _ENTRY_POINTS or (name == "select" and _kw(n, "group") is not None):
        return Call.ENTRY_POINTS
    if name in PLUGIN_HOST_CALLS or (name in STEVEDORE_MANAGERS and owner.startswith("stevedore")):
        return Call.ENTRY_POINTS
    if _by_data(full, n):
        return Call.BY_DATA
    if (name in _DIST_READS and owner in _METADATA_MODULES) or full in _DIST_CALLS:
        return Call.DIST
    return _stdlib_machinery(owner, name)


def _stdlib_machinery(owner: str, name: str) -> Call | None:
    if f"{owner}.{name}" in _SPAWNS:
        return Call.SPAWN
    if name == "discover":
        return Call.DISCOVER
    if name in ("loadTestsFromName", "loadTestsFromNames"):
        return Call.NAMES
    if (owner == "sys.path" and name in ("insert", "append", "extend")) or (
        owner == "site" and name == "addsitedir"
    ):
        return Call.PATH
    return None


def dotted_is(node: ast.Attribute, owner: str) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id == owner


def runs_python(n: ast.Call) -> bool:
    """Whether a process call's arguments name the interpreter (`sys.executable`, a
    `python...` command): the child runs Python code of the program's build."""
    for node in ast.walk(n):
        if isinstance(node, ast.Attribute) and node.attr == "executable" and dotted_is(node, "sys"):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            command = node.value.split(" ", 1)[0].rsplit("/", 1)[-1]
            if command.startswith("python"):
                return True
    return False


def writes_sys_path(st: ast.stmt) -> bool:
    """`sys.path = ...`, `sys.path[:0] = ...`, `sys.path += ...` (after bindings: `sys`)."""
    if isinstance(st, ast.Assign):
        targets = st.targets
    elif isinstance(st, ast.AugAssign | ast.AnnAssign):
        targets = [st.target]
    else:
        return False
    for t in targets:
        node = t.value if isinstance(t, ast.Subscript) else t
        if isinstance(node, ast.Attribute) and node.attr == "path" and dotted_is(node, "sys"):
            return True
    return False
