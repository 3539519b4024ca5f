"""Truncating a damaged log file tail (``hudi-fw repair truncate-log``).

A writer that dies while appending a block leaves a torn block at the end of a log file (v6 tables
append several delta commits to one file on storage that can append). When the torn bytes still
show the instant that wrote them, readers and compaction know they hold no committed rows; when the
cut falls inside the block header they cannot tell, and compaction refuses the file slice. This
repair removes such a tail:

* the bytes at ``offset`` must be a corrupt block that runs to the end of the file (no intact block
  after it is ever removed);
* a tail written by a completed, not rolled-back write is refused: its rows are committed, so roll
  that write back (``hudi-fw rollback``) or accept the loss in compaction instead;
* the whole original file is first copied to ``.hoodie/.aux/log-repair/`` (readers never look
  there), then the file is rewritten with its first ``offset`` bytes (deleted when that is none).

Run it while no writer or table service works on the table, as Apache Hudi's repair commands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from hudi_framework.contracts.storage_paths import join_key
from hudi_framework.errors import LogRepairError
from hudi_framework.layout.naming import LogFileName
from hudi_framework.read.corrupt_blocks import CorruptBlockStatus
from hudi_framework.read.log_inspection import inspect_log_blocks

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.runtime.table import HudiTable

__all__ = ["BACKUP_PREFIX", "TruncatedLog", "truncate_log_tail"]

#: Where the original of every repaired log file is kept.
BACKUP_PREFIX: Final = ".hoodie/.aux/log-repair"
_COPY_CHUNK: Final = 8 << 20


@dataclass(frozen=True, slots=True)
class TruncatedLog:
    """What a truncation did.

    Attributes:
        log_file: The log file's storage key.
        offset: Its new size.
        removed_bytes: Bytes removed from its end.
        backup_key: Storage key of the copy of the original file.
        deleted: The file held nothing intact and was deleted.
    """

    log_file: str
    offset: int
    removed_bytes: int
    backup_key: str
    deleted: bool


def _relative_key(table: HudiTable, log_file: str) -> str:
    root = table.storage.root_uri.rstrip("/") + "/"
    return log_file[len(root) :] if log_file.startswith(root) else log_file.lstrip("/")


def _copy(storage: StorageBackend, source: str, target: str, size: int) -> None:
    """Write the first ``size`` bytes of ``source`` to ``target``, a chunk at a time."""
    with storage.open_input(source) as src, storage.open_output(target) as dst:
        left = size
        while left > 0:
            chunk = src.read(min(_COPY_CHUNK, left))
            if not chunk:
                raise LogRepairError(source, f"ended {left} bytes early while copying")
            dst.write(chunk)
            left -= len(chunk)


def truncate_log_tail(table: HudiTable, log_file: str, offset: int) -> TruncatedLog:
    """Cut the log file ``log_file`` (storage key or URI) back to its first ``offset`` bytes.

    Raises:
        LogRepairError: The file is not a log file of a latest file slice; no corrupt block starts at
            ``offset``; intact blocks follow it; or it was written by a completed write.
        StorageNotFoundError: The file does not exist.
    """
    key = _relative_key(table, log_file)
    partition, _, name = key.rpartition("/")
    parsed = LogFileName.try_parse(name)
    if parsed is None:
        raise LogRepairError(key, "not a log file name")
    storage = table.storage
    size = storage.size(key)  # StorageNotFoundError for a missing file
    blocks = [b for b in inspect_log_blocks(table, partition=partition, file_id=parsed.file_id) if b.log_file == key]
    if not blocks:
        raise LogRepairError(key, "not a log file of a latest file slice")
    at = [b for b in blocks if b.offset == offset]
    if not at or not at[0].corrupt:
        corrupt = ", ".join(str(b.offset) for b in blocks if b.corrupt) or "none"
        raise LogRepairError(key, f"no corrupt block starts at offset {offset} (corrupt blocks at: {corrupt})")
    tail = at[0]
    if tail.offset + tail.length != size:
        raise LogRepairError(key, f"the corrupt block at offset {offset} is followed by intact blocks")
    if tail.status == CorruptBlockStatus.LOST:
        raise LogRepairError(
            key,
            f"the block at offset {offset} was written by completed instant {tail.instant_time}: roll it back "
            "(hudi-fw rollback) or compact with services.compaction.skip_corrupt_log_blocks=true",
        )
    backup = join_key(BACKUP_PREFIX, f"{key}.{offset}")
    _copy(storage, key, backup, size)
    if offset == 0:
        storage.delete(key)
    else:
        _copy(storage, backup, key, offset)
    return TruncatedLog(key, offset, size - offset, backup, deleted=offset == 0)
