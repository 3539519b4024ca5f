"""``df.write.format("hudi")``: the write side of the Spark data source.

A Python data source has no say over how Spark distributes rows to its write tasks, and each task
sees only its own partition of the DataFrame. Two strategies follow from what an operation needs:

* **Direct** (``bulk_insert``, ``insert_overwrite``, ``insert_overwrite_table``): these never look
  at stored records, so each task can do the whole job for its rows. ``writer()`` starts the instant
  on the driver side; every task computes keys, plans new file groups for its own rows and writes
  them (marker first) in the executor; ``commit`` completes the instant with the tasks' write stats
  (deleting files of failed or duplicate attempts, which only markers name); ``abort`` deletes every
  marked file and the instant. The driver handles write stats only, never rows.
* **Staged** (``upsert``, ``insert``, ``delete``): all incoming rows of a file group must meet its
  stored records together, which needs a shuffle the data source cannot request of the write job.
  Tasks stage their rows (one Parquet file each under ``.hoodie/.temp/``). ``commit`` then merges
  them: when they are large (:data:`~hudi_framework.spark.options.DISTRIBUTED_MIN_BYTES_KEY`) and
  the data source was registered by the session (it then knows how to reach the driver's JVM,
  :mod:`~hudi_framework.spark.driver_session`), with a distributed job of the Spark engine over the
  staged files (:mod:`~hudi_framework.spark.staged_merge`: shuffle by file group, merges in
  executors), else with the local engine in the commit process.

Either way a failed job leaves the table as it was: staged files are never data files, and direct
files are unreported until the commit completes. Once the instant completed the job has succeeded:
a step after it that fails (dropping markers or staged rows, an inline table service) is logged
and issued as a :class:`~hudi_framework.errors.PostCommitWarning`, never raised to Spark (which
would report the job failed, and abort it).
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import StructType

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import TableNotFoundError
from hudi_framework.layout.discovery import check_new_partitions
from hudi_framework.runtime.components import Components
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.driver_session import attach_session
from hudi_framework.spark.options import SourceOptions
from hudi_framework.spark.task_errors import reported_write
from hudi_framework.table.from_settings import check_settings_match_table, table_config_from_settings
from hudi_framework.timeline.instant import Instant
from hudi_framework.timeline.metadata import WriteStat
from hudi_framework.vocabulary import ConcurrencyMode, WriteOperation
from hudi_framework.write.batch import check_batch_schema, normalised_schema, require_key_fields
from hudi_framework.write.client import WriteClient
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.file_group_task import write_file_group
from hudi_framework.write.insert_duplicates import insert_dup_policy
from hudi_framework.write.markers import STAGING_DIR_PREFIX
from hudi_framework.write.metadata_upkeep import metadata_write_options
from hudi_framework.write.operation import is_replace
from hudi_framework.write.pipeline import WriteResult, latest_slices
from hudi_framework.write.planner import (
    SUMMARY_SCHEMA,
    TARGET,
    apply_routing,
    merge_summaries,
    plan_targets,
    route_rows,
    routing_summary,
    split_by_target,
)
from hudi_framework.write.post_commit import PostCommitSteps
from hudi_framework.write.prepare import combine_rows, prepare_rows
from hudi_framework.write.session import WriteSession
from hudi_framework.write.transaction import WriteTransaction

__all__ = [
    "DIRECT_OPERATIONS",
    "STAGING_ROOT",
    "DirectWriter",
    "StagedWriter",
    "build_writer",
    "check_frame",
    "open_or_create",
    "task_identity",
]

STAGING_ROOT = ".hoodie/.temp"

#: Operations whose tasks write their own file groups (no stored record is read).
DIRECT_OPERATIONS = frozenset(
    {WriteOperation.BULK_INSERT, WriteOperation.INSERT_OVERWRITE, WriteOperation.INSERT_OVERWRITE_TABLE}
)


def task_identity() -> tuple[int, int, int]:
    """(partition id, stage id, attempt number) of the running Spark task ((0, 0, 0) outside one)."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if ctx is None:
        return 0, 0, 0
    return ctx.partitionId(), ctx.stageId(), ctx.attemptNumber()


def open_or_create(options: SourceOptions, schema: pa.Schema | None) -> HudiTable | None:
    """The target table; created from the options when missing and ``schema`` is given."""
    try:
        return options.open_table()
    except TableNotFoundError:
        if schema is None:
            return None
        config = table_config_from_settings(options.settings)
        return HudiTable.create(options.path, config, schema=schema, settings=options.settings)


def _operation(options: SourceOptions, overwrite: bool) -> WriteOperation:
    operation = WriteOperation(options.settings.write.operation.value)
    # mode("overwrite") replaces the table unless the operation already replaces something.
    if overwrite and not is_replace(operation):
        return WriteOperation.INSERT_OVERWRITE_TABLE
    return operation


