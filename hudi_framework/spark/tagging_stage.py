"""Tagging on Spark: the index's lookups run in executors.

**Narrow tagging** (few base files): when the tasks that pre-combine the rows times the table's
base files is at most :data:`NARROW_FILE_OPENS`, every pre-combine task tags its own rows with the
local engine's :func:`~hudi_framework.write.moves.tag_for_write` against all latest file slices
(a broadcast list): its keys are all versions of those keys (the rows are partitioned by record
key), so each key is tagged, deduplicated and settled exactly as in one process. A base file is
then opened by each task that has candidate keys for it instead of once, and no further job,
shuffle or join is needed; Spark's cost per job and shuffle is far above a few more footer and
key-column reads.

**Shuffled tagging** (otherwise): the three steps of the index contract
(:mod:`hudi_framework.contracts.index`), distributed:

1. Driver: the latest base files, broadcast. Up to :data:`DRIVER_FOOTER_FILES` of them, the
   driver reads their footers in threads (key ranges when the index wants them, and row counts,
   which bound the keys that can be found); scheduling a job costs more than such reads. Beyond,
   when the index wants key ranges, a small job counts the incoming rows per partition
   (:meth:`RecordIndex.relevant_files` prunes the files by them) and the remaining footers are read
   by another job, one task per group of files.
2. Executors: each partition of incoming keys prunes the files by its own partitions
   (:meth:`RecordIndex.relevant_files`) and plans its :class:`LookupTask` s with
   :meth:`RecordIndex.candidate_files` (pure functions, so planning per partition is allowed);
   the tasks travel as Arrow rows (:func:`~hudi_framework.index.tasks.tasks_to_arrow`), are
   shuffled by file path, merged per file (``merge_lookup_tasks``) and run with
   :meth:`RecordIndex.lookup`, so every base file is opened by one task only.
3. Spark: found locations (one per key and file group; for a global index that updates partition
   paths one per key, the greatest instant, then file id, as ``apply_locations`` does) are cached
   and left-joined with the incoming rows on the record key (and the partition path, for a
   non-global index), which repeats a row once per file group holding its key; a found set small
   enough is broadcast, so the
   incoming rows are not shuffled again (without a job to count the found keys first when step 1
   bounded them). For a global index that keeps keys in their partition
   (``update_partition_path=False``) the partition path becomes the location's; otherwise a key
   found in another partition moves only where merging with its stored record says so
   (:func:`~hudi_framework.write.moves.settle_partition_moves`, per batch in executors).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Final

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import functions as F  # noqa: N812 - the conventional alias

from hudi_framework.contracts.index import (
    LOCATION_COLUMNS,
    LOCATION_FILE_ID,
    LOCATION_INSTANT,
    LOCATION_PARTITION,
    LOOKUP_SCHEMA,
    IndexedFile,
)
from hudi_framework.contracts.indexing.file_lookup import read_footer_facts, read_key_range, virtual_key_lookup
from hudi_framework.contracts.indexing.planning import distinct_partitions
from hudi_framework.contracts.keyed_index import KeyedIndex
from hudi_framework.contracts.merger import MergeContext
from hudi_framework.errors import MetadataTableUnusableError
from hudi_framework.index.keyed import keyed_lookup, live_file_groups
from hudi_framework.index.log_keys import (
    LOG_FILES_SCHEMA,
    log_files_from_arrow,
    log_files_to_arrow,
    log_key_files,
    log_key_locations,
)
from hudi_framework.index.tagging import indexed_files
from hudi_framework.index.tasks import (
    FILE_SCHEMA,
    TASK_SCHEMA,
    files_from_arrow,
    files_to_arrow,
    merge_lookup_tasks,
    tasks_from_arrow,
    tasks_to_arrow,
)
from hudi_framework.metadata.reader import record_index_file_groups
from hudi_framework.metadata.record_index_locator import locator_for
from hudi_framework.spark.arrow_types import SparkResources, SparkSchema, collect_arrow, to_spark_batches
from hudi_framework.spark.task_errors import carrying_errors, typed_task_errors
from hudi_framework.spark.worker import WorkerSpec, worker_components
from hudi_framework.vocabulary import InsertDupPolicy
from hudi_framework.write.insert_duplicates import SHOWN_KEYS, duplicate_key_error
from hudi_framework.write.moves import StoredReads, settle_partition_moves, tag_for_write
from hudi_framework.write.prepare import PARTITION_PATH, RECORD_KEY

if TYPE_CHECKING:
    from pyspark import Broadcast
    from pyspark.sql import DataFrame, SparkSession

    from hudi_framework.contracts.index import KeyFactsSource, RecordIndex
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.spark.keys_stage import RowsFinish

__all__ = ["NARROW_FILE_OPENS", "NarrowTagging", "narrow_tagging", "tag_rows", "without_stored_keys"]

#: Found locations up to this many keys are broadcast to the join instead of shuffling the rows.
BROADCAST_FOUND_ROWS: Final = 2_000_000
#: Footers of up to this many files are read by the driver: a footer costs milliseconds, a Spark job
#: to read them (a shuffle and two stages under adaptive execution) the better part of a second.
DRIVER_FOOTER_FILES: Final = 32
_FOOTER_THREADS: Final = 8
#: Narrow tagging up to this many (pre-combine task, base file) pairs: on ``local[2]`` a table of up
#: to 64 base files, on a cluster with 200 shuffle partitions a single file.
NARROW_FILE_OPENS: Final = 128
_FOUND_KEY: Final = "_hudi_fw_found_key"
_SHARD: Final = "_hudi_fw_shard"
_LOCATION: Final = "_hudi_fw_location"


@carrying_errors
def _key_range_task(spec: WorkerSpec, out: pa.Schema, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    storage = worker_components(spec).storage
    for batch in batches:
        files = [read_key_range(f, storage) for f in files_from_arrow(pa.Table.from_batches([batch]))]
        yield from to_spark_batches(files_to_arrow(files), out)


@carrying_errors
def _candidates_task(
    spec: WorkerSpec, files: Broadcast[list[IndexedFile]], out: pa.Schema, batches: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    parts = [b for b in batches if b.num_rows]
    if not parts:
        return
    index = worker_components(spec).write.index
    keys = pa.Table.from_batches(parts)
    tasks = index.candidate_files(keys, index.relevant_files(distinct_partitions(keys), files.value))
    yield from to_spark_batches(tasks_to_arrow(tasks), out)


@carrying_errors
def _lookup_task(
    spec: WorkerSpec,
    virtual_keys: bool,
    metadata: KeyFactsSource | None,
    out: pa.Schema,
    batches: Iterable[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    parts = [b for b in batches if b.num_rows]
    if not parts:
        return
    components = worker_components(spec)
    index, keygen, storage = components.write.index, components.write.keygen, components.storage
    tasks = merge_lookup_tasks(tasks_from_arrow(pa.Table.from_batches(parts)))
    if metadata is not None and not virtual_keys:
        # The filters of this task's files, from the metadata table in one read of their file groups.
        tasks = metadata.with_blooms(tasks, storage)
    for task in tasks:
        found = virtual_key_lookup(keygen, task, storage) if virtual_keys else index.lookup(task, storage)
        yield from to_spark_batches(found, out)


@carrying_errors
def _log_keys_task(spec: WorkerSpec, out: pa.Schema, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    storage = worker_components(spec).storage
    for batch in batches:
        for files in log_files_from_arrow(pa.Table.from_batches([batch])):
            yield from to_spark_batches(log_key_locations(files, storage), out)


@carrying_errors
def _shard_task(shards: int, out: pa.Schema, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        if batch.num_rows:
            keys = batch.column(0)
            shard = pa.array(record_index_file_groups(keys, shards).astype("int32"))
            yield from to_spark_batches(pa.table({RECORD_KEY: keys, _SHARD: shard}), out)


@carrying_errors
def _keyed_lookup_task(
    spec: WorkerSpec, live: Broadcast[pa.Table], out: pa.Schema, batches: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    parts = [b for b in batches if b.num_rows]
    if not parts:
        return
    components = worker_components(spec)
    index = components.write.index
    assert isinstance(index, KeyedIndex)  # the driver took the keyed path for this index
    locator = locator_for(index, components.storage)
    if locator is None:  # the key map went away since the driver looked: a concurrent writer dropped it
        raise MetadataTableUnusableError(f"the {index.metadata_partition} partition disappeared during tagging")
    keys = pa.Table.from_batches(parts).column(RECORD_KEY)
    yield from to_spark_batches(keyed_lookup(index, locator, keys, live.value), out)


@carrying_errors
def _settle_task(
    spec: WorkerSpec,
    slices: Broadcast[list[FileSlice]],
    reads: StoredReads | None,
    virtual_keys: bool,
    partial_columns: tuple[str, ...],
    out: pa.Schema,
    batches: Iterable[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    components = worker_components(spec)
    ctx = MergeContext(ordering_fields=spec.config.ordering_fields, partial_columns=partial_columns)
    keygen = components.write.keygen if virtual_keys else None
    for batch in batches:
        if batch.num_rows:
            rows = pa.Table.from_batches([batch])
            settled = settle_partition_moves(
                rows, slices.value, components.storage, components.write.merger, ctx, reads=reads, keygen=keygen
            )
            yield from to_spark_batches(settled, out)


def _tag_in_task(
    spec: WorkerSpec,
    slices: Broadcast[list[FileSlice]],
    partial_columns: tuple[str, ...],
    metadata: KeyFactsSource | None,
    stored: StoredReads | None,
    rows: pa.Table,
) -> pa.Table:
    components = worker_components(spec)
    return tag_for_write(
        rows, slices.value, components.storage,
        config=spec.config, index=components.write.index, merger=components.write.merger,
        keygen=components.write.keygen, partial_columns=partial_columns, metadata=metadata, stored=stored,
    )  # fmt: skip


@dataclass(frozen=True)
class NarrowTagging:
    """The tagging step the pre-combine tasks run (see the module docstring).

    Attributes:
        finish: Tags a task's combined rows (picklable).
        fields: The location columns it appends, as Spark's Arrow types.
    """

    finish: RowsFinish
    fields: tuple[pa.Field, ...] = tuple(pa.field(name, pa.string()) for name in LOCATION_COLUMNS)


def narrow_tagging(
    spark: SparkSession,
    spec: WorkerSpec,
    slices: Sequence[FileSlice],
    *,
    tasks: int,
    held: SparkResources,
    partial_columns: tuple[str, ...] = (),
    metadata: KeyFactsSource | None = None,
    stored: StoredReads | None = None,
) -> NarrowTagging | None:
    """The narrow tagging step for ``tasks`` pre-combine tasks, or None when the table has no base
    file or too many for it (:data:`NARROW_FILE_OPENS`); broadcasts the file slices (released with
    ``held``). ``metadata``: where the metadata table stands in for footers; ``stored``: how the
    stored records of moving keys are read (shipped in the task closure)."""
    files = len(indexed_files(slices))
    if not files or files * tasks > NARROW_FILE_OPENS:
        return None
    broadcast = spark.sparkContext.broadcast(list(slices))
    held.broadcasts.append(broadcast)
    return NarrowTagging(partial(_tag_in_task, spec, broadcast, partial_columns, metadata, stored))


def _rows_per_partition(rows: DataFrame) -> dict[str, int]:
    table = collect_arrow(rows.groupBy(PARTITION_PATH).count())
    return dict(zip(table.column(PARTITION_PATH).to_pylist(), table.column("count").to_pylist(), strict=True))


def _with_key_ranges(spark: SparkSession, spec: WorkerSpec, files: list[IndexedFile], tasks: int) -> list[IndexedFile]:
    schema = SparkSchema.of_arrow(FILE_SCHEMA)
    frame = spark.createDataFrame(files_to_arrow(files).cast(schema.arrow), schema=schema.struct)
    ranged = frame.repartition(tasks).mapInArrow(partial(_key_range_task, spec, schema.arrow), schema.struct)
    return files_from_arrow(collect_arrow(ranged))


def _driver_footers(spec: WorkerSpec, files: list[IndexedFile], *, key_ranges: bool) -> tuple[list[IndexedFile], int]:
    """``files`` (with key ranges when asked) and their total row count, from footers read in threads."""
    storage = worker_components(spec).storage
    with ThreadPoolExecutor(max_workers=min(_FOOTER_THREADS, len(files))) as pool:
        read = list(pool.map(lambda f: read_footer_facts(f, storage, key_range=key_ranges), files))
    return [f for f, _ in read], sum(n for _, n in read)


def _null_locations(rows: DataFrame) -> DataFrame:
    return rows.select("*", *[F.lit(None).cast("string").alias(name) for name in LOCATION_COLUMNS])


def tag_rows(
    spark: SparkSession,
    spec: WorkerSpec,
    index: RecordIndex,
    rows: DataFrame,
    slices: Sequence[FileSlice],
    *,
    tasks: int,
    held: SparkResources,
    partial_columns: tuple[str, ...] = (),
    metadata: KeyFactsSource | None = None,
    stored: StoredReads | None = None,
) -> DataFrame:
    """``rows`` with the three location columns (null for new keys), as ``tag_locations`` defines them.

    Args:
        spark: The session.
        spec: How tasks rebuild the components.
        index: The driver's index (planning only).
        rows: Keyed rows (persisted by the caller: they are read several times).
        slices: The table's latest file slices.
        tasks: Lookup tasks at most.
        held: Receives what must be released after the write.
        partial_columns: The columns a partial update carries (empty for full rows): a row that
            moves partition is inserted as the merge with its stored record.
        metadata: Where the metadata table stands in for footers: key ranges (driver, before
            any footer) and bloom filters (each lookup task reads its files' filters).
        stored: How the stored records of moving keys are read (a global index that moves keys).
    """
    if isinstance(index, KeyedIndex):
        keyed = _keyed_found(spec, index, rows, slices, tasks=tasks, held=held)
        if keyed is not None:
            join = partial(
                _join_found, spark, spec, index, rows, slices, held=held, partial_columns=partial_columns, stored=stored
            )
            return join(keyed, None)
    relevant = indexed_files(slices)
    virtual_keys = not spec.config.populate_meta_fields
    if metadata is not None and not virtual_keys and index.wants_key_ranges:
        relevant = metadata.with_key_ranges(relevant, worker_components(spec).storage)
    # At most this many keys can be found (None: unknown until the found keys are counted).
    bound: int | None = None
    if relevant and len(relevant) <= DRIVER_FOOTER_FILES and metadata is None:
        # Few files: the driver reads their footers (key ranges, row counts) without a job, and
        # does not prune them by incoming partition (each lookup task prunes by its own keys).
        # With the metadata table, no footer is read: only the ranges it lacks, below.
        relevant, bound = _driver_footers(spec, relevant, key_ranges=index.wants_key_ranges)
    elif index.wants_key_ranges and relevant:
        partitions: list[str] = []
        if not index.is_global:
            # Footers are read only for the files of the incoming partitions: an extra (small) job.
            counts = _rows_per_partition(rows)
            bound, partitions = sum(counts.values()), sorted(counts)
        relevant = index.relevant_files(partitions, relevant)
        missing = [f for f in relevant if not f.has_key_range]
        if missing:
            on_driver = len(missing) <= DRIVER_FOOTER_FILES
            read = (
                _driver_footers(spec, missing, key_ranges=True)[0]
                if on_driver
                else _with_key_ranges(spark, spec, missing, max(1, min(tasks, len(missing))))
            )
            ranged = {f.path: f for f in read}
            relevant = [ranged.get(f.path, f) for f in relevant]
    join = partial(
        _join_found, spark, spec, index, rows, slices, held=held, partial_columns=partial_columns, stored=stored
    )
    logged = _log_found(spark, spec, index, rows, slices, tasks)
    if not relevant:
        return _null_locations(rows) if logged is None else join(logged, None)
    tasks = max(1, min(tasks, len(relevant)))
    files = spark.sparkContext.broadcast(relevant)
    held.broadcasts.append(files)
    task_schema = SparkSchema.of_arrow(TASK_SCHEMA)
    lookups = rows.select(RECORD_KEY, PARTITION_PATH).mapInArrow(
        partial(_candidates_task, spec, files, task_schema.arrow), task_schema.struct
    )
    found_schema = SparkSchema.of_arrow(LOOKUP_SCHEMA)
    found = lookups.repartition(tasks, "path").mapInArrow(
        partial(_lookup_task, spec, virtual_keys, metadata, found_schema.arrow), found_schema.struct
    )
    if logged is not None:  # every key of the log files read: no bound on the found rows
        found, bound = found.unionByName(logged), None
    return join(found, bound)


def _log_found(
    spark: SparkSession, spec: WorkerSpec, index: RecordIndex, rows: DataFrame, slices: Sequence[FileSlice], tasks: int
) -> DataFrame | None:
    """For an index that finds keys in log files (``hudi_framework.index.log_keys``): the keys of
    the latest slices' log files, read in executors; None when there are none to read."""
    if not index.indexes_log_files:
        return None
    files = log_key_files(index, slices, [] if index.is_global else sorted(_rows_per_partition(rows)))
    if not files:
        return None
    schema = SparkSchema.of_arrow(LOG_FILES_SCHEMA)
    frame = spark.createDataFrame(log_files_to_arrow(files).cast(schema.arrow), schema=schema.struct)
    found_schema = SparkSchema.of_arrow(LOOKUP_SCHEMA)
    return frame.repartition(max(1, min(tasks, len(files)))).mapInArrow(
        partial(_log_keys_task, spec, found_schema.arrow), found_schema.struct
    )


def _keyed_found(
    spec: WorkerSpec,
    index: KeyedIndex,
    rows: DataFrame,
    slices: Sequence[FileSlice],
    *,
    tasks: int,
    held: SparkResources,
) -> DataFrame | None:
    """The found locations of a keyed index, looked up in executors; None when the table keeps no
    key map (the caller falls back to the index's file-based lookups).

    As Apache Hudi's record-level index: the keys are shuffled by the shard (file group) of the key
    map they fall in, so each shard is read by one task, which decodes only its keys' entries.
    """
    locator = locator_for(index, worker_components(spec).storage)
    if locator is None:
        return None
    shards = locator.shard_count
    live = rows.sparkSession.sparkContext.broadcast(live_file_groups(slices))
    held.broadcasts.append(live)
    shard_schema = SparkSchema.of_arrow(pa.schema([pa.field(RECORD_KEY, pa.string()), pa.field(_SHARD, pa.int32())]))
    keys = rows.select(RECORD_KEY).mapInArrow(partial(_shard_task, shards, shard_schema.arrow), shard_schema.struct)
    found_schema = SparkSchema.of_arrow(LOOKUP_SCHEMA)
    return keys.repartition(max(1, min(tasks, shards)), _SHARD).mapInArrow(
        partial(_keyed_lookup_task, spec, live, found_schema.arrow), found_schema.struct
    )


def _join_found(
    spark: SparkSession,
    spec: WorkerSpec,
    index: RecordIndex,
    rows: DataFrame,
    slices: Sequence[FileSlice],
    found: DataFrame,
    bound: int | None,
    *,
    held: SparkResources,
    partial_columns: tuple[str, ...],
    stored: StoredReads | None,
) -> DataFrame:
    """Step 3 of the module docstring: the found locations joined onto the rows."""
    virtual_keys = not spec.config.populate_meta_fields
    if index.is_global and index.update_partition_path:
        # A key's partition move is settled per key: its latest file group is its location.
        located = found.groupBy(RECORD_KEY).agg(
            F.max(F.struct(LOCATION_INSTANT, LOCATION_FILE_ID, LOCATION_PARTITION)).alias(_LOCATION)
        )
        located = located.select(RECORD_KEY, *[F.col(f"{_LOCATION}.{name}").alias(name) for name in LOCATION_COLUMNS])
    else:
        # Every file group holding a key: the join repeats its row once per file group.
        located = found.dropDuplicates([RECORD_KEY, LOCATION_PARTITION, LOCATION_FILE_ID])
    latest = located.select(F.col(RECORD_KEY).alias(_FOUND_KEY), *LOCATION_COLUMNS).persist(
        StorageLevel.MEMORY_AND_DISK_DESER
    )
    held.cached.append(latest)
    if bound is not None and bound <= BROADCAST_FOUND_ROWS:
        # Broadcast without a job to count the found keys: the lookups run in the next job (the
        # routing summary's), which caches them for the write.
        right = F.broadcast(latest)
    else:
        with typed_task_errors():
            num_found = latest.count()
        if not num_found:
            return _null_locations(rows)
        right = F.broadcast(latest) if num_found <= BROADCAST_FOUND_ROWS else latest
    condition = rows[RECORD_KEY] == right[_FOUND_KEY]
    if not index.is_global:
        condition = condition & (rows[PARTITION_PATH] == right[LOCATION_PARTITION])
    tagged = rows.join(right, on=condition, how="left").drop(_FOUND_KEY)
    if index.is_global and not index.update_partition_path:
        tagged = tagged.withColumn(PARTITION_PATH, F.coalesce(F.col(LOCATION_PARTITION), F.col(PARTITION_PATH)))
    elif index.is_global:
        # A key found in another partition moves only if the merge with the stored record says so.
        shipped = spark.sparkContext.broadcast(list(slices))
        held.broadcasts.append(shipped)
        schema = SparkSchema.of_frame(tagged)
        task = partial(_settle_task, spec, shipped, stored, virtual_keys, partial_columns, schema.arrow)
        tagged = tagged.mapInArrow(task, schema.struct)
    return tagged


def without_stored_keys(tagged: DataFrame, policy: InsertDupPolicy) -> DataFrame:
    """Tagged insert rows without those whose key the table holds, and without the location columns
    (``hoodie.datasource.insert.dup.policy``; see :mod:`hudi_framework.write.insert_duplicates`).

    Raises:
        DuplicateKeyError: ``FAIL`` and some key is stored (one job counts them first).
    """
    located = F.col(LOCATION_FILE_ID).isNotNull()
    if policy is InsertDupPolicy.FAIL:
        stored = tagged.filter(located).select(RECORD_KEY).distinct()
        with typed_task_errors():
            shown = [row[0] for row in stored.limit(SHOWN_KEYS).collect()]
            if shown:
                raise duplicate_key_error(shown, stored.count())
    return tagged.filter(~located).drop(*LOCATION_COLUMNS)
