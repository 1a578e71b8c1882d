"""The module names a Python trace may carry: whatever CPython can print, not only identifiers.

`sys.modules` keys are any strings: `importlib.import_module` and the path finders load
`_sysconfigdata__linux_x86_64-linux-gnu` (from `sysconfig`), files whose names hold `-`
or non-ASCII letters, and frozen or built-in modules (`_frozen_importlib`,
`__phello__.spam`). A trace row is still bad input when its name is blank, holds
whitespace or control characters, or is not text: such a row is not something CPython
writes, it is a damaged or foreign line.
"""

from __future__ import annotations

import ast


def valid_module_name(name: str) -> bool:
    """True for any non-blank token without whitespace or control characters."""
    return bool(name) and not any(
        c.isspace() or ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in name
    )


def unquote_repr(text: str) -> str | None:
    """The string a `repr()` wrote (`'a-b'`, `"it's"`, `'\\xe9'`), or None if it is not one."""
    if len(text) < 2 or text[0] not in "'\"" or text[-1] != text[0]:
        return None
    if "\\" not in text:
        inner = text[1:-1]
        return None if text[0] in inner else inner
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None
