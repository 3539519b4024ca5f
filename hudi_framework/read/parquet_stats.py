"""Column statistics from Parquet footers: per row group (row-group pruning) and per file (a stats source).

A Parquet footer keeps, per row group and column chunk, the smallest and largest non-null value and
the null count. Writers leave out statistics they cannot order (INT96 timestamps), pyarrow hides the
binary ones of old parquet-mr versions (signed byte order), and a writer may truncate long values (a
truncated minimum is still below every value, a maximum rounded up still above): whatever is left is
safe to skip with (:mod:`hudi_framework.read.skipping`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import pyarrow as pa

from hudi_framework.contracts.data_files import open_parquet
from hudi_framework.read.skipping import (
    COLUMN_NAME,
    FILE_NAME,
    IS_DELETED,
    MAX_VALUE,
    MIN_VALUE,
    NULL_COUNT,
    PARTITION,
    TOTAL_SIZE,
    TOTAL_UNCOMPRESSED_SIZE,
    VALUE_COUNT,
    ColumnRange,
    file_key,
    widen,
)

if TYPE_CHECKING:
    import pyarrow.parquet as pq

    from hudi_framework.contracts.storage import StorageBackend

__all__ = ["ParquetFooterStats", "row_group_ranges"]

#: Footers read at once by :class:`ParquetFooterStats` (each a ranged GET on object stores).
DEFAULT_FOOTER_READERS: Final = 16


def _chunk_columns(metadata: pq.FileMetaData, file_schema: pa.Schema, names: Sequence[str]) -> dict[str, int]:
    """Column chunk index of each of ``names`` that is a top-level primitive column of the file."""
    if not metadata.num_row_groups:
        return {}
    # Paths from the first row group's chunks: ``metadata.schema`` forms a reference cycle with the
    # metadata, keeping each footer (bloom filter included, ~0.4 MB) alive until the garbage collector
    # runs (800 footers: +330 MB peak memory).
    group = metadata.row_group(0)
    out: dict[str, int] = {}
    paths: list[str] | None = None
    for name in names:
        # Without nested columns before it, a column's chunk index is its field index: one lookup.
        guess = file_schema.get_field_index(name)
        if 0 <= guess < metadata.num_columns and group.column(guess).path_in_schema == name:
            out[name] = guess
            continue
        if paths is None:
            paths = [group.column(j).path_in_schema for j in range(metadata.num_columns)]
        if name in paths:
            out[name] = paths.index(name)
    return out


def _stats_type(file_schema: pa.Schema, name: str) -> pa.DataType | None:
    index = file_schema.get_field_index(name)
    if index < 0:
        return None
    typ = file_schema.field(index).type
    return typ.value_type if pa.types.is_dictionary(typ) else typ


_Chunks = tuple[pa.Array, pa.Array, pa.Array, pa.Array]
_Values = tuple[list[Any], list[Any], list[int | None], list[int]]
_FooterRow = tuple[str, pa.DataType, tuple[Any, ...]]


def _chunk_values(metadata: pq.FileMetaData, j: int) -> _Values:
    """(mins, maxes, null counts, value counts) of column chunk ``j`` in every row group (None: unknown)."""
    lows: list[Any] = []
    highs: list[Any] = []
    nulls: list[int | None] = []
    values: list[int] = []
    for i in range(metadata.num_row_groups):
        group = metadata.row_group(i)
        chunk = group.column(j)
        stats = chunk.statistics
        values.append(group.num_rows)
        usable = stats is not None and chunk.physical_type != "INT96"
        nulls.append(stats.null_count if usable and stats.has_null_count else None)
        has_range = usable and stats.has_min_max
        lows.append(stats.min if has_range else None)
        highs.append(stats.max if has_range else None)
    return lows, highs, nulls, values


def _column_chunks(metadata: pq.FileMetaData, j: int, typ: pa.DataType) -> _Chunks:
    """:func:`_chunk_values` as arrays, the bounds in the file's type."""
    lows, highs, nulls, values = _chunk_values(metadata, j)
    try:
        low, high = pa.array(lows, typ), pa.array(highs, typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError, OverflowError):
        low, high = pa.nulls(len(values), typ), pa.nulls(len(values), typ)
    return low, high, pa.array(nulls, pa.int64()), pa.array(values, pa.int64())


def row_group_ranges(metadata: pq.FileMetaData, file_schema: pa.Schema, schema: pa.Schema) -> dict[str, ColumnRange]:
    """Statistics of ``schema``'s columns (read types) in each row group of a file; units are row groups.

    Columns the file lacks are left out (unknown); statistics that do not widen to the read type
    are unknown.
    """
    chunks = _chunk_columns(metadata, file_schema, schema.names)
    out: dict[str, ColumnRange] = {}
    for field in schema:
        typ = _stats_type(file_schema, field.name)
        if field.name not in chunks or typ is None:
            continue
        low, high, nulls, values = _column_chunks(metadata, chunks[field.name], typ)
        wide_low, wide_high = widen(low, field.type), widen(high, field.type)
        if wide_low is None or wide_high is None:
            wide_low = wide_high = pa.nulls(len(low), field.type)
        out[field.name] = ColumnRange(wide_low, wide_high, nulls, values)
    return out


