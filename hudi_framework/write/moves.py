"""Partition moves of a global index, decided by the merger as Apache Hudi decides them.

With a global index that updates partition paths, an incoming record whose key is stored in another
partition is merged with the stored record first (Java's ``HoodieIndexUtils.mergeForPartitionUpdates``):

* the merge result is in the incoming record's partition: the key moves (delete in the old file
  group, insert in the new partition), which is what the planner does with a tagged row;
* otherwise (the stored record wins, e.g. an incoming record with an older ordering value): the key
  stays, so the row is routed to the stored location as an ordinary update, where the file group
  task merges it again with the same result. Moving it anyway would leave the key in two partitions.

The stored record is the key's latest one, as a snapshot read merges it (Java's
``HoodieMergedReadHandle``): the base file's row merged with the slice's committed log blocks
(:func:`~hudi_framework.read.merged.merge_file_slice`, counting the instants of
:class:`StoredReads`). A key the merged slice no longer holds (deleted in a log file) has nothing to
merge with: the incoming record is an insert in its own partition. Only the file slices of moving
keys are read, and base-file-only slices as plain Parquet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.data_files import open_parquet
from hudi_framework.contracts.index import (
    LOCATION_COLUMNS,
    LOCATION_FILE_ID,
    LOCATION_PARTITION,
    PARTITION_PATH,
    RECORD_KEY,
)
from hudi_framework.contracts.merger import MergeContext
from hudi_framework.contracts.merging.flags import delete_mask
from hudi_framework.contracts.merging.ordering import as_mask
from hudi_framework.contracts.merging.pair import unify_tables
from hudi_framework.contracts.merging.partial import mark_partial, merge_pairs
from hudi_framework.errors import UnsupportedQueryError
from hudi_framework.index.tagging import tag_locations
from hudi_framework.metadata.record_index_locator import locator_for
from hudi_framework.read.merged import merge_file_slice
from hudi_framework.read.merged_plan import instant_validity, record_key_field
from hudi_framework.read.merged_task import DEFAULT_MERGE_MEMORY_BYTES, InstantValidity, MergedReadTask
from hudi_framework.read.schema import read_schema

if TYPE_CHECKING:
    from hudi_framework.contracts.index import KeyFactsSource, RecordIndex
    from hudi_framework.contracts.keygen import KeyGenerator
    from hudi_framework.contracts.merger import RecordMerger
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.table.table_config import TableConfig

__all__ = ["StoredReads", "settle_partition_moves", "stored_reads_for", "tag_for_write"]


@dataclass(frozen=True, slots=True)
class StoredReads:
    """How the stored records of moving keys are read from file slices with log files: merged, as a
    snapshot read merges them. Plain picklable data planned on the driver (Spark ships it to the
    executors that settle moves).

    Attributes:
        validity: Which log blocks count (committed instants only).
        merge_schema: The table's whole read schema (meta columns included when the table has them).
        record_key_field: The column holding record keys; None for a table without meta fields and a
            composite key, whose log files cannot be merged (refused only if such a slice is read).
        max_memory_bytes: Log records held before spilling (``hoodie.memory.merge.max.size``).
    """

    validity: InstantValidity
    merge_schema: pa.Schema
    record_key_field: str | None
    max_memory_bytes: int = DEFAULT_MERGE_MEMORY_BYTES

    @classmethod
    def of(cls, table: HudiTable, *, max_memory_bytes: int | None = None) -> StoredReads:
        """The reads of ``table`` as its timeline stands (the write's snapshot of it)."""
        try:
            key_field: str | None = record_key_field(table)
        except UnsupportedQueryError:
            key_field = None
        return cls(
            instant_validity(table), read_schema(table), key_field, max_memory_bytes or DEFAULT_MERGE_MEMORY_BYTES
        )


def stored_reads_for(
    table: HudiTable, index: RecordIndex, slices: Sequence[FileSlice], *, max_memory_bytes: int | None = None
) -> StoredReads | None:
    """The :class:`StoredReads` a write with ``index`` over ``slices`` needs: only a global index that
    moves keys between partitions merges with stored records, and only slices with log files are
    read merged (None otherwise: nothing to plan)."""
    if not (index.is_global and index.update_partition_path) or not any(s.log_files for s in slices):
        return None
    return StoredReads.of(table, max_memory_bytes=max_memory_bytes)


def _moving_rows(tagged: pa.Table, ctx: MergeContext) -> np.ndarray:
    if LOCATION_PARTITION not in tagged.column_names or not tagged.num_rows:
        return np.zeros(0, dtype=np.int64)
    location = tagged.column(LOCATION_PARTITION)
    elsewhere = pc.and_(
        pc.is_valid(location), pc.not_equal(location, tagged.column(PARTITION_PATH).cast(location.type))
    )
    moving = as_mask(pc.fill_null(elsewhere, False)) & ~delete_mask(tagged, ctx)
    return np.flatnonzero(moving)


def _base_rows(storage: StorageBackend, base_file_key: str) -> pa.Table:
    with open_parquet(storage, base_file_key) as parquet:
        return parquet.read()  # pq.read_table's first call would import pandas (~0.3 s)


def _merged_rows(
    storage: StorageBackend, file_slice: FileSlice, merger: RecordMerger, ctx: MergeContext, reads: StoredReads
) -> pa.Table:
    """The slice's live records, base file and committed log blocks merged (deleted keys absent)."""
    if reads.record_key_field is None:
        raise UnsupportedQueryError(
            "snapshot",
            f"file group {file_slice.partition_path}/{file_slice.file_id} has log files, and the table has no "
            "meta fields and a composite record key: its stored records cannot be merged to settle a partition move",
        )
    task = MergedReadTask.whole_slice(
        file_slice,
        validity=reads.validity,
        merger=merger,
        merge_schema=reads.merge_schema,
        ordering_fields=ctx.ordering_fields,
        record_key_field=reads.record_key_field,
        max_memory_bytes=reads.max_memory_bytes,
    )
    batches = list(merge_file_slice(storage, task))
    return pa.Table.from_batches(batches, schema=reads.merge_schema) if batches else reads.merge_schema.empty_table()


def _stored_rows(
    storage: StorageBackend,
    file_slice: FileSlice,
    keys: pa.Array,
    merger: RecordMerger,
    ctx: MergeContext,
    reads: StoredReads | None,
    keygen: KeyGenerator | None,
) -> pa.Table:
    """The latest stored rows of ``keys`` (in that order) in the file slice: its base file's rows, or
    with log files the slice merged; a null row for a key the slice no longer holds."""
    if file_slice.log_files:
        if reads is None:
            raise ValueError("settling partition moves over log files needs the table's StoredReads")
        rows = _merged_rows(storage, file_slice, merger, ctx, reads)
    elif file_slice.base_file_key is not None:
        rows = _base_rows(storage, file_slice.base_file_key)
    else:
        raise ValueError(f"file group {file_slice.partition_path}/{file_slice.file_id} holds no stored record")
    if keygen is not None:  # no meta fields: keys and partition come from the key generator and location
        rows = rows.drop_columns([c for c in (RECORD_KEY, PARTITION_PATH) if c in rows.column_names])
        rows = rows.append_column(RECORD_KEY, keygen.record_keys(rows))
        partitions = pa.array([file_slice.partition_path] * rows.num_rows, pa.string())
        rows = rows.append_column(PARTITION_PATH, partitions)
    stored_keys = rows.column(RECORD_KEY)
    return rows.take(pc.index_in(keys.cast(stored_keys.type), value_set=stored_keys))


def _as_inserts(tagged: pa.Table, rows: np.ndarray) -> pa.Table:
    """``tagged`` with the location columns of ``rows`` nulled: new keys to insert where they are."""
    mask = np.zeros(tagged.num_rows, dtype=np.bool_)
    mask[rows] = True
    keep = pa.array(~mask)
    for name in LOCATION_COLUMNS:
        if name in tagged.column_names:
            index = tagged.column_names.index(name)
            column = tagged.column(name)
            tagged = tagged.set_column(
                index, tagged.schema.field(index), pc.if_else(keep, column, pa.scalar(None, column.type))
            )
    return tagged


def _fill_absent(tagged: pa.Table, positions: np.ndarray, merged: pa.Table, ctx: MergeContext) -> pa.Table:
    """``tagged`` with the absent (placeholder) columns of rows ``positions`` taken from ``merged``."""
    carried = {*ctx.partial_columns, *ctx.flag_fields, LOCATION_PARTITION, LOCATION_FILE_ID}
    source = np.arange(tagged.num_rows, dtype=np.int64)
    source[positions] = tagged.num_rows + np.arange(len(positions), dtype=np.int64)
    take = pa.array(source)
    for index, field in enumerate(tagged.schema):
        name = field.name
        if name in carried or name.startswith("_hoodie_") or name not in merged.column_names:
            continue
        filled = merged.column(name).cast(field.type).chunks
        both = pa.chunked_array([*tagged.column(index).chunks, *filled], field.type)
        tagged = tagged.set_column(index, field, both.take(take))
    return tagged


def settle_partition_moves(
    tagged: pa.Table,
    slices: Sequence[FileSlice],
    storage: StorageBackend,
    merger: RecordMerger,
    ctx: MergeContext,
    *,
    reads: StoredReads | None = None,
    keygen: KeyGenerator | None = None,
) -> pa.Table:
    """Keep keys in their partition where the merge with the latest stored record says so.

    Args:
        tagged: Incoming rows after tagging (location columns set).
        slices: The table's latest file slices (to find the stored base files).
        storage: Backend rooted at the table base path.
        merger: The table's merger.
        ctx: Its merge context.
        reads: How slices with log files are read merged (required when a moving key's slice has
            log files).
        keygen: For tables without meta fields: computes the stored rows' keys.

    Returns:
        ``tagged``, with ``_hoodie_partition_path`` set to the stored partition on rows whose key
        stays, and no location on rows whose key the slice no longer holds (inserts).
    """
    moving = _moving_rows(tagged, ctx)
    if not len(moving):
        return tagged
    incoming = tagged.take(pa.array(moving))
    by_location = {(s.partition_path, s.file_id): s for s in slices}
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (partition, file_id) in enumerate(
        zip(incoming.column(LOCATION_PARTITION).to_pylist(), incoming.column(LOCATION_FILE_ID).to_pylist(), strict=True)
    ):
        groups.setdefault((partition, file_id), []).append(i)
    order = np.concatenate([np.asarray(rows, dtype=np.int64) for rows in groups.values()])
    keys = incoming.column(RECORD_KEY)
    stored = unify_tables(
        [
            _stored_rows(storage, by_location[location], keys.take(pa.array(rows)), merger, ctx, reads, keygen)
            for location, rows in groups.items()
        ]
    )
    absent = as_mask(pc.is_null(stored.column(RECORD_KEY)))
    if absent.any():
        # Deleted since the index saw it (a delete in a log file): nothing to merge with, the
        # incoming record is a new key in its own partition (Java tags it as new).
        tagged = _as_inserts(tagged, moving[order[absent]])
        order, stored = order[~absent], stored.filter(pa.array(~absent))
        if not len(order):
            return tagged
    moving_order = moving[order]
    newer = incoming.take(pa.array(order))
    if ctx.partial_columns:
        merged = merge_pairs(merger, stored, mark_partial(newer, ctx.partial_columns, ctx), ctx)
    else:
        merged = merger.merge(stored, newer, ctx)
    moves = ~delete_mask(merged, ctx) & as_mask(
        pc.equal(merged.column(PARTITION_PATH).cast(pa.string()), newer.column(PARTITION_PATH).cast(pa.string()))
    )
    if ctx.partial_columns and moves.any():
        # A moving partial row is inserted in its new partition as the merged record: its absent
        # columns come from the stored one, as Java's mergeForPartitionUpdates does.
        tagged = _fill_absent(tagged, moving_order[moves], merged.take(pa.array(np.flatnonzero(moves))), ctx)
    stays = moving_order[~moves]
    if not len(stays):
        return tagged
    mask = np.zeros(tagged.num_rows, dtype=np.bool_)
    mask[stays] = True
    index = tagged.column_names.index(PARTITION_PATH)
    field = tagged.schema.field(PARTITION_PATH)
    location = tagged.column(LOCATION_PARTITION).cast(field.type)
    return tagged.set_column(index, field, pc.if_else(pa.array(mask), location, tagged.column(PARTITION_PATH)))


def tag_for_write(
    rows: pa.Table,
    slices: Sequence[FileSlice],
    storage: StorageBackend,
    *,
    config: TableConfig,
    index: RecordIndex,
    merger: RecordMerger,
    keygen: KeyGenerator,
    partial_columns: tuple[str, ...] = (),
    metadata: KeyFactsSource | None = None,
    stored: StoredReads | None = None,
) -> pa.Table:
    """The local engine's index step for a write: tag locations, then settle partition moves.

    Tables without meta fields store no record keys, so lookups compute the stored keys with the
    key generator (Java's virtual keys); see :func:`~hudi_framework.index.tagging.tag_locations`.

    Args:
        rows: Prepared rows (keys computed).
        slices: The table's latest file slices.
        storage: Backend rooted at the table base path.
        config: The table config (meta fields, ordering fields).
        index: The configured index.
        merger: The table's merger.
        keygen: The table's key generator.
        partial_columns: The columns a partial update carries (empty for full rows).
        metadata: Where the metadata table stands in for footers (``hoodie.bloom.index.use.metadata``).
        stored: How stored records of moving keys are read (:func:`stored_reads_for`).
    """
    virtual_keys = None if config.populate_meta_fields else keygen
    locator = locator_for(index, storage)
    tagged = tag_locations(index, rows, slices, storage, keygen=virtual_keys, locator=locator, metadata=metadata)
    if not index.is_global:
        return tagged  # keys are located in their own partition only: nothing moves (as on Spark)
    ctx = MergeContext(ordering_fields=config.ordering_fields, partial_columns=partial_columns)
    return settle_partition_moves(tagged, slices, storage, merger, ctx, reads=stored, keygen=virtual_keys)
