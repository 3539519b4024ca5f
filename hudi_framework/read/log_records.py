"""The log records of one file slice: valid blocks turned into rows, held in memory or spilled.

Java's log record scanner rules (hudi-format.md section 4, "Reader rules"):

* blocks are read log file by log file, in file order, oldest first;
* a data or delete block counts only if its INSTANT_TIME is a completed write instant (or older than
  the active timeline) and, for time travel, not after ``as_of``;
* a COMMAND block (ROLLBACK) cancels every *earlier* block of its TARGET_INSTANT_TIME in the slice,
  whatever its own instant;
* a valid block with the COMPACTED_BLOCK_TIMES header (written by a log compaction) replaces every
  block of the instants it lists, wherever they are in the slice (a later log compaction may replace
  an earlier one's blocks the same way). Its rows count where it is in the slice; Apache Hudi counts
  them where the newest block they replace was, which differs only for a block of another writer
  between the two, and then only for records of equal ordering values;
* corrupt blocks are skipped and reported; intact blocks after them still count.

Every block becomes rows of one *log schema*: the merge schema, plus ``_hoodie_is_deleted`` when the
table has no such column, plus the columns a partial row carries (data blocks with the IS_PARTIAL
header, :mod:`hudi_framework.contracts.merging.partial`; null for full rows), plus a block sequence number (so a
later rollback can drop rows already buffered or spilled). DELETE blocks become delete rows: the key,
the partition path, is-deleted true and the ordering value, null for Apache Hudi's default
``IntWrapper(0)`` (a commit-time delete, which removes every older version; any other value competes
by ordering under event-time merging).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import from_numpy, python_array, repeated_string
from hudi_framework.contracts.merger import IS_DELETED_FIELD, PRESENT_COLUMNS_FIELD
from hudi_framework.contracts.merging.partial import presence_value
from hudi_framework.errors import ReadError
from hudi_framework.log.blocks import (
    CommandBlock,
    CommandType,
    CorruptBlock,
    DataBlock,
    DeleteBlock,
    HFileBlock,
    compacted_instants,
)
from hudi_framework.log.delete_columns import DeleteColumns
from hudi_framework.log.delete_records import COMMIT_TIME_ORDERING, OrderingType, OrderingValue
from hudi_framework.log.reader import read_log_file
from hudi_framework.read.conform import conform_array, constant_array
from hudi_framework.read.spill import DEFAULT_SPILL_PARTITIONS, SpillPartitions, key_partitions

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.read.merged_task import MergedReadTask
    from hudi_framework.read.record_positions import SlicePositions

__all__ = [
    "BLOCK_SEQ_FIELD",
    "CorruptLogBlockWarning",
    "LogRecordBuffer",
    "collect_log_records",
    "log_schema",
]

_LOG = logging.getLogger(__name__)

#: Bookkeeping column: the position of a row's block in the slice (never returned).
BLOCK_SEQ_FIELD: Final = "_hudi_fw_block_seq"
_PARTITION_PATH_FIELD: Final = "_hoodie_partition_path"

#: Called with each corrupt block a merged read skips.
CorruptBlockHandler = Callable[[CorruptBlock], None]


class CorruptLogBlockWarning(UserWarning):
    """A merged read skipped a damaged log block (file, offset and instant in the message)."""

    def __init__(self, block: CorruptBlock) -> None:
        self.block = block
        super().__init__(
            f"skipped corrupt log block in {block.path} at offset {block.offset} ({block.length} bytes, "
            f"instant {block.instant_time or 'unknown'}): {block.reason}"
        )


def log_schema(merge_schema: pa.Schema) -> pa.Schema:
    """The schema of buffered log rows for a merge schema (see the module docstring)."""
    fields = list(merge_schema)
    if merge_schema.get_field_index(IS_DELETED_FIELD) < 0:
        fields.append(pa.field(IS_DELETED_FIELD, pa.bool_()))
    fields.append(pa.field(PRESENT_COLUMNS_FIELD, pa.string()))
    fields.append(pa.field(BLOCK_SEQ_FIELD, pa.int64(), nullable=False))
    return pa.schema(fields)


def conform_table(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` as exactly ``schema`` (columns converted, absent ones null)."""
    columns = []
    for field in schema:
        index = table.schema.get_field_index(field.name)
        if index < 0:
            columns.append(pa.nulls(table.num_rows, field.type))
        else:
            columns.append(conform_array(table.column(index), field.type, name=field.name))
    return pa.Table.from_arrays(columns, schema=schema)


