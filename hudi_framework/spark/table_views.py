"""Small DataFrames describing a table (its timeline, file slices, savepoints), built on the driver
from the table's metadata: what Apache Hudi's ``show_*`` CALL procedures return, for Spark users."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import pyarrow as pa

from hudi_framework.timeline.history import instant_history
from hudi_framework.write.savepoint import list_savepoints

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from hudi_framework.runtime.table import HudiTable

__all__ = ["file_slices_frame", "history_frame", "savepoints_frame"]


def history_frame(spark: SparkSession, table: HudiTable, *, commits_only: bool = False) -> DataFrame:
    """Every instant of the active timeline (or its completed commits), newest first
    (:data:`~hudi_framework.timeline.history.HISTORY_SCHEMA`)."""
    return spark.createDataFrame(instant_history(table.timeline, commits_only=commits_only))


_SLICES_SCHEMA: Final = pa.schema(
    [
        ("partition", pa.string()),
        ("file_id", pa.string()),
        ("base_instant", pa.string()),
        ("base_file", pa.string()),
        ("base_file_size", pa.int64()),
        ("num_log_files", pa.int64()),
        ("log_files", pa.list_(pa.string())),
        ("log_files_size", pa.int64()),
    ]
)


def file_slices_frame(spark: SparkSession, table: HudiTable) -> DataFrame:
    """The latest file slice of every file group, by partition and file id."""
    rows = [
        {
            "partition": s.partition_path,
            "file_id": s.file_id,
            "base_instant": s.base_instant_time,
            "base_file": s.base_file.name if s.base_file else None,
            "base_file_size": s.base_file.size if s.base_file else None,
            "num_log_files": len(s.log_files),
            "log_files": [f.name for f in s.log_files],
            "log_files_size": sum(f.size or 0 for f in s.log_files),
        }
        for s in sorted(table.latest_file_slices(), key=lambda s: (s.partition_path, s.file_id))
    ]
    return spark.createDataFrame(pa.Table.from_pylist(rows, schema=_SLICES_SCHEMA))


_SAVEPOINTS_SCHEMA: Final = pa.schema(
    [
        ("instant_time", pa.string()),
        ("savepointed_by", pa.string()),
        ("savepointed_at_ms", pa.int64()),
        ("comments", pa.string()),
    ]
)


def savepoints_frame(spark: SparkSession, table: HudiTable) -> DataFrame:
    """The table's savepoints, oldest first."""
    rows = [
        {"instant_time": s.instant_time, "savepointed_by": s.savepointed_by,
         "savepointed_at_ms": s.savepointed_at_ms, "comments": s.comments}
        for s in sorted(list_savepoints(table), key=lambda s: s.instant_time)
    ]  # fmt: skip
    return spark.createDataFrame(pa.Table.from_pylist(rows, schema=_SAVEPOINTS_SCHEMA))
