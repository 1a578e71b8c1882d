"""`slim.toml` or `[tool.slim]` in `pyproject.toml`: inputs named once, per repo or per target.

Precedence: built-in defaults < config file < command line. Paths are relative to the
file that names them. Unknown keys are an error, so a typo never silently drops input.
"""

from __future__ import annotations

import difflib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slim.errors import ConfigError
from slim.model.labels import normalize_label

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

LIST_KEYS = ("graph", "trace", "linkmap", "binary", "compile", "timings")
SCALAR_KEYS = ("graph_format", "workspace", "fail_on")
RULE_KEYS = ("select", "ignore")
TARGET_KEYS = (*LIST_KEYS, "workspace", "cpu_only", "cuda_archs", "site_packages")
TOP_KEYS = (
    *LIST_KEYS,
    *SCALAR_KEYS,
    *RULE_KEYS,
    "cuda_archs",
    "site_packages",
    "modules",
    "cpu_only_tags",
    "roots",
    "targets",
    "keep",
    "owners",
    "revisions",
    "history_days",
)


@dataclass
class TargetConfig:
    """Inputs and settings that apply to one root target."""

    inputs: dict[str, list[Path]] = field(default_factory=dict)
    workspace: Path | None = None
    cpu_only: bool | None = None
    cuda_archs: tuple[str, ...] = ()
    site_packages: tuple[Path, ...] = ()


@dataclass
class Config:
    path: Path | None = None
    inputs: dict[str, list[Path]] = field(default_factory=dict)
    graph_format: str | None = None
    workspace: Path | None = None
    fail_on: str | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    cuda_archs: tuple[str, ...] = ()
    cpu_only_tags: tuple[str, ...] = ("cpu-only", "cpu_only", "no-gpu")
    roots: tuple[str, ...] = ()
    targets: dict[str, TargetConfig] = field(default_factory=dict)
    site_packages: tuple[Path, ...] = ()
    modules: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """`[modules]`: a target label -> the import names it provides (third-party targets)."""
    history_days: int | None = None
    """Days of VCS history behind the quarterly savings (0: read none)."""
    raw: dict[str, Any] = field(default_factory=dict)

    def for_target(self, label: str) -> TargetConfig:
        """The `[targets."//x"]` table of `label` (keys are matched in canonical form)."""
        return self.targets.get(normalize_label(label), TargetConfig())


def find_config(start: Path) -> Path | None:
    """The nearest `slim.toml`, or `pyproject.toml` with a `[tool.slim]` table, upward."""
    for d in [start, *start.parents]:
        cand = d / "slim.toml"
        if cand.is_file():
            return cand
        pp = d / "pyproject.toml"
        if pp.is_file() and "[tool.slim" in pp.read_text(encoding="utf-8", errors="replace"):
            return pp
    return None


def _paths(value: object, base: Path, where: str) -> list[Path]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise ConfigError(f"{where}: expected a path or a list of paths, found {value!r}")
    return [_rel(base / i) for i in items]


def _rel(path: Path) -> Path:
    """Relative to the working directory when inside it (reports never leak $HOME)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def _strs(value: object, where: str) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
        raise ConfigError(f"{where}: expected a list of strings, found {value!r}")
    return tuple(i.strip() for i in items if i.strip())


def _line_of(text: str, key: str, table: str = "") -> int | None:
    """The 1-based line where `key` is set (inside `[table]` when given), if found."""
    lines = text.splitlines()
    start = 0
    if table:
        want = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
        start = next((i + 1 for i, x in enumerate(lines) if want.match(x)), 0)
    key_re = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for i in range(start, len(lines)):
        if key_re.match(lines[i]):
            return i + 1
    return None


def _check_keys(
    table: dict[str, Any], allowed: tuple[str, ...], where: str, text: str = "", name: str = ""
) -> None:
    """Every key of `table` is one of `allowed`: `FILE:LINE: unknown key …` with a "did you
    mean" otherwise, so a typo never silently drops an input or a setting."""
    for key in table:
        if key in allowed:
            continue
        line = _line_of(text, key, name) if text else None
        at = f"{where.split(':', 1)[0]}:{line}" if line else where
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"{at}: expected one of {', '.join(sorted(allowed))}, found unknown key {key!r}{hint}"
        )


