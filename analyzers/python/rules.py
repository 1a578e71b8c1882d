"""The python family's rules: codes, names and help, importable without the detectors."""

from __future__ import annotations

from slim.model.findings import Rule

NAME = "python-imports"

UNUSED = Rule(
    code="SLIM001",
    name="unused-python-dep",
    summary="A Python dependency the code never imports (dead) or imports only lazily.",
    help=(
        "For each edge A -> B to a Python target, slim looks for B's modules in A's sources "
        "(static imports with their kind: top-level, lazy, optional, typing-only, importlib "
        "literal) and in the runtime import traces. dead: neither shows it and nothing else "
        "in the binary gets B through this edge (removable). runtime-unused: imported only "
        "lazily, optionally or for typing and never traced: keep it, but consider a lazy "
        "import, an optional extra or runtime_deps. Pass --trace and --workspace: with only "
        "one of them the verdict is never 'dead, high'."
    ),
)

OWNERSHIP = Rule(
    code="SLIM901",
    name="python-ownership-unknown",
    summary="The Python modules a dependency provides could not be determined.",
    help=(
        "slim maps modules to targets from srcs (path, Bazel imports, Buck2 base_module) and "
        "third-party requirements from installed *.dist-info RECORD files. Give the export "
        "with srcs, or a site-packages dir (workspace site-packages/.venv) to check the edge."
    ),
)

UNREADABLE = Rule(
    code="SLIM902",
    name="python-source-unreadable",
    summary="Some Python sources of a target could not be read or parsed.",
    help=(
        "A syntax error, a non-UTF-8 byte without a coding declaration, or a missing file "
        "makes the target's static imports incomplete: its edges are never marked dead."
    ),
)

COVERAGE = Rule(
    code="SLIM903",
    name="python-trace-coverage",
    summary="How much of a binary's packaged Python the given traces touch.",
    help=(
        "Packaged modules and bytes in the root's closure against those the traces loaded: "
        "what a lazily fetched executable would need for the traced runs."
    ),
)
