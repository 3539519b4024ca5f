"""Typed configuration: ``HudiSettings`` with sections, loaded from files, env and Apache Hudi options.

Internal package: not a stable API; import from the public modules (docs/api.md).

The names are imported on first use (PEP 562): Spark's planner processes import this package
fresh and pay only for what they use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from hudi_framework.contracts.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from hudi_framework.config.component_sections import (
        IndexSettings,
        LockSettings,
        MergerSettings,
        PluginSettings,
        StorageSettings,
    )
    from hudi_framework.config.components import ComponentName, ComponentOptions, ComponentRef
    from hudi_framework.config.enums import S3CredentialsSource, WriteEngine
    from hudi_framework.config.job import JobBatch, JobIngest, JobSettings, JobSource, OnExistingTable
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
    from hudi_framework.config.streamer import StreamerSettings
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
    "JobIngest",
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
    "StreamerSettings",
    "TableSettings",
    "TimestampKeygenSettings",
    "WriteEngine",
    "WriteSettings",
]

#: Public name -> the module it is imported from on first access (the same as the imports above;
#: tests/unit/test_public_api.py checks that they agree).
_EXPORTS: Final[Mapping[str, str]] = {
    "ArchiveSettings": "hudi_framework.config.services",
    "CleanSettings": "hudi_framework.config.services",
    "ClusteringSettings": "hudi_framework.config.services",
    "CompactionSettings": "hudi_framework.config.services",
    "ComponentName": "hudi_framework.config.components",
    "ComponentOptions": "hudi_framework.config.components",
    "ComponentRef": "hudi_framework.config.components",
    "ConfigFileError": "hudi_framework.errors",
    "HudiSettings": "hudi_framework.config.settings",
    "IndexSettings": "hudi_framework.config.component_sections",
    "InvalidConfigValueError": "hudi_framework.errors",
    "JobBatch": "hudi_framework.config.job",
    "JobIngest": "hudi_framework.config.job",
    "JobSettings": "hudi_framework.config.job",
    "JobSource": "hudi_framework.config.job",
    "LockSettings": "hudi_framework.config.component_sections",
    "MergerSettings": "hudi_framework.config.component_sections",
    "OnExistingTable": "hudi_framework.config.job",
    "PluginSettings": "hudi_framework.config.component_sections",
    "ReadSettings": "hudi_framework.config.sections",
    "S3CredentialsSource": "hudi_framework.config.enums",
    "S3Settings": "hudi_framework.config.s3",
    "ServicesSettings": "hudi_framework.config.services",
    "StorageSettings": "hudi_framework.config.component_sections",
    "StreamerSettings": "hudi_framework.config.streamer",
    "TableSettings": "hudi_framework.config.sections",
    "TimestampKeygenSettings": "hudi_framework.config.sections",
    "WriteEngine": "hudi_framework.config.enums",
    "WriteSettings": "hudi_framework.config.sections",
}


__getattr__ = lazy_exports(__name__, _EXPORTS)
