"""Column statistics of data files as the metadata table's ``column_stats`` records them.

* Base files (Parquet): from the footer (min of the row groups' minimums, max of their maximums,
  summed null and value counts, summed compressed and uncompressed chunk sizes), the same numbers
  Apache Hudi takes from the footer it wrote.
* Log files: over the records of their data blocks (Java collects them while writing); sizes 0.

Only the columns Apache Hudi's Spark writers index can be asked for (:func:`indexable`): top-level
booleans, numbers, strings, dates, timestamps and decimals that fit ``decimal(30,15)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.naming import LogFileName
from hudi_framework.log.blocks import DataBlock
from hudi_framework.log.reader import read_log_bytes
from hudi_framework.read.parquet_stats import ParquetFooterStats
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
    file_key,
)

__all__ = ["STATS_COLUMNS", "concat_stats", "file_column_stats", "indexable", "records_stats", "union_of"]

#: The columns of :func:`file_column_stats` tables (min and max: dense unions of the files' types).
STATS_COLUMNS: Final = (
    PARTITION,
    FILE_NAME,
    COLUMN_NAME,
    MIN_VALUE,
    MAX_VALUE,
    NULL_COUNT,
    VALUE_COUNT,
    TOTAL_SIZE,
    TOTAL_UNCOMPRESSED_SIZE,
    IS_DELETED,
)
#: ``decimal(30, 15)``: the widest decimal Apache Hudi's column statistics hold.
_DECIMAL_DIGITS: Final = 15


def indexable(typ: pa.DataType) -> bool:
    """Whether Apache Hudi's Spark writers keep column statistics of a column of this type."""
    if pa.types.is_dictionary(typ):
        typ = typ.value_type
    if pa.types.is_decimal(typ):
        return bool(typ.scale <= _DECIMAL_DIGITS and typ.precision - typ.scale <= _DECIMAL_DIGITS)
    if pa.types.is_timestamp(typ):
        return bool(typ.unit != "s")
    return bool(
        pa.types.is_boolean(typ)
        or pa.types.is_integer(typ)
        or pa.types.is_float32(typ)
        or pa.types.is_float64(typ)
        or pa.types.is_string(typ)
        or pa.types.is_large_string(typ)
        or pa.types.is_date32(typ)
    )


def file_column_stats(
    storage: StorageBackend, files: Sequence[tuple[str, str]], columns: Sequence[str]
) -> pa.Table | None:
    """Statistics of ``columns`` in data ``files`` (``(partition path, file name)``), one row per
    (file, column) the file has; None when there are none. Files other than Parquet base files and
    log files are left out."""
    bases = [f for f in files if f[1].endswith(".parquet")]
    logs = [f for f in files if LogFileName.try_parse(f[1]) is not None]
    tables: list[pa.Table] = []
    if bases and columns:
        footer = ParquetFooterStats(storage).column_stats(bases, columns)
        if footer is not None:
            tables.append(footer)
    if logs and columns:
        contents = storage.read_many([file_key(p, n) for p, n in logs])
        for (partition, name), content in zip(logs, contents, strict=True):
            found = _log_stats(partition, name, content, columns)
            if found is not None:
                tables.append(found)
    if not tables:
        return None
    return concat_stats(tables)


def _log_stats(partition: str, name: str, content: bytes, columns: Sequence[str]) -> pa.Table | None:
    """Statistics over the records of a log file's data blocks."""
    blocks = [b.records for b in read_log_bytes(content, path=file_key(partition, name)) if isinstance(b, DataBlock)]
    blocks = [b for b in blocks if b.num_rows]
    if not blocks:
        return None
    return records_stats(partition, name, pa.concat_tables(blocks, promote_options="permissive"), columns)


