"""The data sections of :class:`~hudi_framework.config.HudiSettings`: table, write and read.

Defaults are Apache Hudi's (1.x, Spark engine). The Apache Hudi option key of every field is in
:mod:`hudi_framework.config.hoodie_keys` and in ``docs/configuration.md``.
"""

from __future__ import annotations

from typing import Annotated, Self

from pydantic import Field, model_validator

from hudi_framework.config.base import (
    CrossFieldError,
    CsvTuple,
    InstantTime,
    NonNegativeInt,
    PartitionPaths,
    PositiveInt,
    Section,
)
from hudi_framework.config.components import ComponentRef
from hudi_framework.config.enums import WriteEngine
from hudi_framework.config.not_yet import NotYet
from hudi_framework.vocabulary import (
    BaseFileFormat,
    ConcurrencyMode,
    DataSkippingSource,
    FailedWritesPolicy,
    InsertDupPolicy,
    LogBlockFormat,
    ParquetCodec,
    QueryType,
    TableType,
    TableVersion,
    TimelineTimezone,
    TimestampType,
    WriteOperation,
)

__all__ = ["ReadSettings", "TableSettings", "TimestampKeygenSettings", "WriteSettings"]

#: Table names end up in ``hoodie.properties``, its checksum and catalog identifiers, so keep them
#: to what Hive and Spark SQL accept unquoted.
TableName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=128)]


class TimestampKeygenSettings(Section):
    """Options of the timestamp key generator (``hoodie.keygen.timebased.*``).

    They are persisted to ``hoodie.properties`` for tables using that key generator, see
    hudi-format.md section 8.
    """

    timestamp_type: TimestampType | None = None
    """How the partition column is read (``UNIX_TIMESTAMP``, ``DATE_STRING``, ``SCALAR``...)."""
    scalar_time_unit: str = "SECONDS"
    """Java ``TimeUnit`` name of ``SCALAR`` values."""
    input_dateformat: str = ""
    """Input date format(s) of ``DATE_STRING`` values, split by ``input_dateformat_list_delimiter_regex``."""
    input_dateformat_list_delimiter_regex: str = ","
    """Regular expression separating several input date formats."""
    input_timezone: str = "UTC"
    """Time zone of input date strings."""
    output_dateformat: str = ""
    """Java ``DateTimeFormatter`` pattern of the partition path (``yyyy/MM/dd``)."""
    output_timezone: str = "UTC"
    """Time zone the partition path is rendered in."""
    timezone: str = "UTC"
    """Fallback time zone for both input and output."""


