"""Sort orders for layout optimization: linear, Z-order and Hilbert over a table's sort columns.

``curve_order`` returns the row indices that sort a table by ``hoodie.layout.optimize.strategy``
over ``hoodie.clustering.plan.strategy.sort.columns``. Sorting rows along a space-filling curve keeps
rows close in every sort column close in the file order, so when the sorted rows are cut into files
each file spans a small range of every column and column statistics prune files for a filter on any
of them (a linear order prunes well on the first column only).

- ``linear``: lexicographic, column by column, nulls first and NaN after every number, as Spark
  sorts ascending (Apache Hudi's linear sort).
- ``z-order``: rows by the interleaved bits of their columns' coordinates (Morton order).
- ``hilbert``: rows by their position on the Hilbert curve over the same coordinates, which never
  jumps: consecutive positions are neighbouring cells.

With a single sort column both curves are the linear order of that column, as in Apache Hudi.
Coordinates come from the values (``direct``) or from their ranks among sampled boundaries
(``sample``, ``hoodie.layout.optimize.curve.build.method``); see :mod:`hudi_framework.layout.curve_keys`.
Every sort is stable and deterministic: equal positions keep the input order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import UnknownLayoutStrategyError, UnknownSortColumnError
from hudi_framework.layout.curve_bits import hilbert_words, interleave_words, order_of_words
from hudi_framework.layout.curve_keys import (
    coordinate_bits,
    direct_coordinates,
    sample_coordinates,
    sortable_values,
)
from hudi_framework.vocabulary import SpatialCurveBuildMethod

__all__ = [
    "BUILD_METHOD_KEY",
    "CURVES",
    "DEFAULT_SAMPLE_SIZE",
    "HILBERT",
    "LINEAR",
    "SAMPLE_SIZE_KEY",
    "STRATEGIES",
    "STRATEGY_KEY",
    "ZORDER",
    "curve_order",
    "curve_positions",
    "layout_strategy",
    "spatial_curve_build_method",
]

#: Apache Hudi's option naming the sort order.
STRATEGY_KEY = "hoodie.layout.optimize.strategy"
#: Apache Hudi's option naming how curve coordinates are built.
BUILD_METHOD_KEY = "hoodie.layout.optimize.curve.build.method"
#: Apache Hudi's option sizing the sample of the ``sample`` build method.
SAMPLE_SIZE_KEY = "hoodie.layout.optimize.build.curve.sample.size"
#: Apache Hudi's default of ``hoodie.layout.optimize.build.curve.sample.size``.
DEFAULT_SAMPLE_SIZE = 200_000

#: The values of ``hoodie.layout.optimize.strategy``, as Apache Hudi documents them.
LINEAR = "linear"
ZORDER = "z-order"
HILBERT = "hilbert"
STRATEGIES = (LINEAR, ZORDER, HILBERT)
CURVES = (ZORDER, HILBERT)
#: Apache Hudi reads "z-order" or an upper-cased enum name (``resolveLayoutOptimizationStrategy``).
_SPELLINGS = {"LINEAR": LINEAR, "Z-ORDER": ZORDER, "ZORDER": ZORDER, "Z_ORDER": ZORDER, "HILBERT": HILBERT}


def layout_strategy(value: str) -> str:
    """``value`` as one of :data:`STRATEGIES` (case-insensitive, ``zorder`` for ``z-order`` as
    Apache Hudi accepts), or :class:`UnknownLayoutStrategyError` naming ``hoodie.layout.optimize.strategy``."""
    strategy = _SPELLINGS.get(str(value).strip().upper()) if isinstance(value, str) else None
    if strategy is None:
        raise UnknownLayoutStrategyError(STRATEGY_KEY, value, STRATEGIES)
    return strategy


def spatial_curve_build_method(value: str | SpatialCurveBuildMethod) -> SpatialCurveBuildMethod:
    """``value`` as a build method (``direct``, ``sample``), or :class:`UnknownLayoutStrategyError`
    naming ``hoodie.layout.optimize.curve.build.method``."""
    try:
        return SpatialCurveBuildMethod(value)
    except ValueError:
        raise UnknownLayoutStrategyError(BUILD_METHOD_KEY, value, [m.value for m in SpatialCurveBuildMethod]) from None


def curve_order(
    table: pa.Table,
    columns: Sequence[str],
    strategy: str,
    *,
    build_method: str | SpatialCurveBuildMethod = SpatialCurveBuildMethod.DIRECT,
    sample_size: int = DEFAULT_SAMPLE_SIZE,
) -> pa.Array:
    """The row indices (``uint64``) that sort ``table`` by ``strategy`` over ``columns``.

    ``table.take(curve_order(...))`` is the sorted table. No columns keep the input order.

    Raises:
        UnknownLayoutStrategyError: ``strategy`` or ``build_method`` is not one of Apache Hudi's
            values, or ``sample_size`` is not positive (naming the option).
        UnknownSortColumnError: a column is not in ``table``.
        UnsupportedSortColumnTypeError: a column's type has no order the strategy supports
            (struct, list, map...).
    """
    chosen = layout_strategy(strategy)
    method = _checked(table, columns, build_method, sample_size)
    if not columns:
        return pa.array(np.arange(table.num_rows, dtype=np.uint64))
    if chosen == LINEAR or len(columns) == 1:
        return _linear_order(table, columns, chosen)
    words, bits = _curve_words(table, columns, chosen, method, sample_size)
    return pa.array(order_of_words(words, bits).astype(np.uint64))


def curve_positions(
    table: pa.Table,
    columns: Sequence[str],
    strategy: str,
    *,
    build_method: str | SpatialCurveBuildMethod = SpatialCurveBuildMethod.DIRECT,
    sample_size: int = DEFAULT_SAMPLE_SIZE,
) -> list[npt.NDArray[np.uint64]]:
    """Each row's position on the ``z-order`` or ``hilbert`` curve over ``columns``, as ``uint64``
    words, most significant first (a linear order has no positions).

    Raises:
        UnknownLayoutStrategyError: ``strategy`` is not a curve, or as :func:`curve_order`.
        UnknownSortColumnError, UnsupportedSortColumnTypeError: as :func:`curve_order`.
    """
    chosen = layout_strategy(strategy)
    if chosen == LINEAR:
        raise UnknownLayoutStrategyError(STRATEGY_KEY, strategy, CURVES)
    method = _checked(table, columns, build_method, sample_size)
    return _curve_words(table, columns, chosen, method, sample_size)[0]


def _curve_words(
    table: pa.Table, columns: Sequence[str], strategy: str, method: SpatialCurveBuildMethod, sample_size: int
) -> tuple[list[npt.NDArray[np.uint64]], int]:
    """(each row's position on the curve as words, bits in a position)."""
    arrays = [sortable_values(table.column(name), name, strategy) for name in columns]
    if not arrays:
        return [np.zeros(table.num_rows, dtype=np.uint64)], 0
    if method is SpatialCurveBuildMethod.SAMPLE:
        coordinates = sample_coordinates(arrays, sample_size)
    else:
        coordinates = [direct_coordinates(array) for array in arrays]
    bits = coordinate_bits(coordinates)
    if strategy == ZORDER:
        return interleave_words(coordinates, bits), bits * len(coordinates)
    return hilbert_words(coordinates, bits), bits * len(coordinates)


def _checked(
    table: pa.Table, columns: Sequence[str], build_method: str | SpatialCurveBuildMethod, sample_size: int
) -> SpatialCurveBuildMethod:
    """The build method, once the options and the columns are known to be valid."""
    method = spatial_curve_build_method(build_method)
    if isinstance(sample_size, bool) or not isinstance(sample_size, int) or sample_size < 1:
        raise UnknownLayoutStrategyError(SAMPLE_SIZE_KEY, sample_size, ["a positive number of rows"])
    for name in columns:
        if name not in table.schema.names:
            raise UnknownSortColumnError(name, table.schema.names)
    return method


def _linear_order(table: pa.Table, columns: Sequence[str], strategy: str) -> pa.Array:
    """Lexicographic order as Spark sorts ascending: nulls first, NaN after every number.

    pyarrow places NaN before numbers when nulls go first, and per-key null placement is recent, so
    the order is spelled with helper keys where a column needs them: validity before the column
    (nulls first) and NaN-ness before a floating column that holds NaN.
    """
    keys: dict[str, pa.Array] = {}
    for i, name in enumerate(columns):
        column = sortable_values(table.column(name), name, strategy)
        if column.null_count:
            keys[f"valid{i}"] = pc.is_valid(column)
        if pa.types.is_floating(column.type) and pc.any(pc.is_nan(column)).as_py():
            keys[f"nan{i}"] = pc.is_nan(column)
        if not pa.types.is_null(column.type):
            keys[f"value{i}"] = column
    if not keys:
        return pa.array(np.arange(table.num_rows, dtype=np.uint64))
    return pc.sort_indices(pa.table(keys), sort_keys=[(key, "ascending") for key in keys])
