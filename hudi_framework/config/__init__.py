"""Typed configuration: ``HudiSettings`` with sections, loaded from files, env and Apache Hudi options.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

from hudi_framework.config.component_sections import (
    IndexSettings,
    LockSettings,
    MergerSettings,
    PluginSettings,
    StorageSettings,
)
from hudi_framework.config.components import ComponentName, ComponentOptions, ComponentRef
from hudi_framework.config.enums import (
    BaseFileFormat,
    CleanerPolicy,
    CompactionTriggerStrategy,
    ConcurrencyMode,
    FailedWritesPolicy,
    ParquetCodec,
    QueryType,
    RecordMergeMode,
    S3CredentialsSource,
    TableType,
    TableVersion,
    TimelineTimezone,
    TimestampType,
    WriteEngine,
    WriteOperation,
)
from hudi_framework.config.job import BatchOperation, JobBatch, JobSettings, JobSource, OnExistingTable
from hudi_framework.config.s3 import S3Settings
from hudi_framework.config.sections import ReadSettings, TableSettings, TimestampKeygenSettings, WriteSettings
from hudi_framework.config.services import (
    ArchiveSettings,
    CleanSettings,
    ClusteringSettings,
    CompactionSettings,
    ServicesSettings,
)
from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigFileError, InvalidConfigValueError

__all__ = [
    "ArchiveSettings",
    "BaseFileFormat",
    "BatchOperation",
    "CleanSettings",
    "CleanerPolicy",
    "ClusteringSettings",
    "CompactionSettings",
    "CompactionTriggerStrategy",
    "ComponentName",
    "ComponentOptions",
    "ComponentRef",
    "ConcurrencyMode",
    "ConfigFileError",
    "FailedWritesPolicy",
    "HudiSettings",
    "IndexSettings",
    "InvalidConfigValueError",
    "JobBatch",
    "JobSettings",
    "JobSource",
    "LockSettings",
    "MergerSettings",
    "OnExistingTable",
    "ParquetCodec",
    "PluginSettings",
    "QueryType",
    "ReadSettings",
    "RecordMergeMode",
    "S3CredentialsSource",
    "S3Settings",
    "ServicesSettings",
    "StorageSettings",
    "TableSettings",
    "TableType",
    "TableVersion",
    "TimelineTimezone",
    "TimestampKeygenSettings",
    "TimestampType",
    "WriteEngine",
    "WriteOperation",
    "WriteSettings",
]