def _with_seq(table: pa.Table, seq: int) -> pa.Table:
    index = table.schema.get_field_index(BLOCK_SEQ_FIELD)
    column = from_numpy(np.full(table.num_rows, seq, dtype=np.int64))
    return table.set_column(index, table.schema.field(index), column)


class LogRecordBuffer:
    """Log rows of one file slice in arrival order: in memory up to a byte bound, then spilled by key hash."""

    def __init__(
        self,
        schema: pa.Schema,
        key_field: str,
        *,
        max_memory_bytes: int,
        num_partitions: int = DEFAULT_SPILL_PARTITIONS,
        label: str = "slice",
    ) -> None:
        """Start empty.

        Args:
            schema: The log schema (:func:`log_schema`).
            key_field: The record key column (spill partitioning).
            max_memory_bytes: Bytes of rows kept in memory before everything moves to spill files.
            num_partitions: Spill partitions.
            label: Names the spill directory (the file id).
        """
        self.schema = schema
        self._key_field = key_field
        self._max_bytes = max_memory_bytes
        self._num_partitions = num_partitions
        self._label = label
        self._tables: list[pa.Table] = []
        self._bytes = 0
        self._spill: SpillPartitions | None = None
        self._instants: dict[int, str] = {}
        self._rollbacks: dict[str, int] = {}
        self._replacements: list[tuple[int, tuple[str, ...]]] = []

    def __enter__(self) -> LogRecordBuffer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def spill(self) -> SpillPartitions | None:
        """The spill files, once the bound was exceeded."""
        return self._spill

    @property
    def num_partitions(self) -> int:
        """Spill partitions (meaningful once spilled)."""
        return self._num_partitions

    def add(self, table: pa.Table, *, instant: str, seq: int) -> None:
        """Append the rows of block ``seq`` written by ``instant`` (rows in the log schema)."""
        self._instants[seq] = instant
        if not table.num_rows:
            return
        table = _with_seq(table, seq)
        if self._spill is not None:
            self._spill.write(table, key_partitions(table.column(self._key_field), self._num_partitions))
            return
        self._tables.append(table)
        self._bytes += table.nbytes
        if self._bytes > self._max_bytes:
            self._spill_all()

    def _spill_all(self) -> None:
        self._spill = SpillPartitions(self.schema, self._num_partitions, prefix=self._label)
        _LOG.info(
            "log records of %s exceed %d bytes in memory; spilling to %d partitions",
            self._label, self._max_bytes, self._num_partitions,
        )  # fmt: skip
        for table in self._tables:
            self._spill.write(table, key_partitions(table.column(self._key_field), self._num_partitions))
        self._tables.clear()
        self._bytes = 0

    def rollback(self, target_instant: str, *, seq: int) -> None:
        """Cancel every block of ``target_instant`` added before block ``seq``."""
        self._rollbacks[target_instant] = max(seq, self._rollbacks.get(target_instant, -1))

    def replace(self, instants: Iterable[str], *, seq: int) -> None:
        """Cancel every block of ``instants``, added before or after, as block ``seq`` (a compacted
        block) replaces them, unless a rollback cancels that block."""
        self._replacements.append((seq, tuple(instants)))

    def valid_instants(self) -> list[str]:
        """The instants of the blocks that count (not rolled back, not replaced), in block order:
        what a log compaction of these blocks lists in its COMPACTED_BLOCK_TIMES header."""
        cancelled = set(self._cancelled())
        return list(dict.fromkeys(inst for s, inst in sorted(self._instants.items()) if s not in cancelled))

    def _rolled_back(self, seq: int) -> bool:
        inst = self._instants.get(seq)
        return inst is not None and seq < self._rollbacks.get(inst, -1)

    def _cancelled(self) -> list[int]:
        # A rolled-back compacted block replaces nothing (Java drops rolled-back instants first).
        replaced = {i for s, instants in self._replacements if not self._rolled_back(s) for i in instants}
        return sorted(s for s, inst in self._instants.items() if inst in replaced or self._rolled_back(s))

    def _valid(self, table: pa.Table) -> pa.Table:
        cancelled = self._cancelled()
        if not cancelled or not table.num_rows:
            return table
        dropped = pc.is_in(table.column(BLOCK_SEQ_FIELD), value_set=pa.array(cancelled, pa.int64()))
        return table.filter(pc.invert(dropped))

    def in_memory(self) -> pa.Table:
        """All rows, rollbacks applied (only when nothing was spilled)."""
        if self._spill is not None:
            raise ReadError("log records were spilled; read them partition by partition")
        table = pa.Table.from_batches([], schema=self.schema) if not self._tables else pa.concat_tables(self._tables)
        return self._valid(table)

    def finish(self) -> None:
        """No more rows: make spill partitions readable."""
        if self._spill is not None:
            self._spill.finish()

    def partition(self, partition: int) -> pa.Table:
        """One spill partition's rows in arrival order, rollbacks applied."""
        if self._spill is None:
            raise ReadError("log records were not spilled")
        return self._valid(self._spill.read(partition))

    def close(self) -> None:
        """Drop buffered rows and remove spill files."""
        self._tables.clear()
        if self._spill is not None:
            self._spill.close()


