"""Closed sets of configuration values, spelled as Apache Hudi spells them.

Every enum here parses case-insensitively and accepts ``-`` for ``_``, because Apache Hudi does
(``RecordMergeMode.valueOf(value.toUpperCase())``) and Spark lower-cases option values users type in
SQL. Each value is the spelling Apache Hudi writes, so ``to_hoodie_options`` can emit ``.value``.
"""

from __future__ import annotations

import enum
from typing import ClassVar

__all__ = [
    "BaseFileFormat",
    "CleanerPolicy",
    "CompactionTriggerStrategy",
    "ConcurrencyMode",
    "FailedWritesPolicy",
    "InsertDupPolicy",
    "ParquetCodec",
    "QueryType",
    "RecordMergeMode",
    "S3CredentialsSource",
    "TableType",
    "TableVersion",
    "TimelineTimezone",
    "TimestampType",
    "WriteEngine",
    "WriteOperation",
]


def _norm(text: str) -> str:
    return text.strip().upper().replace("-", "_")


class _HudiEnum(enum.StrEnum):
    """A string enum matched case-insensitively on its values, names and a few aliases."""

    # Filled per subclass after the class body (an Enum class body would turn it into a member).
    _aliases_: ClassVar[dict[str, str]]

    @classmethod
    def _missing_(cls, value: object) -> _HudiEnum | None:
        if not isinstance(value, str):
            return None
        key = _norm(value)
        key = getattr(cls, "_aliases_", {}).get(key, key)
        for member in cls:
            if key in (_norm(str(member.value)), member.name):
                return member
        return None


class TableType(_HudiEnum):
    """Apache Hudi table types (``hoodie.table.type``)."""

    COPY_ON_WRITE = "COPY_ON_WRITE"
    MERGE_ON_READ = "MERGE_ON_READ"


TableType._aliases_ = {"COW": "COPY_ON_WRITE", "MOR": "MERGE_ON_READ"}


class TableVersion(enum.IntEnum):
    """Supported table versions (``hoodie.table.version``): 6 (Hudi 0.14/0.15), 8 (1.0), 9 (1.1+)."""

    SIX = 6
    EIGHT = 8
    NINE = 9

    @classmethod
    def _missing_(cls, value: object) -> TableVersion | None:
        # Apache Hudi's own docs print the enum name (``NINE``); hoodie.properties holds digits.
        if isinstance(value, str):
            text = _norm(value)
            if text.isdigit():
                return cls._value2member_map_.get(int(text))  # type: ignore[return-value]
            return cls.__members__.get(text)
        return None


class BaseFileFormat(_HudiEnum):
    """Base file formats (``hoodie.table.base.file.format``); this project writes Parquet only."""

    PARQUET = "PARQUET"


class TimelineTimezone(_HudiEnum):
    """Time zone of instant times (``hoodie.table.timeline.timezone``)."""

    LOCAL = "LOCAL"
    UTC = "UTC"


class TimestampType(_HudiEnum):
    """Input kinds of the timestamp key generator (``hoodie.keygen.timebased.timestamp.type``)."""

    UNIX_TIMESTAMP = "UNIX_TIMESTAMP"
    DATE_STRING = "DATE_STRING"
    MIXED = "MIXED"
    EPOCHMILLISECONDS = "EPOCHMILLISECONDS"
    EPOCHMICROSECONDS = "EPOCHMICROSECONDS"
    SCALAR = "SCALAR"


class WriteOperation(_HudiEnum):
    """Write operations (``hoodie.datasource.write.operation``), in Apache Hudi's lower-case spelling."""

    INSERT = "insert"
    UPSERT = "upsert"
    BULK_INSERT = "bulk_insert"
    DELETE = "delete"
    INSERT_OVERWRITE = "insert_overwrite"
    INSERT_OVERWRITE_TABLE = "insert_overwrite_table"
    DELETE_PARTITION = "delete_partition"


class WriteEngine(_HudiEnum):
    """Where per-file-group write tasks run: on Spark executors or in this process."""

    SPARK = "spark"
    LOCAL = "local"


