"""Partition moves of a global index, decided by the merger as Apache Hudi decides them.

With a global index that updates partition paths, an incoming record whose key is stored in another
partition is merged with the stored record first (Java's ``HoodieIndexUtils.mergeForPartitionUpdates``):

* the merge result is in the incoming record's partition: the key moves (delete in the old file
  group, insert in the new partition), which is what the planner does with a tagged row;
* otherwise (the stored record wins, e.g. an incoming record with an older ordering value): the key
  stays, so the row is routed to the stored location as an ordinary update, where the file group
  task merges it again with the same result. Moving it anyway would leave the key in two partitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.data_files import open_parquet
from hudi_framework.contracts.index import LOCATION_FILE_ID, LOCATION_PARTITION, PARTITION_PATH, RECORD_KEY
from hudi_framework.contracts.merger import MergeContext
from hudi_framework.contracts.merging.flags import delete_mask
from hudi_framework.contracts.merging.ordering import as_mask
from hudi_framework.contracts.merging.pair import unify_tables
from hudi_framework.contracts.merging.partial import mark_partial, merge_pairs
from hudi_framework.index.tagging import tag_locations
from hudi_framework.log.blocks import DataBlock
from hudi_framework.log.reader import read_log_file
from hudi_framework.metadata.record_index_locator import locator_for

if TYPE_CHECKING:
    from hudi_framework.contracts.index import KeyFactsSource, RecordIndex
    from hudi_framework.contracts.keygen import KeyGenerator
    from hudi_framework.contracts.merger import RecordMerger
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.table.table_config import TableConfig

__all__ = ["settle_partition_moves", "tag_for_write"]


def _moving_rows(tagged: pa.Table, ctx: MergeContext) -> np.ndarray:
    if LOCATION_PARTITION not in tagged.column_names or not tagged.num_rows:
        return np.zeros(0, dtype=np.int64)
    location = tagged.column(LOCATION_PARTITION)
    elsewhere = pc.and_(
        pc.is_valid(location), pc.not_equal(location, tagged.column(PARTITION_PATH).cast(location.type))
    )
    moving = as_mask(pc.fill_null(elsewhere, False)) & ~delete_mask(tagged, ctx)
    return np.flatnonzero(moving)


def _stored_rows(
    storage: StorageBackend, file_slice: FileSlice, keys: pa.Array, keygen: KeyGenerator | None
) -> pa.Table:
    """The stored rows of ``keys`` (in that order) in the file slice's base file; a key the base
    file lacks (inserted into a log file, by an index that indexes log files) from the newest data
    block of the slice's log files holding it."""
    tables: list[pa.Table] = []
    if file_slice.base_file_key is not None:
        with open_parquet(storage, file_slice.base_file_key) as parquet:
            rows = parquet.read()  # pq.read_table's first call would import pandas (~0.3 s)
        if keygen is not None:  # no meta fields: keys and partition come from the key generator and location
            rows = rows.append_column(RECORD_KEY, keygen.record_keys(rows))
            partitions = pa.array([file_slice.partition_path] * rows.num_rows, pa.string())
            rows = rows.append_column(PARTITION_PATH, partitions)
        stored_keys = rows.column(RECORD_KEY)
        position = pc.index_in(keys.cast(stored_keys.type), value_set=stored_keys)
        if not position.null_count or not file_slice.log_files:
            return rows.take(position)
        tables.append(rows)  # base-file rows first: a key the base file holds keeps its base row
    logged = _logged_rows(storage, file_slice)
    if logged is not None:
        tables.append(logged)
    if not tables:
        raise ValueError(f"file group {file_slice.partition_path}/{file_slice.file_id} holds no stored record")
    both = unify_tables(tables)
    stored_keys = both.column(RECORD_KEY)
    return both.take(pc.index_in(keys.cast(stored_keys.type), value_set=stored_keys))


def _logged_rows(storage: StorageBackend, file_slice: FileSlice) -> pa.Table | None:
    """The data-block records of the slice's log files, newest first (None: none with keys)."""
    blocks = [
        block.records
        for key in file_slice.log_file_keys
        for block in read_log_file(storage, key)
        if isinstance(block, DataBlock) and block.record_keys is not None
    ]
    if not blocks:
        return None
    rows = unify_tables(blocks)  # oldest first, as the slice orders its log files
    return rows.take(pa.array(np.arange(rows.num_rows - 1, -1, -1)))


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
    keygen: KeyGenerator | None = None,
) -> pa.Table:
    """Keep keys in their partition where the merge with the stored record says so.

    Args:
        tagged: Incoming rows after tagging (location columns set).
        slices: The table's latest file slices (to find the stored base files).
        storage: Backend rooted at the table base path.
        merger: The table's merger.
        ctx: Its merge context.
        keygen: For tables without meta fields: computes the stored rows' keys.

    Returns:
        ``tagged``, with ``_hoodie_partition_path`` set to the stored partition on rows whose key stays.
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
    stored = unify_tables(
        [
            _stored_rows(storage, by_location[location], incoming.column(RECORD_KEY).take(pa.array(rows)), keygen)
            for location, rows in groups.items()
        ]
    )
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
        tagged = _fill_absent(tagged, moving[order[moves]], merged.take(pa.array(np.flatnonzero(moves))), ctx)
    stays = moving[order[~moves]]
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
    """
    virtual_keys = None if config.populate_meta_fields else keygen
    locator = locator_for(index, storage)
    tagged = tag_locations(index, rows, slices, storage, keygen=virtual_keys, locator=locator, metadata=metadata)
    if not index.is_global:
        return tagged  # keys are located in their own partition only: nothing moves (as on Spark)
    ctx = MergeContext(ordering_fields=config.ordering_fields, partial_columns=partial_columns)
    return settle_partition_moves(tagged, slices, storage, merger, ctx, keygen=virtual_keys)
