"""The write pipeline every engine runs: one operation, one instant, all or nothing.

:class:`WritePipeline` holds the operations and the driver's part; an engine supplies where rows
live and how tasks run (``WriteClient``: in-process over pyarrow; ``SparkWriteClient``: Spark
executors over a DataFrame). The steps, in order:

1. resolve the data schema (the table's, or the first batch's) and check the batch's schema against
   it (:func:`~hudi_framework.write.batch.check_batch_schema`: names and types, never values);
2. ``_stage``: conform, compute keys (errors such as a null key or a bad schema surface here,
   before anything is written), pre-combine, tag with the index;
3. ``_summarize`` + :func:`~hudi_framework.write.planner.plan_targets`: the file groups written;
4. start the instant, ``_write`` every file group once, commit with the write stats; on any failure
   after the start, abort: marked files and the instant are removed, the table is as before;
5. after the commit: reload the table and run the inline table services. The write has succeeded
   by then, so a failure here is reported in the result (:attr:`WriteResult.post_commit_failures`)
   and as a :class:`~hudi_framework.errors.PostCommitWarning`, never raised
   (:mod:`~hudi_framework.write.post_commit`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.task_runner import ServiceTaskRunner
from hudi_framework.errors import MetadataTableUnusableError
from hudi_framework.layout.discovery import check_new_partitions
from hudi_framework.layout.fs_view import check_base_file_formats
from hudi_framework.metadata.key_changes import RECORD_INDEX_FACT, FileKeyChanges
from hudi_framework.metadata.log_file_stats import COLUMN_STATS_FACT
from hudi_framework.metadata.records import MetadataPartition
from hudi_framework.metadata_writer.partition_builder import DATA_TIMELINE_FACT
from hudi_framework.metadata_writer.sync import MetadataTableSync
from hudi_framework.runtime.table import SUPPORTED_BASE_FORMATS
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.batch import check_batch_schema, require_key_fields
from hudi_framework.write.clustering_updates import clustering_file_groups, reject_clustering_updates
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.conflicts import WriteBaseline
from hudi_framework.write.insert_duplicates import insert_dup_policy
from hudi_framework.write.metadata_upkeep import metadata_write_options
from hudi_framework.write.partition_selection import select_partitions
from hudi_framework.write.planner import SUMMARY_SCHEMA, TargetPlan, plan_targets
from hudi_framework.write.post_commit import PostCommitFailure, PostCommitSteps
from hudi_framework.write.schema_conflicts import latest_recorded_schema
from hudi_framework.write.session import WriteSession
from hudi_framework.write.table_services import ServiceRun, check_inline_services, run_inline_services
from hudi_framework.write.transaction import WriteTransaction

if TYPE_CHECKING:
    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.timeline.instant import Instant
    from hudi_framework.timeline.metadata import WriteStat
    from hudi_framework.write.file_group_task import WriteTaskContext

__all__ = ["LatestSlices", "PostCommitFailure", "WritePipeline", "WriteResult", "latest_slices"]

#: The engine's incoming data (``pa.Table``, a Spark ``DataFrame``).
DataT = TypeVar("DataT")
#: The engine's prepared rows between staging and writing.
StagedT = TypeVar("StagedT")


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What one committed write did (a write that fails raises instead).

    Attributes:
        instant: The completed instant.
        operation: The operation.
        stats: One write stat per data file written.
        services: Table services run inline after the commit (scheduled or executed).
        post_commit_failures: Steps after the commit that failed (a table service, reloading the
            table, a cleanup). The write is committed regardless: do not retry it. Each was also
            issued as a :class:`~hudi_framework.errors.PostCommitWarning`.
    """

    instant: Instant
    operation: WriteOperation
    stats: tuple[WriteStat, ...]
    services: tuple[ServiceRun, ...] = ()
    post_commit_failures: tuple[PostCommitFailure, ...] = ()

    @property
    def committed(self) -> bool:
        """Always True: the write's instant completed (failures after it are in ``post_commit_failures``)."""
        return True

    @property
    def num_writes(self) -> int:
        """Rows in the files written."""
        return sum(s.num_writes or 0 for s in self.stats)

    @property
    def num_inserts(self) -> int:
        """New keys."""
        return sum(s.num_inserts or 0 for s in self.stats)

    @property
    def num_updates(self) -> int:
        """Updated keys."""
        return sum(s.num_update_writes or 0 for s in self.stats)

    @property
    def num_deletes(self) -> int:
        """Deleted keys."""
        return sum(s.num_deletes or 0 for s in self.stats)


