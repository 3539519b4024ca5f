"""One write task per file group: rewrite its base file, or (merge-on-read) append to its log.

The planner decides per file group (:attr:`FileGroupWrite.append`); both engines call
:func:`write_target` for every planned file group, so they write exactly the same files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hudi_framework.write.file_group_task import INSERTED, write_file_group
from hudi_framework.write.log_task import append_file_group

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.contracts.keygen import KeyGenerator
    from hudi_framework.contracts.merger import RecordMerger
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.metadata.key_changes import FileKeyChanges
    from hudi_framework.timeline.metadata import WriteStat
    from hudi_framework.write.file_group_task import FileGroupWrite, WriteTaskContext

__all__ = ["write_target"]


def write_target(
    storage: StorageBackend,
    merger: RecordMerger,
    ctx: WriteTaskContext,
    target: FileGroupWrite,
    incoming: pa.Table,
    *,
    task_partition_id: int = 0,
    write_token: str = "0-0-0",
    keygen: KeyGenerator | None = None,
    key_changes: dict[str, FileKeyChanges] | None = None,
    log_stats: dict[str, pa.Table | None] | None = None,
) -> list[WriteStat]:
    """Write ``incoming`` to ``target``: a log append when planned so, else a new base file.

    Returns the write stat of each file written (a log append that rolls over writes several).

    See :func:`~hudi_framework.write.file_group_task.write_file_group` and
    :func:`~hudi_framework.write.log_task.append_file_group` for the arguments.
    """
    if target.append:
        return append_file_group(
            storage, ctx, target, incoming, task_partition_id=task_partition_id, write_token=write_token,
            merger=merger, key_changes=key_changes, log_stats=log_stats,
        )  # fmt: skip
    if INSERTED in incoming.column_names:  # a rewrite finds its inserts against its base file
        incoming = incoming.drop_columns([INSERTED])
    return [
        write_file_group(
            storage,
            merger,
            ctx,
            target,
            incoming,
            task_partition_id=task_partition_id,
            write_token=write_token,
            keygen=keygen,
            key_changes=key_changes,
        )
    ]
