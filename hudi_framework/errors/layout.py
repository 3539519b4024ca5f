"""Errors in ordering rows for layout optimization: sort strategies, sort columns and their types."""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.errors.base import HudiError

__all__ = [
    "LayoutOptimizationError",
    "UnknownLayoutStrategyError",
    "UnknownSortColumnError",
    "UnsupportedSortColumnTypeError",
]


class LayoutOptimizationError(HudiError):
    """Rows could not be ordered for layout optimization (linear, z-order or Hilbert)."""


class UnknownLayoutStrategyError(LayoutOptimizationError, ValueError):
    """A layout-optimization option has a value outside its closed set.

    Attributes:
        option: The Apache Hudi option (``hoodie.layout.optimize.strategy``...).
        value: The value given.
        accepted: The values the option takes.
    """

    def __init__(self, option: str, value: object, accepted: Sequence[str]) -> None:
        self.option = option
        self.value = value
        self.accepted = tuple(accepted)
        super().__init__(f"{option}={value!r} is not one of {', '.join(self.accepted)}")


class UnknownSortColumnError(LayoutOptimizationError, KeyError):
    """A column to sort by is not in the rows being sorted.

    Attributes:
        column: The sort column.
        available: The columns the rows have.
    """

    def __init__(self, column: str, available: Sequence[str]) -> None:
        self.column = column
        self.available = tuple(available)
        super().__init__(f"sort column {column!r} is not a column of the rows; they have {', '.join(self.available)}")

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0])


class UnsupportedSortColumnTypeError(LayoutOptimizationError, TypeError):
    """A sort column's type has no order the strategy can map onto a curve (struct, list, map...).

    Attributes:
        column: The sort column.
        type_name: Its Arrow type, as text.
        strategy: The layout-optimization strategy asked for.
    """

    def __init__(self, column: str, type_name: str, strategy: str) -> None:
        self.column = column
        self.type_name = type_name
        self.strategy = strategy
        super().__init__(f"sort column {column!r} has type {type_name}, which the {strategy} order does not support")
