"""Small DataFrames describing a table (its timeline, file slices, savepoints), built on the driver
from the table's metadata: what Apache Hudi's ``show_*`` CALL procedures return, for Spark users."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import pyarrow as pa

from hudi_framework.timeline.instant import WRITE_ACTIONS, State
from hudi_framework.write.savepoint import list_savepoints

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.timeline.instant import Instant

__all__ = ["HISTORY_SCHEMA", "file_slices_frame", "history_frame", "savepoints_frame"]

#: Columns of :func:`history_frame`; the counts are sums over the commit's write stats (null for
#: instants without commit metadata: pending ones, cleans, rollbacks, savepoints).
HISTORY_SCHEMA: Final = pa.schema(
    [
        ("requested_time", pa.string()),
        ("completion_time", pa.string()),
        ("action", pa.string()),
        ("state", pa.string()),
        ("operation", pa.string()),
        ("num_files", pa.int64()),
        ("num_writes", pa.int64()),
        ("num_inserts", pa.int64()),
        ("num_updates", pa.int64()),
        ("num_deletes", pa.int64()),
        ("bytes_written", pa.int64()),
    ]
)
_COUNTS: Final = ("num_writes", "num_inserts", "num_update_writes", "num_deletes", "total_write_bytes")


def _history_row(table: HudiTable, instant: Instant) -> dict[str, object]:
    row: dict[str, object] = {
        "requested_time": instant.requested_time,
        "completion_time": instant.completion_time,
        "action": instant.action.value,
        "state": instant.state.value,
    }
    if instant.state is not State.COMPLETED or instant.action not in WRITE_ACTIONS:
        return row
    metadata = table.timeline.read_commit_metadata(instant)
    stats = metadata.write_stats()
    sums = [sum(getattr(s, name) or 0 for s in stats) for name in _COUNTS]
    row.update(
        operation=metadata.operation_type,
        num_files=len(stats),
        num_writes=sums[0],
        num_inserts=sums[1],
        num_updates=sums[2],
        num_deletes=sums[3],
        bytes_written=sums[4],
    )
    return row


def history_frame(spark: SparkSession, table: HudiTable) -> DataFrame:
    """Every instant of the active timeline, newest first (see :data:`HISTORY_SCHEMA`)."""
    instants = sorted(table.timeline.instants, key=lambda i: i.requested_time, reverse=True)
    rows = [_history_row(table, i) for i in instants]
    return spark.createDataFrame(pa.Table.from_pylist(rows, schema=HISTORY_SCHEMA))


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
