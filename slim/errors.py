"""The exceptions slim raises on purpose; the CLI maps each to an exit code and one line."""

from __future__ import annotations

_FOUND_MAX = 60


def describe_found(found: bytes | str, limit: int = _FOUND_MAX) -> str:
    """A short, printable rendering of offending input (never the whole 2 GB line)."""
    if isinstance(found, bytes):
        head = found[: limit * 4]
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start >= len(head) - 3:  # only the cut last character is incomplete
                text = head[: exc.start].decode("utf-8")
            else:
                return "binary data (" + head[:12].hex(" ") + (" …)" if len(found) > 12 else ")")
        if any(ord(c) < 32 and c not in "\t" for c in text[:limit]):
            return "binary data (" + head[:12].hex(" ") + (" …)" if len(found) > 12 else ")")
    else:
        text = found[: limit * 4]
    if not text:
        return "end of file"
    shown = repr(text[:limit])
    return shown + ("…" if len(text) > limit or len(found) > limit * 4 else "")


class SlimError(Exception):
    """Base of every error slim reports to the user without a traceback."""

    exit_code = 2


class InputError(SlimError):
    """Malformed input: `FILE:LINE: expected …, found …` (`FILE:byte N:` for binary input)."""

    def __init__(
        self,
        path: str,
        expected: str,
        found: str,
        *,
        line: int | None = None,
        offset: int | None = None,
    ) -> None:
        self.path = path
        self.expected = expected
        self.found = found
        self.line = line
        self.offset = offset
        super().__init__(str(self))

    def __reduce__(self) -> tuple[object, ...]:
        return (
            _rebuild_input_error,
            (type(self), self.path, self.expected, self.found, self.line, self.offset),
        )

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
        elif self.offset is not None:
            where += f":byte {self.offset}"
        return f"{where}: expected {self.expected}, found {self.found}"


def _rebuild_input_error(
    cls: type[InputError],
    path: str,
    expected: str,
    found: str,
    line: int | None,
    offset: int | None,
) -> InputError:
    """Unpickle an InputError raised in a worker process."""
    return cls(path, expected, found, line=line, offset=offset)


class UnknownFormatError(InputError):
    """No reader recognises the file; the message names the supported formats."""


class ConfigError(SlimError):
    """A bad `slim.toml` / `[tool.slim]` setting or a bad combination of options."""


class UsageError(SlimError):
    """The command line asks for something slim cannot do (an unknown target, say)."""
