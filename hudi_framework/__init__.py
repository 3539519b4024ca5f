"""hudi_framework: the Apache Hudi table format in Python, with Spark as the engine.

The names of this package are the public API (``docs/api.md``): create, open, write, read and
maintain tables with ``from hudi_framework import HudiTable, HudiSettings, WriteClient, read_table``.
The Spark side is :mod:`hudi_framework.spark`; errors are :mod:`hudi_framework.errors`; plugin
authors also use :mod:`hudi_framework.contracts`, :mod:`hudi_framework.plugin` and
:mod:`hudi_framework.testing`. Every other module is internal and may change in any release.

The names are imported on first use (PEP 562): Python runs this module before any
``hudi_framework.*`` import, in every process (Spark workers too), so it imports nothing itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    # What mypy sees; at run time ``__getattr__`` imports the same names from ``_EXPORTS``.
    from hudi_framework.config.enums import S3CredentialsSource
    from hudi_framework.config.s3 import S3Settings
    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.contracts.merging.ordering import compare_ordering_values
    from hudi_framework.errors import HudiError
    from hudi_framework.jobs.result import JobReport
    from hudi_framework.jobs.runner import run_job
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.log.blocks import CorruptBlock
    from hudi_framework.plugin import ComponentKind, ComponentRegistry, ComponentSpec, build_plugin_manager, hookimpl
    from hudi_framework.read.log_inspection import LogBlockInfo, inspect_log_blocks
    from hudi_framework.read.log_records import CorruptLogBlockWarning
    from hudi_framework.read.options import ReadOptions
    from hudi_framework.read.plan import ReadPlan
    from hudi_framework.read.reader import plan_read, read_batches, read_table, run_task
    from hudi_framework.runtime.components import Components, build_components
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.streamer.job import StopSignal, StreamerReport, run_streamer
    from hudi_framework.table.keys import build_key_generator
    from hudi_framework.table.table_config import TableConfig, new_table_config
    from hudi_framework.timeline.instant import Action, Instant, State
    from hudi_framework.timeline.metadata import WriteStat
    from hudi_framework.timeline.timeline import Timeline
    from hudi_framework.vocabulary import QueryType, RecordMergeMode, TableType, WriteOperation
    from hudi_framework.write.client import WriteClient
    from hudi_framework.write.log_repair import TruncatedLog, truncate_log_tail
    from hudi_framework.write.pipeline import WriteResult
    from hudi_framework.write.post_commit import PostCommitFailure
    from hudi_framework.write.rollback import RollbackResult
    from hudi_framework.write.savepoint import (
        RestoreResult,
        Savepoint,
        create_savepoint,
        delete_savepoint,
        list_savepoints,
        restore_to_savepoint,
        rollback_latest_commit,
    )
    from hudi_framework.write.service_host import open_table_service, table_service_host
    from hudi_framework.write.table_services import ServiceRun

__all__ = [
    "Action",
    "ComponentKind",
    "ComponentRegistry",
    "ComponentSpec",
    "Components",
    "CorruptBlock",
    "CorruptLogBlockWarning",
    "FileSlice",
    "HudiError",
    "HudiSettings",
    "HudiTable",
    "Instant",
    "JobReport",
    "LogBlockInfo",
    "PostCommitFailure",
    "QueryType",
    "ReadOptions",
    "ReadPlan",
    "RecordMergeMode",
    "RestoreResult",
    "RollbackResult",
    "S3CredentialsSource",
    "S3Settings",
    "Savepoint",
    "ServiceRun",
    "State",
    "StopSignal",
    "StreamerReport",
    "TableConfig",
    "TableType",
    "Timeline",
    "TruncatedLog",
    "WriteClient",
    "WriteOperation",
    "WriteResult",
    "WriteStat",
    "build_components",
    "build_key_generator",
    "build_plugin_manager",
    "compare_ordering_values",
    "create_savepoint",
    "delete_savepoint",
    "hookimpl",
    "inspect_log_blocks",
    "list_savepoints",
    "new_table_config",
    "open_table_service",
    "plan_read",
    "read_batches",
    "read_table",
    "restore_to_savepoint",
    "rollback_latest_commit",
    "run_job",
    "run_streamer",
    "run_task",
    "table_service_host",
    "truncate_log_tail",
]

#: Public name -> the module it is imported from on first access (the same as the imports above;
#: tests/unit/test_public_api.py checks that they agree).
_EXPORTS: Final[Mapping[str, str]] = {
    "Action": "hudi_framework.timeline.instant",
    "ComponentKind": "hudi_framework.plugin",
    "ComponentRegistry": "hudi_framework.plugin",
    "ComponentSpec": "hudi_framework.plugin",
    "Components": "hudi_framework.runtime.components",
    "CorruptBlock": "hudi_framework.log.blocks",
    "CorruptLogBlockWarning": "hudi_framework.read.log_records",
    "FileSlice": "hudi_framework.layout.file_group",
    "HudiError": "hudi_framework.errors",
    "HudiSettings": "hudi_framework.config.settings",
    "HudiTable": "hudi_framework.runtime.table",
    "Instant": "hudi_framework.timeline.instant",
    "JobReport": "hudi_framework.jobs.result",
    "LogBlockInfo": "hudi_framework.read.log_inspection",
    "PostCommitFailure": "hudi_framework.write.post_commit",
    "QueryType": "hudi_framework.vocabulary",
    "ReadOptions": "hudi_framework.read.options",
    "ReadPlan": "hudi_framework.read.plan",
    "RecordMergeMode": "hudi_framework.vocabulary",
    "RestoreResult": "hudi_framework.write.savepoint",
    "RollbackResult": "hudi_framework.write.rollback",
    "S3CredentialsSource": "hudi_framework.config.enums",
    "S3Settings": "hudi_framework.config.s3",
    "Savepoint": "hudi_framework.write.savepoint",
    "ServiceRun": "hudi_framework.write.table_services",
    "State": "hudi_framework.timeline.instant",
    "StopSignal": "hudi_framework.streamer.job",
    "StreamerReport": "hudi_framework.streamer.job",
    "TableConfig": "hudi_framework.table.table_config",
    "TableType": "hudi_framework.vocabulary",
    "Timeline": "hudi_framework.timeline.timeline",
    "TruncatedLog": "hudi_framework.write.log_repair",
    "WriteClient": "hudi_framework.write.client",
    "WriteOperation": "hudi_framework.vocabulary",
    "WriteResult": "hudi_framework.write.pipeline",
    "WriteStat": "hudi_framework.timeline.metadata",
    "build_components": "hudi_framework.runtime.components",
    "build_key_generator": "hudi_framework.table.keys",
    "build_plugin_manager": "hudi_framework.plugin",
    "compare_ordering_values": "hudi_framework.contracts.merging.ordering",
    "create_savepoint": "hudi_framework.write.savepoint",
    "delete_savepoint": "hudi_framework.write.savepoint",
    "hookimpl": "hudi_framework.plugin",
    "inspect_log_blocks": "hudi_framework.read.log_inspection",
    "list_savepoints": "hudi_framework.write.savepoint",
    "new_table_config": "hudi_framework.table.table_config",
    "open_table_service": "hudi_framework.write.service_host",
    "plan_read": "hudi_framework.read.reader",
    "read_batches": "hudi_framework.read.reader",
    "read_table": "hudi_framework.read.reader",
    "run_task": "hudi_framework.read.reader",
    "restore_to_savepoint": "hudi_framework.write.savepoint",
    "rollback_latest_commit": "hudi_framework.write.savepoint",
    "run_job": "hudi_framework.jobs.runner",
    "run_streamer": "hudi_framework.streamer.job",
    "table_service_host": "hudi_framework.write.service_host",
    "truncate_log_tail": "hudi_framework.write.log_repair",
}


def __getattr__(name: str) -> Any:
    """Import a public name on first access (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        # AttributeError (not ImportError) lets ``from hudi_framework import submodule`` fall back
        # to importing the submodule.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
