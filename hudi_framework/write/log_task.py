"""The per-file-group merge-on-read task: append a file group's updates, deletes and (with an index
that finds keys in log files) inserts to a new log file.

Engine-neutral like :func:`~hudi_framework.write.file_group_task.write_file_group` (the local engine
runs it in-process, Spark in ``mapInArrow``). Nothing is merged: the rows go into one log file of
the file group's latest slice, as Apache Hudi's append handle writes them (hudi-format.md 3.2-3.5, 4):

* one AVRO_DATA (or PARQUET_DATA) block with the updated records, meta columns filled
  (``_hoodie_file_name`` is the file id, as Java writes it in log records), then one DELETE block;
  a partial update (``ctx.partial_columns``) writes only the carried columns, with the partial
  schema as SCHEMA and the IS_PARTIAL header ``true``, as Apache Hudi 1.1's append handle does;
* v8+: a new file ``.<fileId>_<deltaCommit>.log.1_<token>``; v6: the next version of
  ``.<fileId>_<sliceBaseInstant>.log.N_<token>`` (a pending compaction's instant when one is pending);
  blocks that would take a file over ``hoodie.logfile.max.size`` go to the next version (rollover);
* an ``APPEND`` marker before the file, so a failed write can be rolled back;
* inserts (rows routed with ``INSERTED`` true) go into the data block like updates; the write stat
  counts them (``numInserts``) and the record index is told their keys, as Java's append handle
  counts records without a current location.

Deletes carry ``IntWrapper(0)`` (a commit-time delete, what Java writes for the delete operation)
unless the context says they carry ordering values (soft deletes of an upsert) and the row has one.
"""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_framework.contracts.arrays import contiguous, from_numpy, repeated_string
from hudi_framework.contracts.merger import MergeContext, RecordMerger
from hudi_framework.contracts.merging.flags import delete_mask
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.naming import LogFileName
from hudi_framework.log.blocks import DataBlock, DeleteBlock, HeaderKey
from hudi_framework.log.codec import encode_block
from hudi_framework.log.delete_columns import ORDERING_ARROW_TYPES, DeleteColumns
from hudi_framework.log.delete_records import COMMIT_TIME_ORDERING, OrderingType, OrderingValue
from hudi_framework.log.writer import WrittenLogFile, create_log_files
from hudi_framework.metadata.key_changes import FileKeyChanges
from hudi_framework.metadata_writer.file_column_stats import indexable, records_stats
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_json, with_meta_fields
from hudi_framework.timeline.metadata import RuntimeStats, WriteStat
from hudi_framework.write.file_group_task import (
    FILE_NAME,
    INSERTED,
    RECORD_KEY,
    FileGroupWrite,
    WriteTaskContext,
    stamp_incoming,
)
from hudi_framework.write.markers import IOType, create_marker
from hudi_framework.write.record_positions import base_file_positions, positioned

__all__ = [
    "LogPart",
    "append_file_group",
    "data_parts",
    "delete_columns",
    "delete_part",
    "log_block_schema",
    "ordering_column",
    "ordering_values",
    "write_log_parts",
]

#: First table version whose log files are named by their own delta commit.
_OWN_INSTANT_LOG_VERSION = 8


def log_block_schema(ctx: WriteTaskContext, *, partial: bool = False) -> str:
    """The SCHEMA header of this write's blocks: the table schema with the meta fields (when populated).

    With ``partial`` (a partial update, ``ctx.partial_columns``), the data fields are only those the
    rows carry, in table order: Apache Hudi's partial schema (a projection of the table schema, same
    record name, meta fields added) for data blocks with the IS_PARTIAL header.
    """
    carried = set(ctx.partial_columns)
    data = pa.schema([f for f in ctx.schema if f.name not in META_FIELDS and (not partial or f.name in carried)])
    avro = arrow_to_avro(data, ctx.table_name)
    return avro_json(with_meta_fields(avro) if ctx.populate_meta_fields else avro)


def _record_schema(ctx: WriteTaskContext) -> pa.Schema:
    """The columns of this write's data block records (the partial ones for a partial update)."""
    if not ctx.partial_columns:
        return ctx.schema
    carried = set(ctx.partial_columns)
    return pa.schema([f for f in ctx.schema if f.name in META_FIELDS or f.name in carried])