class S3CredentialsSource(_HudiEnum):
    """Where the S3 client finds credentials (``storage.s3.credentials_provider``); Hadoop S3A's
    provider classes map onto these (:mod:`hudi_framework.config.s3`)."""

    STATIC = "static"
    """``storage.s3`` access key id and secret (and session token, if set)."""
    TEMPORARY = "temporary"
    """Like ``static``, but the session token is required."""
    ENVIRONMENT = "environment"
    """``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN`` where the request is made."""
    INSTANCE = "instance"
    """Container credentials (ECS, EKS pod identity), then EC2 instance metadata."""
    WEB_IDENTITY = "web-identity"
    """``AWS_WEB_IDENTITY_TOKEN_FILE`` and ``AWS_ROLE_ARN`` (EKS service accounts)."""
    DEFAULT = "default"
    """boto3's whole default chain (environment, shared files, web identity, container, instance)."""
    ANONYMOUS = "anonymous"
    """Unsigned requests (public buckets); never combined with another source."""


class ConcurrencyMode(_HudiEnum):
    """Writer concurrency (``hoodie.write.concurrency.mode``)."""

    SINGLE_WRITER = "single_writer"
    OPTIMISTIC_CONCURRENCY_CONTROL = "optimistic_concurrency_control"


ConcurrencyMode._aliases_ = {"OCC": "OPTIMISTIC_CONCURRENCY_CONTROL"}


class FailedWritesPolicy(_HudiEnum):
    """When failed writes are rolled back (``hoodie.clean.failed.writes.policy``)."""

    EAGER = "EAGER"
    LAZY = "LAZY"


class InsertDupPolicy(_HudiEnum):
    """What an insert does with incoming keys the table already holds (``hoodie.datasource.insert.dup.policy``)."""

    NONE = "none"
    DROP = "drop"
    FAIL = "fail"


class ParquetCodec(_HudiEnum):
    """Parquet compression codecs (``hoodie.parquet.compression.codec``)."""

    GZIP = "gzip"
    SNAPPY = "snappy"
    ZSTD = "zstd"
    LZ4 = "lz4"
    BROTLI = "brotli"
    UNCOMPRESSED = "uncompressed"


class LogBlockFormat(_HudiEnum):
    """Format of merge-on-read log data blocks (``hoodie.logfile.data.block.format``)."""

    AVRO = "avro"
    PARQUET = "parquet"


class QueryType(_HudiEnum):
    """Read query types (``hoodie.datasource.query.type``)."""

    SNAPSHOT = "snapshot"
    READ_OPTIMIZED = "read_optimized"
    INCREMENTAL = "incremental"


class RecordMergeMode(_HudiEnum):
    """Record merge modes (``hoodie.record.merge.mode``), see hudi-format.md section 6."""

    EVENT_TIME_ORDERING = "EVENT_TIME_ORDERING"
    COMMIT_TIME_ORDERING = "COMMIT_TIME_ORDERING"
    CUSTOM = "CUSTOM"


class CleanerPolicy(_HudiEnum):
    """What the cleaner keeps (``hoodie.clean.policy``)."""

    KEEP_LATEST_COMMITS = "KEEP_LATEST_COMMITS"
    KEEP_LATEST_FILE_VERSIONS = "KEEP_LATEST_FILE_VERSIONS"
    KEEP_LATEST_BY_HOURS = "KEEP_LATEST_BY_HOURS"


class CompactionTriggerStrategy(_HudiEnum):
    """When inline compaction is scheduled (``hoodie.compact.inline.trigger.strategy``)."""

    NUM_COMMITS = "NUM_COMMITS"
    NUM_COMMITS_AFTER_LAST_REQUEST = "NUM_COMMITS_AFTER_LAST_REQUEST"
    TIME_ELAPSED = "TIME_ELAPSED"
    NUM_AND_TIME = "NUM_AND_TIME"
    NUM_OR_TIME = "NUM_OR_TIME"
