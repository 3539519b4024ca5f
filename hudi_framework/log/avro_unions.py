"""Avro unions of several named types as Arrow structs (Spark's ``member0..memberN`` layout).

The columnar Avro conversion (:mod:`hudi_framework.log.avro_arrow`) handles ``["null", T]`` only.
Metadata-table records (``HoodieMetadataRecord``) hold wrapper unions such as column-stats
``minValue: [null, BooleanWrapper, IntWrapper, ...]``. Spark-avro, and so Hudi's Spark reader,
shows such a union as a struct with one nullable field per non-null branch, ``member<i>``, of which
the written branch is set. This module rewrites a schema into that shape and converts values
decoded by fastavro (``return_named_type=True, return_named_type_override=True``, which tags each
value of a multi-named-type union with its type name) to match.

Only unions whose non-null branches are all named types (records, enums, fixed) are rewritten:
for those fastavro reports the branch; a union of several primitives cannot be told apart after
decoding and is rejected.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hudi_framework.errors import UnsupportedLogBlockError
from hudi_framework.model.schema import AvroSchema

#: Converts one decoded value of a schema node to the rewritten shape.
ValueConverter = Callable[[Any], Any]

_NAMED_KINDS = ("record", "error", "enum", "fixed")


@dataclass
class _Rewrite:
    """State of one schema rewrite: named types seen so far and their value converters."""

    named: dict[str, Any] = field(default_factory=dict)
    converters: dict[str, ValueConverter | None] = field(default_factory=dict)
    unions: int = 0


def rewrite_unions(schema: AvroSchema) -> tuple[AvroSchema, ValueConverter | None]:
    """``schema`` with multi-branch named unions as ``member<i>`` records, and a row converter.

    Returns:
        The rewritten schema (a copy) and a function converting a record decoded by fastavro with
        ``schema`` to the rewritten shape, or None when nothing was rewritten (rows are unchanged).

    Raises:
        UnsupportedLogBlockError: A union has several non-null branches that are not all named.
    """
    state = _Rewrite()
    rewritten = copy.deepcopy(schema)
    convert = _node(rewritten, state, schema.get("namespace"), "")
    if not state.unions:
        return rewritten, None
    return rewritten, convert


def _full_name(node: dict[str, Any], namespace: str | None) -> str:
    name = str(node["name"])
    ns = node.get("namespace", namespace)
    return f"{ns}.{name}" if ns and "." not in name else name


def _node(node: Any, state: _Rewrite, namespace: str | None, path: str) -> ValueConverter | None:
    """Rewrite ``node`` in place (records' field types); return its value converter or None."""
    if isinstance(node, str):
        return state.converters.get(node) or state.converters.get(f"{namespace}.{node}")
    kind = node.get("type")
    if kind in ("record", "error"):
        full = _full_name(node, namespace)
        inner_ns = full.rpartition(".")[0] or None
        state.named[full] = node
        state.converters[full] = None  # a recursive reference sees no conversion
        converters = []
        for f in node["fields"]:
            f["type"], conv = _type(f["type"], state, inner_ns, f"{path}.{f['name']}")
            converters.append((f["name"], conv))
        active = [(n, c) for n, c in converters if c is not None]
        record_conv = _record_converter(active) if active else None
        state.converters[full] = record_conv
        return record_conv
    if kind in ("enum", "fixed"):
        state.named[_full_name(node, namespace)] = node
        return None
    if kind == "array":
        node["items"], item_conv = _type(node["items"], state, namespace, f"{path}[]")
        return None if item_conv is None else _array_converter(item_conv)
    if kind == "map":
        node["values"], value_conv = _type(node["values"], state, namespace, f"{path}{{}}")
        return None if value_conv is None else _map_converter(value_conv)
    if isinstance(kind, (dict, list)):
        node["type"], conv = _type(kind, state, namespace, path)
        return conv
    return None


def _type(t: Any, state: _Rewrite, namespace: str | None, path: str) -> tuple[Any, ValueConverter | None]:
    """(rewritten type, converter) for a field/item/value type."""
    if not isinstance(t, list):
        return t, _node(t, state, namespace, path)
    branches = [b for b in t if b != "null"]
    if len(branches) <= 1:
        if not branches:
            return t, None
        conv = _node(branches[0], state, namespace, path)
        return t, None if conv is None else _nullable(conv)
    names: list[str] = []
    for b in branches:
        if isinstance(b, dict) and b.get("type") in _NAMED_KINDS:
            names.append(str(b["name"]).rpartition(".")[2])
        elif isinstance(b, str) and _resolve(b, state, namespace) is not None:
            names.append(b.rpartition(".")[2])
        else:
            raise UnsupportedLogBlockError(
                "HFILE_DATA", f"union at {path or '<root>'} mixes several non-null branches that are not named types"
            )
    members = []
    member_convs: list[ValueConverter | None] = []
    for i, b in enumerate(branches):
        member_type, conv = _type(["null", b], state, namespace, f"{path}.member{i}")
        members.append({"name": f"member{i}", "type": member_type, "default": None})
        member_convs.append(conv)
    state.unions += 1
    # No namespace of its own: branches defined inside keep the namespace they inherited.
    struct = {"type": "record", "name": f"hudi_union_{state.unions}", "fields": members}
    rewritten = ["null", struct] if "null" in t else struct
    return rewritten, _union_converter(names, member_convs)


def _resolve(name: str, state: _Rewrite, namespace: str | None) -> Any:
    return state.named.get(name) or state.named.get(f"{namespace}.{name}")


def _record_converter(active: list[tuple[str, ValueConverter]]) -> ValueConverter:
    def convert(value: Any) -> Any:
        if value is None:
            return None
        out = dict(value)
        for name, conv in active:
            out[name] = conv(out.get(name))
        return out

    return convert


def _nullable(conv: ValueConverter) -> ValueConverter:
    return lambda value: None if value is None else conv(value)


def _array_converter(conv: ValueConverter) -> ValueConverter:
    return lambda value: None if value is None else [conv(v) for v in value]


def _map_converter(conv: ValueConverter) -> ValueConverter:
    return lambda value: None if value is None else {k: conv(v) for k, v in value.items()}


def _union_converter(names: list[str], member_convs: list[ValueConverter | None]) -> ValueConverter:
    index = {n: i for i, n in enumerate(names)}
    keys = [f"member{i}" for i in range(len(names))]

    def convert(value: Any) -> Any:
        if value is None:
            return None
        type_name, inner = value
        i = index[str(type_name).rpartition(".")[2]]
        conv = member_convs[i]
        out = dict.fromkeys(keys)
        out[keys[i]] = inner if conv is None else conv(inner)
        return out

    return convert
