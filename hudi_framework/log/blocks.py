"""Typed log blocks: what one block of a Hudi log file holds (hudi-format.md section 4).

Block kinds:

* :class:`DataBlock`: records (AVRO_DATA, PARQUET_DATA, or CDC_DATA, which Java encodes as Avro),
  as a :class:`pyarrow.Table` in the writer schema of the block's SCHEMA header.
* :class:`DeleteBlock`: record keys, partition paths and ordering values to delete.
* :class:`CommandBlock`: a rollback of the blocks of an earlier instant (v6 tables).
* :class:`HFileBlock`: a raw HFile (metadata table); ``records`` decodes it.
* :class:`CorruptBlock`: bytes a reader could not decode; never written.

Header and footer maps keep their entry order, so a decoded block re-encodes to the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Final

import pyarrow as pa

from hudi_framework.errors import CorruptLogBlockError, LogBlockEncodeError
from hudi_framework.log.avro_records import conform_records
from hudi_framework.log.delete_columns import DeleteColumns, columns_from_records
from hudi_framework.log.delete_records import COMMIT_TIME_ORDERING, DeleteRecord, OrderingValue
from hudi_framework.log.hfile_records import decode_hfile_records, encode_hfile_records

if TYPE_CHECKING:
    from hudi_framework.log.hfile_writer import HFileWriteOptions
    from hudi_framework.model.schema import AvroSchema


class BlockType(IntEnum):
    """``HoodieLogBlockType``, stored as its ordinal."""

    COMMAND = 0
    DELETE = 1
    #: Only ever produced by readers; Java never writes it and neither do we.
    CORRUPT = 2
    AVRO_DATA = 3
    HFILE_DATA = 4
    PARQUET_DATA = 5
    CDC_DATA = 6


class HeaderKey(IntEnum):
    """``HeaderMetadataType``: header and footer map keys, stored as their ordinal."""

    #: The instant of the write that added the block (the delta commit).
    INSTANT_TIME = 0
    #: The instant a rollback command block undoes.
    TARGET_INSTANT_TIME = 1
    #: Avro schema JSON of the records, meta fields included.
    SCHEMA = 2
    #: ``"0"`` = rollback, the only command.
    COMMAND_BLOCK_TYPE = 3
    #: Blocks a log compaction wrote: the instants whose blocks they replace, comma-separated.
    COMPACTED_BLOCK_TIMES = 4
    RECORD_POSITIONS = 5
    BLOCK_IDENTIFIER = 6
    IS_PARTIAL = 7
    BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS = 8


class CommandType(IntEnum):
    """``HoodieCommandBlockTypeEnum``, stored as its ordinal in the COMMAND_BLOCK_TYPE header."""

    ROLLBACK = 0


#: Block types that hold records as Avro datums (Java's CDC block extends the Avro data block).
AVRO_BLOCK_TYPES: Final = frozenset({BlockType.AVRO_DATA, BlockType.CDC_DATA})
DATA_BLOCK_TYPES: Final = frozenset({BlockType.AVRO_DATA, BlockType.PARQUET_DATA, BlockType.CDC_DATA})


@dataclass(frozen=True, slots=True)
class BlockPosition:
    """Where a decoded block sits in its log file.

    Attributes:
        path: The log file's storage key.
        offset: Offset of the block's magic.
        size: Bytes of the block, magic through trailer.
    """

    path: str
    offset: int
    size: int


def _frozen(entries: Mapping[HeaderKey, str] | None) -> Mapping[HeaderKey, str]:
    # A private copy typed read-only; not a MappingProxyType, which cannot be pickled to workers.
    return dict(entries or {})


class _Headed:
    """Properties shared by blocks that carry a header."""

    __slots__ = ()
    header: Mapping[HeaderKey, str]

    @property
    def instant_time(self) -> str | None:
        """INSTANT_TIME: the delta commit that wrote the block (None only in archive-style files)."""
        return self.header.get(HeaderKey.INSTANT_TIME)


@dataclass(frozen=True, slots=True)
class DataBlock(_Headed):
    """Records of one write, in the writer schema of the SCHEMA header.

    Attributes:
        records: The records, schema ``avro_to_arrow(SCHEMA)`` (meta fields first).
        header: Header entries (INSTANT_TIME and SCHEMA at least).
        footer: Footer entries (empty in practice).
        block_type: AVRO_DATA (what writers should use), PARQUET_DATA or CDC_DATA.
        position: Where the block was read from; None for blocks made in memory.
        compression: How PARQUET_DATA content is compressed when encoded, an Apache Hudi codec
            name (``hoodie.parquet.compression.codec``, Java's default ``gzip``); not read back.
    """

    records: pa.Table
    header: Mapping[HeaderKey, str]
    footer: Mapping[HeaderKey, str] = field(default_factory=dict)
    block_type: BlockType = BlockType.AVRO_DATA
    position: BlockPosition | None = field(default=None, compare=False)
    compression: str = field(default="gzip", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "header", _frozen(self.header))
        object.__setattr__(self, "footer", _frozen(self.footer))
        if self.block_type not in DATA_BLOCK_TYPES:
            raise LogBlockEncodeError(f"{self.block_type.name} is not a data block type")

    @classmethod
    def create(
        cls,
        records: pa.Table,
        *,
        instant_time: str,
        schema: AvroSchema | str,
        block_type: BlockType = BlockType.AVRO_DATA,
        extra_header: Mapping[HeaderKey, str] | None = None,
        compression: str = "gzip",
    ) -> DataBlock:
        """A data block as a writer makes it.

        Args:
            records: Rows with every column of ``schema`` (meta fields included, filled in).
            instant_time: The delta commit's instant.
            schema: The writer schema with the meta fields (``with_meta_fields``), parsed or JSON.
            block_type: AVRO_DATA unless there is a reason for PARQUET_DATA.
            extra_header: Further header entries (keys 4-8), written after INSTANT_TIME and SCHEMA.
            compression: Codec of PARQUET_DATA content (``hoodie.parquet.compression.codec``).

        Raises:
            LogBlockEncodeError: The records do not fit the schema.
        """
        parsed: AvroSchema = json.loads(schema) if isinstance(schema, str) else schema
        text = schema if isinstance(schema, str) else json.dumps(schema, separators=(",", ":"))
        header = {HeaderKey.INSTANT_TIME: instant_time, HeaderKey.SCHEMA: text, **(extra_header or {})}
        return cls(conform_records(records, parsed), header, {}, block_type, compression=compression)

    @property
    def schema_json(self) -> str:
        """The SCHEMA header: the writer schema as Avro JSON."""
        try:
            return self.header[HeaderKey.SCHEMA]
        except KeyError:
            raise LogBlockEncodeError("data block has no SCHEMA header") from None

    @property
    def is_partial(self) -> bool:
        """IS_PARTIAL header is ``true`` (case-insensitive, as Java parses it): the records carry only
        the columns of the SCHEMA header, a partial schema; the others keep their earlier values."""
        return self.header.get(HeaderKey.IS_PARTIAL, "").strip().lower() == "true"

    @property
    def avro_schema(self) -> AvroSchema:
        """The SCHEMA header, parsed."""
        parsed: AvroSchema = json.loads(self.schema_json)
        return parsed

    @property
    def record_count(self) -> int:
        """Number of records."""
        return int(self.records.num_rows)

    @property
    def record_keys(self) -> pa.ChunkedArray | None:
        """The ``_hoodie_record_key`` column, or None if the schema has no meta fields."""
        if "_hoodie_record_key" not in self.records.column_names:
            return None
        return self.records.column("_hoodie_record_key")


class DeleteBlock(_Headed):
    """Keys deleted by one write, held as records, as columns, or both (each made from the other on
    first use).

    A frozen value: equal when records, header and footer are; ``position`` does not count.

    Attributes:
        header: Header entries (INSTANT_TIME; Java adds SCHEMA, the full table schema).
        footer: Footer entries (empty in practice).
        position: Where the block was read from; None for blocks made in memory.
    """

    __slots__ = ("_columns", "_records", "footer", "header", "position")
    __match_args__ = ("records", "header", "footer", "position")
    _records: tuple[DeleteRecord, ...] | None
    _columns: DeleteColumns | None
    header: Mapping[HeaderKey, str]
    footer: Mapping[HeaderKey, str]
    position: BlockPosition | None

    def __init__(
        self,
        records: Iterable[DeleteRecord],
        header: Mapping[HeaderKey, str],
        footer: Mapping[HeaderKey, str] | None = None,
        position: BlockPosition | None = None,
    ) -> None:
        """A block of ``records`` (one entry per deleted key)."""
        self._init(tuple(records), None, header, footer, position)

    @classmethod
    def from_columns(
        cls,
        columns: DeleteColumns,
        header: Mapping[HeaderKey, str],
        footer: Mapping[HeaderKey, str] | None = None,
        position: BlockPosition | None = None,
    ) -> DeleteBlock:
        """A block of decoded columns; its records are made on first access.

        Raises:
            LogBlockEncodeError: ``columns`` has no ordering column (then only records can hold them).
        """
        if columns.ordering_values is None:
            raise LogBlockEncodeError("a delete block made from columns needs their ordering column")
        block = cls.__new__(cls)
        block._init(None, columns, header, footer, position)
        return block

    def _init(
        self,
        records: tuple[DeleteRecord, ...] | None,
        columns: DeleteColumns | None,
        header: Mapping[HeaderKey, str],
        footer: Mapping[HeaderKey, str] | None,
        position: BlockPosition | None,
    ) -> None:
        set_ = object.__setattr__
        set_(self, "_records", records)
        set_(self, "_columns", columns)
        set_(self, "header", _frozen(header))
        set_(self, "footer", _frozen(footer))
        set_(self, "position", position)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[object, ...]:
        return self._records, self._columns, self.header, self.footer, self.position

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self._init(*state)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, DeleteBlock)
        return (self.records, self.header, self.footer) == (other.records, other.header, other.footer)

    def __hash__(self) -> int:
        # As a frozen dataclass would: the header dict makes it unhashable (TypeError).
        return hash((self.records, self.header, self.footer))

    def __repr__(self) -> str:
        return (
            f"DeleteBlock(records={self.records!r}, header={self.header!r}, footer={self.footer!r}, "
            f"position={self.position!r})"
        )

    @property
    def records(self) -> tuple[DeleteRecord, ...]:
        """One entry per deleted key (made from the columns on first access)."""
        records = self._records
        if records is None:
            assert self._columns is not None  # one of the two is always set
            records = self._columns.to_records()
            object.__setattr__(self, "_records", records)
        return records

    @property
    def columns(self) -> DeleteColumns:
        """The entries as Arrow columns (made from the records on first access)."""
        columns = self._columns
        if columns is None:
            assert self._records is not None  # one of the two is always set
            columns = columns_from_records(self._records)
            object.__setattr__(self, "_columns", columns)
        return columns

    @property
    def held_columns(self) -> DeleteColumns | None:
        """The columns the block was made from or has already made (None: only records so far)."""
        return self._columns

    @property
    def block_type(self) -> BlockType:
        """Always DELETE."""
        return BlockType.DELETE

    @classmethod
    def create(
        cls,
        record_keys: Iterable[str],
        partition_paths: Iterable[str],
        *,
        instant_time: str,
        ordering_values: Iterable[OrderingValue | None] | None = None,
        schema: AvroSchema | str | None = None,
        extra_header: Mapping[HeaderKey, str] | None = None,
    ) -> DeleteBlock:
        """A delete block as a writer makes it.

        Args:
            record_keys: Keys to delete.
            partition_paths: The partition path of each key (``""`` when non-partitioned).
            instant_time: The delta commit's instant.
            ordering_values: One per key; by default ``IntWrapper(0)``, a commit-time delete, which
                is what Apache Hudi writes and the only value hudi-rs 0.5 reads correctly.
            schema: The table schema for the SCHEMA header (Java writes it; readers ignore it).
            extra_header: Further header entries (record positions), after INSTANT_TIME and SCHEMA.

        Raises:
            LogBlockEncodeError: The three sequences differ in length.
        """
        keys = list(record_keys)
        paths = list(partition_paths)
        orderings = [COMMIT_TIME_ORDERING] * len(keys) if ordering_values is None else list(ordering_values)
        if not len(keys) == len(paths) == len(orderings):
            raise LogBlockEncodeError(
                f"{len(keys)} keys, {len(paths)} partition paths and {len(orderings)} ordering values"
            )
        records = tuple(DeleteRecord(k, p, o) for k, p, o in zip(keys, paths, orderings, strict=True))
        return cls(records, {**_writer_header(instant_time, schema), **(extra_header or {})})

    @classmethod
    def create_from_columns(
        cls,
        columns: DeleteColumns,
        *,
        instant_time: str,
        schema: AvroSchema | str | None = None,
        extra_header: Mapping[HeaderKey, str] | None = None,
    ) -> DeleteBlock:
        """A delete block as a writer makes it, from columns: no Python object per deleted key, and
        the content is encoded from the columns (:mod:`~hudi_framework.log.delete_encode`).
        ``extra_header`` entries (record positions) follow INSTANT_TIME and SCHEMA.

        Raises:
            LogBlockEncodeError: ``columns`` has no ordering column.
        """
        return cls.from_columns(columns, {**_writer_header(instant_time, schema), **(extra_header or {})})

    @property
    def record_keys(self) -> tuple[str | None, ...]:
        """The deleted keys, in block order."""
        if self._records is None:
            return tuple(self.columns.record_keys.to_pylist())
        return tuple(r.record_key for r in self._records)

    @property
    def partition_paths(self) -> tuple[str | None, ...]:
        """The partition path of each deleted key."""
        if self._records is None:
            return tuple(self.columns.partition_paths.to_pylist())
        return tuple(r.partition_path for r in self._records)

    @property
    def ordering_values(self) -> tuple[OrderingValue | None, ...]:
        """The ordering value of each deleted key."""
        return tuple(r.ordering_value for r in self.records)

    def to_arrow(self) -> pa.Table:
        """Keys and partition paths as a table (``_hoodie_record_key``, ``_hoodie_partition_path``)."""
        columns = self.columns
        return pa.Table.from_arrays(
            [columns.record_keys, columns.partition_paths], names=["_hoodie_record_key", "_hoodie_partition_path"]
        )


def _writer_header(instant_time: str, schema: AvroSchema | str | None) -> dict[HeaderKey, str]:
    header = {HeaderKey.INSTANT_TIME: instant_time}
    if schema is not None:
        header[HeaderKey.SCHEMA] = schema if isinstance(schema, str) else json.dumps(schema, separators=(",", ":"))
    return header


@dataclass(frozen=True, slots=True)
class CommandBlock(_Headed):
    """A command: today only a rollback of every earlier block of TARGET_INSTANT_TIME.

    Attributes:
        header: INSTANT_TIME (the rollback), TARGET_INSTANT_TIME, COMMAND_BLOCK_TYPE.
        footer: Footer entries (empty in practice).
        position: Where the block was read from; None for blocks made in memory.
    """

    header: Mapping[HeaderKey, str]
    footer: Mapping[HeaderKey, str] = field(default_factory=dict)
    position: BlockPosition | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "header", _frozen(self.header))
        object.__setattr__(self, "footer", _frozen(self.footer))

    @property
    def block_type(self) -> BlockType:
        """Always COMMAND."""
        return BlockType.COMMAND

    @classmethod
    def rollback(cls, *, instant_time: str, target_instant_time: str) -> CommandBlock:
        """A rollback block: ``instant_time`` undoes the blocks written by ``target_instant_time``."""
        return cls(
            {
                HeaderKey.INSTANT_TIME: instant_time,
                HeaderKey.TARGET_INSTANT_TIME: target_instant_time,
                HeaderKey.COMMAND_BLOCK_TYPE: str(int(CommandType.ROLLBACK)),
            }
        )

    @property
    def command_type(self) -> CommandType:
        """The command (ROLLBACK)."""
        return CommandType(int(self.header[HeaderKey.COMMAND_BLOCK_TYPE]))

    @property
    def target_instant_time(self) -> str:
        """The instant whose blocks are rolled back."""
        return self.header[HeaderKey.TARGET_INSTANT_TIME]


@dataclass(frozen=True, slots=True)
class HFileBlock(_Headed):
    """An HFILE_DATA block (metadata table): the raw HFile, decoded on demand by ``records``.

    Attributes:
        content: The complete HFile.
        header: Header entries (INSTANT_TIME, SCHEMA).
        footer: Footer entries (empty in practice).
        position: Where the block was read from; None for blocks made in memory.
    """

    content: bytes
    header: Mapping[HeaderKey, str]
    footer: Mapping[HeaderKey, str] = field(default_factory=dict)
    position: BlockPosition | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "header", _frozen(self.header))
        object.__setattr__(self, "footer", _frozen(self.footer))

    @property
    def block_type(self) -> BlockType:
        """Always HFILE_DATA."""
        return BlockType.HFILE_DATA

    @classmethod
    def create(
        cls,
        records: Sequence[Mapping[str, Any]],
        *,
        instant_time: str,
        schema: AvroSchema | str,
        options: HFileWriteOptions | None = None,
    ) -> HFileBlock:
        """An HFILE_DATA block as Apache Hudi's metadata-table writer makes it.

        The headers are INSTANT_TIME and SCHEMA (the schema text also goes into the HFile's file
        info); the content is :func:`hudi_framework.log.hfile_records.encode_hfile_records`.

        Raises:
            HFileWriteError: A record without a string ``key``, a duplicate key, or a record that
                does not fit the schema.
        """
        text = schema if isinstance(schema, str) else json.dumps(schema, separators=(",", ":"))
        content = encode_hfile_records(records, text, options)
        return cls(content, _writer_header(instant_time, text))

    @property
    def records(self) -> pa.Table:
        """The HFile's records, keyed by row key (decoded on each access).

        Schema: the SCHEMA header's record as Arrow, unions of several record types as
        ``member<i>`` structs; ``_hoodie_record_key`` and ``key`` hold the HFile row key. See
        :func:`hudi_framework.log.hfile_records.decode_hfile_records`.

        Raises:
            HFileFormatError: The HFile is damaged (a :class:`LogBlockDecodeError`).
            UnsupportedLogBlockError: The HFile uses a compression codec other than NONE or GZ.
        """
        return decode_hfile_records(self.content, self.header.get(HeaderKey.SCHEMA))


@dataclass(frozen=True, slots=True)
class CorruptBlock:
    """Bytes of a log file that do not form a decodable block.

    Attributes:
        path: The log file's storage key.
        offset: Offset of the first damaged byte range (where a block's magic was expected).
        length: Bytes skipped, up to the next intact block or the end of the file.
        reason: What was wrong.
        instant_time: INSTANT_TIME from the damaged block's header, when it was still readable.
        intact_frame: True when magic, length and trailer agreed but the header or content did not
            decode (damage inside, or a content version this reader does not know).
    """

    path: str
    offset: int
    length: int
    reason: str
    instant_time: str | None = None
    intact_frame: bool = False

    @property
    def block_type(self) -> BlockType:
        """Always CORRUPT."""
        return BlockType.CORRUPT

    def error(self) -> CorruptLogBlockError:
        """This block as an exception, for callers that stop on corruption."""
        return CorruptLogBlockError(self.path, self.offset, self.reason)


#: A block that can be written.
LogBlock = DataBlock | DeleteBlock | CommandBlock | HFileBlock
#: Anything a log reader yields.
Block = DataBlock | DeleteBlock | CommandBlock | HFileBlock | CorruptBlock


def compacted_instants(block: DataBlock | DeleteBlock) -> list[str]:
    """The instants whose blocks ``block`` replaces (its COMPACTED_BLOCK_TIMES header); empty for a
    block no log compaction wrote."""
    value = block.header.get(HeaderKey.COMPACTED_BLOCK_TIMES)
    return [t for t in value.split(",") if t] if value else []
