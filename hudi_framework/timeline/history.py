"""A timeline's history as a table: one row per instant with the counts of its commit metadata
(what Apache Hudi's ``show_commits`` procedure shows), for the CLI and Spark's ``history()``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import pyarrow as pa

from hudi_framework.timeline.instant import WRITE_ACTIONS, State

if TYPE_CHECKING:
    from hudi_framework.timeline.instant import Instant
    from hudi_framework.timeline.timeline import Timeline

__all__ = ["HISTORY_SCHEMA", "instant_history"]

#: Columns of :func:`instant_history`. The counts are sums over the commit's write stats; they are
#: null for instants without commit metadata (pending ones, cleans, rollbacks, savepoints).
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
#: Write stat fields summed into the count columns, in column order.
_SUMMED: Final = (
    ("num_writes", "num_writes"),
    ("num_inserts", "num_inserts"),
    ("num_updates", "num_update_writes"),
    ("num_deletes", "num_deletes"),
    ("bytes_written", "total_write_bytes"),
)


def _row(timeline: Timeline, instant: Instant) -> dict[str, object]:
    row: dict[str, object] = {
        "requested_time": instant.requested_time,
        "completion_time": instant.completion_time,
        "action": instant.action.value,
        "state": instant.state.value,
    }
    if instant.state is not State.COMPLETED or instant.action not in WRITE_ACTIONS:
        return row
    metadata = timeline.read_commit_metadata(instant)
    stats = metadata.write_stats()
    row["operation"] = metadata.operation_type
    row["num_files"] = len(stats)
    for column, field in _SUMMED:
        row[column] = sum(getattr(s, field) or 0 for s in stats)
    return row


def instant_history(timeline: Timeline, *, commits_only: bool = False) -> pa.Table:
    """Every instant of the active timeline, newest first (:data:`HISTORY_SCHEMA`).

    Args:
        timeline: The table's timeline.
        commits_only: Only completed commits, delta commits and replace commits (``show_commits``).

    Raises:
        InstantMetadataError: A completed commit's metadata cannot be decoded.
    """
    instants = sorted(timeline.instants, key=lambda i: i.requested_time, reverse=True)
    if commits_only:
        instants = [i for i in instants if i.state is State.COMPLETED and i.action in WRITE_ACTIONS]
    return pa.Table.from_pylist([_row(timeline, i) for i in instants], schema=HISTORY_SCHEMA)
