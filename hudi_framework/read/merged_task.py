"""A merge-on-read task: one file slice (base file and log files) to read merged.

Like :class:`~hudi_framework.read.plan.ReadTask` it is plain picklable data planned on the driver
(Spark ships it inside an ``InputPartition``); a worker runs it with
:func:`hudi_framework.read.merged.read_merged_task` and a storage backend of its own. The merger is
an instance of the table's :class:`~hudi_framework.contracts.merger.RecordMerger`, which the merger
contract requires to be picklable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_framework.contracts.merger import RECORD_KEY_FIELD, MergeContext

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.contracts.merger import RecordMerger
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.read.filters import Disjunction
    from hudi_framework.read.plan import CommitTimeFilter

#: Default of ``hoodie.memory.merge.max.size`` (1 GiB), as Apache Hudi.
DEFAULT_MERGE_MEMORY_BYTES = 1 << 30


@dataclass(frozen=True, slots=True)
class InstantValidity:
    """Which log blocks count, by their INSTANT_TIME header (Java ``AbstractHoodieLogRecordScanner``).

    Attributes:
        completed: Requested times of the completed write instants (delta commits, commits...).
        timeline_start: Requested time of the first instant of the active timeline: older instants
            were archived and count as completed (Java ``containsOrBeforeTimelineStarts``).
        as_of: Time travel: blocks of later instants are ignored.
    """

    completed: frozenset[str]
    timeline_start: str | None = None
    as_of: str | None = None

    def is_valid(self, instant: str | None) -> bool:
        """Whether a block of ``instant`` is committed and visible."""
        if instant is None:
            return False
        if self.as_of is not None and instant > self.as_of:
            return False
        if instant in self.completed:
            return True
        return self.timeline_start is not None and instant < self.timeline_start


@dataclass(frozen=True, slots=True)
class MergedReadTask:
    """Read one file slice merged: base file rows, then log records in log file and block order.

    Attributes:
        base_file_key: Storage key of the base file; None for a file group that only has log files.
        log_file_keys: Storage keys of the slice's log files, in Java's order (oldest first).
        validity: Which blocks count (committed, not after ``as_of``).
        merger: The table's record merger.
        merge_schema: The table's whole read schema (meta columns, data, partition columns): rows are
            merged in it before ``row_filter``, ``commit_time_filter`` and the projection apply.
        schema: The exact schema of every batch the task yields (the projection).
        partition_path: Relative partition path of the file group.
        partition_values: ``(field, value)`` decoded from the partition path, for partition columns
            missing from the files.
        file_id: The file group's id.
        instant_time: The slice's base instant time.
        ordering_fields: The table's ordering fields.
        record_key_field: The column holding record keys (``_hoodie_record_key``, or the key field of a
            table without meta fields).
        max_memory_bytes: ``hoodie.memory.merge.max.size``: log records kept in memory before spilling.
        file_size: Bytes of the slice's files if known (engines balance splits by it).
        commit_time_filter: Incremental reads: which ``_hoodie_commit_time`` values of the merged rows to keep.
        row_filter: Normalised filters applied to the merged rows.
        filter_schema: Read-schema types of the columns ``row_filter`` uses.
        use_record_positions: ``hoodie.merge.use.record.positions``: pair log records with base rows
            by the positions their blocks carry (:mod:`~hudi_framework.read.record_positions`).
    """

    base_file_key: str | None
    log_file_keys: tuple[str, ...]
    validity: InstantValidity
    merger: RecordMerger
    merge_schema: pa.Schema
    schema: pa.Schema
    partition_path: str
    partition_values: tuple[tuple[str, str | None], ...] = ()
    file_id: str = ""
    instant_time: str = ""
    ordering_fields: tuple[str, ...] = ()
    record_key_field: str = RECORD_KEY_FIELD
    max_memory_bytes: int = DEFAULT_MERGE_MEMORY_BYTES
    file_size: int | None = None
    commit_time_filter: CommitTimeFilter | None = None
    row_filter: Disjunction = ()
    filter_schema: pa.Schema | None = None
    use_record_positions: bool = False

    @classmethod
    def whole_slice(
        cls,
        file_slice: FileSlice,
        *,
        validity: InstantValidity,
        merger: RecordMerger,
        merge_schema: pa.Schema,
        ordering_fields: tuple[str, ...],
        record_key_field: str,
        max_memory_bytes: int = DEFAULT_MERGE_MEMORY_BYTES,
    ) -> MergedReadTask:
        """A task that yields every merged record of ``file_slice`` in ``merge_schema`` (no filter, no
        projection): what compaction writes, and what a write merges with."""
        return cls(
            base_file_key=file_slice.base_file_key,
            log_file_keys=tuple(file_slice.log_file_keys),
            validity=validity,
            merger=merger,
            merge_schema=merge_schema,
            schema=merge_schema,
            partition_path=file_slice.partition_path,
            file_id=file_slice.file_id,
            instant_time=file_slice.base_instant_time,
            ordering_fields=ordering_fields,
            record_key_field=record_key_field,
            max_memory_bytes=max_memory_bytes,
        )

    @property
    def merge_context(self) -> MergeContext:
        """The merge context: ordering fields, key column and the merge schema."""
        return MergeContext(
            ordering_fields=self.ordering_fields, record_key_field=self.record_key_field, schema=self.merge_schema
        )