def _wrapper_type(t: pa.DataType) -> OrderingType | None:
    """The wrapper of values of Arrow type ``t`` (HoodieAvroUtils.wrapValueIntoAvro goes by the Java
    class of the value); None for types without one."""
    if pa.types.is_boolean(t):
        return OrderingType.BOOLEAN
    if pa.types.is_int64(t) or pa.types.is_uint32(t):
        return OrderingType.LONG
    if pa.types.is_integer(t):
        return OrderingType.INT
    if pa.types.is_float32(t):
        return OrderingType.FLOAT
    if pa.types.is_floating(t):
        return OrderingType.DOUBLE
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return OrderingType.STRING
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return OrderingType.BYTES
    if pa.types.is_date32(t):
        return OrderingType.DATE
    if pa.types.is_decimal(t):
        return OrderingType.DECIMAL
    return None


def _wrap(value: Any, t: pa.DataType) -> OrderingValue | None:
    kind = _wrapper_type(t)
    if value is None or kind is None:
        return None
    if kind is OrderingType.BOOLEAN:
        return OrderingValue(kind, bool(value))
    if kind in (OrderingType.LONG, OrderingType.INT):
        return OrderingValue(kind, int(value))
    if kind in (OrderingType.FLOAT, OrderingType.DOUBLE):
        return OrderingValue(kind, float(value))
    if kind is OrderingType.STRING:
        return OrderingValue(kind, str(value))
    if kind is OrderingType.BYTES:
        return OrderingValue(kind, bytes(value))
    if kind is OrderingType.DATE and isinstance(value, dt.date):
        return OrderingValue(kind, (value - dt.date(1970, 1, 1)).days)
    if kind is OrderingType.DECIMAL and isinstance(value, decimal.Decimal):
        return OrderingValue(kind, value)
    return None


def ordering_values(rows: pa.Table, ordering_fields: Sequence[str]) -> list[OrderingValue]:
    """The DELETE-block ordering value of each row: its ordering field's value, wrapped by type.

    Rows without a value (no ordering field, a null, or a type without a wrapper) get
    ``IntWrapper(0)``, a commit-time delete. Several ordering fields give an ``ArrayWrapper``.
    """
    n = rows.num_rows
    fields = [f for f in ordering_fields if f in rows.column_names]
    if not fields or len(fields) != len(ordering_fields):
        return [COMMIT_TIME_ORDERING] * n
    if pa.types.is_timestamp(rows.schema.field(fields[0]).type) and len(fields) == 1:
        micros = rows.column(fields[0]).cast(pa.timestamp("us")).cast(pa.int64()).to_pylist()
        return [
            COMMIT_TIME_ORDERING if v is None else OrderingValue(OrderingType.TIMESTAMP_MICROS, int(v)) for v in micros
        ]
    columns = [(rows.column(f).to_pylist(), rows.schema.field(f).type) for f in fields]
    out: list[OrderingValue] = []
    for i in range(n):
        wrapped = [_wrap(values[i], t) for values, t in columns]
        if len(wrapped) == 1:
            out.append(wrapped[0] or COMMIT_TIME_ORDERING)
        elif all(w is None for w in wrapped):
            out.append(COMMIT_TIME_ORDERING)
        else:
            out.append(OrderingValue(OrderingType.ARRAY, tuple(wrapped)))
    return out


def ordering_column(rows: pa.Table, ordering_fields: Sequence[str]) -> tuple[OrderingType, pa.Array] | None:
    """The DELETE-block ordering values of ``rows`` as one column, when they are of one scalar wrapper
    type: what :func:`ordering_values` gives, without a Python object per row.

    None when they are not (several ordering fields, nulls, which become commit-time deletes beside
    typed values, decimals, or a type :func:`ordering_values` does not wrap): use that function then.
    """
    n = rows.num_rows
    fields = [f for f in ordering_fields if f in rows.column_names]
    if not fields or len(fields) != len(ordering_fields):
        return OrderingType.INT, from_numpy(np.zeros(n, dtype=np.int32))  # commit-time deletes
    if len(fields) > 1:
        return None
    column = contiguous(rows.column(fields[0]))
    t = column.type
    if column.null_count:
        return None
    if pa.types.is_timestamp(t):
        return OrderingType.TIMESTAMP_MICROS, column.cast(pa.timestamp("us")).cast(pa.int64())
    kind = _wrapper_type(t)
    # Decimals are never columnar; uint64 and float16 values are converted one by one, as Java would.
    if kind is None or kind not in ORDERING_ARROW_TYPES or pa.types.is_uint64(t) or pa.types.is_float16(t):
        return None
    return kind, column.cast(ORDERING_ARROW_TYPES[kind])


