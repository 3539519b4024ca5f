"""What each write operation means for the timeline and the write path.

The operation enum itself is Apache Hudi's vocabulary, :class:`~hudi_framework.vocabulary.WriteOperation`
(``hoodie.datasource.write.operation``); this module adds the write-path facts about it.
"""

from __future__ import annotations

from hudi_framework.timeline.instant import Action
from hudi_framework.vocabulary import TableType, WriteOperation

_REPLACING = frozenset(
    {WriteOperation.INSERT_OVERWRITE, WriteOperation.INSERT_OVERWRITE_TABLE, WriteOperation.DELETE_PARTITION}
)
_INSERTING = frozenset(
    {
        WriteOperation.INSERT,
        WriteOperation.BULK_INSERT,
        WriteOperation.INSERT_OVERWRITE,
        WriteOperation.INSERT_OVERWRITE_TABLE,
    }
)


def is_replace(operation: WriteOperation) -> bool:
    """Whether the operation replaces file groups (a replacecommit)."""
    return operation in _REPLACING


def is_insert(operation: WriteOperation) -> bool:
    """Whether every incoming row is written as a new record, duplicate keys included (unless
    ``hoodie.combine.before.insert`` pre-combines them)."""
    return operation in _INSERTING


def looks_up_existing(operation: WriteOperation) -> bool:
    """Whether incoming keys must be tagged with their current file groups."""
    return operation in (WriteOperation.UPSERT, WriteOperation.DELETE)


def action_of(operation: WriteOperation, table_type: TableType) -> Action:
    """The timeline action: replacecommit, else commit (COW) or deltacommit (MOR)."""
    if is_replace(operation):
        return Action.REPLACE_COMMIT
    return Action.DELTA_COMMIT if table_type is TableType.MERGE_ON_READ else Action.COMMIT


__all__ = ["action_of", "is_insert", "is_replace", "looks_up_existing"]