class WritePipeline(ABC, Generic[DataT, StagedT]):
    """Write operations on one table (copy-on-write or merge-on-read); subclasses are the engines."""

    def __init__(self, table: HudiTable, settings: HudiSettings | None = None) -> None:
        """Bind to ``table``; ``settings`` supply write, index and merger options (defaults otherwise)."""
        self._table = table
        self._session = WriteSession(table, settings)

    @property
    def table(self) -> HudiTable:
        """The table written to."""
        return self._table

    @property
    def session(self) -> WriteSession:
        """Components and options of this client's writes."""
        return self._session

    # ------------------------------------------------------------------ operations
    def upsert(self, data: DataT, *, extra_metadata: Mapping[str, str] | None = None) -> WriteResult:
        """Insert new keys and update existing ones (merged by the table's merger)."""
        return self.write(data, WriteOperation.UPSERT, extra_metadata=extra_metadata)

    def insert(self, data: DataT, *, extra_metadata: Mapping[str, str] | None = None) -> WriteResult:
        """Insert rows without looking up existing keys (duplicates of stored keys are possible)."""
        return self.write(data, WriteOperation.INSERT, extra_metadata=extra_metadata)

    def bulk_insert(self, data: DataT, *, extra_metadata: Mapping[str, str] | None = None) -> WriteResult:
        """Insert rows into new file groups only (fastest initial load)."""
        return self.write(data, WriteOperation.BULK_INSERT, extra_metadata=extra_metadata)

    def delete(self, data: DataT, *, extra_metadata: Mapping[str, str] | None = None) -> WriteResult:
        """Delete the records whose keys ``data`` holds (rows or just the key and partition columns)."""
        return self.write(data, WriteOperation.DELETE, extra_metadata=extra_metadata)

    def insert_overwrite(self, data: DataT, *, extra_metadata: Mapping[str, str] | None = None) -> WriteResult:
        """Replace every file group of the partitions ``data`` touches with ``data``."""
        return self.write(data, WriteOperation.INSERT_OVERWRITE, extra_metadata=extra_metadata)

    def insert_overwrite_table(self, data: DataT, *, extra_metadata: Mapping[str, str] | None = None) -> WriteResult:
        """Replace the whole table with ``data``."""
        return self.write(data, WriteOperation.INSERT_OVERWRITE_TABLE, extra_metadata=extra_metadata)

    def delete_partition(self, partitions: Sequence[str]) -> WriteResult:
        """Drop whole partitions (a replacecommit; files stay until cleaning)."""
        return self._run(WriteOperation.DELETE_PARTITION, None, list(partitions))

    def write(
        self, data: DataT, operation: WriteOperation | str, *, extra_metadata: Mapping[str, str] | None = None
    ) -> WriteResult:
        """Run ``operation`` on ``data``.

        ``delete_partition`` drops the partitions of ``data``'s rows (their keys computed by the key
        generator), as Apache Hudi's Spark writer does without
        ``hoodie.datasource.write.partitions.to.delete``; :meth:`delete_partition` takes the paths.

        ``extra_metadata`` entries join the commit's ``extraMetadata`` in the same atomic commit (an
        ingestion job's checkpoint, a streaming query's batch id); a ``schema`` entry is replaced by
        the writer's schema.
        """
        return self._run(WriteOperation(operation), data, [], extra_metadata)

    # ------------------------------------------------------------------ engine hooks
    @abstractmethod
    def _incoming_schema(self, data: DataT) -> pa.Schema:
        """The Arrow schema of ``data`` (creates the table schema on a table's first write)."""

    @abstractmethod
    def _stage(
        self,
        operation: WriteOperation,
        data: DataT,
        schema: pa.Schema,
        slices: Sequence[FileSlice],
        partial_columns: tuple[str, ...] = (),
    ) -> StagedT:
        """Prepare, pre-combine and tag the rows; every data error must be raised here.

        ``partial_columns`` names the columns a partial update carries (empty for full rows).
        """

    @abstractmethod
    def _summarize(self, staged: StagedT) -> pa.Table:
        """The routing summary of the staged rows (small)."""

    @abstractmethod
    def _write(
        self,
        staged: StagedT,
        plan: TargetPlan,
        ctx: WriteTaskContext,
        key_changes: dict[str, FileKeyChanges] | None = None,
        log_stats: dict[str, pa.Table | None] | None = None,
    ) -> list[WriteStat]:
        """Write every file group of ``plan`` once and return one stat per file written.

        With ``key_changes``, the engine may put there the keys each written file's group gained
        and lost (:mod:`~hudi_framework.metadata.key_changes`); files it leaves out are read back
        by the record index's upkeep. With ``log_stats``, likewise the column statistics of each
        log file written (:mod:`~hudi_framework.metadata.log_file_stats`).
        """

    def _service_runner(self) -> ServiceTaskRunner | None:
        """Where inline services run their per-file-group tasks: this engine's executors
        (None: the local engine's process pool or the calling process)."""
        return None

    def _release(self, staged: StagedT) -> None:
        """Free what staging holds (cached data); called once the write ended, however it ended."""

    # ------------------------------------------------------------------ the pipeline
    def _run(
        self,
        op: WriteOperation,
        data: DataT | None,
        drop_partitions: list[str],
        extra_metadata: Mapping[str, str] | None = None,
    ) -> WriteResult:
        insert_dup_policy(self._session.settings.write, op)  # options the operation refuses fail first
        session = self._session
        table = session.adopt_merge_behaviour(self._table.reload())
        cfg = table.config
        check_inline_services(table, session.settings, session.plugins)  # fail before writing, not after the commit
        concurrency = WriteConcurrency.from_settings(session.settings, table)
        hooks = session.plugins.commit_hooks(table.base_uri)
        txn = WriteTransaction(
            table.storage,
            cfg,
            op,
            concurrency=concurrency,
            hooks=hooks,
            metadata=metadata_write_options(session.settings.write, session.settings.services.clean),
        )
        if txn.rollback_failed_writes():  # before planning: a rollback changes file slices
            table = table.reload()
        if concurrency.optimistic:
            txn.baseline = WriteBaseline.of(table.timeline)  # what conflict checks compare against
            txn.schema_at_start = latest_recorded_schema(table.timeline)  # a concurrent evolution is resolved
        named = session.settings.write.partitions_to_delete
        by_option = op is WriteOperation.DELETE_PARTITION and data is not None and named is not None
        if by_option:
            data = None  # the option names the partitions; Apache Hudi does not look at the rows then
        incoming = self._incoming_schema(data) if data is not None else None
        if incoming is not None:
            keygen = session.keygen
            require_key_fields(incoming, (*keygen.record_key_fields, *keygen.partition_fields))
        schema = session.data_schema(table, incoming, op)
        if incoming is not None:  # from the schemas alone, before anything is written or run
            check_batch_schema(
                incoming,
                schema,
                allow_missing=op is WriteOperation.DELETE,
                require_every_column=session.settings.write.avro_schema_validate,
            )
        partial = session.partial_columns(cfg, schema, incoming, op)  # a partial update that cannot apply fails here
        mor = session.merge_on_read(cfg)
        slices, writer_slices, partitions = latest_slices(table, merge_on_read=mor)
        if by_option and named is not None:
            drop_partitions = select_partitions(named, partitions)
        staged = self._stage(op, data, schema, slices, partial) if data is not None else None
        steps: PostCommitSteps | None = None
        try:
            summary = self._summarize(staged) if staged is not None else SUMMARY_SCHEMA.empty_table()
            if op is WriteOperation.DELETE_PARTITION and staged is not None:
                # The rows only name the partitions to drop; none of them is written.
                drop_partitions = sorted({p for p in summary.column("partition").to_pylist() if p is not None})
                summary = SUMMARY_SCHEMA.empty_table()
            # The average record size reads a commit's metadata; only insert buckets use it.
            record_size = session.settings.write.record_size_estimate
            if _has_inserts(summary):
                record_size = session.record_size(table)
            clustering = clustering_file_groups(table.timeline)
            plan = plan_targets(
                op,
                summary,
                slices,
                sizing=session.sizing(),
                record_size=record_size,
                overwrite_partitions=drop_partitions,
                merge_on_read=mor,
                writer_slices=writer_slices,
                log_inserts=mor and _log_inserts_kept(txn, session),
                clustering=clustering.keys(),
            )
            reject_clustering_updates(plan.located, clustering)
            # A partition no listing would find loses its rows: refuse before anything is written.
            check_new_partitions((t.partition for t in plan.targets), partitions)
            txn.start()
            try:
                ctx = session.task_context(cfg, txn.instant_time, schema, op, incoming)
                changes = _key_changes_wanted(txn)
                if plan.log_inserts and changes is None:  # nothing would record the keys put in logs
                    raise MetadataTableUnusableError("record_index was dropped while the write started")
                log_stats = _log_stats_wanted(txn)
                stats = (
                    self._write(staged, plan, ctx, changes, log_stats) if staged is not None and plan.targets else []
                )
                if changes:
                    _hand_over(txn, RECORD_INDEX_FACT, changes)
                if log_stats:
                    _hand_over(txn, COLUMN_STATS_FACT, log_stats)
                _hand_over(txn, DATA_TIMELINE_FACT, table.timeline)
                done = txn.commit(
                    stats,
                    schema_json=session.schema_json(cfg, schema),
                    replaced=plan.replaced,
                    extra_metadata=extra_metadata,
                )
            except BaseException:
                txn.abort()
                raise
            steps = PostCommitSteps(done.requested_time)
        finally:
            if staged is not None:
                if steps is None:
                    self._release(staged)
                else:
                    steps.run("release", lambda: self._release(staged))
        runs = []
        if steps.run("reload", table.reload) is not None:
            runs = run_inline_services(
                table, session.settings, session.plugins, on_failure=steps.record, runner=self._service_runner()
            )
        failures = (*txn.post_commit_failures, *steps.failures)
        return WriteResult(done, op, tuple(stats), services=tuple(runs), post_commit_failures=failures)