def delete_columns(rows: pa.Table, partition: str, ordering_fields: Sequence[str]) -> DeleteColumns | None:
    """The DELETE-block entries of ``rows`` (deletes of one file group in ``partition``) as columns,
    or None when their ordering values are not columnar (see :func:`ordering_column`)."""
    ordering = ordering_column(rows, ordering_fields)
    if ordering is None:
        return None
    keys = contiguous(rows.column(RECORD_KEY)).cast(pa.string())
    paths = repeated_string(partition, rows.num_rows)
    return DeleteColumns(keys, paths, ordering[0], ordering[1])


def _data_records(rows: pa.Table, ctx: WriteTaskContext, file_id: str, task_partition_id: int) -> pa.Table:
    """Upserted rows as log records: exactly the file schema, meta columns filled as Java fills them."""
    if ctx.populate_meta_fields:
        rows = stamp_incoming(rows, ctx.instant, task_partition_id)
        names = repeated_string(file_id, rows.num_rows)
        idx = rows.schema.get_field_index(FILE_NAME)
        rows = rows.set_column(idx, FILE_NAME, names) if idx >= 0 else rows.append_column(FILE_NAME, names)
    schema = _record_schema(ctx)
    return rows.select(schema.names).cast(schema)


def _positions(
    storage: StorageBackend, ctx: WriteTaskContext, target: FileGroupWrite, incoming: pa.Table
) -> npt.NDArray[np.int64] | None:
    """Base-file positions of the incoming keys (-1: not in the base file); None when not written.

    Only for a slice whose base file is the latest one (a pending compaction's slice has none yet)
    and tables of version 8+, whose header set has BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS.
    """
    if (
        not ctx.record_positions
        or ctx.table_version < _OWN_INSTANT_LOG_VERSION
        or target.base_file_key is None
        or target.base_instant != target.slice_instant
        or not incoming.num_rows
    ):
        return None
    return base_file_positions(storage, target.base_file_key, incoming.column(RECORD_KEY))


def _of(positions: npt.NDArray[np.int64] | None, rows: npt.NDArray[np.bool_] | slice) -> npt.NDArray[np.int64] | None:
    return None if positions is None else positions[rows]


@dataclass(frozen=True, slots=True)
class LogPart:
    """One encoded block of an append and what it holds (for its log file's write stat)."""

    encoded: bytes
    upserts: int = 0
    inserted: pa.Array | None = None
    deleted: pa.Array | None = None
    records: pa.Table | None = None


def data_parts(
    ctx: WriteTaskContext,
    target: FileGroupWrite,
    records: pa.Table,
    keys: pa.ChunkedArray | pa.Array,
    positions: npt.NDArray[np.int64] | None,
    inserted: npt.NDArray[np.bool_],
    extra_header: dict[HeaderKey, str] | None = None,
) -> list[LogPart]:
    """The data block(s) of ``records`` (of keys ``keys``, ``inserted`` flagging new ones): one, or
    (over ``log_file_max_size``) as many as keep each under it; ``extra_header`` goes into each."""
    partial = bool(ctx.partial_columns)
    schema_json = log_block_schema(ctx, partial=partial)

    def part(start: int, stop: int) -> LogPart:
        rows, header = positioned(
            records.slice(start, stop - start), _of(positions, slice(start, stop)), target.base_instant or ""
        )
        if partial:
            header[HeaderKey.IS_PARTIAL] = "true"
        header.update(extra_header or {})
        block = DataBlock.create(
            rows,
            instant_time=ctx.instant,
            schema=schema_json,
            block_type=ctx.log_block_type,
            extra_header=header or None,
            compression=ctx.parquet.compression,
        )
        new = contiguous(keys.slice(start, stop - start).filter(pa.array(inserted[start:stop]))).cast(pa.string())
        return LogPart(encode_block(block), stop - start, new, None, block.records)

    n = records.num_rows
    whole = part(0, n)
    if len(whole.encoded) <= ctx.log_file_max_size or n < 2:
        return [whole]
    # Encoded size grows about linearly with rows; a margin keeps each piece under the limit.
    pieces = min(n, math.ceil(len(whole.encoded) * 1.1 / ctx.log_file_max_size))
    bounds = np.linspace(0, n, pieces + 1).astype(np.int64)
    return [part(int(a), int(b)) for a, b in itertools.pairwise(bounds) if b > a]