# ------------------------------------------------------------------------------------ blocks -> rows
def _data_rows(block: DataBlock, task: MergedReadTask, schema: pa.Schema) -> pa.Table:
    records = block.records
    for name, value in task.partition_values:
        # drop.partition.columns: restore the partition column from the path, as for base files.
        index = schema.get_field_index(name)
        if index >= 0 and records.schema.get_field_index(name) < 0:
            typ = schema.field(index).type
            records = records.append_column(name, constant_array(value, typ, records.num_rows, name=name))
    rows = conform_table(records, schema)
    if block.is_partial:
        # IS_PARTIAL: the block carries only its schema's columns; the others keep earlier values.
        value = presence_value(records.column_names)
        presence = repeated_string(value, rows.num_rows)
        rows = rows.set_column(rows.schema.get_field_index(PRESENT_COLUMNS_FIELD), PRESENT_COLUMNS_FIELD, presence)
    return rows


def _ordering_scalar(value: OrderingValue | None) -> object:
    """The Python value of one ordering value; None for a commit-time delete (``IntWrapper(0)``)."""
    if value is None or value == COMMIT_TIME_ORDERING:
        return None
    if value.type is OrderingType.ARRAY:
        items = value.value if isinstance(value.value, tuple) else ()
        return items[0].value if items and items[0] is not None else None
    return value.value


