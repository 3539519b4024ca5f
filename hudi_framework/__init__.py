"""hudi_framework: the Apache Hudi table format in Python, with Spark as the engine.

The public API is re-exported here; everything else is importable from its module.
"""

from hudi_framework.errors import HudiError
from hudi_framework.plugin import (
    ComponentKind,
    ComponentRegistry,
    ComponentSpec,
    build_plugin_manager,
    hookimpl,
)
from hudi_framework.table.table import HudiTable
from hudi_framework.table.table_config import TableConfig, new_table_config
from hudi_framework.vocabulary import RecordMergeMode, TableType

__all__ = [
    "ComponentKind",
    "ComponentRegistry",
    "ComponentSpec",
    "HudiError",
    "HudiTable",
    "RecordMergeMode",
    "TableConfig",
    "TableType",
    "build_plugin_manager",
    "hookimpl",
    "new_table_config",
]
