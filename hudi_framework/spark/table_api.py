"""``HudiSparkTable``: a table for Spark users, in the shape of delta-spark's ``DeltaTable``.

Every write call is one Hudi commit made by :class:`~hudi_framework.spark.write_engine.SparkWriteClient`
(rows keyed, tagged, merged and written in executors); conditions and ``set`` expressions are Spark
SQL (strings or ``Column`` objects) evaluated in executors too, so the driver only plans and commits.
Table services (clean, compaction, clustering) run their per-file-group tasks in the session's
executors (:class:`~hudi_framework.spark.service_runner.SparkTaskRunner`). Apache Hudi's CALL
procedures that inspect or restore a table are methods here as well (``docs/spark.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F  # noqa: N812 - the conventional alias

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import TableExpressionError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.service_runner import SparkTaskRunner
from hudi_framework.spark.table_expressions import (
    TARGET_ALIAS,
    Expression,
    checked_column,
    data_columns,
    protected_columns,
)
from hudi_framework.spark.table_views import file_slices_frame, history_frame, savepoints_frame
from hudi_framework.spark.write_engine import SparkWriteClient
from hudi_framework.timeline.instant import Action
from hudi_framework.write.pipeline import WriteResult
from hudi_framework.write.rollback import RollbackResult
from hudi_framework.write.savepoint import (
    RestoreResult,
    Savepoint,
    create_savepoint,
    delete_savepoint,
    restore_to_savepoint,
    rollback_latest_commit,
)
from hudi_framework.write.service_host import ServiceHost, build_table_service

if TYPE_CHECKING:
    from hudi_framework.spark.merge_builder import HudiMergeBuilder

__all__ = ["HudiSparkTable"]


class HudiSparkTable:
    """One Hudi table seen from a Spark session.

    Example::

        table = HudiSparkTable.for_path(spark, "s3://bucket/orders", {"hoodie.metadata.enable": "true"})
        table.upsert(spark.read.parquet("s3a://bucket/incoming/"))
        table.update("status = 'open' AND ts < 1700000000", {"status": "'expired'"})
        table.merge(changes, "s.id = t.id").when_matched_update_all().when_not_matched_insert_all().execute()
        table.history().show()
    """

    def __init__(self, spark: SparkSession, table: HudiTable, settings: HudiSettings) -> None:
        """Bind ``table`` to ``spark``; prefer :meth:`for_path`."""
        self._spark = spark
        self._table = table
        self._settings = settings

    @classmethod
    def for_path(
        cls, spark: SparkSession, path: str, settings: HudiSettings | Mapping[str, str] | None = None
    ) -> HudiSparkTable:
        """Open the table at ``path``.

        Args:
            spark: The session (its Python workers must import this project: :func:`spark_session`).
            path: The table's base path or URI.
            settings: Typed settings, or Apache Hudi options (``hoodie.*``, as ``format("hudi")``
                takes them); None for the defaults (and ``HUDI_*`` variables).

        Raises:
            TableNotFoundError: No Hudi table at ``path``.
            ConfigError: An option is unknown or invalid.
        """
        if settings is None:
            resolved = HudiSettings.load()
        elif isinstance(settings, HudiSettings):
            resolved = settings
        else:
            resolved = HudiSettings.from_hoodie_options(settings)
        return cls(spark, HudiTable.open(path, settings=resolved), resolved)

    @property
    def spark(self) -> SparkSession:
        """The session every call runs in."""
        return self._spark

    @property
    def table(self) -> HudiTable:
        """The open table (reloaded by every call)."""
        return self._table

    @property
    def settings(self) -> HudiSettings:
        """The settings writes and services run with."""
        return self._settings

    # --- reading ---------------------------------------------------------------------------------

    def to_df(self) -> DataFrame:
        """The table's latest snapshot (meta columns included), read by ``format("hudi")``."""
        options = self._settings.to_hoodie_options(include_secrets=True)
        return self._spark.read.format("hudi").options(**options).load(self._table.base_uri)

    def _data_frame(self) -> DataFrame:
        """The snapshot's data columns, aliased ``t``."""
        return self.to_df().select(*data_columns(self._table)).alias(TARGET_ALIAS)

    # --- writing ---------------------------------------------------------------------------------

    def _client(self) -> SparkWriteClient:
        return SparkWriteClient(self._table.reload(), self._settings, self._spark)

    def upsert(self, df: DataFrame) -> WriteResult:
        """Insert new keys, update existing ones (one commit)."""
        return self._client().upsert(df)

    def insert(self, df: DataFrame) -> WriteResult:
        """Insert the rows (one commit; duplicates as ``hoodie.datasource.insert.dup.policy`` says)."""
        return self._client().insert(df)

    def delete(self, where: DataFrame | str | Column) -> WriteResult:
        """Delete rows (one commit).

        Args:
            where: A DataFrame of the keys to delete (rows or just the key and partition columns),
                or a condition over the table's columns (SQL string or ``Column``; the table is
                aliased ``t``): the matching rows are found by a distributed read.

        Raises:
            TableExpressionError: The condition does not resolve against the table's columns.
        """
        if isinstance(where, DataFrame):
            return self._client().delete(where)
        target = self._data_frame()
        keys = protected_columns(self._table)
        matching = target.filter(checked_column(target, where, "condition"))
        return self._client().delete(matching.select(*keys))

    def update(self, condition: str | Column | None, set: Mapping[str, Expression]) -> WriteResult:
        """Update the rows matching ``condition`` (all rows when None) with ``set`` (one upsert commit).

        Args:
            condition: SQL string or ``Column`` over the table's columns (aliased ``t``).
            set: Column -> new value (SQL expression string or ``Column``), evaluated on the old row.
                Record key and partition columns cannot be set.

        Raises:
            TableExpressionError: A ``set`` column is not a table column or is a key or partition
                column, or an expression does not resolve.
        """
        table = self._table
        columns = data_columns(table)
        check_assignments(set, columns, protected_columns(table))
        target = self._data_frame()
        rows = target if condition is None else target.filter(checked_column(target, condition, "condition"))
        types = dict(target.dtypes)
        projected = [
            checked_column(rows, set[c], f"set[{c!r}]").cast(types[c]).alias(c) if c in set else F.col(c)
            for c in columns
        ]
        return self._client().upsert(rows.select(*projected))

    def merge(self, source: DataFrame, condition: str | Column) -> HudiMergeBuilder:
        """Start a merge of ``source`` (aliased ``s``) into the table (aliased ``t``) on ``condition``.

        Add clauses to the builder and call ``execute()``; see
        :class:`~hudi_framework.spark.merge_builder.HudiMergeBuilder`.
        """
        from hudi_framework.spark.merge_builder import HudiMergeBuilder

        return HudiMergeBuilder(self, source, condition)

    def write_merged(self, rows: DataFrame) -> WriteResult:
        """Upsert rows a merge computed (deletes flagged ``_hoodie_is_deleted``): one commit."""
        return self._client().upsert(rows)

    # --- the timeline ----------------------------------------------------------------------------

    def history(self) -> DataFrame:
        """One row per instant of the active timeline, newest first: requested and completion time,
        action, state, operation and the counts of its commit metadata (Apache Hudi's
        ``show_commits`` with pending instants too)."""
        return history_frame(self._spark, self._table.reload())

    def show_commits(self, limit: int | None = None) -> DataFrame:
        """Completed commits, delta commits and replace commits, newest first (``CALL show_commits``)."""
        commits = history_frame(self._spark, self._table.reload(), commits_only=True)
        return commits if limit is None else commits.limit(limit)

    def show_file_system_view(self) -> DataFrame:
        """The latest file slice of every file group (``CALL show_file_system_view``)."""
        return file_slices_frame(self._spark, self._table.reload())

    def show_savepoints(self) -> DataFrame:
        """Savepoints of the table (``CALL show_savepoints``)."""
        return savepoints_frame(self._spark, self._table.reload())

    def create_savepoint(
        self, instant_time: str | None = None, *, user: str | None = None, comments: str = ""
    ) -> Savepoint:
        """Savepoint a completed commit (the latest when None): ``CALL create_savepoint``.

        Raises:
            SavepointError: No such completed commit, or it is savepointed already.
        """
        table = self._table.reload()
        if instant_time is None:
            latest = table.timeline.latest_completed_commit()
            if latest is None:
                from hudi_framework.errors import SavepointError

                raise SavepointError(f"{table.base_uri} has no completed commit to savepoint")
            instant_time = latest.requested_time
        return create_savepoint(table, instant_time, user=user, comments=comments)

    def delete_savepoint(self, instant_time: str) -> None:
        """Delete a savepoint (``CALL delete_savepoint``)."""
        delete_savepoint(self._table.reload(), instant_time)

    def rollback_to_savepoint(self, instant_time: str) -> RestoreResult:
        """Restore the table to a savepoint (``CALL rollback_to_savepoint``): every later instant is rolled back."""
        return restore_to_savepoint(self._table.reload(), instant_time)

    def rollback_to_instant(self, instant_time: str | None = None) -> RollbackResult:
        """Roll back the latest completed commit (``CALL rollback_to_instant``); ``instant_time``,
        when given, must be that commit."""
        return rollback_latest_commit(self._table.reload(), instant_time)

    # --- table services --------------------------------------------------------------------------

    def _host(self) -> ServiceHost:
        return ServiceHost(self._table.reload(), self._settings, runner=SparkTaskRunner(self._spark))

    def clean(self) -> list[str]:
        """Finish pending cleans, then plan and run one (``CALL run_clean``); returns the clean
        instants executed (none when the retention policy leaves nothing to delete)."""
        section = self._settings.services.clean
        service = build_table_service(self._table.components.with_settings(self._settings), section, "services.clean")
        host = self._host()
        done = [i.requested_time for i in self._table.timeline.pending({Action.CLEAN})]
        for instant in done:
            service.execute(host, instant)
        scheduled = service.schedule(self._host())
        if scheduled is not None:
            service.execute(self._host(), scheduled)
            done.append(scheduled)
        return done

    def compact(self) -> str | None:
        """Schedule a compaction and run it in executors (``CALL run_compaction``); its instant, or
        None when no file slice has log files to compact.

        Raises:
            CompactionPlanError: The table is copy-on-write.
        """
        return self._schedule_and_run("compaction")

    def cluster(self) -> str | None:
        """Schedule a clustering and run it in executors (``CALL run_clustering``); its instant, or
        None when no file slice qualifies."""
        return self._schedule_and_run("clustering")

    def _schedule_and_run(self, slot: str) -> str | None:
        section = getattr(self._settings.services, slot)
        components = self._table.components.with_settings(self._settings)
        service = build_table_service(components, section, f"services.{slot}")
        instant = service.schedule(self._host())
        if instant is not None:
            service.execute(self._host(), instant)
        return instant


def check_assignments(
    assignments: Mapping[str, Expression], columns: tuple[str, ...], protected: tuple[str, ...]
) -> None:
    """Raise :class:`TableExpressionError` for a ``set`` column that is not a table column or is a
    record key or partition column (a changed key would be a new record, the old one kept)."""
    for name in assignments:
        if name not in columns:
            raise TableExpressionError(name, f"not a column of the table; it has {', '.join(columns)}")
        if name in protected:
            raise TableExpressionError(
                name, "record key and partition columns cannot be set: delete the row and insert it anew"
            )
