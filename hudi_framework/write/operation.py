"""Write operations and the timeline action each produces."""

from __future__ import annotations

import enum

from hudi_framework.table.table_config import TableType
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.metadata import WriteOperationType


class WriteOperation(enum.StrEnum):
    """``hoodie.datasource.write.operation`` values."""

    INSERT = "insert"
    UPSERT = "upsert"
    BULK_INSERT = "bulk_insert"
    DELETE = "delete"
    INSERT_OVERWRITE = "insert_overwrite"
    INSERT_OVERWRITE_TABLE = "insert_overwrite_table"
    DELETE_PARTITION = "delete_partition"

    @property
    def operation_type(self) -> WriteOperationType:
        """The ``operationType`` written to commit metadata."""
        return WriteOperationType(self.value.upper())

    @property
    def is_replace(self) -> bool:
        """Whether the operation replaces file groups (a replacecommit)."""
        return self in (
            WriteOperation.INSERT_OVERWRITE,
            WriteOperation.INSERT_OVERWRITE_TABLE,
            WriteOperation.DELETE_PARTITION,
        )

    @property
    def looks_up_existing(self) -> bool:
        """Whether incoming keys must be tagged with their current file groups."""
        return self in (WriteOperation.UPSERT, WriteOperation.DELETE)

    def action(self, table_type: TableType) -> Action:
        """The timeline action: replacecommit, else commit (COW) or deltacommit (MOR)."""
        if self.is_replace:
            return Action.REPLACE_COMMIT
        return Action.DELTA_COMMIT if table_type is TableType.MERGE_ON_READ else Action.COMMIT