def check_frame(options: SourceOptions, schema: StructType, overwrite: bool) -> tuple[WriteOperation, pa.Schema]:
    """The operation a write of frames of ``schema`` runs, and their Arrow schema, once checked.

    Raises:
        HudiError: Options that do not fit the table, a missing key field, or a schema that does
            not fit the table's (nothing is written).
    """
    settings = options.settings
    operation = _operation(options, overwrite)
    incoming = to_arrow_schema(schema, timezone="UTC")
    # A frame without a key field fails here, before a task runs or a table is created.
    existing = open_or_create(options, None)
    if existing is not None:
        check_settings_match_table(existing.config, settings)
    config = existing.config if existing is not None else table_config_from_settings(settings)
    require_key_fields(incoming, (*config.record_key_fields, *config.partition_fields))
    if existing is not None:
        table_schema = WriteSession.data_schema(existing, incoming, operation)
    else:
        table_schema = normalised_schema(incoming, config.name)
    check_batch_schema(
        incoming,
        table_schema,
        allow_missing=operation is WriteOperation.DELETE,
        require_every_column=settings.write.avro_schema_validate,
    )
    return operation, incoming


def build_writer(
    options: SourceOptions, schema: StructType, overwrite: bool, driver: str | None = None
) -> DataSourceArrowWriter:
    """The writer for one ``df.write`` (runs on the driver side, before any task).

    Bad options, and a frame whose schema does not fit the table's, fail here, before a task runs.
    A direct write creates the table if needed and starts its instant here. ``driver``: how a staged
    write's commit reaches the driver's session to merge in executors (None: it merges itself).
    """
    operation, incoming = check_frame(options, schema, overwrite)
    settings = options.settings
    # Direct writes have no process that lives from start to commit to keep a heartbeat or hold a
    # lock, so under optimistic concurrency they go through the staged path (one process commits).
    if operation in DIRECT_OPERATIONS and settings.write.concurrency_mode is ConcurrencyMode.SINGLE_WRITER:
        return DirectWriter.start(options, operation, incoming)
    return StagedWriter(options, operation, schema, driver)


# ---------------------------------------------------------------------------------------- direct


@dataclass
class _Written(WriterCommitMessage):
    """What one task wrote: a write stat per file, and its routing summary (partitions it touched)."""

    stats: list[WriteStat]
    summary: pa.Table


class DirectWriter(DataSourceArrowWriter):
    """Each task writes new file groups for its rows; the driver side starts and completes the instant."""

    def __init__(self, options: SourceOptions, operation: WriteOperation, instant: Instant, schema: pa.Schema) -> None:
        self._options = options
        self._operation = operation
        self._instant = instant
        self._schema = schema

    @classmethod
    def start(cls, options: SourceOptions, operation: WriteOperation, incoming: pa.Schema) -> DirectWriter:
        """Create the table if needed and start the instant (requested + inflight)."""
        insert_dup_policy(options.settings.write, operation)  # options the operation refuses fail first
        table = open_or_create(options, incoming)
        assert table is not None
        schema = WriteSession.data_schema(table, incoming, operation)
        # Single writer: failed writes of earlier jobs are rolled back first (EAGER), as every writer does.
        concurrency = WriteConcurrency.from_settings(options.settings, table)
        WriteTransaction(table.storage, table.config, operation, concurrency=concurrency).rollback_failed_writes()
        txn = WriteTransaction(
            table.storage,
            table.config,
            operation,
            metadata=metadata_write_options(options.settings.write, options.settings.services.clean),
        )
        return cls(options, operation, txn.start(), schema)

    def _session(self) -> tuple[HudiTable, WriteSession]:
        table = open_or_create(self._options, None)
        if table is None:
            raise TableNotFoundError(self._options.path)
        return table, WriteSession(table, self._options.settings)

    @reported_write
    def write(self, iterator: Iterator[pa.RecordBatch]) -> _Written:
        part, stage, attempt = task_identity()
        batches = list(iterator)
        if not batches:
            return _Written([], SUMMARY_SCHEMA.empty_table())
        table, session = self._session()
        config = table.config
        rows = prepare_rows(self._operation, pa.Table.from_batches(batches), self._schema, session.keygen)
        if session.combines(self._operation):
            rows = combine_rows(
                session.merger, rows, config.ordering_fields, by_partition=session.combines_by_partition
            )
        summary = routing_summary(rows)
        # New file groups only: stored files are neither read nor rewritten by these operations.
        plan = plan_targets(
            self._operation, summary, [], sizing=session.sizing(), record_size=session.record_size(table)
        )
        routed = apply_routing(rows, route_rows(rows, plan))
        targets = routed.column(TARGET).combine_chunks()
        per_target = split_by_target(routed.drop_columns([TARGET]), targets, len(plan.targets))
        ctx = session.task_context(config, self._instant.requested_time, self._schema, self._operation)
        stats = [
            write_file_group(
                table.storage,
                session.merger,
                ctx,
                target,
                incoming,
                task_partition_id=part,
                write_token=f"{part}-{stage}-{attempt}",
                keygen=session.keygen,
            )
            for target, incoming in zip(plan.targets, per_target, strict=True)
            if incoming.num_rows
        ]
        return _Written(stats, summary)

    def _transaction(self, table: HudiTable) -> WriteTransaction:
        return WriteTransaction(
            table.storage, table.config, self._operation, instant=self._instant, hooks=table.commit_hooks
        )

    @reported_write
    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        table, session = self._session()
        written = [m for m in messages if isinstance(m, _Written)]
        stats = [s for m in written for s in m.stats]
        summary = merge_summaries([m.summary for m in written]) if written else SUMMARY_SCHEMA.empty_table()
        listed = latest_slices(table)
        # File groups replaced: the live ones (as of before this instant) in the partitions written.
        replaced = plan_targets(
            self._operation,
            summary,
            listed.slices,
            sizing=session.sizing(),
            record_size=session.record_size(table),
        ).replaced
        txn = self._transaction(table)
        try:
            # Each task saw only its own partitions; together they may nest (abort removes their files).
            check_new_partitions((s.partition_path or "" for s in stats), listed.partitions)
            txn.commit(stats, schema_json=session.schema_json(table.config, self._schema), replaced=replaced)
        except BaseException:
            txn.abort()
            raise

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        table = open_or_create(self._options, None)
        if table is not None:
            self._transaction(table).abort()


