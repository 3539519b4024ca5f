"""Execute a :class:`~hudi_framework.read.plan.ReadTask`: stream one parquet base file as record batches.

Memory stays bounded by one row group batch at a time: the file is opened through the storage
backend's random-access ``open_input`` and read with ``ParquetFile.iter_batches``, reading only the
columns the task needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.contracts.data_files import checked_batches, data_file_errors
from hudi_framework.model.parquet_dictionaries import string_dictionary_columns
from hudi_framework.read.conform import conform_array, constant_array
from hudi_framework.read.filters import filter_columns, to_expression
from hudi_framework.read.parquet_stats import row_group_ranges
from hudi_framework.read.plan import COMMIT_TIME_COLUMN, CommitTimeFilter
from hudi_framework.read.skipping import may_match

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.read.merged_task import MergedReadTask
    from hudi_framework.read.plan import ReadTask

#: Rows per batch; pyarrow's default, small enough for Spark's Arrow batches.
DEFAULT_BATCH_SIZE = 65_536


def _needed_columns(task: ReadTask, file_schema: pa.Schema) -> list[str]:
    wanted = list(task.schema.names)
    if task.commit_time_filter is not None:
        wanted.append(COMMIT_TIME_COLUMN)
    wanted.extend(sorted(filter_columns(task.row_filter)))
    present = set(file_schema.names)
    return list(dict.fromkeys(name for name in wanted if name in present))


def _with_partition_columns(task: ReadTask, batch: pa.RecordBatch) -> pa.RecordBatch:
    """Add partition columns the file lacks (``drop.partition.columns``), parsed from the path."""
    missing = [(n, v) for n, v in task.partition_values if batch.schema.get_field_index(n) < 0]
    if not missing:
        return batch
    types = {f.name: f.type for f in task.filter_schema or ()} | {f.name: f.type for f in task.schema}
    for name, value in missing:
        if name not in types:
            continue
        typ = types[name]
        batch = batch.append_column(name, constant_array(value, typ, batch.num_rows, name=name))
    return batch


def filter_batch(task: ReadTask | MergedReadTask, batch: pa.RecordBatch) -> pa.RecordBatch:
    """Rows of ``batch`` passing the task's commit-time filter and row filter."""
    if task.commit_time_filter is not None:
        batch = batch.filter(_commit_time_mask(task.commit_time_filter, batch.column(COMMIT_TIME_COLUMN)))
    if not task.row_filter or task.filter_schema is None or not batch.num_rows:
        return batch
    expression = to_expression(task.row_filter, task.filter_schema)
    if expression is None:
        return batch
    # Evaluate on the filtered columns in read-schema types: a promoted column holds int32 in old files,
    # and a column added later is missing from them (null, as in the result).
    table = pa.Table.from_batches([batch])
    for field in task.filter_schema:
        index = table.schema.get_field_index(field.name)
        column = _column_as(batch, field)
        table = table.set_column(index, field, column) if index >= 0 else table.append_column(field, column)
    # Table.filter takes expressions on every supported pyarrow; RecordBatch.filter only on newer ones.
    kept = table.filter(expression).combine_chunks().to_batches()
    return kept[0] if kept else batch.slice(0, 0)


def _commit_time_mask(commit_times: CommitTimeFilter, values: pa.Array) -> pa.Array:
    """The rows whose commit time ``commit_times`` keeps (commit times read as a dictionary or plain)."""
    if pa.types.is_dictionary(values.type):
        # One test per distinct commit time, spread to the rows by their indices (null stays null: dropped).
        return commit_times.mask(values.dictionary).take(values.indices)
    return commit_times.mask(values)


def _column_as(batch: pa.RecordBatch, field: pa.Field) -> pa.Array:
    index = batch.schema.get_field_index(field.name)
    if index < 0:
        return pa.nulls(batch.num_rows, field.type)
    return conform_array(batch.column(index), field.type, name=field.name)