def delete_part(
    ctx: WriteTaskContext,
    target: FileGroupWrite,
    deletes: pa.Table,
    positions: npt.NDArray[np.int64] | None,
    extra_header: dict[HeaderKey, str] | None = None,
) -> LogPart:
    """The DELETE block of ``deletes`` (key, partition and ordering columns)."""
    deletes, header = positioned(deletes, positions, target.base_instant or "")
    header.update(extra_header or {})
    schema_json = log_block_schema(ctx)
    columns = delete_columns(deletes, target.partition, ctx.ordering_fields if ctx.delete_ordering else ())
    if columns is not None:
        block = DeleteBlock.create_from_columns(
            columns, instant_time=ctx.instant, schema=schema_json, extra_header=header or None
        )
    else:
        block = DeleteBlock.create(
            deletes.column(RECORD_KEY).to_pylist(),
            [target.partition] * deletes.num_rows,
            instant_time=ctx.instant,
            ordering_values=ordering_values(deletes, ctx.ordering_fields),
            schema=schema_json,
            extra_header=header or None,
        )
    return LogPart(encode_block(block), deleted=contiguous(deletes.column(RECORD_KEY)).cast(pa.string()))


def append_file_group(
    storage: StorageBackend,
    ctx: WriteTaskContext,
    target: FileGroupWrite,
    incoming: pa.Table,
    *,
    task_partition_id: int = 0,
    write_token: str = "0-0-0",
    merger: RecordMerger | None = None,
    key_changes: dict[str, FileKeyChanges] | None = None,
    log_stats: dict[str, pa.Table | None] | None = None,
) -> list[WriteStat]:
    """Append ``incoming`` (updates and deletes of one file group) to new log files of its latest slice.

    One log file, unless the blocks exceed ``ctx.log_file_max_size`` (``hoodie.logfile.max.size``):
    then the data is split into several blocks and the blocks spread over log files of increasing
    version, one write stat each (as Apache Hudi's append handle reports a rolled-over log file).

    Args:
        storage: Backend rooted at the table base path.
        ctx: Shared settings of this write.
        target: The file group (``append`` set, ``slice_instant`` the slice's base instant).
        incoming: Its rows in arrival order: data columns plus ``_hoodie_record_key``,
            ``_hoodie_partition_path`` and ``_hoodie_is_deleted``; optionally ``INSERTED``
            (inserts of new keys, routed here by a plan that appends inserts to log files).
        task_partition_id: Task number (goes into sequence numbers).
        write_token: ``<task>-<stage>-<attempt>`` (goes into the file name).
        merger: The table's merger: rows it marks as deletes (:meth:`RecordMerger.mark_deletes`, e.g.
            AWS DMS ``Op = D`` or Debezium ``_change_operation_type = d``) go to the DELETE block with
            their ordering value, as Apache Hudi's append handle writes deletes of those payloads.
        key_changes: When given, the keys inserted and the keys of the DELETE block are put there
            under each log file's key (the record index's upkeep).
        log_stats: When given, the column statistics of each log file's data records are put there
            under its key (the column_stats upkeep, :mod:`~hudi_framework.metadata.log_file_stats`).

    Returns:
        The delta write stat of each log file written, in version order.
    """
    if target.slice_instant is None:
        raise ValueError(f"file group {target.partition}/{target.file_id} has no slice to append to")
    merge_ctx = MergeContext(ordering_fields=ctx.ordering_fields)
    if merger is not None:
        incoming = merger.mark_deletes(incoming, merge_ctx)
    deleted = delete_mask(incoming, merge_ctx)
    inserted = np.zeros(incoming.num_rows, dtype=np.bool_)
    if INSERTED in incoming.column_names:
        flags = incoming.column(INSERTED).fill_null(False).to_numpy(zero_copy_only=False)
        inserted = np.asarray(flags, dtype=np.bool_) & ~deleted
        incoming = incoming.drop_columns([INSERTED])
    upserts = incoming.filter(pa.array(~deleted))
    deletes = incoming.filter(pa.array(deleted))
    positions = _positions(storage, ctx, target, incoming)
    parts: list[LogPart] = []
    if upserts.num_rows:
        records = _data_records(upserts, ctx, target.file_id, task_partition_id)
        keys = upserts.column(RECORD_KEY)
        parts += data_parts(ctx, target, records, keys, _of(positions, ~deleted), inserted[~deleted])
    if deletes.num_rows:
        parts.append(delete_part(ctx, target, deletes, _of(positions, deleted)))
    return write_log_parts(
        storage, ctx, target, parts, write_token=write_token, key_changes=key_changes, log_stats=log_stats
    )


