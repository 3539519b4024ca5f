"""Spark's pushed filters -> the kernel's ``(column, op, value)`` predicates.

Only filters the kernel applies exactly are accepted; everything else is handed back to Spark,
which then evaluates it after the scan. Accepted filters prune partitions and are also applied to
the rows read (see :mod:`hudi_framework.read.filters`), so Spark may skip re-evaluating them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyspark.sql.datasource import (
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
    StringStartsWith,
)

from hudi_framework.read.filters import Predicate

_COMPARISONS: dict[type[Filter], str] = {
    EqualTo: "=",
    GreaterThan: ">",
    GreaterThanOrEqual: ">=",
    LessThan: "<",
    LessThanOrEqual: "<=",
}


def _column(f: Any) -> str | None:
    # Nested attributes (struct fields) are not pushed: the kernel filters top-level columns.
    attribute: tuple[str, ...] = tuple(getattr(f, "attribute", ()))
    return attribute[0] if len(attribute) == 1 else None


def to_predicate(f: Filter) -> Predicate | None:
    """The kernel predicate for one Spark filter, or None when it cannot be pushed."""
    if isinstance(f, Not):
        inner = f.child
        column = _column(inner)
        if column is None:
            return None
        if isinstance(inner, EqualTo):
            return (column, "!=", inner.value)
        if isinstance(inner, In):
            return (column, "not in", tuple(inner.value))
        return None
    column = _column(f)
    if column is None:
        return None
    op = _COMPARISONS.get(type(f))
    if op is not None:
        value = f.value  # type: ignore[attr-defined]
        return None if value is None else (column, op, value)
    if isinstance(f, In):
        return (column, "in", tuple(f.value))
    if isinstance(f, IsNull):
        return (column, "is null", None)
    if isinstance(f, IsNotNull):
        return (column, "is not null", None)
    if isinstance(f, StringStartsWith):
        return (column, "starts with", f.value)
    return None


def split_filters(filters: Iterable[Filter], columns: set[str]) -> tuple[list[Predicate], list[Filter]]:
    """(accepted predicates, filters handed back to Spark)."""
    accepted: list[Predicate] = []
    rejected: list[Filter] = []
    for f in filters:
        predicate = to_predicate(f)
        if predicate is None or predicate[0] not in columns:
            rejected.append(f)
        else:
            accepted.append(predicate)
    return accepted, rejected