class TableSettings(Section):
    """What the table is: identity, type, keys and layout. Most of it is persisted on creation."""

    base_path: str | None = Field(default=None, min_length=1)
    """The table's base URI (``/data/trips``, ``s3://bucket/trips``); its scheme picks the storage backend."""
    name: TableName | None = None
    """Table name; required to create a table, read from ``hoodie.properties`` otherwise."""
    database: TableName = "default"
    """Database name; part of the ``hoodie.properties`` checksum."""
    type: TableType = TableType.COPY_ON_WRITE
    """``COPY_ON_WRITE`` or ``MERGE_ON_READ`` (``cow``/``mor`` accepted)."""
    version: TableVersion = TableVersion.NINE
    """Table version written on creation: 6 (Hudi 0.14/0.15), 8 (1.0) or 9 (1.1+)."""
    record_key_fields: CsvTuple = ()
    """Columns forming the record key, as a list or a comma-separated string."""
    partition_fields: CsvTuple = ()
    """Partition columns; empty for a non-partitioned table."""
    ordering_fields: CsvTuple = ()
    """Ordering (precombine) columns; the larger value wins under event-time ordering."""
    key_generator: ComponentRef | None = None
    """Key generator by registered name (``simple``, ``complex``, ``non-partition``, ``timestamp``,
    ``custom``); ``None`` infers it like Apache Hudi from the key and partition fields."""
    keygen_timestamp: TimestampKeygenSettings = Field(default_factory=TimestampKeygenSettings)
    """Options of the ``timestamp`` key generator."""
    hive_style_partitioning: bool = False
    """Name partition folders ``field=value`` instead of ``value``."""
    url_encode_partitions: bool = False
    """Percent-encode special characters in partition values."""
    drop_partition_columns: bool = False
    """Only ``false``: written data files keep their partition columns (tables Apache Hudi wrote
    without them are read)."""
    populate_meta_fields: bool = True
    """Write the ``_hoodie_*`` meta columns; incremental reads need them."""
    base_file_format: BaseFileFormat = BaseFileFormat.PARQUET
    """Base file format."""
    timeline_timezone: TimelineTimezone = TimelineTimezone.LOCAL
    """Time zone of new instant times (``LOCAL`` or ``UTC``)."""

    not_yet = (
        NotYet(
            "drop_partition_columns",
            "written data files keep their partition columns (tables written without them are read)",
            accepted=(False,),
        ),
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        # Hudi 0.x (table version 6) reads hoodie.table.precombine.field as one column name.
        if self.version is TableVersion.SIX and len(self.ordering_fields) > 1:
            raise CrossFieldError(
                "table version 6 takes one ordering field; several need version 8 or 9",
                ("table", "ordering_fields"),
            )
        return self


class WriteSettings(Section):
    """How writes run: operation, engine, file sizing and concurrency."""

    operation: WriteOperation = WriteOperation.UPSERT
    """Default write operation."""
    engine: WriteEngine = WriteEngine.SPARK
    """Run per-file-group write tasks on Spark executors (``spark``) or in this process (``local``)."""
    parallelism: PositiveInt | None = None
    """Number of write tasks; ``None`` lets the engine decide."""
    small_file_limit_bytes: NonNegativeInt = 104_857_600
    """Base files smaller than this get new inserts routed to them; 0 turns small-file handling off.
    Not consulted for inserts into log files (merge-on-read, an index that indexes log files), which
    follow ``max_file_size_bytes`` as in Apache Hudi."""
    max_file_size_bytes: PositiveInt = 125_829_120
    """Target size of base files."""
    record_size_estimate: PositiveInt = 1024
    """Average record size in bytes used to size files before the first commit gives real statistics."""
    insert_split_size: PositiveInt | None = None
    """Not supported: new base files are sized from ``max_file_size_bytes`` and the record size,
    as Apache Hudi's default ``hoodie.copyonwrite.insert.auto.split=true`` does."""
    log_file_max_size_bytes: PositiveInt = 1_073_741_824
    """Merge-on-read: a log file is not grown past this many bytes. An append whose next block would
    take the current log file over it writes that block into the next log version instead (a single
    larger block gets a file of its own); a data block larger than this is split into several."""
    log_data_block_format: LogBlockFormat = LogBlockFormat.PARQUET
    """Merge-on-read log data blocks: ``parquet`` (PARQUET_DATA) or ``avro`` (AVRO_DATA, Apache Hudi's default)."""
    write_record_positions: bool = False
    """Merge-on-read: log blocks of updates and deletes carry the base-file row positions of their records
    (RECORD_POSITIONS header) when every record has one, as Apache Hudi 1.x writes them (table version 8+).
    Off by default (Apache Hudi: on): finding the positions reads each updated base file's key column."""
    small_file_group_candidates_limit: PositiveInt = 1
    """Merge-on-read: how many of a partition's smallest log-free file groups may take inserts."""
    log_to_parquet_compression_ratio: Annotated[float, Field(gt=0)] = 0.35
    """Merge-on-read with an index that finds keys in log files: a slice's size as Parquet counts its
    log files' bytes times this (deciding whether it takes inserts into its log files)."""
    parquet_compression_codec: ParquetCodec = ParquetCodec.ZSTD
    """Parquet compression codec (Apache Hudi's default is ``gzip``: several times slower to write)."""
    concurrency_mode: ConcurrencyMode = ConcurrencyMode.SINGLE_WRITER
    """``single_writer``, or ``optimistic_concurrency_control`` with a lock provider shared by all writers."""
    serialize_commits: bool = False
    """Under ``single_writer``, still hold the table lock (``lock.provider``) while completing each commit,
    table service and archival: for table services that run beside the writer (the continuous streamer
    turns it on for its asynchronous compaction and clustering, as Apache Hudi takes its in-process lock
    then). Across processes it needs a lock provider that spans them (``storage``, ``dynamodb``)."""
    failed_writes_policy: FailedWritesPolicy | None = None
    """When failed writes are rolled back: ``EAGER`` (next write) or ``LAZY`` (by the cleaner, after their
    heartbeat expires). ``None`` means ``LAZY`` under optimistic concurrency and ``EAGER`` otherwise."""
    heartbeat_interval_ms: PositiveInt = 60_000
    """How often a running write refreshes its heartbeat file ``.hoodie/.heartbeat/<instant>``."""
    heartbeat_tolerable_misses: PositiveInt = 2
    """Missed heartbeat intervals after which an unfinished write counts as failed (LAZY rollback)."""
    combine_before_insert: bool = False
    """De-duplicate incoming records by key (keeping the largest ordering value) on ``insert``,
    ``bulk_insert`` and ``insert_overwrite``; off, these keep every incoming row."""
    combine_before_upsert: bool = True
    """De-duplicate incoming records by key on upsert."""
    combine_before_delete: bool = False
    """Only ``false``: incoming deletes are not pre-combined (duplicate deletes of one key each
    write a delete; reads are the same). Apache Hudi's default is ``true``."""
    insert_drop_duplicates: bool = False
    """On ``insert``, drop incoming records whose key already exists in the table (and pre-combine the
    batch unless ``combine_before_insert`` is set); ``bulk_insert`` rejects it."""
    insert_dup_policy: InsertDupPolicy = InsertDupPolicy.NONE
    """On ``insert``, incoming records whose key the table holds: ``none`` (kept), ``drop`` (left out) or
    ``fail`` (the write fails); ``bulk_insert`` rejects ``drop`` and ``fail``."""
    merge_allow_duplicate_on_inserts: bool = True
    """An ``insert`` routed to a small file group is appended after its rows, duplicates of stored keys
    included; ``False`` merges it with the stored rows like an upsert."""
    partitions_to_delete: PartitionPaths | None = None
    """``delete_partition`` with rows: the partitions to drop instead of those of the rows (which are then
    not looked at). ``*`` (or ``%2A``) in a path matches any characters; paths no partition has are skipped.
    Set but empty, nothing is dropped. ``client.delete_partition(paths)`` takes its paths instead."""
    metadata_enable: bool = True
    """Keep the metadata table (``.hoodie/metadata``: its ``files`` partition and the indexes enabled
    below) in step with every instant this writer completes, creating it from a listing when the
    table has none; ``False`` deletes a metadata table before writing, as Apache Hudi does. Apache
    Hudi's Spark default is ``true`` too. Left at the default, tables of version 6 keep none (set
    ``true`` there raises; docs/metadata-table.md)."""
    metadata_column_stats_enable: bool = True
    """With ``metadata_enable`` (table versions 8 and 9): keep the ``column_stats`` partition (per file and
    column statistics, for data skipping) and, on partitioned tables, ``partition_stats``; ``False``
    drops both. Apache Hudi's Spark default is ``true`` too."""
    metadata_column_stats_columns: CsvTuple = ()
    """The columns ``column_stats`` indexes (besides the three meta columns); empty: the first
    ``metadata_column_stats_max_columns`` indexable columns. Acts when the partition is built."""
    metadata_column_stats_max_columns: PositiveInt = 32
    """Without ``metadata_column_stats_columns``: how many columns ``column_stats`` indexes."""
    metadata_column_stats_file_groups: PositiveInt = 2
    """File groups of ``column_stats`` (fixed when the partition is built)."""
    metadata_partition_stats_file_groups: PositiveInt = 1
    """File groups of ``partition_stats`` (fixed when the partition is built)."""
    metadata_record_index_enable: bool = False
    """With ``metadata_enable``: keep the ``record_index`` partition (each record key's file group,
    Apache Hudi's global record-level index, which ``index.type = "record-level"`` looks keys up in);
    ``False`` drops it. Needs meta fields. Apache Hudi's default is ``false`` too."""
    metadata_record_index_min_file_groups: PositiveInt = 10
    """Fewest file groups ``record_index`` gets when it is built (fixed from then on)."""
    metadata_record_index_max_file_groups: PositiveInt = 10000
    """Most file groups ``record_index`` gets when it is built (Apache Hudi's estimate in between:
    48 bytes per key, twice the table's keys, 1 GiB per file group)."""
    metadata_compact_max_delta_commits: PositiveInt = 10
    """With ``metadata_enable``: compact the metadata table once this many delta commits completed
    since its last compaction (at the start of the next write or table service)."""
    metadata_bloom_filter_enable: bool = False
    """With ``metadata_enable``: keep the metadata table's ``bloom_filters`` partition (each base
    file's record-key bloom filter, for ``hoodie.bloom.index.use.metadata``) in step, building it
    when missing; ``False`` drops it."""
    metadata_bloom_filter_file_groups: PositiveInt = 4
    """File groups of ``bloom_filters`` when it is built (later writers keep the count it has)."""
    set_null_for_missing_columns: bool = False
    """An upsert batch lacking some table columns writes them as null instead of as a partial update
    that keeps their stored values (``hoodie.write.set.null.for.missing.columns``; docs/mergers.md)."""
    avro_schema_validate: bool = False
    """Refuse a batch lacking some of the table's columns (Apache Hudi's schema compatibility check
    with column drops disallowed), partial updates included; deletes by key are not checked."""
    reconcile_schema: bool = False
    """Only ``false``: a batch's schema evolves the table's (docs/writing.md, schema evolution);
    Apache Hudi's deprecated reconciliation (``true``) is not built."""
    schema_on_read_enable: bool = False
    """Only ``false``: schema evolution on write (added columns, widened types); full schema-on-read
    evolution (renames, drops, reorders through an internal schema) is not built."""
    schema_allow_auto_evolution_column_drop: bool = False
    """Only ``false``: a batch never drops a table column."""

    not_yet = (
        NotYet(
            "insert_split_size",
            "new base files are sized from max_file_size_bytes and the record size "
            "(Apache Hudi's default hoodie.copyonwrite.insert.auto.split=true ignores it too)",
        ),
        NotYet("combine_before_delete", "incoming deletes are not pre-combined", accepted=(False,)),
        NotYet(
            "reconcile_schema",
            "schema evolution on write takes the batch's schema (Apache Hudi's default); the deprecated "
            "reconciliation is not built",
            accepted=(False,),
        ),
        NotYet(
            "schema_on_read_enable",
            "full schema-on-read evolution (renames, drops, reorders) is not built; added columns and "
            "widened types evolve on write without it",
            accepted=(False,),
        ),
        NotYet(
            "schema_allow_auto_evolution_column_drop",
            "a batch never drops a table column (absent columns stay in the table schema)",
            accepted=(False,),
        ),
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        occ = self.concurrency_mode is ConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL
        if occ and self.failed_writes_policy is FailedWritesPolicy.EAGER:
            # Apache Hudi rejects this too: an eager rollback would delete a concurrent writer's files.
            raise CrossFieldError(
                "optimistic concurrency control needs failed_writes_policy LAZY",
                ("write", "failed_writes_policy"),
            )
        if self.small_file_limit_bytes > self.max_file_size_bytes:
            raise CrossFieldError(
                "small_file_limit_bytes must not exceed max_file_size_bytes",
                ("write", "small_file_limit_bytes"),
            )
        return self

    @property
    def effective_failed_writes_policy(self) -> FailedWritesPolicy:
        """The policy in force: the configured one, else Apache Hudi's inferred default."""
        if self.failed_writes_policy is not None:
            return self.failed_writes_policy
        if self.concurrency_mode is ConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL:
            return FailedWritesPolicy.LAZY
        return FailedWritesPolicy.EAGER


class ReadSettings(Section):
    """How reads run: query type, instant range, merging and data skipping."""

    query_type: QueryType = QueryType.SNAPSHOT
    """``snapshot``, ``read_optimized`` (base files only) or ``incremental``."""
    begin_instant: InstantTime | None = None
    """Incremental reads return commits completed after this instant (``000`` for all)."""
    end_instant: InstantTime | None = None
    """Incremental reads stop at this instant (inclusive); ``None`` for the latest."""
    as_of_instant: InstantTime | None = None
    """Time travel: read the table as of this instant."""
    use_record_positions: bool = False
    """Merge-on-read: pair log records with base rows by the record positions their blocks carry
    instead of by key, where every block of a slice has positions of its base file; the rows are the same."""
    data_skipping: bool = True
    """Prune partitions whose ``partition_stats`` and skip files whose column statistics rule out every row the
    filters match (Apache Hudi 1.x default: on)."""
    data_skipping_source: DataSkippingSource = DataSkippingSource.METADATA_TABLE
    """Where file statistics come from: ``metadata_table`` (the metadata table's ``column_stats`` when the table has
    one in step with its timeline; otherwise nothing is skipped) or ``parquet_footers`` (each candidate file's
    footer, read on the planner)."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.query_type is QueryType.INCREMENTAL and self.begin_instant is None:
            raise CrossFieldError("incremental reads need begin_instant", ("read", "begin_instant"))
        # Instants of different precision (seconds vs milliseconds) compare after right-padding.
        if self.begin_instant and self.end_instant and _padded(self.end_instant) < _padded(self.begin_instant):
            raise CrossFieldError("end_instant is before begin_instant", ("read", "end_instant"))
        return self


def _padded(instant: str) -> str:
    return instant.ljust(17, "0")
