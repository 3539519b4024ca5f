"""hudi_framework: the Apache Hudi table format in Python, with Spark as the engine.

The public API is re-exported here; everything else is importable from its module.
``open_table_service`` and ``table_service_host`` are imported on first use (PEP 562): they pull
in the write path, which a process that only reads should not pay for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hudi_framework.errors import HudiError
from hudi_framework.plugin import (
    ComponentKind,
    ComponentRegistry,
    ComponentSpec,
    build_plugin_manager,
    hookimpl,
)
from hudi_framework.table.table import HudiTable
from hudi_framework.table.table_config import MergeMode, TableConfig, TableType, new_table_config

if TYPE_CHECKING:
    from hudi_framework.write.service_host import open_table_service, table_service_host

__all__ = [
    "ComponentKind",
    "ComponentRegistry",
    "ComponentSpec",
    "HudiError",
    "HudiTable",
    "MergeMode",
    "TableConfig",
    "TableType",
    "build_plugin_manager",
    "hookimpl",
    "new_table_config",
    "open_table_service",
    "table_service_host",
]

#: Names imported on first access, by the module that defines them.
_LAZY = {
    "open_table_service": "hudi_framework.write.service_host",
    "table_service_host": "hudi_framework.write.service_host",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
