"""The flat-record shape that the vectorised Avro codecs handle, read from a writer schema.

A schema is *flat* when every top-level field is a primitive (boolean, int, long, float, double,
string, bytes), a ``fixed``, an inline logical type over one of those, or a two-branch union of
``null`` with one of them. Hudi writers produce such schemas for ordinary tables; anything else
(records, arrays, maps, enums, named references) goes through fastavro per record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_PRIMITIVES = frozenset({"boolean", "int", "long", "float", "double", "string", "bytes"})


@dataclass(frozen=True)
class FlatField:
    """One top-level field: its physical Avro kind and where ``null`` sits in its union."""

    kind: str  #: boolean | int | long | float | double | string | bytes | fixed
    size: int  #: byte size of a ``fixed``; 0 otherwise
    null_branch: int | None  #: union index of ``null`` (0 or 1), None for a bare type
    #: union index of the value in a union of more than two branches (encoding only: a DELETE
    #: block's ``orderingVal``); None for the other branch of a two-branch union
    branch: int | None = None

    @property
    def value_branch(self) -> int:
        if self.branch is not None:
            return self.branch
        return 1 - self.null_branch if self.null_branch is not None else 0


def flat_fields(schema: Any) -> list[FlatField] | None:
    """The fields of ``schema`` when it is a flat record, else None (use the per-record path)."""
    if not isinstance(schema, dict) or schema.get("type") not in ("record", "error"):
        return None
    fields = schema.get("fields")
    if not isinstance(fields, list) or not fields:
        return None
    out: list[FlatField] = []
    for f in fields:
        if not isinstance(f, dict):
            return None
        flat = _flat(f.get("type"))
        if flat is None:
            return None
        out.append(flat)
    return out


def _flat(t: Any) -> FlatField | None:
    if isinstance(t, list):
        if len(t) != 2 or t.count("null") != 1:
            return None
        null_at = t.index("null")
        leaf = _leaf(t[1 - null_at])
        return None if leaf is None else FlatField(leaf[0], leaf[1], null_at)
    leaf = _leaf(t)
    return None if leaf is None else FlatField(leaf[0], leaf[1], None)


def _leaf(t: Any) -> tuple[str, int] | None:
    if isinstance(t, str):
        return (t, 0) if t in _PRIMITIVES else None
    if not isinstance(t, dict):
        return None
    kind = t.get("type")
    if kind == "fixed":
        size = t.get("size")
        return ("fixed", size) if isinstance(size, int) and size >= 0 else None
    if isinstance(kind, str) and kind in _PRIMITIVES:
        return (kind, 0)  # an inline logical type (date, timestamp-*, decimal on bytes...)
    return None
