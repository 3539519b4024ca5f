"""The per-file-group copy-on-write task: merge incoming records into a file group, write a base file.

Engine-neutral and self-contained: a task gets plain, picklable specs plus the incoming rows of one
file group, so the local engine runs it in-process and the Spark engine runs the very same function
inside ``mapInArrow`` on an executor. The task writes its marker before its data file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_framework.contracts.arrays import contiguous, from_numpy, repeated_dictionary, repeated_string
from hudi_framework.contracts.data_files import data_file_errors
from hudi_framework.contracts.indexing.bloom_filter import BloomFilterConfig
from hudi_framework.contracts.indexing.footer import bloom_footer_metadata
from hudi_framework.contracts.keygen import KeyGenerator
from hudi_framework.contracts.merger import MergeContext, RecordMerger
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.contracts.storage_paths import join_key
from hudi_framework.index.bloom_carry import carried_bloom
from hudi_framework.layout.naming import BaseFileName
from hudi_framework.log.blocks import BlockType
from hudi_framework.merge.align import MergedRows, append_rows, merge_with_base
from hudi_framework.metadata.key_changes import FileKeyChanges
from hudi_framework.model.parquet_dictionaries import small_dictionary_columns, top_level_columns
from hudi_framework.model.schema import META_FIELDS
from hudi_framework.read.conform import conform_array
from hudi_framework.timeline.metadata import RuntimeStats, WriteStat
from hudi_framework.write.base_file_writer import ParquetOptions, write_base_file
from hudi_framework.write.markers import IOType, create_marker

COMMIT_TIME, COMMIT_SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME = META_FIELDS
#: Meta columns with one value per commit, partition or file: a rewrite reads them as dictionaries,
#: carries their int32 indices through the merge and writes the dictionary pages from them, instead
#: of materialising, copying and re-hashing one string per row (same UTF8 column in the file).
DICTIONARY_META_COLUMNS: Final = (COMMIT_TIME, PARTITION_PATH, FILE_NAME)
#: Routing column of a write that appends inserts to log files: True for a row that is an insert
#: (a key the index did not find here), which a log append counts and hands to the record index.
INSERTED: Final = "__hudi_inserted"


@dataclass(frozen=True, slots=True)
class FileGroupWrite:
    """Which file group a task rewrites (or creates).

    Attributes:
        partition: Relative partition path ("" when non-partitioned).
        file_id: The file group id.
        base_file_key: Key of the latest base file to merge with; None for a new file group.
        base_instant: Instant of that base file (``prevCommit``); None for a new file group.
        append: Merge-on-read: append the rows to a log file of the latest slice instead of
            rewriting the base file (:mod:`~hudi_framework.write.log_task`).
        slice_instant: Base instant of the slice appended to: the base file's, or a pending
            compaction's (v6 log files are named after it).
        slice_base_file: Name of that slice's base file ("" when it has none yet).
        slice_log_files: Names of that slice's log files, in order (v6 write stats list them).
    """

    partition: str
    file_id: str
    base_file_key: str | None = None
    base_instant: str | None = None
    append: bool = False
    slice_instant: str | None = None
    slice_base_file: str = ""
    slice_log_files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WriteTaskContext:
    """What every task of one write shares (picklable; shipped to Spark executors once).

    Attributes:
        instant: The write's instant time.
        schema: The exact schema of written base files (meta fields first when populated).
        ordering_fields: The table's ordering fields.
        populate_meta_fields: Whether base files carry the ``_hoodie_*`` columns.
        parquet: Parquet writer settings.
        bloom: Bloom filter sizing for the footer (meta-field tables only).
        extension: Base file extension.
        table_name: The table name (names the Avro record of log block schemas).
        table_version: ``hoodie.table.version`` (log file naming differs before 8).
        log_block_type: Data block type of log appends (AVRO_DATA or PARQUET_DATA).
        record_positions: Log blocks of updates and deletes carry their records' base-file positions
            (``hoodie.write.record.positions``; :mod:`~hudi_framework.write.record_positions`).
        delete_ordering: Log deletes carry the row's ordering value (soft deletes of an upsert);
            False: ``IntWrapper(0)``, a commit-time delete (the delete operation).
        partial_columns: Partial update: the data columns the incoming rows carry (the others are
            placeholders that keep stored values); empty for full rows (docs/mergers.md).
        keep_incoming: An insert-like write (``insert``, ``bulk_insert``, ``insert_overwrite``): the
            rows are written as they come, duplicate keys included, never merged with each other; a
            new file group takes them all (Apache Hudi's ``HoodieCreateHandle``).
        append_to_stored: With ``keep_incoming``: a file group with a base file gets the rows
            appended after its stored rows (``HoodieConcatHandle``); False merges them with the
            stored rows like an upsert (``hoodie.merge.allow.duplicate.on.inserts=false``).
        log_file_max_size: Merge-on-read appends roll over to the next log version rather than
            grow a log file past this (``hoodie.logfile.max.size``).
    """

    instant: str
    schema: pa.Schema
    ordering_fields: tuple[str, ...] = ()
    populate_meta_fields: bool = True
    parquet: ParquetOptions = field(default_factory=ParquetOptions)
    bloom: BloomFilterConfig = field(default_factory=BloomFilterConfig)
    extension: str = "parquet"
    table_name: str = "hudi_table"
    table_version: int = 9
    log_block_type: BlockType = BlockType.AVRO_DATA
    record_positions: bool = False
    delete_ordering: bool = False
    partial_columns: tuple[str, ...] = ()
    keep_incoming: bool = False
    append_to_stored: bool = True
    log_file_max_size: int = 1_073_741_824

    def appends(self, target: FileGroupWrite) -> bool:
        """Whether ``target`` gets the incoming rows appended as they are instead of merged."""
        return self.keep_incoming and (target.base_file_key is None or self.append_to_stored)


def _seqnos(instant: str, task_partition_id: int, n: int) -> pa.Array:
    # "<instant>_<task partition>_<index>", as Java's HoodieRecord.generateSequenceId.
    prefix = pa.scalar(f"{instant}_{task_partition_id}_")
    return pc.binary_join_element_wise(prefix, pc.cast(from_numpy(np.arange(n, dtype=np.int64)), pa.string()), "")


def stamp_incoming(incoming: pa.Table, instant: str, task_partition_id: int) -> pa.Table:
    """Set commit time and sequence numbers of incoming rows (before merging, so winners keep them)."""
    n = incoming.num_rows
    columns = {
        COMMIT_TIME: repeated_string(instant, n),
        COMMIT_SEQNO: _seqnos(instant, task_partition_id, n),
    }
    for name, values in columns.items():
        idx = incoming.schema.get_field_index(name)
        incoming = incoming.set_column(idx, name, values) if idx >= 0 else incoming.append_column(name, values)
    return incoming


def with_dictionaries(schema: pa.Schema, names: Iterable[str]) -> pa.Schema:
    """``schema`` with its string fields among ``names`` as ``dictionary<int32, string>``."""
    for name in names:
        index = schema.get_field_index(name)
        if index >= 0 and schema.field(index).type == pa.string():
            schema = schema.set(index, schema.field(index).with_type(pa.dictionary(pa.int32(), pa.string())))
    return schema


def _read_base(
    storage: StorageBackend, key: str, schema: pa.Schema, *, data_dictionaries: bool
) -> tuple[pa.Table, Mapping[bytes, bytes], list[str]]:
    """The base file's rows, its key/value footer (for the bloom filter carried over) and the
    columns read as dictionaries.

    Those are the :data:`DICTIONARY_META_COLUMNS` and, with ``data_dictionaries``, the other string
    columns of ``schema`` the file stores with small dictionaries; never the record key (the merge
    matches it as strings).
    """
    with storage.open_input(key) as f, data_file_errors(storage, key):
        metadata = pq.ParquetFile(f).metadata
        names = top_level_columns(metadata)
        wanted = set(DICTIONARY_META_COLUMNS)
        if data_dictionaries:
            wanted |= small_dictionary_columns(metadata, names) - {RECORD_KEY}
        dictionaries = [f.name for f in schema if f.name in wanted and f.name in names and f.type == pa.string()]
        parquet = pq.ParquetFile(f, metadata=metadata, read_dictionary=dictionaries)
        # Tasks run one per core already: the file decodes on the task's own thread, not also on
        # Arrow's CPU pool (no hand-offs, nor that pool's start-up in a fresh process).
        return _in_schema(parquet.read(use_threads=False), schema), metadata.metadata or {}, dictionaries


def _in_schema(base: pa.Table, schema: pa.Schema) -> pa.Table:
    """The base file's rows in the write's ``schema``: a file written before the table's schema evolved
    lacks the columns and struct members added since (null) and holds narrower types (cast up), as
    every reader sees it. Dictionary columns and columns of the schema's type are kept as they are."""
    present = set(base.column_names)
    if all(f.name in present for f in schema) and all(
        pa.types.is_dictionary(c.type) or f.name not in schema.names or c.type == schema.field(f.name).type
        for f, c in zip(base.schema, base.columns, strict=True)
    ):
        return base
    columns = []
    for f in schema:
        if f.name not in present:
            columns.append(pa.nulls(base.num_rows, f.type))
            continue
        column = base.column(f.name)
        keep = pa.types.is_dictionary(column.type) or column.type == f.type
        columns.append(column if keep else conform_array(column, f.type, name=f.name))
    extra = [n for n in base.column_names if n not in schema.names]  # not the table's: kept for the merge
    return pa.Table.from_arrays(columns + [base.column(n) for n in extra], names=schema.names + extra)


@dataclass(frozen=True, slots=True)
class MergedFileGroup:
    """The side-effect-free part of a task: a file group's merged rows, ready to be written.

    Attributes:
        rows: The new base file's rows (meta columns stamped except ``_hoodie_file_name``), in
            the write's schema with some string columns as dictionaries (:func:`with_dictionaries`).
        merged: The merge result (counts for the write stat).
        previous_footer: The key/value footer of the base file merged with (None for a new group).
        added_keys: The keys the base file merged with lacks (None for a new group).
        stored_keys: The keys of the base file merged with (None for a new group or a table
            without meta fields), for :meth:`key_changes`.
    """

    rows: pa.Table
    merged: MergedRows
    previous_footer: Mapping[bytes, bytes] | None = None
    added_keys: pa.Array | None = None
    stored_keys: pa.ChunkedArray | None = None

    def key_changes(self, appended: bool) -> FileKeyChanges:
        """The keys the file group gained and lost (meta-field tables only).

        ``appended``: the rows were appended after the stored ones (inserts may repeat stored keys,
        which the file group does not gain).
        """
        keys = self.rows.column(RECORD_KEY)
        if self.added_keys is None:  # a new file group: every key is new to it
            return FileKeyChanges(contiguous(keys), pa.array([], pa.string()))
        added = self.added_keys
        if appended and len(added):
            kept = keys.slice(0, self.rows.num_rows - self.merged.num_inserts)
            added = added.filter(pc.invert(pc.is_in(added, value_set=contiguous(kept))))
        lost = pa.array([], pa.string())
        if self.merged.num_deletes and self.stored_keys is not None:
            # Only deletes take keys away (a key moving partition is a delete here).
            stored = contiguous(self.stored_keys)
            lost = stored.filter(pc.invert(pc.is_in(stored, value_set=contiguous(keys))))
        return FileKeyChanges(added, lost)

    def footer(self, config: BloomFilterConfig) -> dict[bytes, bytes]:
        """The new file's record-key footer, with the previous file's bloom filter carried over
        when :func:`~hudi_framework.index.bloom_carry.carried_bloom` allows it."""
        keys = self.rows.column(RECORD_KEY)
        bloom = None
        if self.added_keys is not None:
            bloom = carried_bloom(self.previous_footer, config, live_rows=self.rows.num_rows, added=self.added_keys)
        return bloom_footer_metadata(keys, config, bloom=bloom)


def merge_file_group(
    storage: StorageBackend,
    merger: RecordMerger,
    ctx: WriteTaskContext,
    target: FileGroupWrite,
    incoming: pa.Table,
    *,
    task_partition_id: int = 0,
    keygen: KeyGenerator | None = None,
) -> MergedFileGroup:
    """Read ``target``'s base file and merge ``incoming`` into it; writes nothing.

    Arguments as in :func:`write_file_group`.
    """
    footer: Mapping[bytes, bytes] | None = None
    dictionaries: Iterable[str] = DICTIONARY_META_COLUMNS
    if target.base_file_key:
        base, footer, dictionaries = _read_base(
            storage, target.base_file_key, ctx.schema, data_dictionaries=ctx.populate_meta_fields
        )
    # The merged rows keep the dictionary columns (ctx.schema's values, written the same).
    schema = with_dictionaries(ctx.schema, dictionaries)
    if not target.base_file_key:
        base = schema.empty_table()
    if ctx.populate_meta_fields:
        incoming = stamp_incoming(incoming, ctx.instant, task_partition_id)
    else:
        # Files without meta columns: keys of stored rows come from the key generator.
        if keygen is None:
            raise ValueError("a table without meta fields needs the key generator to merge")
        if base.num_rows:
            base = base.append_column(RECORD_KEY, keygen.record_keys(base))
        else:
            base = base.append_column(RECORD_KEY, pa.array([], pa.string()))
        schema = schema.append(pa.field(RECORD_KEY, pa.string()))
    merge_ctx = MergeContext(ordering_fields=ctx.ordering_fields, schema=schema, partial_columns=ctx.partial_columns)
    merged = (append_rows if ctx.appends(target) else merge_with_base)(base, incoming, merger, merge_ctx)
    rows = merged.table
    if not ctx.populate_meta_fields:
        return MergedFileGroup(rows.drop_columns([RECORD_KEY]), merged)
    # The inserts end the merged rows: the keys the previous file lacks (appended inserts may repeat
    # stored keys, which a bloom filter holds already).
    added = contiguous(rows.column(RECORD_KEY).slice(rows.num_rows - merged.num_inserts)) if footer else None
    stored = base.column(RECORD_KEY) if target.base_file_key else None
    return MergedFileGroup(rows, merged, footer, added, stored)


def write_file_group(
    storage: StorageBackend,
    merger: RecordMerger,
    ctx: WriteTaskContext,
    target: FileGroupWrite,
    incoming: pa.Table,
    *,
    task_partition_id: int = 0,
    write_token: str = "0-0-0",
    keygen: KeyGenerator | None = None,
    key_changes: dict[str, FileKeyChanges] | None = None,
) -> WriteStat:
    """Merge ``incoming`` into ``target`` and write the file group's new base file.

    Args:
        storage: Backend rooted at the table base path.
        merger: The table's record merger.
        ctx: Shared settings of this write.
        target: The file group.
        incoming: Its incoming rows in arrival order: data columns plus ``_hoodie_record_key``,
            ``_hoodie_partition_path`` and, for deletes, ``_hoodie_is_deleted``.
        task_partition_id: Task number (goes into sequence numbers).
        write_token: ``<task>-<stage>-<attempt>`` (goes into the file name).
        keygen: The key generator; needed only when the table does not populate meta fields.
        key_changes: When given (meta-field tables), the keys the file group gained and lost are
            put there under the new file's key (the record index's upkeep).

    Returns:
        The write stat of the new base file.
    """
    name = BaseFileName(target.file_id, write_token, ctx.instant, ctx.extension).name
    key = join_key(target.partition, name)
    create_marker(storage, ctx.instant, target.partition, name, IOType.MERGE if target.base_file_key else IOType.CREATE)

    result = merge_file_group(
        storage, merger, ctx, target, incoming, task_partition_id=task_partition_id, keygen=keygen
    )
    rows = result.rows
    if ctx.populate_meta_fields:
        file_names = repeated_dictionary(name, rows.num_rows)
        rows = rows.set_column(rows.schema.get_field_index(FILE_NAME), FILE_NAME, file_names)
        # The bloom filter (numpy) is built while Parquet encodes the rows; both release the GIL.
        with ThreadPoolExecutor(max_workers=1) as pool:
            footer = pool.submit(result.footer, ctx.bloom)
            size = write_base_file(storage, key, rows, footer=footer.result, options=ctx.parquet, schema=ctx.schema)
    else:
        size = write_base_file(storage, key, rows, options=ctx.parquet, schema=ctx.schema)
    if key_changes is not None and ctx.populate_meta_fields:
        key_changes[key] = result.key_changes(appended=ctx.appends(target))
    return WriteStat(
        file_id=target.file_id,
        path=key,
        prev_commit=target.base_instant or "null",
        num_writes=rows.num_rows,
        num_deletes=result.merged.num_deletes,
        num_update_writes=result.merged.num_updates,
        num_inserts=result.merged.num_inserts,
        total_write_bytes=size,
        total_write_errors=0,
        partition_path=target.partition,
        file_size_in_bytes=size,
        prev_base_file=target.base_file_key.rsplit("/", 1)[-1] if target.base_file_key else None,
        runtime_stats=RuntimeStats(total_scan_time=0, total_upsert_time=0, total_create_time=0),
    )
