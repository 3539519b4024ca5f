"""Read filters: a small predicate form, partition pruning and row filtering.

A filter is a list of predicates ``(column, op, value)`` that must all hold, or a list of such lists
of which one must hold (disjunctive normal form, as in ``pyarrow.parquet``)::

    [("city", "=", "sf"), ("day", ">=", "2024-01-01")]
    [[("city", "=", "sf")], [("city", "in", ["nyc", "chicago"]), ("fare", ">", 10)]]

Operators: ``=`` (``==``), ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``in``, ``not in``, ``is null``,
``is not null`` and ``starts with``. They map one to one onto Spark's pushed filters (``EqualTo``,
``Not(EqualTo)``, ``LessThan``..., ``In``, ``IsNull``, ``IsNotNull``, ``StringStartsWith``; ``Or`` of
``And``s is the nested form), so the Spark data source can hand them over unchanged. Values are cast
to the column's type, so ``("day", ">=", "2024-01-01")`` works on a date column. Comparisons follow
SQL: a null value matches no comparison (use ``is null``).

Predicates on partition columns prune partitions before any file is opened: the partition path is
decoded (:class:`~hudi_framework.contracts.partition_path.PartitionPathFormat`) and each value cast to the
column's type. Every predicate is also applied to the rows read, so pruning never has to be exact.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any, Final, TypeAlias

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.partition_path import (
    DEFAULT_PARTITION_PATH,
    DEPRECATED_DEFAULT_PARTITION_PATH,
    PartitionPathFormat,
)
from hudi_framework.errors import InvalidFilterError, PartitionPathError

Predicate: TypeAlias = tuple[str, str, Any]
Conjunction: TypeAlias = tuple[Predicate, ...]
#: Normalised filters: OR of ANDs. The empty tuple means "no filter".
Disjunction: TypeAlias = tuple[Conjunction, ...]

_COMPARISONS: Final = {"=": pc.equal, "==": pc.equal, "!=": pc.not_equal, "<": pc.less, "<=": pc.less_equal,
                       ">": pc.greater, ">=": pc.greater_equal}  # fmt: skip
_UNARY: Final = frozenset({"is null", "is not null"})
_SETS: Final = frozenset({"in", "not in"})
OPERATORS: Final = frozenset({*_COMPARISONS, *_UNARY, *_SETS, "starts with"})


def _is_predicate(item: object) -> bool:
    return isinstance(item, tuple | list) and bool(item) and isinstance(item[0], str)


def _predicate(item: object) -> Predicate:
    if not isinstance(item, tuple | list) or len(item) not in (2, 3):
        raise InvalidFilterError(item, "expected (column, op, value)")
    column, op = item[0], item[1]
    value = item[2] if len(item) == 3 else None
    if not isinstance(column, str) or not isinstance(op, str):
        raise InvalidFilterError(item, "column and operator must be strings")
    op = " ".join(op.lower().split())
    if op not in OPERATORS:
        raise InvalidFilterError(item, f"unknown operator {op!r} (known: {', '.join(sorted(OPERATORS))})")
    if op in _SETS:
        if isinstance(value, str | bytes) or not isinstance(value, Iterable):
            raise InvalidFilterError(item, f"{op!r} needs a list of values")
        value = tuple(value)
    elif op not in _UNARY and value is None:
        raise InvalidFilterError(item, "comparing with null matches nothing; use 'is null'")
    return (column, op, value)


def normalize_filters(filters: Sequence[Any] | None) -> Disjunction:
    """Validate the shape of ``filters`` and return them as an OR of ANDs.

    Raises:
        InvalidFilterError: A malformed predicate or an unknown operator.
    """
    if not filters:
        return ()
    if all(_is_predicate(f) for f in filters):
        return (tuple(_predicate(f) for f in filters),)
    out = []
    for group in filters:
        if _is_predicate(group) or not isinstance(group, Sequence) or isinstance(group, str):
            raise InvalidFilterError(group, "mix of predicates and predicate lists; use one form")
        out.append(tuple(_predicate(f) for f in group))
    return tuple(out)


def filter_columns(filters: Disjunction) -> set[str]:
    """Every column a filter refers to."""
    return {p[0] for conj in filters for p in conj}


def check_columns(filters: Disjunction, schema: pa.Schema) -> None:
    """Raise unless every filtered column is in ``schema``.

    Raises:
        InvalidFilterError: A predicate names an unknown column.
    """
    for conj in filters:
        for pred in conj:
            if schema.get_field_index(pred[0]) < 0:
                raise InvalidFilterError(pred, f"unknown column {pred[0]!r}")


def typed_scalar(pred: Predicate, value: Any, typ: pa.DataType) -> pa.Scalar:
    """``value`` of ``pred`` as a scalar of ``typ``.

    Raises:
        InvalidFilterError: The value does not convert to ``typ``.
    """
    if isinstance(value, pa.Scalar):
        value = value.as_py()
    try:
        # Direct conversion first (100 -> decimal(15, 2) needs it), then a cast ("2024-01-01" -> date).
        return pa.scalar(value, type=typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
        pass
    try:
        return pa.scalar(value).cast(typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
        raise InvalidFilterError(pred, f"value {value!r} does not convert to {typ}: {e}") from e


def typed_array(pred: Predicate, values: Sequence[Any], typ: pa.DataType) -> pa.Array:
    """``values`` of ``pred`` (an ``in`` list) as an array of ``typ``."""
    return pa.array([typed_scalar(pred, v, typ) for v in values], type=typ)


def _predicate_expression(pred: Predicate, typ: pa.DataType) -> pc.Expression:
    column, op, value = pred
    field = pc.field(column)
    if op == "is null":
        return field.is_null()
    if op == "is not null":
        return field.is_valid()
    if op in _SETS:
        matched = field.isin(typed_array(pred, value, typ))
        # SQL: null IN (...) is unknown, so "not in" must not let null rows through.
        return matched if op == "in" else (~matched & field.is_valid())
    if op == "starts with":
        if not (pa.types.is_string(typ) or pa.types.is_large_string(typ)):
            raise InvalidFilterError(pred, f"'starts with' needs a string column, not {typ}")
        return pc.starts_with(field, pattern=str(value))
    compare: Any = _COMPARISONS[op]
    result: pc.Expression = compare(field, typed_scalar(pred, value, typ))
    return result


def to_expression(filters: Disjunction, schema: pa.Schema) -> pc.Expression | None:
    """The row filter as a pyarrow compute expression over ``schema``'s columns, or None for no filter.

    Raises:
        InvalidFilterError: Unknown column, or a value that does not convert to the column's type.
    """
    if not filters:
        return None
    check_columns(filters, schema)
    disjuncts = []
    for conj in filters:
        terms = [_predicate_expression(p, schema.field(p[0]).type) for p in conj]
        expr = terms[0]
        for term in terms[1:]:
            expr = expr & term
        disjuncts.append(expr)
    result = disjuncts[0]
    for expr in disjuncts[1:]:
        result = result | expr
    return result


def restrict(filters: Disjunction, columns: Iterable[str]) -> Disjunction:
    """A weaker filter that only uses ``columns``: other predicates are dropped (taken as true).

    Every row (or partition) passing ``filters`` passes the result, so it is safe for pruning. A
    conjunction left empty is always true, and then so is the whole result (returned as ``()``).
    """
    keep = set(columns)
    out = []
    for conj in filters:
        kept = tuple(p for p in conj if p[0] in keep)
        if not kept:
            return ()
        out.append(kept)
    return tuple(out)


def prune_partitions(
    partition_paths: Sequence[str],
    filters: Disjunction,
    *,
    path_format: PartitionPathFormat,
    schema: pa.Schema,
    prunable_fields: Iterable[str] | None = None,
) -> list[str]:
    """The partition paths whose decoded values may satisfy ``filters``.

    Args:
        partition_paths: Relative partition paths (``""`` for a non-partitioned table).
        filters: Normalised filters; predicates on other columns are ignored here.
        path_format: How the table encodes partition values into paths.
        schema: Gives the type each partition value is cast to before comparing.
        prunable_fields: Partition fields whose path value equals the column value; None means all.
            Timestamp key generators write a formatted date into the path, not the column's value,
            so Apache Hudi does not prune on them either.

    Returns:
        The kept paths, in the given order. Paths that do not decode are kept (never pruned away).
    """
    fields = [f for f in path_format.fields if prunable_fields is None or f in set(prunable_fields)]
    fields = [f for f in fields if schema.get_field_index(f) >= 0]
    usable = restrict(filters, fields)
    if not usable or not path_format.is_partitioned or not partition_paths:
        return list(partition_paths)
    decoded: list[tuple[str | None, ...] | None] = []
    for path in partition_paths:
        try:
            decoded.append(path_format.decode(path))
        except PartitionPathError:
            decoded.append(None)
    readable = {i: values for i, values in enumerate(decoded) if values is not None}
    positions = [(pos, name) for pos, name in enumerate(path_format.fields) if name in fields]
    index = list(readable)
    raws = {name: [values[pos] for values in readable.values()] for pos, name in positions}
    # A default partition is not null-only (see _stored_values): one more row per value it may hold.
    text = {name: _is_text(schema.field(name).type) for _, name in positions}
    ambiguous = {i for pos, name in positions if text[name] for i, v in readable.items() if v[pos] in _DEFAULTS}
    for i in sorted(ambiguous):
        options = [_stored_values(readable[i][pos], text=text[name]) for pos, name in positions]
        for combination in itertools.product(*options):
            index.append(i)
            for (_, name), value in zip(positions, combination, strict=True):
                raws[name].append(value)
    columns: dict[str, pa.Array] = {}
    for _, name in positions:
        raw = pa.array(raws[name], pa.string())
        try:
            columns[name] = raw.cast(schema.field(name).type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            # A value that does not parse as the column's type: this field cannot prune.
            usable = restrict(usable, [f for f in fields if f != name])
            if not usable:
                return list(partition_paths)
    table = pa.table({"__index": pa.array(index, pa.int64()), **columns})
    expression = to_expression(usable, table.schema)
    keep = set(table.filter(expression).column("__index").to_pylist()) if expression is not None else set()
    unreadable = {i for i, values in enumerate(decoded) if values is None}
    return [p for i, p in enumerate(partition_paths) if i in keep or i in unreadable]


#: Decoded values that stand for more than themselves in a string column.
_DEFAULTS: Final = frozenset({None, DEPRECATED_DEFAULT_PARTITION_PATH})


def _is_text(typ: pa.DataType) -> bool:
    return bool(pa.types.is_string(typ) or pa.types.is_large_string(typ))


def _stored_values(decoded: str | None, *, text: bool) -> tuple[str | None, ...]:
    """The column values rows of a partition whose path decoded to ``decoded`` may hold.

    Java writes a null *and* an empty value as ``__HIVE_DEFAULT_PARTITION__`` (``default`` before
    Hudi 0.12), and a string that is literally that name lands in the same directory; a reader
    takes the values from the files. So such a partition may hold any of them. Other types only
    hold nulls there (an int is never empty; ``default`` fails their cast and stops pruning).
    """
    if decoded is None:
        return (None, "", DEFAULT_PARTITION_PATH) if text else (None,)
    if text and decoded == DEPRECATED_DEFAULT_PARTITION_PATH:
        return (decoded, None, "")
    return (decoded,)
