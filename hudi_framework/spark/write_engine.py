"""``SparkWriteClient``: the write operations of a table, on a Spark DataFrame.

The same pipeline as the local ``WriteClient`` (:mod:`hudi_framework.write.pipeline`), with the
row work in Spark executors and only planning and committing on the driver:

==================  =========================================================  =========
step                what runs                                                  where
==================  =========================================================  =========
schema check        ``check_batch_schema`` on the DataFrame's schema          driver
keys                ``prepare_rows`` per Arrow batch (``mapInArrow``)          executors
pre-combine         ``repartition(key)`` + ``combine_rows``                    executors
tagging             lookups per base file (``mapInArrow``) + a Spark join      executors
                    (upserts, deletes; inserts under a dup policy)
partition moves     ``settle_partition_moves`` (global index only)             executors
summary             ``routing_summary`` per batch + ``groupBy`` sums           executors
plan                ``plan_targets`` (file groups, insert buckets)             driver
start               requested + inflight instant                               driver
routing + write     ``route_rows``; ``write_target`` once per file group       executors
commit / abort      stats collected; markers reconciled; instant completed     driver
inline services     plan + commit on the driver; one task per file slice       executors
                    (compaction) or partition (big cleans)
==================  =========================================================  =========

The keyed rows are persisted (memory and disk): the first job that needs them (the lookups when
the operation tags, else the summary) runs the key stage, so a null key or a value that does not
fit the schema fails the write *before* the instant starts, with the same typed error as the
local engine (:mod:`~hudi_framework.spark.task_errors`). Every task rebuilds its components
from a :class:`~hudi_framework.spark.worker.WorkerSpec`; no task sees the session, the table, a
plugin manager or a storage client of the driver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession

from hudi_framework.metadata.index_source import metadata_index_source
from hudi_framework.spark.arrow_types import SparkResources, SparkSchema
from hudi_framework.spark.keys_stage import keyed_rows
from hudi_framework.spark.service_runner import SparkTaskRunner
from hudi_framework.spark.session_storage import check_session_s3
from hudi_framework.spark.tagging_stage import narrow_tagging, tag_rows, without_stored_keys
from hudi_framework.spark.worker import WorkerSpec
from hudi_framework.spark.write_stage import summarize, write_file_groups
from hudi_framework.vocabulary import InsertDupPolicy, WriteOperation
from hudi_framework.write.insert_duplicates import insert_dup_policy
from hudi_framework.write.moves import stored_reads_for
from hudi_framework.write.operation import looks_up_existing
from hudi_framework.write.pipeline import WritePipeline, WriteResult

if TYPE_CHECKING:
    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.metadata.key_changes import FileKeyChanges
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.timeline.metadata import WriteStat
    from hudi_framework.write.file_group_task import WriteTaskContext
    from hudi_framework.write.planner import TargetPlan

__all__ = ["SparkWriteClient", "WriteResult"]


@dataclass
class _Staged:
    rows: DataFrame
    spec: WorkerSpec
    held: SparkResources = field(default_factory=SparkResources)
    #: Tagged in the pre-combine tasks: the rows are located in few file groups.
    narrow: bool = False


class SparkWriteClient(WritePipeline[DataFrame, _Staged]):
    """Write operations on one table with the Spark engine (row work in executors).

    Example::

        client = SparkWriteClient(HudiTable.open(path, settings=settings), settings, spark)
        result = client.upsert(spark.read.parquet("s3://bucket/incoming/"))
        client.delete_partition(["2024/01/01"])
    """

    def __init__(self, table: HudiTable, settings: HudiSettings | None, spark: SparkSession) -> None:
        """Bind to ``table`` and the session that runs the tasks.

        Args:
            table: The table (copy-on-write or merge-on-read).
            settings: Write, index, merger, storage and plugin settings (defaults when None).
                Executors rebuild plugins and storage from these, not from the driver's objects.
            spark: The session; its Python workers must import this project (see
                :func:`hudi_framework.spark.session.spark_session`).

        Raises:
            ConfigError: ``settings.storage`` is configured otherwise than the table's storage, or
                the session sets an S3A endpoint or region the table's storage does not use.
        """
        super().__init__(table, settings)
        self._spark = spark
        storage = table.task_storage(self.session.settings.storage)
        check_session_s3(spark, storage, self.session.plugins.storage_settings_section(table.base_uri, storage))

    @property
    def spark(self) -> SparkSession:
        """The session the tasks run in."""
        return self._spark

    def _parallelism(self) -> int | None:
        return self.session.settings.write.parallelism

    def _incoming_schema(self, data: DataFrame) -> pa.Schema:
        return SparkSchema.of_frame(data).arrow

    def _stage(
        self,
        operation: WriteOperation,
        data: DataFrame,
        schema: pa.Schema,
        slices: Sequence[FileSlice],
        partial_columns: tuple[str, ...] = (),
    ) -> _Staged:
        # Column names and types were checked by the pipeline on the DataFrame's schema, before any job.
        session = self.session
        spec = WorkerSpec.of(self.table, session.settings)
        combine = session.combines(operation)
        held = SparkResources()
        narrow = None
        table = self.table
        metadata = (
            metadata_index_source(session.index, table.storage, table.properties, table.timeline)
            if looks_up_existing(operation)
            else None
        )
        stored = (
            stored_reads_for(table, session.index, slices, max_memory_bytes=session.settings.merger.max_memory_bytes)
            if looks_up_existing(operation)
            else None
        )
        if combine and looks_up_existing(operation):
            narrow = narrow_tagging(
                self._spark, spec, slices, tasks=self._combine_tasks(), held=held, partial_columns=partial_columns,
                metadata=metadata, stored=stored,
            )  # fmt: skip
        try:
            rows = keyed_rows(
                data,
                spec,
                operation,
                schema,
                combine=combine,
                by_partition=session.combines_by_partition,
                partitions=self._parallelism(),
                finish=narrow.finish if narrow else None,
                finish_fields=narrow.fields if narrow else (),
                key_source=self._key_source(data, schema) if combine else None,
            ).persist(StorageLevel.MEMORY_AND_DISK_DESER)
            held.cached.append(rows)
            tasks = self._parallelism() or self._spark.sparkContext.defaultParallelism
            if looks_up_existing(operation) and narrow is None:
                rows = tag_rows(
                    self._spark,
                    spec,
                    session.index,
                    rows,
                    slices,
                    tasks=tasks,
                    held=held,
                    partial_columns=partial_columns,
                    metadata=metadata,
                    stored=stored,
                )
            policy = insert_dup_policy(session.settings.write, operation)
            if policy is not InsertDupPolicy.NONE:
                tagged = tag_rows(self._spark, spec, session.index, rows, slices, tasks=tasks, held=held)
                rows = without_stored_keys(tagged, policy).persist(StorageLevel.MEMORY_AND_DISK_DESER)
                held.cached.append(rows)
        except BaseException:
            held.release()
            raise
        return _Staged(rows, spec, held, narrow=narrow is not None)

    def _key_source(self, data: DataFrame, schema: pa.Schema) -> str | None:
        """The incoming column to shuffle raw rows by before keying them, if the key generator has one
        and the incoming values keep its one-to-one rendering (conforming a string to an integer
        would not: ``"01"`` and ``"1"`` both become 1)."""
        name = self.session.keygen.key_source_field(schema)
        if name is None or name not in data.columns:
            return None
        incoming = self._incoming_schema(data).field(name).type
        stored = schema.field(name).type

        def is_text(t: pa.DataType) -> bool:
            return bool(pa.types.is_string(t) or pa.types.is_large_string(t))

        same_kind = (is_text(incoming) and is_text(stored)) or (
            pa.types.is_integer(incoming) and pa.types.is_integer(stored)
        )
        return name if same_kind else None

    def _combine_tasks(self) -> int:
        """Tasks of the pre-combine shuffle (at most: adaptive execution may coalesce them)."""
        return self._parallelism() or int(self._spark.conf.get("spark.sql.shuffle.partitions") or 200)

    def _summarize(self, staged: _Staged) -> pa.Table:
        return summarize(staged.rows, few_groups=staged.narrow)

    def _write(
        self,
        staged: _Staged,
        plan: TargetPlan,
        ctx: WriteTaskContext,
        key_changes: dict[str, FileKeyChanges] | None = None,
        log_stats: dict[str, pa.Table | None] | None = None,
    ) -> list[WriteStat]:
        return write_file_groups(
            self._spark,
            staged.spec,
            staged.rows,
            plan,
            ctx,
            max_tasks=self._parallelism(),
            key_changes=key_changes,
            log_stats=log_stats,
        )

    def _service_runner(self) -> SparkTaskRunner:
        return SparkTaskRunner(self._spark)

    def _release(self, staged: _Staged) -> None:
        staged.held.release()