def write_log_parts(
    storage: StorageBackend,
    ctx: WriteTaskContext,
    target: FileGroupWrite,
    parts: Sequence[LogPart],
    *,
    write_token: str = "0-0-0",
    key_changes: dict[str, FileKeyChanges] | None = None,
    log_stats: dict[str, pa.Table | None] | None = None,
) -> list[WriteStat]:
    """Write ``parts`` into new log files of ``target``'s slice (rolling over at ``ctx.log_file_max_size``),
    each after its ``APPEND`` marker; return one delta write stat per file (see :func:`append_file_group`)."""
    own_instant = ctx.table_version >= _OWN_INSTANT_LOG_VERSION
    assert target.slice_instant is not None

    def mark(name: LogFileName) -> None:
        create_marker(storage, ctx.instant, target.partition, name.name, IOType.APPEND)

    written = create_log_files(
        storage,
        partition_path=target.partition,
        file_id=target.file_id,
        instant_time=ctx.instant if own_instant else target.slice_instant,
        write_token=write_token,
        encoded=[p.encoded for p in parts],
        max_size=ctx.log_file_max_size,
        existing=() if own_instant else None,
        before_create=mark,
    )
    # v8+ (observed in Java 1.x tables): prevCommit is the delta commit itself, baseFile "" and
    # logFiles the new files; v6: the slice's base instant, base file and all its log files.
    log_files = [] if own_instant else list(target.slice_log_files)
    stats = []
    for file, run in written:
        log_files.append(file.name.name)
        held = [parts[i] for i in run]
        stats.append(_file_stat(ctx, target, file, held, list(log_files), own_instant))
        _report_keys(file.key, held, key_changes, log_stats, target.partition)
    return stats


def _report_keys(
    key: str,
    held: Sequence[LogPart],
    key_changes: dict[str, FileKeyChanges] | None,
    log_stats: dict[str, pa.Table | None] | None,
    partition: str,
) -> None:
    """Tell the index upkeep what one log file holds: keys inserted and deleted, column statistics."""
    new = [p.inserted for p in held if p.inserted is not None and len(p.inserted)]
    gone = [p.deleted for p in held if p.deleted is not None and len(p.deleted)]
    if key_changes is not None and (new or gone):
        key_changes[key] = FileKeyChanges(
            pa.concat_arrays(new).drop_null() if new else pa.array([], pa.string()),
            pa.concat_arrays(gone).drop_null() if gone else pa.array([], pa.string()),
        )
    if log_stats is not None:
        # The blocks' records as they were conformed for encoding: what reading the file back gives.
        records = [p.records for p in held if p.records is not None]
        if not records:
            log_stats[key] = None
            return
        table = pa.concat_tables(records)
        indexed = [f.name for f in table.schema if indexable(f.type)]
        log_stats[key] = records_stats(partition, key.rsplit("/", 1)[-1], table, indexed)


def _file_stat(
    ctx: WriteTaskContext,
    target: FileGroupWrite,
    file: WrittenLogFile,
    held: Sequence[LogPart],
    log_files: list[str],
    own_instant: bool,
) -> WriteStat:
    n_upserts = sum(p.upserts for p in held)
    n_inserts = sum(len(p.inserted) for p in held if p.inserted is not None)
    n_deletes = sum(len(p.deleted) for p in held if p.deleted is not None)
    return WriteStat(
        file_id=target.file_id,
        path=file.key,
        prev_commit=ctx.instant if own_instant else target.slice_instant,
        num_writes=n_upserts,
        num_deletes=n_deletes,
        num_update_writes=n_upserts - n_inserts,
        num_inserts=n_inserts,
        total_write_bytes=file.size,
        total_write_errors=0,
        partition_path=target.partition,
        total_log_records=0,
        total_updated_records_compacted=0,
        total_log_blocks=0,
        total_corrupt_log_block=0,
        total_rollback_blocks=0,
        file_size_in_bytes=file.size,
        log_version=file.name.version,
        log_offset=0,
        base_file="" if own_instant else target.slice_base_file,
        log_files=log_files,
        runtime_stats=RuntimeStats(total_scan_time=0, total_upsert_time=0, total_create_time=0),
        total_log_files_compacted=0,
        total_log_size_compacted=0,
    )
