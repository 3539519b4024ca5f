"""The archived timeline of table version 6: the ``commits`` archive log under ``.hoodie/archived``.

Apache Hudi's v6 archiver appends AVRO_DATA blocks of ``HoodieArchivedMetaEntry`` records
(:mod:`hudi_framework.timeline.archived_entry`) to the log files
``.commits_.archive.<version>_<writeToken>`` of the archive folder (``hoodie.archivelog.folder``:
``archived`` by default; Apache Hudi 1.x names it ``history`` for the v6 tables it creates). Each
block holds up to ``hoodie.commits.archival.batch`` (10) records and a SCHEMA header only (no instant
time). Where storage cannot append (object stores, and local disks for Java 1.x), Java's log writer
rolls over to the next version on every archival, and 1.x never merges small archive files; this
writer does the same on every storage: each :meth:`V6Archive.append` creates the next version, so an
archive file is never rewritten and an interrupted archival leaves no partial file behind.

Reading takes every archive file in version order. As in Java (``ArchivedTimelineLoaderV1``), damage
in the newest file is tolerated (its intact blocks before the damage are read): an archival killed
while a storage that appends was writing leaves it so. Damage in an older file is an error.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

import fastavro

from hudi_framework.errors import InstantMetadataError, LogBlockDecodeError, PreconditionFailedError
from hudi_framework.layout.naming import ARCHIVE_EXTENSION, LogFileName
from hudi_framework.log.avro_records import decode_avro_datums, encode_avro_datums
from hudi_framework.log.blocks import BlockType, HeaderKey
from hudi_framework.log.codec import frame_at
from hudi_framework.log.framing import BlockFrame, encode_frame
from hudi_framework.timeline.archived_entry import ARCHIVE_ENTRY_SCHEMA, entries_of, instants_of
from hudi_framework.timeline.avro_container import schema_text

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.timeline.archive import ArchivedInstant

__all__ = ["ARCHIVAL_BATCH", "ARCHIVE_FILE_ID", "ARCHIVE_WRITE_TOKEN", "V6Archive", "archive_file_names"]

_LOG = logging.getLogger(__name__)

#: The file id of the archive log (Java ``HOODIE_COMMIT_ARCHIVE_LOG_FILE_PREFIX``).
ARCHIVE_FILE_ID: Final = "commits"
#: The write token Java's archiver writes (no Spark task: ``1-0-1``).
ARCHIVE_WRITE_TOKEN: Final = "1-0-1"
#: Records per block: ``hoodie.commits.archival.batch``'s default.
ARCHIVAL_BATCH: Final = 10
#: Next versions tried when another archiver takes one first.
_VERSION_ATTEMPTS: Final = 16


def archive_file_names(storage: StorageBackend, directory: str) -> list[LogFileName]:
    """The archive log files in ``directory``, oldest version first."""
    names = [
        parsed
        for info in storage.list(directory)
        if (parsed := LogFileName.try_parse(info.name)) is not None
        and parsed.extension == ARCHIVE_EXTENSION
        and parsed.file_id == ARCHIVE_FILE_ID
    ]
    return sorted(names, key=LogFileName.sort_key)


class V6Archive:
    """The ``archived/`` commits log of a table version 6 (an ``ArchiveFormat``)."""

    def __init__(self, storage: StorageBackend, directory: str) -> None:
        """The archive in ``directory`` (``.hoodie/<hoodie.archivelog.folder>``) on ``storage``."""
        self._storage = storage
        self._directory = directory.strip("/")

    def _key(self, name: LogFileName) -> str:
        return f"{self._directory}/{name.name}"

    # ------------------------------------------------------------------------------------ read
    def read(self) -> list[ArchivedInstant]:
        """Every archived (completed) instant, oldest requested time first.

        Raises:
            InstantMetadataError: An archive file other than the newest is damaged, or a record does
                not decode.
        """
        names = archive_file_names(self._storage, self._directory)
        records: list[dict[str, Any]] = []
        for index, name in enumerate(names):
            key = self._key(name)
            records.extend(self._file_records(key, newest=index == len(names) - 1))
        return instants_of(records, where=self._storage.uri(self._directory))

    def _file_records(self, key: str, *, newest: bool) -> Iterator[dict[str, Any]]:
        data = self._storage.read(key)
        pos = 0
        while pos < len(data):
            try:
                frame, size = frame_at(data, pos)
                if frame.block_type != BlockType.AVRO_DATA:
                    raise LogBlockDecodeError(f"block type {frame.block_type} in an archive log")
                schema_json = frame.header.get(HeaderKey.SCHEMA)
                if schema_json is None:
                    raise LogBlockDecodeError("archive block has no SCHEMA header")
                # The block's own writer schema decodes it (older Hudi versions wrote fewer fields).
                records = decode_avro_datums(frame.content, _parse(schema_json))
            except LogBlockDecodeError as e:
                if newest:
                    _LOG.warning("ignoring damaged archive block at %d of %s: %s", pos, self._storage.uri(key), e)
                    return
                raise InstantMetadataError(self._storage.uri(key), f"damaged block at offset {pos}: {e}") from e
            yield from records
            pos += size

    # ----------------------------------------------------------------------------------- write
    def append(self, instants: Sequence[ArchivedInstant]) -> None:
        """Write ``instants`` to a new archive file (the next version), in blocks of
        :data:`ARCHIVAL_BATCH` records, as Java's archiver does where storage cannot append.

        Raises:
            InstantMetadataError: An action the v6 archive cannot hold, or undecodable content.
            LogBlockEncodeError: A record does not fit the archive schema.
            PreconditionFailedError: Other archivers took the next versions first.
        """
        where = self._storage.uri(self._directory)
        records = [record for instant in instants for record in entries_of(instant, where=where)]
        if not records:
            return
        text = schema_text(ARCHIVE_ENTRY_SCHEMA)
        parsed = _parse_cached(text)
        header = {HeaderKey.SCHEMA: text}
        blocks = []
        for start in range(0, len(records), ARCHIVAL_BATCH):
            batch = records[start : start + ARCHIVAL_BATCH]
            content = encode_avro_datums(batch, len(batch), parsed)
            blocks.append(encode_frame(BlockFrame(BlockType.AVRO_DATA, header, content, {})))
        data = b"".join(blocks)
        existing = archive_file_names(self._storage, self._directory)
        version = existing[-1].version + 1 if existing else 1
        for attempt in range(_VERSION_ATTEMPTS):
            name = LogFileName(ARCHIVE_FILE_ID, "", version + attempt, ARCHIVE_WRITE_TOKEN, ARCHIVE_EXTENSION)
            try:
                self._storage.put_if_absent(self._key(name), data)
            except PreconditionFailedError:
                continue
            return
        raise PreconditionFailedError(
            self._storage.uri(self._directory), f"archive versions {version}..{version + _VERSION_ATTEMPTS - 1} taken"
        )


def _parse(schema_json: str) -> Any:
    try:
        return _parse_cached(schema_json)
    except (ValueError, TypeError, KeyError, fastavro.schema.SchemaParseException) as e:
        raise LogBlockDecodeError(f"SCHEMA header is not an Avro schema: {e}") from e


@functools.lru_cache(maxsize=8)
def _parse_cached(schema_json: str) -> Any:
    # Every block of an archive repeats one schema text (a few per Hudi release).
    return fastavro.parse_schema(json.loads(schema_json), named_schemas={})