def conform_batch(batch: pa.RecordBatch, schema: pa.Schema, *, keep_dictionaries: bool = False) -> pa.RecordBatch:
    """Select and convert ``batch``'s columns to exactly ``schema``; absent columns become null.

    With ``keep_dictionaries``, a dictionary column whose values have the field's type stays a
    dictionary (its field's type in the result is the dictionary type): a merge that drops rows
    filters its indices, and :func:`conform_batch` decodes the rows left.
    """
    if batch.schema.equals(schema) and all(a.metadata == b.metadata for a, b in zip(batch.schema, schema, strict=True)):
        # Files written with the read schema (the common case) need no per-column work; only the file's
        # key-value metadata (bloom filter, key range) is swapped for the schema's.
        return batch.replace_schema_metadata(schema.metadata)
    arrays, fields = [], []
    for field in schema:
        index = batch.schema.get_field_index(field.name)
        column = None if index < 0 else batch.column(index)
        if column is None:
            arrays.append(pa.nulls(batch.num_rows, field.type))
        elif keep_dictionaries and pa.types.is_dictionary(column.type) and column.type.value_type == field.type:
            arrays.append(column)
            field = field.with_type(column.type)
        else:
            arrays.append(conform_array(column, field.type, name=field.name))
        fields.append(field)
    return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields, metadata=schema.metadata))


def matching_row_groups(task: ReadTask, parquet: pq.ParquetFile) -> list[int] | None:
    """Row groups whose footer statistics admit a row passing the task's row filter (None: all of them).

    Only plain base-file reads prune: a merged slice needs every base record to merge log records into.
    """
    if not task.row_filter or task.filter_schema is None:
        return None
    metadata = parquet.metadata
    ranges = row_group_ranges(metadata, parquet.schema_arrow, task.filter_schema)
    if not ranges:
        return None
    keep = may_match(task.row_filter, ranges, task.filter_schema, metadata.num_row_groups)
    if keep.all():
        return None
    return [int(i) for i in np.flatnonzero(keep)]


def read_task(
    task: ReadTask,
    storage: StorageBackend,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    use_threads: bool = True,
    keep_dictionaries: bool = False,
) -> Iterator[pa.RecordBatch]:
    """Yield the task's rows as record batches of exactly ``task.schema``.

    Batches left empty by filtering are skipped, so a file without matching rows yields nothing.
    String columns the file stores with small dictionaries are read as dictionaries
    (:mod:`~hudi_framework.model.parquet_dictionaries`) and decoded after filtering.

    Args:
        task: What to read.
        storage: A backend rooted at the table's base path.
        batch_size: Maximum rows per batch.
        use_threads: Decode a batch's columns side by side on Arrow's CPU pool; off when the caller
            already reads as many files at once as there are cores.
        keep_dictionaries: Yield those columns as dictionaries of ``task.schema``'s types (see
            :func:`conform_batch`); the batches then match ``task.schema`` up to dictionary encoding.

    Raises:
        StorageNotFoundError: The base file is gone (for example cleaned after planning).
        CorruptDataFileError: The base file does not decode (damaged, cut short, not Parquet).
        ReadError: A column cannot be converted to the read schema.
    """
    key = task.file_key
    with storage.open_input(key) as source:
        with data_file_errors(storage, key):
            parquet = pq.ParquetFile(source)
            columns = _needed_columns(task, parquet.schema_arrow)
            row_groups = matching_row_groups(task, parquet)
            if row_groups is not None and not row_groups:
                return
            wanted = [task.schema.field(name) for name in columns if task.schema.get_field_index(name) >= 0]
            dictionaries = string_dictionary_columns(parquet.metadata, parquet.schema_arrow, wanted)
            if dictionaries:
                # Decoded to plain strings by conform_batch (one take per column) after filtering.
                parquet = pq.ParquetFile(source, metadata=parquet.metadata, read_dictionary=dictionaries)
            # Memory stays one batch, whichever threads decode it.
            batches = parquet.iter_batches(
                batch_size=batch_size, row_groups=row_groups, columns=columns, use_threads=use_threads
            )
        for raw in checked_batches(batches, storage, key):
            batch = _with_partition_columns(task, raw)
            batch = filter_batch(task, batch)
            if batch.num_rows:
                yield conform_batch(batch, task.schema, keep_dictionaries=keep_dictionaries)
