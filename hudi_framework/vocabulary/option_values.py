"""Closed sets of Apache Hudi option values, spelled as Apache Hudi spells them.

Each enum parses like Apache Hudi does (case-insensitively, ``-`` for ``_``; see
:class:`~hudi_framework.vocabulary.hudi_enum.HudiEnum`) and its values are what Hudi writes. The
vocabularies with more to them than a closed set (table types, merge modes, time zones, key
generators, payload classes) have modules of their own.
"""

from __future__ import annotations

from hudi_framework.vocabulary.hudi_enum import HudiEnum

__all__ = [
    "BaseFileFormat",
    "CleanerPolicy",
    "ClusteringUpdateStrategy",
    "CompactionTriggerStrategy",
    "ConcurrencyMode",
    "DataSkippingSource",
    "FailedWritesPolicy",
    "InsertDupPolicy",
    "LayoutOptimizationStrategy",
    "LogBlockFormat",
    "ParquetCodec",
    "QueryType",
    "SpatialCurveBuildMethod",
    "TimestampType",
]


class BaseFileFormat(HudiEnum):
    """Base file formats (``hoodie.table.base.file.format``); this project writes Parquet only."""

    PARQUET = "PARQUET"


class TimestampType(HudiEnum):
    """Input kinds of the timestamp key generator (``hoodie.keygen.timebased.timestamp.type``)."""

    UNIX_TIMESTAMP = "UNIX_TIMESTAMP"
    DATE_STRING = "DATE_STRING"
    MIXED = "MIXED"
    EPOCHMILLISECONDS = "EPOCHMILLISECONDS"
    EPOCHMICROSECONDS = "EPOCHMICROSECONDS"
    SCALAR = "SCALAR"


class ConcurrencyMode(HudiEnum):
    """Writer concurrency (``hoodie.write.concurrency.mode``)."""

    SINGLE_WRITER = "single_writer"
    OPTIMISTIC_CONCURRENCY_CONTROL = "optimistic_concurrency_control"


ConcurrencyMode._aliases_ = {"OCC": "OPTIMISTIC_CONCURRENCY_CONTROL"}


class FailedWritesPolicy(HudiEnum):
    """When failed writes are rolled back (``hoodie.clean.failed.writes.policy``)."""

    EAGER = "EAGER"
    LAZY = "LAZY"


class InsertDupPolicy(HudiEnum):
    """What an insert does with incoming keys the table already holds (``hoodie.datasource.insert.dup.policy``)."""

    NONE = "none"
    DROP = "drop"
    FAIL = "fail"


class ParquetCodec(HudiEnum):
    """Parquet compression codecs (``hoodie.parquet.compression.codec``)."""

    GZIP = "gzip"
    SNAPPY = "snappy"
    ZSTD = "zstd"
    LZ4 = "lz4"
    BROTLI = "brotli"
    UNCOMPRESSED = "uncompressed"


class LogBlockFormat(HudiEnum):
    """Format of merge-on-read log data blocks (``hoodie.logfile.data.block.format``)."""

    AVRO = "avro"
    PARQUET = "parquet"


class QueryType(HudiEnum):
    """Read query types (``hoodie.datasource.query.type``)."""

    SNAPSHOT = "snapshot"
    READ_OPTIMIZED = "read_optimized"
    INCREMENTAL = "incremental"


class CleanerPolicy(HudiEnum):
    """What the cleaner keeps (``hoodie.clean.policy``)."""

    KEEP_LATEST_COMMITS = "KEEP_LATEST_COMMITS"
    KEEP_LATEST_FILE_VERSIONS = "KEEP_LATEST_FILE_VERSIONS"
    KEEP_LATEST_BY_HOURS = "KEEP_LATEST_BY_HOURS"


class CompactionTriggerStrategy(HudiEnum):
    """When inline compaction is scheduled (``hoodie.compact.inline.trigger.strategy``)."""

    NUM_COMMITS = "NUM_COMMITS"
    NUM_COMMITS_AFTER_LAST_REQUEST = "NUM_COMMITS_AFTER_LAST_REQUEST"
    TIME_ELAPSED = "TIME_ELAPSED"
    NUM_AND_TIME = "NUM_AND_TIME"
    NUM_OR_TIME = "NUM_OR_TIME"


class SpatialCurveBuildMethod(HudiEnum):
    """How z-order and Hilbert map a value to its coordinate (``hoodie.layout.optimize.curve.build.method``)."""

    #: From the value itself (its bytes, order-preserved): cheap, but a column with a wide range of
    #: values dominates the curve.
    DIRECT = "direct"
    #: From the value's rank among range boundaries drawn from a sample
    #: (``hoodie.layout.optimize.build.curve.sample.size``): every column gets an equal share.
    SAMPLE = "sample"


class DataSkippingSource(HudiEnum):
    """Where data skipping takes file column statistics from (``data.skipping.source``, this project's key)."""

    #: The metadata table's ``column_stats`` index, as Apache Hudi does (when the table has one in
    #: step with its timeline; otherwise no file is skipped by statistics).
    METADATA_TABLE = "metadata_table"
    #: Each candidate base file's Parquet footer, read on the planner: one ranged read per file
    #: (a GET on object stores), worth it when filters rule out most files.
    PARQUET_FOOTERS = "parquet_footers"


class ClusteringUpdateStrategy(HudiEnum):
    """What a write does to a file group under pending clustering (``hoodie.clustering.updates.strategy``).

    Apache Hudi names its strategies by class (its default is the reject strategy); those class
    names are accepted for the values.
    """

    REJECT = "reject"
    ALLOW = "allow"


ClusteringUpdateStrategy._aliases_ = {
    "ORG.APACHE.HUDI.CLIENT.CLUSTERING.UPDATE.STRATEGY.SPARKREJECTUPDATESTRATEGY": "REJECT",
    "ORG.APACHE.HUDI.CLIENT.CLUSTERING.UPDATE.STRATEGY.SPARKALLOWUPDATESTRATEGY": "ALLOW",
}


class LayoutOptimizationStrategy(HudiEnum):
    """How clustering orders rows by its sort columns (``hoodie.layout.optimize.strategy``)."""

    LINEAR = "linear"
    Z_ORDER = "z-order"
    HILBERT = "hilbert"


LayoutOptimizationStrategy._aliases_ = {"ZORDER": "Z_ORDER"}
