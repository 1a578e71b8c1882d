"""The exceptions slim raises on purpose; the CLI maps each to an exit code and one line."""

from __future__ import annotations

_FOUND_MAX = 60


def describe_found(found: bytes | str, limit: int = _FOUND_MAX) -> str:
    """A short, printable rendering of offending input (never the whole 2 GB line).

    Bytes that are not text are shown in hex from the first offending byte, after the
    text before it: the excerpt shows what is wrong, not only where the line starts.
    """
    if isinstance(found, bytes):
        head = found[: limit * 4]
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 3:  # not only a cut last character
                return _binary(found, exc.start)
            text = head[: exc.start].decode("utf-8")
        bad = next((i for i, c in enumerate(text) if ord(c) < 32 and c not in "\t\n\r"), -1)
        if bad >= 0:
            return _binary(found, len(text[:bad].encode("utf-8")))
    else:
        text = found[: limit * 4]
    if not text:
        return "end of file"
    shown = repr(text[:limit])
    return shown + ("…" if len(text) > limit or len(found) > limit * 4 else "")


def describe_value(value: object) -> str:
    """A decoded JSON value as found: its JSON type and a short rendering (`number 7`)."""
    import json

    kind = {
        bool: "boolean",
        int: "number",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
        type(None): "null",
    }.get(type(value), type(value).__name__)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return f"{kind} {text[:_FOUND_MAX]}" + ("…" if len(text) > _FOUND_MAX else "")


def _binary(found: bytes, at: int) -> str:
    """`binary data (hex …)`, after up to 20 characters of the text that precedes it."""
    tail = found[at : at + 12].hex(" ") + (" …" if len(found) > at + 12 else "")
    if at == 0:
        return f"binary data ({tail})"
    before = found[max(0, at - 20) : at].decode("utf-8", "replace")
    return f"{'…' if at > 20 else ''}{before!r} then binary data at byte {at + 1} ({tail})"


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


class OutputError(SlimError):
    """An output that cannot be written: `PATH: cannot write: <the OS's reason>`."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(str(self))

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.path, self.reason))

    def __str__(self) -> str:
        return f"{self.path}: cannot write: {self.reason}"


class ConfigError(SlimError):
    """A bad `slim.toml` / `[tool.slim]` setting or a bad combination of options."""


class UsageError(SlimError):
    """The command line asks for something slim cannot do (an unknown target, say)."""