def records_stats(partition: str, name: str, records: pa.Table, columns: Sequence[str]) -> pa.Table | None:
    """Statistics of ``columns`` (those ``records`` has) over the records a log file holds, as
    :func:`file_column_stats` gives them for that file; None when it has none of them.

    The write path calls this with the records of the data block it wrote (as the block holds
    them, conformed to its schema), so that the metadata table need not read the file back.
    """
    if not records.num_rows:
        return None
    rows: list[tuple[str, pa.Array, int, int]] = []
    for column in columns:
        if column not in records.column_names:
            continue
        values = records.column(column).combine_chunks()
        if pa.types.is_dictionary(values.type):
            values = values.dictionary_decode()
        bounds = pc.min_max(values)
        pair = pa.array([bounds["min"].as_py(), bounds["max"].as_py()], values.type)
        rows.append((column, pair, values.null_count, len(values)))
    if not rows:
        return None
    lows = union_of([r[1].slice(0, 1) for r in rows])
    highs = union_of([r[1].slice(1, 1) for r in rows])
    n = len(rows)
    return pa.table(
        {
            PARTITION: pa.array([partition] * n, pa.string()),
            FILE_NAME: pa.array([name] * n, pa.string()),
            COLUMN_NAME: pa.array([r[0] for r in rows], pa.string()),
            MIN_VALUE: lows,
            MAX_VALUE: highs,
            NULL_COUNT: pa.array([r[2] for r in rows], pa.int64()),
            VALUE_COUNT: pa.array([r[3] for r in rows], pa.int64()),
            TOTAL_SIZE: pa.array([0] * n, pa.int64()),
            TOTAL_UNCOMPRESSED_SIZE: pa.array([0] * n, pa.int64()),
            IS_DELETED: pa.array([False] * n),
        }
    )


def union_of(arrays: Sequence[pa.Array]) -> pa.UnionArray:
    """One dense union over ``arrays`` in order, one child per distinct type."""
    children: dict[pa.DataType, list[pa.Array]] = {}
    filled: dict[pa.DataType, int] = {}
    codes: list[npt.NDArray[np.int8]] = []
    offsets: list[npt.NDArray[np.int32]] = []
    for array in arrays:
        code, start = _slot(children, filled, array)
        codes.append(np.full(len(array), code, dtype=np.int8))
        offsets.append(np.arange(start, start + len(array), dtype=np.int32))
    return _dense(codes, offsets, [pa.concat_arrays(c) for c in children.values()])


def _slot(
    children: dict[pa.DataType, list[pa.Array]], filled: dict[pa.DataType, int], array: pa.Array
) -> tuple[int, int]:
    """Append ``array`` to the child of its type: that child's code and where ``array`` starts in it."""
    code = list(children).index(array.type) if array.type in children else len(children)
    start = filled.get(array.type, 0)
    children.setdefault(array.type, []).append(array)
    filled[array.type] = start + len(array)
    return code, start


def _dense(
    codes: Sequence[npt.NDArray[np.int8]], offsets: Sequence[npt.NDArray[np.int32]], children: Sequence[pa.Array]
) -> pa.UnionArray:
    flat_codes = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int8)
    flat_offsets = np.concatenate(offsets) if offsets else np.zeros(0, dtype=np.int32)
    return pa.UnionArray.from_dense(pa.array(flat_codes, pa.int8()), pa.array(flat_offsets, pa.int32()), list(children))


def concat_stats(tables: Sequence[pa.Table]) -> pa.Table:
    """Stats tables stacked, their min and max unions re-coded over every child type."""
    if len(tables) == 1:
        return tables[0]
    # Chunk by chunk: pyarrow cannot combine the no chunks of an empty union column.
    bounds = {
        column: _concat_unions([chunk for t in tables for chunk in t.column(column).chunks])
        for column in (MIN_VALUE, MAX_VALUE)
    }
    rest = pa.concat_tables([t.drop_columns([MIN_VALUE, MAX_VALUE]) for t in tables])
    return (
        rest.add_column(3, MIN_VALUE, bounds[MIN_VALUE])
        .add_column(4, MAX_VALUE, bounds[MAX_VALUE])
        .select(list(STATS_COLUMNS))
    )


def _concat_unions(unions: Sequence[pa.UnionArray]) -> pa.UnionArray:
    """Dense unions stacked: children of one type concatenated, codes and offsets mapped column-wise."""
    children: dict[pa.DataType, list[pa.Array]] = {}
    filled: dict[pa.DataType, int] = {}
    codes: list[npt.NDArray[np.int8]] = []
    offsets: list[npt.NDArray[np.int32]] = []
    for union in unions:
        to_code = np.zeros(128, dtype=np.int8)
        shift = np.zeros(128, dtype=np.int32)
        for i, type_code in enumerate(union.type.type_codes):
            to_code[type_code], shift[type_code] = _slot(children, filled, union.field(i))
        local = union.type_codes.to_numpy(zero_copy_only=False)
        codes.append(to_code[local])
        offsets.append(union.offsets.to_numpy(zero_copy_only=False) + shift[local])
    return _dense(codes, offsets, [pa.concat_arrays(c) for c in children.values()])
