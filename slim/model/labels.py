"""Target labels in their canonical spelling, whatever the build tool printed.

`//a` is `//a:a`; `@//a:b` and `@@//a:b` are the main repository `//a:b`; cquery and Buck2
configuration suffixes (`//a:b (f5527a6)`) are split off; Buck2 cells (`root//a:b`) stay.
"""

from __future__ import annotations


def split_configuration(text: str) -> tuple[str, str | None]:
    """Split `//a:b (config)` into the label and the configuration (None when absent).

    Buck2 configurations contain spaces-free `cell//p:n#hash`; the split is on the last
    ` (` so labels with spaces in their name keep them. `(null)` means no configuration.
    """
    if not text.endswith(")"):
        return text, None
    cut = text.rfind(" (")
    if cut < 0:
        return text, None
    config = text[cut + 2 : -1]
    label = text[:cut]
    if config in ("null", ""):
        return label, None
    return label, config


def strip_subtarget(label: str) -> str:
    """Buck2 `//a:b[sub]` names a provider of `//a:b`; the target is `//a:b`."""
    if label.endswith("]"):
        cut = label.find("[", label.find(":") + 1)
        if cut > 0:
            return label[:cut]
    return label


def normalize_label(text: str, package: str | None = None) -> str:
    """The canonical form of a label; `package` resolves relative `:name` labels."""
    if text.startswith("//") and ":" in text and not text.endswith("]"):
        return text
    label = text.strip()
    if label.startswith(":") and package is not None:
        return f"{package}{label}"
    if label.startswith("@@//"):
        label = label[2:]
    elif label.startswith("@//"):
        label = label[1:]
    label = strip_subtarget(label)
    sep = label.find("//")
    if sep < 0:
        if label.startswith("@"):
            repo = label.lstrip("@")
            return f"{label}//:{repo}"
        return label
    head, path = label[: sep + 2], label[sep + 2 :]
    if ":" in path:
        return label
    name = path.rsplit("/", 1)[-1] if path else head.strip("@/")
    return f"{head}{path}:{name}"


def label_package(label: str) -> str:
    """`//a/b:c` -> `//a/b` (the package part, repository or cell included)."""
    cut = label.rfind(":")
    sep = label.find("//")
    if cut < 0 or cut < sep:
        return label
    return label[:cut]


def label_name(label: str) -> str:
    """`//a/b:c` -> `c`."""
    cut = label.rfind(":")
    sep = label.find("//")
    if cut < 0 or cut < sep:
        return label.rsplit("/", 1)[-1]
    return label[cut + 1 :]


def package_path(label: str) -> str:
    """`//a/b:c` -> `a/b`, `@r//a:b` -> `a` (the directory of the package in its repo)."""
    pkg = label_package(label)
    sep = pkg.find("//")
    return pkg[sep + 2 :] if sep >= 0 else pkg


def repository(label: str) -> str:
    """`@r//a:b` -> `@r`, `cell//a:b` -> `cell`, `//a:b` -> `` (the main repository)."""
    sep = label.find("//")
    return label[:sep] if sep > 0 else ""
