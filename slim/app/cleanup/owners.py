"""Who owns a target: its owners attribute or tag, the config's `owners` table, CODEOWNERS."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slim.errors import ConfigError
from slim.model.backlog import UNOWNED
from slim.model.graph import BuildGraph
from slim.model.labels import label_package, package_path


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A CODEOWNERS (gitignore-style) pattern as a regex over repo-relative file paths."""
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    body = pattern.strip("/")
    rx = ""
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            rx += "(?:.*/)?"
            i += 3
        elif body.startswith("**", i):
            rx += ".*"
            i += 2
        elif body[i] == "*":
            rx += "[^/]*"
            i += 1
        elif body[i] == "?":
            rx += "[^/]"
            i += 1
        else:
            rx += re.escape(body[i])
            i += 1
    head = "^" if anchored else "^(?:.*/)?"
    return re.compile(f"{head}{rx}(?:/.*)?$")


@dataclass
class Owners:
    """Who owns a target: its owners attribute/tag, the config table, or CODEOWNERS."""

    rules: list[tuple[re.Pattern[str], tuple[str, ...]]] = field(default_factory=list)
    prefixes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    source: str = ""

    @staticmethod
    def load(raw: Mapping[str, Any], config_path: Path | None, workspace: Path | None) -> Owners:
        base = config_path.parent if config_path is not None else Path.cwd()
        value = raw.get("owners")
        out = Owners()
        if isinstance(value, dict):
            for prefix, who in value.items():
                names = (who,) if isinstance(who, str) else who
                if not isinstance(names, list | tuple) or not all(
                    isinstance(n, str) for n in names
                ):
                    raise ConfigError(f"{config_path}: owners.{prefix}: expected names")
                out.prefixes[prefix.rstrip("/") or "//"] = tuple(names)
            out.source = f"{config_path}: owners"
            return out
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{config_path}: owners: expected a CODEOWNERS path or a table")
        candidates = [base / value] if isinstance(value, str) else []
        for root in dict.fromkeys([base, *([workspace] if workspace else [])]):
            candidates += [root / "CODEOWNERS", root / ".github/CODEOWNERS"]
            candidates += [root / "docs/CODEOWNERS"]
        for c in candidates:
            if c.is_file():
                out.rules = parse_codeowners(c.read_text(encoding="utf-8", errors="replace"))
                out.source = c.name if c.parent == base else str(c)
                return out
        if isinstance(value, str):
            raise ConfigError(f"{config_path}: owners: expected a CODEOWNERS file at {value}")
        return out

    def of(self, graph: BuildGraph, label: str) -> str:
        i = graph.lookup(label)
        if i is not None:
            attr = graph.attrs.get(i, {}).get("owners")
            if isinstance(attr, str) and attr:
                return attr
            if isinstance(attr, tuple) and attr:
                return " ".join(attr)
            for t in graph.tags.get(i, ()):
                for pre in ("owner:", "owners:", "owner=", "team:"):
                    if t.startswith(pre) and t[len(pre) :]:
                        return t[len(pre) :]
        pkg = label_package(label)
        best = ""
        for prefix in self.prefixes:
            if (pkg == prefix or pkg.startswith(prefix + "/") or prefix == "//") and len(
                prefix
            ) > len(best):
                best = prefix
        if best:
            return " ".join(self.prefixes[best])
        path = package_path(label)
        build = f"{path}/BUILD" if path else "BUILD"
        who: tuple[str, ...] = ()
        for rx, names in self.rules:
            if rx.match(build):
                who = names
        return " ".join(who) or UNOWNED


def parse_codeowners(text: str) -> list[tuple[re.Pattern[str], tuple[str, ...]]]:
    rules = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        pattern, *names = line.split()
        rules.append((_glob_regex(pattern), tuple(names)))
    return rules
