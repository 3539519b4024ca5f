"""Expressions of the Spark table API: SQL strings or ``Column`` objects, resolved against a
DataFrame before any job runs, so a wrong column or alias is a typed error naming it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F  # noqa: N812 - the conventional alias

from hudi_framework.errors import TableExpressionError

if TYPE_CHECKING:
    from hudi_framework.runtime.table import HudiTable

__all__ = [
    "SOURCE_ALIAS",
    "TARGET_ALIAS",
    "Expression",
    "checked_column",
    "data_columns",
    "protected_columns",
]

#: The alias of the table's rows in conditions and expressions (delta-spark's convention).
TARGET_ALIAS: Final = "t"
#: The alias of a merge's source rows.
SOURCE_ALIAS: Final = "s"

#: What a condition or value may be: Spark SQL text or a ``Column``.
Expression = str | Column


def as_column(expression: Expression) -> Column:
    """``expression`` as a ``Column`` (text parsed as Spark SQL)."""
    return F.expr(expression) if isinstance(expression, str) else expression


def checked_column(frame: DataFrame, expression: Expression, label: str) -> Column:
    """``expression`` as a ``Column``, checked to resolve against ``frame`` (Spark analyses the
    projection eagerly, without a job).

    Raises:
        TableExpressionError: It names a column or alias ``frame`` does not have, or does not parse.
    """
    text = expression if isinstance(expression, str) else str(expression)
    try:
        column = as_column(expression)
        frame.select(column)
    except AnalysisException as e:
        raise TableExpressionError(text, f"{label} does not resolve: {_reason(e)}") from e
    return column


def _reason(error: AnalysisException) -> str:
    """Spark's reason, naming the unresolved object when Spark says which."""
    params = error.getMessageParameters() or {}
    name = params.get("objectName")
    if name:
        aliases = f"aliases are {TARGET_ALIAS!r} (the table) and {SOURCE_ALIAS!r} (a merge's source)"
        return f"unknown column or alias {name} ({aliases})"
    first = str(error).strip().splitlines()
    return first[0] if first else (error.getCondition() or type(error).__name__)


def data_columns(table: HudiTable) -> tuple[str, ...]:
    """The table's columns without Hudi's meta columns, in schema order."""
    return tuple(table.schema().names)


def protected_columns(table: HudiTable) -> tuple[str, ...]:
    """Record key and partition columns: an update or merge keeps the target row's values."""
    config = table.config
    return tuple(dict.fromkeys((*config.record_key_fields, *config.partition_fields)))
