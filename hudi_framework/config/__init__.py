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
from hudi_framework.config.enums import S3CredentialsSource, WriteEngine
from hudi_framework.config.job import JobBatch, JobSettings, JobSource, OnExistingTable
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
    "CleanSettings",
    "ClusteringSettings",
    "CompactionSettings",
    "ComponentName",
    "ComponentOptions",
    "ComponentRef",
    "ConfigFileError",
    "HudiSettings",
    "IndexSettings",
    "InvalidConfigValueError",
    "JobBatch",
    "JobSettings",
    "JobSource",
    "LockSettings",
    "MergerSettings",
    "OnExistingTable",
    "PluginSettings",
    "ReadSettings",
    "S3CredentialsSource",
    "S3Settings",
    "ServicesSettings",
    "StorageSettings",
    "TableSettings",
    "TimestampKeygenSettings",
    "WriteEngine",
    "WriteSettings",
]
