"""JSON text as Jackson's ``DefaultPrettyPrinter`` writes it, so v6 commit files match Java's bytes.

Jackson's default pretty printer puts ``" : "`` between key and value, indents object members by
two spaces per *object* level (arrays do not indent), writes arrays inline as ``[ a, b ]``, empty
containers as ``{ }`` and ``[ ]``, and escapes control characters with upper-case hex.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final

_SHORT_ESCAPES: Final = MappingProxyType(
    {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
)


def _escape(text: str) -> str:
    out: list[str] = []
    for ch in text:
        short = _SHORT_ESCAPES.get(ch)
        if short is not None:
            out.append(short)
        elif ch < " ":
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _write(value: object, depth: int, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_escape(value))
    elif isinstance(value, int | float):
        out.append(repr(value))
    elif isinstance(value, Mapping):
        if not value:
            out.append("{ }")
            return
        inner = "  " * (depth + 1)
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append(",\n" if i else "\n")
            out.append(f"{inner}{_escape(str(key))} : ")
            _write(item, depth + 1, out)
        out.append("\n" + "  " * depth + "}")
    elif isinstance(value, Sequence):
        if not value:
            out.append("[ ]")
            return
        out.append("[ ")
        for i, item in enumerate(value):
            if i:
                out.append(", ")
            _write(item, depth, out)
        out.append(" ]")
    else:
        raise TypeError(f"cannot write {type(value).__name__} as JSON")


def dumps_pretty(value: object) -> str:
    """Serialise ``value`` (dicts, lists, str, int, float, bool, None) like Jackson's pretty printer."""
    out: list[str] = []
    _write(value, 0, out)
    return "".join(out)
