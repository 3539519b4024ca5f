"""Column statistics tables whose min/max unions arrive in several chunks, or in none (an empty table:
the statistics of a merge-on-read log file holding only partial-update blocks), stack without
concatenating dense unions, which pyarrow cannot do for an empty list of chunks: the metadata table's
delta commit of such a write succeeds (tests/acceptance/test_partial_updates.py writes them)."""

from __future__ import annotations

import pyarrow as pa

from hudi_framework.metadata_writer.file_column_stats import STATS_COLUMNS, concat_stats, union_of
from hudi_framework.read.skipping import COLUMN_NAME, FILE_NAME, MAX_VALUE, MIN_VALUE


def _stats(files: list[str], lows: list[pa.Array], highs: list[pa.Array]) -> pa.Table:
    n = len(files)
    columns = {
        "partition": pa.array(["p"] * n),
        FILE_NAME: pa.array(files),
        COLUMN_NAME: pa.array(["c"] * n),
        MIN_VALUE: union_of(lows),
        MAX_VALUE: union_of(highs),
        "nullCount": pa.array([0] * n, pa.int64()),
        "valueCount": pa.array([1] * n, pa.int64()),
        "totalSize": pa.array([0] * n, pa.int64()),
        "totalUncompressedSize": pa.array([0] * n, pa.int64()),
        "isDeleted": pa.array([False] * n),
    }
    return pa.table({name: columns[name] for name in STATS_COLUMNS})


def _rows(table: pa.Table) -> list[tuple[str, object, object]]:
    return [
        (f, lo, hi)
        for f, lo, hi in zip(
            table.column(FILE_NAME).to_pylist(),
            table.column(MIN_VALUE).to_pylist(),
            table.column(MAX_VALUE).to_pylist(),
            strict=True,
        )
    ]


def test_stats_tables_with_chunked_unions_stack() -> None:
    first = _stats(["a"], [pa.array([1], pa.int32())], [pa.array([5], pa.int32())])
    second = _stats(["b"], [pa.array([2], pa.int32())], [pa.array([3], pa.int32())])
    chunked = pa.concat_tables([first, second])  # one table, its unions in two chunks
    assert chunked.column(MIN_VALUE).num_chunks == 2
    texts = _stats(["c"], [pa.array(["x"])], [pa.array(["y"])])
    empty = pa.table({name: pa.chunked_array([], texts.schema.field(name).type) for name in STATS_COLUMNS})
    assert empty.column(MIN_VALUE).num_chunks == 0
    stacked = concat_stats([chunked, empty, texts])
    assert _rows(stacked) == [("a", 1, 5), ("b", 2, 3), ("c", "x", "y")]
    union = stacked.column(MIN_VALUE).chunk(0)
    assert [union.type.field(i).type for i in range(union.type.num_fields)] == [pa.int32(), pa.string()]
