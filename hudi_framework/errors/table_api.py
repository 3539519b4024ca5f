"""Errors of the Spark table API: expressions that do not resolve, merges whose keys are ambiguous."""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.errors.base import HudiError
from hudi_framework.errors.data import DataError

__all__ = ["MergeMatchError", "TableExpressionError"]


class TableExpressionError(HudiError, ValueError):
    """A condition, a ``set`` column or a value of a table API call does not resolve against the
    table and the source (an unknown column, an unknown alias, a record key field assigned).

    Attributes:
        expression: The expression or column as given.
        reason: What is wrong, naming the column or alias.
    """

    def __init__(self, expression: str, reason: str) -> None:
        self.expression = expression
        self.reason = reason
        super().__init__(f"{expression!r}: {reason}")


class MergeMatchError(DataError):
    """A source row of a merge matches several target rows: which one to update or delete is
    ambiguous (delta-spark and Apache Hudi's MERGE INTO refuse it too). Nothing is written.

    Attributes:
        keys: Record keys of target rows matched more than once by one source row (at most ten), sorted.
        count: How many source rows match several target rows.
    """

    def __init__(self, keys: Sequence[str], count: int) -> None:
        self.keys = tuple(keys)
        self.count = count
        shown = ", ".join(repr(k) for k in self.keys)
        super().__init__(
            f"{count} source row(s) match several target rows (target record keys {shown}); "
            "make the merge condition match at most one target row per source row"
        )