def _fold(lows: list[Any], highs: list[Any], nulls: list[int | None], values: list[int]) -> tuple[Any, Any, Any, int]:
    """Row groups folded into one (min, max, null count, value count), in plain Python: a file has few
    row groups, and Python orders these values (numbers, code points, bytes, dates) as Parquet does.
    A bound is None when a row group holding values has none, or holds NaN."""
    total_nulls = None if any(n is None for n in nulls) else sum(n for n in nulls if n is not None)
    held = [(lo, hi) for lo, hi, n, v in zip(lows, highs, nulls, values, strict=True) if n is None or n < v]
    bounds = [b for pair in held for b in pair]
    if any(b is None or (isinstance(b, float) and math.isnan(b)) for b in bounds):
        return None, None, total_nulls, sum(values)
    if not held:
        return None, None, total_nulls, sum(values)
    return min(lo for lo, _ in held), max(hi for _, hi in held), total_nulls, sum(values)


class ParquetFooterStats:
    """A :class:`~hudi_framework.read.skipping.ColumnStatsSource` reading each file's Parquet footer.

    Every file asked about costs a footer read on the planner (a ranged GET or two on object
    stores), done :data:`DEFAULT_FOOTER_READERS` at a time.
    """

    def __init__(self, storage: StorageBackend, *, max_workers: int = DEFAULT_FOOTER_READERS) -> None:
        self._storage = storage
        self._max_workers = max_workers

    @property
    def name(self) -> str:
        return "parquet_footers"

    def _footer(self, partition: str, name: str, columns: Sequence[str]) -> list[_FooterRow]:
        with open_parquet(self._storage, file_key(partition, name)) as parquet:
            metadata, file_schema = parquet.metadata, parquet.schema_arrow
        chunks = _chunk_columns(metadata, file_schema, columns)
        rows = []
        for column in columns:
            typ = _stats_type(file_schema, column)
            if column not in chunks or typ is None:
                continue
            j = chunks[column]
            folded = _fold(*_chunk_values(metadata, j))
            sizes = [(metadata.row_group(i).column(j).total_compressed_size,
                      metadata.row_group(i).column(j).total_uncompressed_size)
                     for i in range(metadata.num_row_groups)]  # fmt: skip
            total = (sum(s[0] for s in sizes), sum(s[1] for s in sizes))
            rows.append((column, typ, (partition, name, column, *folded, *total)))
        return rows

    def column_stats(self, files: Sequence[tuple[str, str]], columns: Sequence[str]) -> pa.Table | None:
        """Statistics of ``columns`` in ``files``, min and max as a dense union of the files' types."""
        if not files or not columns:
            return None
        workers = max(1, min(self._max_workers, len(files)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hudi-footers") as pool:
            found = [row for rows in pool.map(lambda f: self._footer(f[0], f[1], columns), files) for row in rows]
        if not found:
            return None
        return _stats_table(found)


def _stats_table(found: list[_FooterRow]) -> pa.Table:
    types: list[pa.DataType] = []
    for _, typ, _ in found:
        if typ not in types:
            types.append(typ)
    codes = np.array([types.index(typ) for _, typ, _ in found], dtype=np.int8)
    offsets = np.zeros(len(found), dtype=np.int32)
    children_low: list[list[Any]] = [[] for _ in types]
    children_high: list[list[Any]] = [[] for _ in types]
    for row, (_, _, values) in enumerate(found):
        code = codes[row]
        offsets[row] = len(children_low[code])
        children_low[code].append(values[3])
        children_high[code].append(values[4])

    def union(children: list[list[Any]]) -> pa.Array:
        arrays = [pa.array(values, typ) for values, typ in zip(children, types, strict=True)]
        return pa.UnionArray.from_dense(pa.array(codes), pa.array(offsets), arrays)

    columns = list(zip(*(values for _, _, values in found), strict=True))
    return pa.table(
        {
            PARTITION: pa.array(columns[0], pa.string()),
            FILE_NAME: pa.array(columns[1], pa.string()),
            COLUMN_NAME: pa.array(columns[2], pa.string()),
            MIN_VALUE: union(children_low),
            MAX_VALUE: union(children_high),
            NULL_COUNT: pa.array(columns[5], pa.int64()),
            VALUE_COUNT: pa.array(columns[6], pa.int64()),
            TOTAL_SIZE: pa.array(columns[7], pa.int64()),
            TOTAL_UNCOMPRESSED_SIZE: pa.array(columns[8], pa.int64()),
            IS_DELETED: pa.array([False] * len(found)),
        }
    )