def _ordering_column(values: Sequence[OrderingValue | None], field: pa.Field, position: int) -> pa.Array:
    """The ``position``-th ordering field of each delete, as ``field``'s type (null when unknown)."""
    raw: list[object] = []
    for value in values:
        if value is not None and value.type is OrderingType.ARRAY and isinstance(value.value, tuple):
            items = value.value
            item = items[position] if position < len(items) else None
            raw.append(None if item is None else item.value)
        else:
            raw.append(_ordering_scalar(value) if position == 0 else None)
    try:
        return python_array(raw).cast(field.type) if any(v is not None for v in raw) else pa.nulls(len(raw), field.type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        # A value of another Java class than the column: Java never lets it beat a stored record.
        return pa.nulls(len(raw), field.type)


def _event_time_orderings(columns: DeleteColumns) -> pa.Array | None:
    """The ordering column of a delete block as Python values would be typed (``int64``, ``double``,
    ``bool``, ``string``, ``binary``), null for a commit-time delete (``IntWrapper(0)``); None when the
    values are not one scalar column (then they are read record by record)."""
    values = columns.ordering_values
    if values is None:
        return None
    if columns.ordering_type is None:
        return values
    if columns.ordering_type is OrderingType.INT:
        commit_time = columns.commit_time
        if commit_time.any():
            values = pc.if_else(from_numpy(commit_time), pa.nulls(len(values), values.type), values)
    # What _ordering_column's python_array would infer for the same values, so that the cast to the
    # ordering field's type behaves the same (including what fails and becomes null).
    if pa.types.is_int32(values.type):
        return values.cast(pa.int64())
    if pa.types.is_float32(values.type):
        return values.cast(pa.float64())
    return values


def _delete_rows(block: DeleteBlock, task: MergedReadTask, schema: pa.Schema) -> pa.Table:
    columns_of = block.columns
    n = len(columns_of)
    columns: dict[str, pa.Array] = {
        task.record_key_field: columns_of.record_keys,
        IS_DELETED_FIELD: from_numpy(np.ones(n, dtype=np.bool_)),
    }
    if schema.get_field_index(_PARTITION_PATH_FIELD) >= 0:
        columns[_PARTITION_PATH_FIELD] = columns_of.partition_paths
    orderings = _event_time_orderings(columns_of)
    if orderings is not None:
        # One scalar column: only the first ordering field gets values (as _ordering_column gives).
        if orderings.null_count < n and task.ordering_fields:
            name = task.ordering_fields[0]
            index = schema.get_field_index(name)
            if index >= 0 and name not in columns:
                columns[name] = _cast_ordering(orderings, schema.field(index))
        return conform_table(pa.table(columns), schema)
    values = block.ordering_values
    if any(v is not None and v != COMMIT_TIME_ORDERING for v in values):
        for position, name in enumerate(task.ordering_fields):
            index = schema.get_field_index(name)
            if index >= 0 and name not in columns:
                columns[name] = _ordering_column(values, schema.field(index), position)
    return conform_table(pa.table(columns), schema)


def _cast_ordering(values: pa.Array, field: pa.Field) -> pa.Array:
    try:
        return values.cast(field.type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        # A value of another Java class than the column: Java never lets it beat a stored record.
        return pa.nulls(len(values), field.type)


def collect_log_records(
    storage: StorageBackend,
    task: MergedReadTask,
    buffer: LogRecordBuffer,
    *,
    on_corrupt: CorruptBlockHandler | None = None,
    positions: SlicePositions | None = None,
) -> list[CorruptBlock]:
    """Read the slice's log files into ``buffer``; return the corrupt blocks skipped.

    Args:
        storage: The table's storage.
        task: The slice (log file keys, block validity, schemas).
        buffer: Receives rows in the log schema.
        on_corrupt: Called for each corrupt block (besides the warning every skip raises).
        positions: Gathers the record positions of the valid data and delete blocks (merging by position).

    Raises:
        UnsupportedLogBlockError: An HFILE_DATA block in a data table's log.
        StorageNotFoundError: A log file is gone.
    """
    schema = buffer.schema
    corrupt: list[CorruptBlock] = []
    seq = 0
    for key in task.log_file_keys:
        for block in read_log_file(storage, key):
            seq += 1
            if isinstance(block, CorruptBlock):
                corrupt.append(block)
                _LOG.warning("%s", CorruptLogBlockWarning(block))
                warnings.warn(CorruptLogBlockWarning(block), stacklevel=2)
                if on_corrupt is not None:
                    on_corrupt(block)
            elif isinstance(block, CommandBlock):
                if block.command_type is CommandType.ROLLBACK:
                    buffer.rollback(block.target_instant_time, seq=seq)
            elif not task.validity.is_valid(block.instant_time):
                continue
            elif isinstance(block, DataBlock | DeleteBlock):
                if isinstance(block, DataBlock):
                    rows = _data_rows(block, task, schema)
                else:
                    rows = _delete_rows(block, task, schema)
                if positions is not None:
                    positions.add_block(block.header, rows.column(task.record_key_field))
                buffer.add(rows, instant=block.instant_time or "", seq=seq)
                buffer.replace(compacted_instants(block), seq=seq)
            elif isinstance(block, HFileBlock):
                block.records  # noqa: B018 - raises UnsupportedLogBlockError naming the block type
    buffer.finish()
    return corrupt
