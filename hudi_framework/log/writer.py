"""Write log files: encode blocks and create new log files, never appending to existing ones.

Object stores cannot append, so every write creates a new log file:

* table version 8 and later: a new file per delta commit is what Java does too (the file name
  carries the delta commit's instant, version 1);
* table version 6: Java appends to the slice's latest log file; instead a *next version* file
  ``.<fileId>_<baseInstant>.log.<max+1>_<token>`` is created, which every reader orders after the
  earlier versions (hudi-format.md section 3.2), so the blocks are read in the same order.

Files are created with :meth:`StorageBackend.put_if_absent`, so a concurrent writer can never
replace a log file another writer created.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from hudi_framework.errors import LogBlockEncodeError, PreconditionFailedError
from hudi_framework.layout.naming import LogFileName, next_log_version
from hudi_framework.log.codec import encode_block

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.log.blocks import LogBlock

#: How many next versions :func:`create_next_log_file` tries when racing other writers.
MAX_VERSION_ATTEMPTS: Final = 16


@dataclass(frozen=True, slots=True)
class WrittenLogFile:
    """A log file just created.

    Attributes:
        key: Its storage key.
        size: Its size in bytes (commit metadata ``fileSizeInBytes`` / ``totalWriteBytes``).
        block_offsets: Offset of each block's magic, in write order.
    """

    key: str
    size: int
    block_offsets: tuple[int, ...]

    @property
    def name(self) -> LogFileName:
        """The parsed file name."""
        return LogFileName.parse(self.key.rsplit("/", 1)[-1])


def encode_blocks(blocks: Iterable[LogBlock]) -> tuple[bytes, tuple[int, ...]]:
    """The bytes of a log file holding ``blocks``, and each block's offset.

    Raises:
        LogBlockEncodeError: A block cannot be encoded.
    """
    parts: list[bytes] = []
    offsets: list[int] = []
    size = 0
    for block in blocks:
        data = encode_block(block)
        offsets.append(size)
        parts.append(data)
        size += len(data)
    return b"".join(parts), tuple(offsets)


def append_log_file(storage: StorageBackend, key: str, blocks: Iterable[LogBlock]) -> WrittenLogFile:
    """Create the log file ``key`` holding ``blocks``.

    Despite the name (Java's "append"), this never extends an existing object: on object stores
    that is impossible, and Hudi v8+ writes one log file per delta commit anyway.

    Raises:
        LogBlockEncodeError: No blocks, or a block cannot be encoded.
        PreconditionFailedError: ``key`` already exists (pick the next version and retry, or use
            :func:`create_next_log_file`).
    """
    data, offsets = encode_blocks(blocks)
    if not offsets:
        raise LogBlockEncodeError("a log file needs at least one block")
    storage.put_if_absent(key, data)
    return WrittenLogFile(key, len(data), offsets)


def log_file_key(partition_path: str, name: LogFileName) -> str:
    """The storage key of a log file in a partition (``""`` = the table's base path)."""
    return f"{partition_path}/{name.name}" if partition_path else name.name


def create_next_log_file(
    storage: StorageBackend,
    *,
    partition_path: str,
    file_id: str,
    instant_time: str,
    write_token: str,
    blocks: Iterable[LogBlock],
    existing: Iterable[LogFileName] | None = None,
    before_create: Callable[[LogFileName], None] | None = None,
) -> WrittenLogFile:
    """Create the next free log version of (``file_id``, ``instant_time``) in a partition.

    Args:
        storage: The table's storage.
        partition_path: Relative partition path, ``""`` for a non-partitioned table.
        file_id: The file group.
        instant_time: v6: the base instant of the file slice; v8+: the delta commit's instant.
        write_token: ``<task>-<stage>-<attempt>``.
        blocks: The blocks to write.
        existing: Log files known to exist for the pair; None lists the partition. v8+ writers
            pass ``()`` (a delta commit's own file starts at version 1; a clash still moves on).
        before_create: Called with each name just before it is created (writers create their
            marker there, so a marker always precedes its file).

    Returns:
        The file created; its version is one past the highest existing for the pair (1 if none).

    Raises:
        LogBlockEncodeError: No blocks, or a block cannot be encoded.
        PreconditionFailedError: Other writers took :data:`MAX_VERSION_ATTEMPTS` versions in a row.
    """
    data, offsets = encode_blocks(blocks)
    if not offsets:
        raise LogBlockEncodeError("a log file needs at least one block")
    if existing is None:
        existing = _listed(storage, partition_path)
    return _create_next(
        storage, partition_path, file_id, instant_time, write_token, data, offsets, existing, before_create
    )


def _listed(storage: StorageBackend, partition_path: str) -> list[LogFileName]:
    return [parsed for info in storage.list(partition_path) if (parsed := LogFileName.try_parse(info.name)) is not None]


def _create_next(
    storage: StorageBackend,
    partition_path: str,
    file_id: str,
    instant_time: str,
    write_token: str,
    data: bytes,
    offsets: tuple[int, ...],
    existing: Iterable[LogFileName],
    before_create: Callable[[LogFileName], None] | None,
) -> WrittenLogFile:
    version = next_log_version(existing, file_id, instant_time)
    last_error: PreconditionFailedError | None = None
    for attempt in range(MAX_VERSION_ATTEMPTS):
        name = LogFileName(file_id, instant_time, version + attempt, write_token)
        key = log_file_key(partition_path, name)
        if before_create is not None:
            before_create(name)
        try:
            storage.put_if_absent(key, data)
        except PreconditionFailedError as e:
            # Another writer created this version between our listing and our write.
            last_error = e
            continue
        return WrittenLogFile(key, len(data), offsets)
    assert last_error is not None
    raise last_error


def pack_blocks(sizes: Sequence[int], max_size: int) -> list[range]:
    """Split encoded blocks of ``sizes`` (in write order) into consecutive runs, one per log file.

    A block starts a new file when adding it would take a non-empty file over ``max_size``
    (``hoodie.logfile.max.size``); a block larger than that alone gets a file of its own.
    """
    runs: list[range] = []
    start, size = 0, 0
    for i, n in enumerate(sizes):
        if i > start and size + n > max_size:
            runs.append(range(start, i))
            start, size = i, 0
        size += n
    if sizes:
        runs.append(range(start, len(sizes)))
    return runs


def create_log_files(
    storage: StorageBackend,
    *,
    partition_path: str,
    file_id: str,
    instant_time: str,
    write_token: str,
    encoded: Sequence[bytes],
    max_size: int,
    existing: Iterable[LogFileName] | None = None,
    before_create: Callable[[LogFileName], None] | None = None,
) -> list[tuple[WrittenLogFile, range]]:
    """Write already encoded blocks into as many next log versions as ``max_size`` needs.

    Like :func:`create_next_log_file` (same arguments) for each run of :func:`pack_blocks`, in
    order, so every reader reads the blocks in write order (log versions ascend).

    Returns:
        Each file created with the indexes of the blocks it holds.

    Raises:
        LogBlockEncodeError: No blocks.
        PreconditionFailedError: Other writers took :data:`MAX_VERSION_ATTEMPTS` versions in a row.
    """
    if not encoded:
        raise LogBlockEncodeError("a log file needs at least one block")
    known = _listed(storage, partition_path) if existing is None else list(existing)
    written: list[tuple[WrittenLogFile, range]] = []
    for run in pack_blocks([len(b) for b in encoded], max_size):
        parts = [encoded[i] for i in run]
        offsets = tuple(itertools.accumulate((len(p) for p in parts[:-1]), initial=0))
        file = _create_next(
            storage, partition_path, file_id, instant_time, write_token, b"".join(parts), offsets, known, before_create
        )
        known.append(file.name)
        written.append((file, run))
    return written