# ---------------------------------------------------------------------------------------- staged


@dataclass
class _Staged(WriterCommitMessage):
    key: str
    rows: int
    size: int = 0


class StagedWriter(DataSourceArrowWriter):
    """Tasks stage their rows; ``commit`` writes one instant, merging in executors or in itself."""

    def __init__(
        self,
        options: SourceOptions,
        operation: WriteOperation,
        schema: StructType | None = None,
        driver: str | None = None,
    ) -> None:
        self._options = options
        self._operation = operation
        self._schema = schema
        self._driver = driver
        self._staging = f"{STAGING_ROOT}/{STAGING_DIR_PREFIX}{uuid.uuid4().hex}"

    def _storage(self) -> StorageBackend:
        table = open_or_create(self._options, None)
        if table is not None:
            return table.storage
        return Components.from_settings(self._options.settings).storage(self._options.path)

    @reported_write
    def write(self, iterator: Iterator[pa.RecordBatch]) -> _Staged:
        part, _stage, attempt = task_identity()
        first = next(iterator, None)
        if first is None:
            return _Staged(key="", rows=0)
        key = f"{self._staging}/{part:05d}-{attempt}.parquet"
        rows = 0
        storage = self._storage()
        # Batch by batch: a task holds one batch of its rows, not its whole partition.
        with storage.open_output(key) as sink, pq.ParquetWriter(sink, first.schema) as writer:
            for batch in itertools.chain([first], iterator):
                writer.write_batch(batch)
                rows += batch.num_rows
        return _Staged(key=key, rows=rows, size=storage.size(key))

    @reported_write
    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        storage = self._storage()
        try:
            staged = sorted((m for m in messages if isinstance(m, _Staged) and m.key), key=lambda m: m.key)
            if not staged:
                self._cleanup(storage)
                return
            result = self._merge([m.key for m in staged], sum(m.size for m in staged), storage)
        except BaseException:
            self._cleanup(storage)
            raise
        # Committed: staged rows left behind are swept by the next write (EAGER), never an error here.
        PostCommitSteps(result.instant.requested_time).run("staging cleanup", lambda: self._cleanup(storage))

    def _merge(self, keys: list[str], size: int, storage: StorageBackend) -> WriteResult:
        """One instant over the staged files ``keys`` (``size`` bytes in all)."""
        spark = None
        if self._driver is not None and self._schema is not None and size >= self._options.staged_merge_min_bytes:
            spark = attach_session(self._driver)
        if spark is not None:
            assert self._schema is not None
            from hudi_framework.spark.staged_merge import distributed_merge

            schema = to_arrow_schema(self._schema, timezone="UTC")
            table = open_or_create(self._options, schema)
            assert table is not None
            return distributed_merge(spark, table, self._options.settings, keys, self._schema, self._operation)
        parts = []
        for key in keys:
            with storage.open_input(key) as f:
                parts.append(pq.read_table(f))
        data = pa.concat_tables(parts, promote_options="default")
        table = open_or_create(self._options, data.schema)
        assert table is not None
        return WriteClient(table, self._options.settings).write(data, self._operation)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        self._cleanup(self._storage())

    def _cleanup(self, storage: StorageBackend) -> None:
        storage.delete_tree(self._staging)
