"""Comparing ordering values, vectorised (Arrow columns) and per record (Python values).

Both functions implement one total preorder, so the vectorised built-in mergers and per-record
mergers agree:

* Several ordering fields compare lexicographically, the first field first.
* **Null is lower than every value.** Apache Hudi reads a null ordering value as its default
  (``0``) and then compares; "lowest" is the type-independent reading of that and keeps the order
  total. The two differ only against negative numbers, where Java would rank the null higher.
* **NaN is higher than every other float and equal to itself**, like Java's ``Double.compareTo``
  (Arrow's ``greater`` is false for NaN, which would make the order partial and merging
  non-associative).
* Strings compare by code point (Arrow compares UTF-8 bytes, which is the same order). Java compares
  UTF-16 units, which differs only between U+E000..U+FFFF and supplementary characters.
* Other scalars (integers, decimals, dates, times, timestamps, booleans, binary) use their natural
  order. Nested types cannot be ordering fields.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import to_numpy
from hudi_framework.errors import OrderingTypeError

__all__ = ["BoolMask", "as_mask", "compare_ordering_values", "newer_wins"]

#: A numpy boolean vector, one entry per row.
BoolMask = npt.NDArray[np.bool_]


def as_mask(values: Any) -> BoolMask:
    """A boolean Arrow array or chunked array as numpy; nulls read as False.

    Args:
        values: Arrow booleans.
    """
    if values.null_count:
        # Kleene AND with the validity turns null into False without a Python scalar argument.
        values = pc.and_kleene(values, pc.is_valid(values))
    return np.asarray(to_numpy(values), dtype=np.bool_)


def _plain(column: pa.ChunkedArray, field: str) -> pa.ChunkedArray:
    column_type = column.type
    if pa.types.is_dictionary(column_type):
        return column.cast(column_type.value_type)
    if pa.types.is_null(column_type) or _comparable(column_type):
        return column
    raise OrderingTypeError(field, str(column_type))


def _comparable(arrow_type: pa.DataType) -> bool:
    return bool(
        pa.types.is_integer(arrow_type)
        or pa.types.is_floating(arrow_type)
        or pa.types.is_decimal(arrow_type)
        or pa.types.is_string(arrow_type)
        or pa.types.is_large_string(arrow_type)
        or pa.types.is_binary(arrow_type)
        or pa.types.is_large_binary(arrow_type)
        or pa.types.is_fixed_size_binary(arrow_type)
        or pa.types.is_boolean(arrow_type)
        or pa.types.is_temporal(arrow_type)
    )


def _compare_field(older: pa.ChunkedArray, newer: pa.ChunkedArray) -> tuple[BoolMask, BoolMask]:
    """``(newer > older, newer == older)`` for one field under the total preorder above."""
    older_valid = as_mask(pc.is_valid(older))
    newer_valid = as_mask(pc.is_valid(newer))
    if pa.types.is_null(older.type):
        # Both sides are all-null (the pair was unified to one type): every row ties.
        equal = np.ones(len(older), dtype=np.bool_)
        return ~equal, equal
    greater = as_mask(pc.greater(newer, older))
    equal = as_mask(pc.equal(newer, older))
    if pa.types.is_floating(older.type):
        newer_nan = as_mask(pc.is_nan(newer))
        older_nan = as_mask(pc.is_nan(older))
        greater |= newer_nan & ~older_nan
        equal |= newer_nan & older_nan
    greater |= newer_valid & ~older_valid
    equal |= ~newer_valid & ~older_valid
    return greater, equal


def newer_wins(
    older: Sequence[pa.ChunkedArray],
    newer: Sequence[pa.ChunkedArray],
    fields: Sequence[str],
    *,
    num_rows: int,
) -> BoolMask:
    """Rows where the newer ordering value is greater than or equal to the older one (ties: newer).

    Args:
        older: The older side's ordering columns, one per field, all the same length.
        newer: The newer side's ordering columns, aligned with ``older`` and of the same types.
        fields: The ordering field names, for error messages.
        num_rows: The number of rows (needed when there are no ordering fields).

    Returns:
        One boolean per row; all True when there are no ordering fields.

    Raises:
        OrderingTypeError: An ordering field is nested or otherwise not comparable.
    """
    result: BoolMask = np.ones(num_rows, dtype=np.bool_)
    # Lexicographic ">=" built from the last field backwards: gt_i | (eq_i & rest).
    for field, old_col, new_col in reversed(list(zip(fields, older, newer, strict=True))):
        greater, equal = _compare_field(_plain(old_col, field), _plain(new_col, field))
        result = greater | (equal & result)
    return result


def _compare_one(left: Any, right: Any) -> int:
    if left is None or right is None:
        return (left is not None) - (right is not None)
    left_nan = isinstance(left, float) and math.isnan(left)
    right_nan = isinstance(right, float) and math.isnan(right)
    if left_nan or right_nan:
        return left_nan - right_nan
    return int(left > right) - int(left < right)


def compare_ordering_values(left: Sequence[Any], right: Sequence[Any]) -> int:
    """Compare two ordering values (tuples of field values) under the same order as :func:`newer_wins`.

    Args:
        left: One ordering value, e.g. ``MergeContext.ordering_value(row)``.
        right: Another, with the same number of fields.

    Returns:
        A negative number, zero or a positive number as ``left`` is lower than, equal to or higher
        than ``right``.
    """
    for left_value, right_value in zip(left, right, strict=True):
        outcome = _compare_one(left_value, right_value)
        if outcome:
            return outcome
    return 0
