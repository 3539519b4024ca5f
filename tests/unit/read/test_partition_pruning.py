"""Partition pruning by partition statistics (:class:`PartitionPruning`): the rules of file skipping,
null checks never prune, and bounds Apache Hudi may have folded in another order (decimals as bytes,
strings in Java's UTF-16 order) never prune."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pyarrow as pa

from hudi_framework.read.filters import normalize_filters
from hudi_framework.read.skipping_plan import PartitionPruning

SCHEMA = pa.schema([("n", pa.int64()), ("s", pa.string()), ("d", pa.decimal128(10, 2))])


class _Stats:
    """Partition statistics from a list of ``(partition, column, min, max, nulls, values)``."""

    name = "metadata_table"

    def __init__(self, rows: list[tuple[str, str, Any, Any, int, int]], typ: pa.DataType) -> None:
        self._rows = rows
        self._type = typ

    def column_stats(self, files: Sequence[tuple[str, str]], columns: Sequence[str]) -> pa.Table | None:
        return None

    def partition_stats(self, partitions: Sequence[str], columns: Sequence[str]) -> pa.Table | None:
        rows = [r for r in self._rows if r[0] in partitions and r[1] in columns]
        return pa.table(
            {
                "partition": [r[0] for r in rows],
                "fileName": [r[0] for r in rows],
                "columnName": [r[1] for r in rows],
                "minValue": pa.array([r[2] for r in rows], self._type),
                "maxValue": pa.array([r[3] for r in rows], self._type),
                "nullCount": pa.array([r[4] for r in rows], pa.int64()),
                "valueCount": pa.array([r[5] for r in rows], pa.int64()),
            }
        )


def _pruned(filters: list[Any], stats: _Stats, kept: set[str]) -> set[str]:
    pruning = PartitionPruning(normalize_filters(filters), SCHEMA, stats, merged=False)  # type: ignore[arg-type]
    return pruning([], kept)


def test_ranges_prune_and_unknown_partitions_are_kept() -> None:
    stats = _Stats([("a", "n", 0, 9, 0, 10), ("b", "n", 10, 19, 0, 10), ("c", "n", 20, 29, 10, 10)], pa.int64())
    assert _pruned([("n", "=", 15)], stats, {"a", "b", "c", "d"}) == {"a", "c"}  # d: no statistics
    assert _pruned([("n", ">", 100)], stats, {"a", "b"}) == {"a", "b"}
    # c is all null: no comparison holds there, but null checks never prune.
    assert _pruned([("n", "<", 100)], stats, {"a", "c"}) == {"c"}
    assert _pruned([("n", "is null")], stats, {"a", "b", "c"}) == set()
    assert _pruned([("n", "is not null")], stats, {"a", "b", "c"}) == set()
    assert _pruned([[("n", "=", 5)], [("n", "=", 25)]], stats, {"a", "b", "c"}) == {"b", "c"}


def test_decimal_bounds_do_not_prune() -> None:
    # Apache Hudi 1.1.1 can leave decimal partition bounds narrower than the files (folded as bytes).
    stats = _Stats([("a", "d", Decimal("1250.00"), Decimal("5000.00"), 0, 5)], pa.decimal128(10, 2))
    assert _pruned([("d", "=", Decimal("750.00"))], stats, {"a"}) == set()


def test_string_bounds_whose_java_order_differs_do_not_prune() -> None:
    # Java orders U+FF01 after U+1F600 (UTF-16 surrogates); UTF-8 (and filters) the other way.
    stats = _Stats([("a", "s", "a", "\uff01", 0, 3), ("b", "s", "a", "b", 0, 3)], pa.string())
    assert _pruned([("s", "=", "\U0001f600")], stats, {"a", "b"}) == {"b"}
