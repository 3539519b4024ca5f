"""What every write engine's driver shares: the table's components and the options of one write.

Both write clients (the in-process ``WriteClient`` and the Spark engine's ``SparkWriteClient``)
hold one :class:`WriteSession`. Components are built by :func:`build_write_components`, which Spark
executors call too (from a fresh plugin manager), so the driver and every task run the very same
key generator, merger and index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.index import RecordIndex
from hudi_framework.contracts.merger import IS_DELETED_FIELD
from hudi_framework.errors import PartialUpdateError, TableError
from hudi_framework.lock import WriterTopology, check_lock_safety
from hudi_framework.log.blocks import BlockType
from hudi_framework.merge.choose import first_write_config, write_settings
from hudi_framework.model.evolution import evolved_schema
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_json
from hudi_framework.table.from_settings import check_settings_match_table
from hudi_framework.table.properties import update_properties
from hudi_framework.vocabulary import LogBlockFormat, TableType, WriteOperation
from hudi_framework.write.base_file_writer import ParquetOptions
from hudi_framework.write.batch import normalised_schema
from hudi_framework.write.file_group_task import WriteTaskContext
from hudi_framework.write.operation import is_insert
from hudi_framework.write.sizing import SizingOptions, average_record_size

if TYPE_CHECKING:
    from hudi_framework.contracts.keygen import KeyGenerator
    from hudi_framework.contracts.merger import RecordMerger
    from hudi_framework.runtime.components import Components
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.table.table_config import TableConfig

__all__ = ["WriteComponents", "WriteSession", "build_write_components"]

#: First table version whose merge-on-read logs may hold partial updates (IS_PARTIAL blocks).
_PARTIAL_LOG_VERSION = 8


@dataclass(frozen=True, slots=True)
class WriteComponents:
    """The plugin components a write runs (all picklable, none holding storage or Spark objects).

    Attributes:
        keygen: The table's key generator.
        merger: The configured record merger.
        index: The configured record index.
    """

    keygen: KeyGenerator
    merger: RecordMerger
    index: RecordIndex


def build_write_components(components: Components, config: TableConfig) -> WriteComponents:
    """Build the key generator, merger and index of a write from installed plugins.

    Args:
        components: The components of the write's settings (the driver's, or a Spark worker's,
            built from the same settings).
        config: The table config (key generator, ordering fields).

    Raises:
        UnknownComponentError: A configured component is not installed.
        PluginConfigError: A component rejects its options.
        PluginError: A component is not of the expected kind.
        MergeModeMismatchError: The settings ask for another merge mode or strategy than the table persists.
        MergeStrategyNotFoundError: The table's custom merge strategy is not installed.
    """
    return WriteComponents(components.key_generator(config), components.record_merger(config), components.index())


class WriteSession:
    """Driver-side facts and options of writes to one table (copy-on-write or merge-on-read)."""

    def __init__(
        self,
        table: HudiTable,
        settings: HudiSettings | None = None,
        *,
        topology: WriterTopology = WriterTopology.SINGLE_PROCESS,
    ) -> None:
        """Build the components of ``table`` from its registry.

        Raises:
            UnsafeLockConfigError: The concurrency settings are unsafe for ``topology`` (where the
                table's writers run; a Spark client passes ``topology_of_spark_master``).
            ConfigError: ``settings.storage`` is configured, but not as the table's storage was
                opened (the write would reach two storages).
        """
        self.settings = settings or HudiSettings()
        check_settings_match_table(table.config, self.settings)
        #: The plugins of this write: the table's, unless the settings load other plugins; then the
        #: ones the settings load, as every Spark task of the write builds them.
        self.plugins = table.components.with_settings(self.settings)
        check_lock_safety(self.settings, topology, self.plugins.lock_is_process_local)
        table.task_storage(self.settings.storage)
        #: The merge behaviour this client's first write gives a table nothing was written to yet.
        self.first_write_config = (
            first_write_config(table.config, self.settings.merger) if not table.timeline.completed() else None
        )
        self.components = build_write_components(self.plugins, self.first_write_config or table.config)

    def adopt_merge_behaviour(self, table: HudiTable) -> HudiTable:
        """Persist the merge mode, strategy and payload class the settings chose for a new table.

        Returns ``table`` itself, reloaded when ``hoodie.properties`` changed.

        Raises:
            MergeModeMismatchError: Another writer completed an instant in the meantime, under
                another merge behaviour than these settings ask for.
        """
        adopted = self.first_write_config
        if adopted is None:
            return table
        if table.timeline.completed():
            write_settings(table.config, self.settings.merger)  # raises unless the table now agrees
            return table
        old, new = table.config.to_properties(), adopted.to_properties()
        changes: dict[str, str | None] = {k: v for k, v in new.items() if old.get(k) != v}
        changes.update({k: None for k in old if k not in new})
        if changes:
            update_properties(table.storage, changes)
        return table.reload()

    @property
    def keygen(self) -> KeyGenerator:
        """The table's key generator."""
        return self.components.keygen

    @property
    def merger(self) -> RecordMerger:
        """The record merger."""
        return self.components.merger

    @property
    def index(self) -> RecordIndex:
        """The record index."""
        return self.components.index

    def sizing(self) -> SizingOptions:
        """Small-file limit, max file size and record size estimate."""
        w = self.settings.write
        return SizingOptions(
            w.small_file_limit_bytes,
            w.max_file_size_bytes,
            w.record_size_estimate,
            small_file_group_candidates_limit=w.small_file_group_candidates_limit,
            log_to_parquet_ratio=w.log_to_parquet_compression_ratio,
        )

    def record_size(self, table: HudiTable) -> int:
        """Bytes per record: from the newest large enough commit's stats, else the configured estimate."""
        w = self.settings.write
        return average_record_size(
            table.timeline, estimate=w.record_size_estimate, threshold_bytes=w.small_file_limit_bytes
        )

    def combines(self, operation: WriteOperation) -> bool:
        """Whether incoming duplicates are pre-combined for ``operation``.

        Insert-like operations keep every row unless ``hoodie.combine.before.insert``; an explicit
        ``hoodie.datasource.write.insert.drop.duplicates=true`` turns it on when it is not set
        (Java's ``DataSourceUtils.createHoodieConfig``: ``combineInput(insertDropDups, true)``).
        """
        w = self.settings.write
        if is_insert(operation):
            implied = w.insert_drop_duplicates and "combine_before_insert" not in w.model_fields_set
            return w.combine_before_insert or implied
        return operation is WriteOperation.UPSERT and w.combine_before_upsert

    @property
    def combines_by_partition(self) -> bool:
        """Pre-combine per record key *and* partition path: Java dedups by ``HoodieKey`` unless the index is global."""
        return not self.index.is_global

    @staticmethod
    def data_schema(
        table: HudiTable, incoming: pa.Schema | None, operation: WriteOperation = WriteOperation.UPSERT
    ) -> pa.Schema:
        """The write's data schema: the table's, evolved to take the incoming batch (a table's first
        write: the batch's, normalised). Deletes never change it.

        Decided from the schemas alone (:func:`~hudi_framework.model.evolution.evolved_schema`), before
        anything is written; the commit records it as the table's new schema.

        Raises:
            TableError: The table has no schema and there is no incoming batch.
            ColumnTypeError: The batch has a type that neither fits nor widens the table's, or a new
                column that cannot be added (:class:`~hudi_framework.errors.NewColumnError`).
        """
        try:
            schema = table.schema()
        except TableError:
            if incoming is None:
                raise
            return normalised_schema(incoming, table.config.name)
        if incoming is None or operation in (WriteOperation.DELETE, WriteOperation.DELETE_PARTITION):
            return schema
        return evolved_schema(schema, incoming)

    @staticmethod
    def file_schema(config: TableConfig, schema: pa.Schema) -> pa.Schema:
        """The exact schema of written base files: meta fields (when populated), then ``schema``."""
        meta = [pa.field(n, pa.string()) for n in META_FIELDS] if config.populate_meta_fields else []
        return pa.schema(meta + list(schema))

    @staticmethod
    def schema_json(config: TableConfig, schema: pa.Schema) -> str:
        """The writer schema as Avro JSON (``extraMetadata.schema``)."""
        return avro_json(arrow_to_avro(schema, config.name))

    def task_context(
        self,
        config: TableConfig,
        instant: str,
        schema: pa.Schema,
        operation: WriteOperation = WriteOperation.UPSERT,
        incoming: pa.Schema | None = None,
    ) -> WriteTaskContext:
        """What every file-group task of one write shares (picklable).

        ``incoming`` is the batch's schema: an upsert lacking table columns is a partial update.
        """
        w = self.settings.write
        parquet_blocks = w.log_data_block_format is LogBlockFormat.PARQUET
        return WriteTaskContext(
            instant=instant,
            schema=self.file_schema(config, schema),
            ordering_fields=config.ordering_fields,
            populate_meta_fields=config.populate_meta_fields,
            parquet=ParquetOptions(compression=w.parquet_compression_codec.value.lower()),
            bloom=self.index.bloom_filter_config,  # hoodie.index.bloom.* size the footer filter
            table_name=config.name,
            table_version=config.version,
            log_block_type=BlockType.PARQUET_DATA if parquet_blocks else BlockType.AVRO_DATA,
            record_positions=w.write_record_positions,
            # The delete operation writes commit-time deletes (IntWrapper(0)), as Apache Hudi does.
            delete_ordering=operation is not WriteOperation.DELETE,
            partial_columns=self.partial_columns(config, schema, incoming, operation),
            keep_incoming=is_insert(operation),
            append_to_stored=w.merge_allow_duplicate_on_inserts,
            log_file_max_size=w.log_file_max_size_bytes,
        )

    def partial_columns(
        self, config: TableConfig, schema: pa.Schema, incoming: pa.Schema | None, operation: WriteOperation
    ) -> tuple[str, ...]:
        """The data columns an upsert batch carries when it lacks some of the table's (a partial update).

        Empty for full batches, other operations, and ``write.set_null_for_missing_columns``.

        Raises:
            PartialUpdateError: The batch lacks an ordering field, or the table is a version-6
                merge-on-read table (Apache Hudi writes partial log blocks from version 8 on).
        """
        if incoming is None or operation is not WriteOperation.UPSERT:
            return ()
        if self.settings.write.set_null_for_missing_columns:
            return ()
        carried = set(incoming.names)
        missing = [f.name for f in schema if f.name not in carried and f.name != IS_DELETED_FIELD]
        if not missing:
            return ()
        for field in config.ordering_fields:
            if field not in carried:
                raise PartialUpdateError(field, "a partial update (a batch lacking columns) needs the ordering fields")
        if self.merge_on_read(config) and config.version < _PARTIAL_LOG_VERSION:
            raise PartialUpdateError(
                missing[0],
                f"is missing: table version {config.version} merge-on-read tables take no partial updates; "
                "send every column or set hoodie.write.set.null.for.missing.columns=true",
            )
        return tuple(f.name for f in schema if f.name in carried)

    @staticmethod
    def merge_on_read(config: TableConfig) -> bool:
        """Whether writes append updates and deletes to log files."""
        return config.table_type is TableType.MERGE_ON_READ