def _key_changes_wanted(txn: WriteTransaction) -> dict[str, FileKeyChanges] | None:
    """An empty sink for the written files' key changes when the table's MDT keeps the record
    index (it then takes them instead of reading the files back), else None (nothing computed)."""
    sync = txn.writer.sync
    if isinstance(sync, MetadataTableSync) and MetadataPartition.RECORD_INDEX.value in sync.partitions:
        return {}
    return None


def _log_inserts_kept(txn: WriteTransaction, session: WriteSession) -> bool:
    """Whether inserts may go to log files: the index finds keys there and this write keeps the
    table's ``record_index`` (listed now and enabled by its options, so starting the write keeps
    it), which records the keys each log file gains."""
    if not session.index.indexes_log_files:
        return False
    record_index = MetadataPartition.RECORD_INDEX.value
    return _key_changes_wanted(txn) is not None and txn.metadata.enabled(record_index)


def _log_stats_wanted(txn: WriteTransaction) -> dict[str, pa.Table | None] | None:
    """An empty sink for the written log files' column statistics when the table's MDT keeps
    ``column_stats`` (it then takes them instead of reading the log files back), else None."""
    sync = txn.writer.sync
    if isinstance(sync, MetadataTableSync) and MetadataPartition.COLUMN_STATS.value in sync.partitions:
        return {}
    return None