def _modules(value: object, where: str) -> dict[str, tuple[str, ...]]:
    """`"//third_party/py/yaml" = ["yaml"]` (deptry's package_module_name_map, by label)."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a table of label = [module names], found {value!r}")
    return {
        normalize_label(label): _strs(names, f"{where}.{label!r}") for label, names in value.items()
    }


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text and its slim table (`[tool.slim]` of a pyproject.toml)."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: expected TOML, found a syntax error: {exc}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("slim", {})
    return text, data


def _check_tables(path: Path, text: str, data: dict[str, Any]) -> None:
    """Unknown keys at the top and in each `[revisions.NAME]` table are errors."""
    where = str(path)
    _check_keys(data, TOP_KEYS, where, text, "tool.slim" if path.name == "pyproject.toml" else "")
    revisions = data.get("revisions", {})
    if isinstance(revisions, dict):
        for rname, rev in revisions.items():
            if isinstance(rev, dict):
                table = f"revisions.{rname}"
                _check_keys(rev, LIST_KEYS, f"{where}: {table}", text, table)


def _top_settings(cfg: Config, data: dict[str, Any], base: Path, where: str) -> None:
    """The repo-wide inputs and settings."""
    for key in LIST_KEYS:
        if key in data:
            cfg.inputs[key] = _paths(data[key], base, f"{where}: {key}")
    if "graph_format" in data:
        cfg.graph_format = str(data["graph_format"])
    if "workspace" in data:
        cfg.workspace = _rel(base / str(data["workspace"]))
    if "fail_on" in data:
        cfg.fail_on = str(data["fail_on"])
    for key in ("cuda_archs", *RULE_KEYS, "cpu_only_tags", "roots"):
        if key in data:
            setattr(cfg, key, _strs(data[key], f"{where}: {key}"))
    if "history_days" in data:
        days = data["history_days"]
        if not isinstance(days, int) or isinstance(days, bool) or days < 0:
            raise ConfigError(
                f"{where}: history_days: expected a number of days >= 0, found {days!r}"
            )
        cfg.history_days = days
    if "site_packages" in data:
        cfg.site_packages = tuple(_paths(data["site_packages"], base, f"{where}: site_packages"))
    cfg.modules = _modules(data.get("modules", {}), f"{where}: modules")


def _target(table: object, base: Path, where: str, text: str, label: str) -> TargetConfig:
    """One `[targets."//x"]` table."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table")
    _check_keys(table, TARGET_KEYS, where, text, f'targets."{label}"')
    tc = TargetConfig()
    for key in LIST_KEYS:
        if key in table:
            tc.inputs[key] = _paths(table[key], base, f"{where}: {key}")
    if "workspace" in table:
        tc.workspace = _rel(base / str(table["workspace"]))
    if "cpu_only" in table:
        if not isinstance(table["cpu_only"], bool):
            raise ConfigError(f"{where}: cpu_only: expected true or false")
        tc.cpu_only = table["cpu_only"]
    if "cuda_archs" in table:
        tc.cuda_archs = _strs(table["cuda_archs"], f"{where}: cuda_archs")
    if "site_packages" in table:
        tc.site_packages = tuple(_paths(table["site_packages"], base, f"{where}: site_packages"))
    return tc


def load_config(path: Path | None) -> Config:
    """Parse a config file; None gives the empty config."""
    if path is None:
        return Config()
    text, data = _read(path)
    _check_tables(path, text, data)
    where = str(path)
    base = path.parent
    cfg = Config(path=path, raw=data)
    _top_settings(cfg, data, base, where)
    targets = data.get("targets", {})
    if not isinstance(targets, dict):
        raise ConfigError(f"{where}: targets: expected a table keyed by label")
    for label, table in targets.items():
        tc = _target(table, base, f"{where}: targets.{label!r}", text, label)
        cfg.targets[normalize_label(label)] = tc
    return cfg