def _hand_over(txn: WriteTransaction, name: str, fact: object) -> None:
    sync = txn.writer.sync
    if isinstance(sync, MetadataTableSync):
        sync.hand_over(txn.instant_time, name, fact)


def _has_inserts(summary: pa.Table) -> bool:
    """Whether a routing summary counts rows to insert (the planner then sizes insert buckets)."""
    kinds = summary.column("kind")
    return bool(pc.any(pc.and_(pc.equal(kinds, "I"), pc.greater(summary.column("rows"), 0))).as_py())


class LatestSlices(NamedTuple):
    """What a write plans against, from one listing of the table.

    Attributes:
        slices: The latest slices, pending compactions folded in (what the index reads).
        writer_slices: Merge-on-read: the unfolded ones (where log appends go); None otherwise.
        partitions: The table's partitions.
    """

    slices: list[FileSlice]
    writer_slices: list[FileSlice] | None
    partitions: list[str]


def latest_slices(table: HudiTable, *, merge_on_read: bool = False) -> LatestSlices:
    """List ``table`` once for a write.

    Raises:
        UnsupportedFormatError: The table or one of its base files is in a format we do not read.
        MissingDataFileError: A file of a latest slice is named by the timeline but not in storage
            (merging into the previous slice would write stale rows over the lost ones).
    """
    view = table.file_system_view(check_files=True)
    slices = view.latest_file_slices()
    writer_slices = view.latest_file_slices(merge_pending_compaction=False) if merge_on_read else None
    view.check_files([*slices, *(writer_slices or ())])
    table.check_base_file_format()
    check_base_file_formats(slices, SUPPORTED_BASE_FORMATS)
    return LatestSlices(slices, writer_slices, view.partitions)
