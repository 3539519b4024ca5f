"""Typed blocks to and from their bytes: content encoding per block type on top of the framing."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.errors import LogBlockDecodeError, LogBlockEncodeError
from hudi_framework.log.avro_records import conform_records, decode_avro_records, encode_avro_records
from hudi_framework.log.blocks import (
    AVRO_BLOCK_TYPES,
    BlockPosition,
    BlockType,
    CommandBlock,
    CommandType,
    CorruptBlock,
    DataBlock,
    DeleteBlock,
    HeaderKey,
    HFileBlock,
    LogBlock,
)
from hudi_framework.log.delete_columns import decode_delete_columns
from hudi_framework.log.delete_encode import encode_delete_columns
from hudi_framework.log.delete_records import decode_delete_content, encode_delete_content
from hudi_framework.log.framing import (
    MAGIC,
    PREFIX_SIZE,
    BlockFrame,
    block_length_of,
    decode_frame_body,
    encode_frame,
    trailer_matches,
)
from hudi_framework.model.parquet_dictionaries import dictionary_columns
from hudi_framework.model.parquet_format import PARQUET_TYPE_OPTIONS, pyarrow_codec

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hudi_framework.model.schema import AvroSchema

_PARQUET_MAGIC = b"PAR1"
_HFILE_MAJOR_VERSIONS = (2, 3)


# ------------------------------------------------------------------------------------ encoding
def encode_block(block: LogBlock | CorruptBlock) -> bytes:
    """The bytes of one block, magic through trailer.

    Raises:
        LogBlockEncodeError: A corrupt block (never written), or records that do not fit the
            block's schema.
    """
    return encode_frame(block_to_frame(block))


def block_to_frame(block: LogBlock | CorruptBlock) -> BlockFrame:
    """The frame of ``block`` with its content encoded.

    Raises:
        LogBlockEncodeError: The block could not be read back: a corrupt block, records that do not
            fit the schema, or a header or content the reader would reject.
    """
    if isinstance(block, CorruptBlock):
        raise LogBlockEncodeError("corrupt blocks are only ever read, never written")
    if isinstance(block, DataBlock):
        if block.block_type is BlockType.PARQUET_DATA:
            content = _encode_parquet(block)
        else:
            content = encode_avro_records(block.records, _header_schema(block.header, encode=True))
        frame = BlockFrame(block.block_type, block.header, content, block.footer)
    elif isinstance(block, DeleteBlock):
        columns = block.held_columns
        # Columns with an ordering column encode without a Python object per entry (same bytes).
        content = (
            encode_delete_columns(columns)
            if columns is not None and columns.ordering_values is not None
            else encode_delete_content(block.records)
        )
        frame = BlockFrame(BlockType.DELETE, block.header, content, block.footer)
    elif isinstance(block, CommandBlock):
        frame = BlockFrame(BlockType.COMMAND, block.header, b"", block.footer)
    else:
        frame = BlockFrame(BlockType.HFILE_DATA, block.header, block.content, block.footer)
    # Never write what the reader would report as corrupt.
    try:
        _check_instants(frame.header)
        if frame.block_type == BlockType.COMMAND:
            _check_command(frame)
        elif frame.block_type == BlockType.HFILE_DATA:
            _check_hfile(frame.content)
    except LogBlockDecodeError as e:
        raise LogBlockEncodeError(e.reason) from e
    return frame


def _encode_parquet(block: DataBlock) -> bytes:
    sink = pa.BufferOutputStream()
    # Typed as base files are (the records have the SCHEMA header's exact types), compressed with
    # the table's codec as Java's HoodieParquetDataBlock is; no dictionary for (near-)unique columns,
    # as in base files (a merged read decodes the block ~25% faster).
    records = block.records
    pq.write_table(
        records, sink, compression=pyarrow_codec(block.compression), use_dictionary=dictionary_columns(records),
        write_page_checksum=True, **PARQUET_TYPE_OPTIONS,
    )  # fmt: skip
    return bytes(sink.getvalue().to_pybytes())


# ------------------------------------------------------------------------------------ decoding
def decode_block(data: bytes, *, path: str = "<memory>", offset: int = 0) -> LogBlock:
    """Decode one complete block (magic through trailer) held in memory.

    Raises:
        LogBlockDecodeError: The bytes are not one intact, decodable block.
    """
    frame, size = frame_at(data)
    if size != len(data):
        raise LogBlockDecodeError("block length and trailer do not match the bytes")
    return frame_to_block(frame, BlockPosition(path, offset, size))


def frame_at(data: bytes, pos: int = 0) -> tuple[BlockFrame, int]:
    """The frame of the intact block starting at ``pos`` of ``data`` (more blocks may follow), and
    the block's size in bytes.

    Raises:
        LogBlockDecodeError: No block magic at ``pos``, or the block's length and trailer do not
            match the bytes.
    """
    if data[pos : pos + len(MAGIC)] != MAGIC or len(data) - pos < PREFIX_SIZE:
        raise LogBlockDecodeError("no block magic")
    length = block_length_of(data[pos : pos + PREFIX_SIZE])
    end = pos + PREFIX_SIZE + length
    if length < 8 or end > len(data) or not trailer_matches(length, data[end - 8 : end]):
        raise LogBlockDecodeError("block length and trailer do not match the bytes")
    return decode_frame_body(data[pos + PREFIX_SIZE : end]), end - pos


def frame_to_block(frame: BlockFrame, position: BlockPosition | None = None) -> LogBlock:
    """Decode a frame's content into a typed block.

    Raises:
        LogBlockDecodeError: Unknown or CORRUPT block type, or content that does not decode.
    """
    try:
        block_type = BlockType(frame.block_type)
    except ValueError:
        raise LogBlockDecodeError(f"unknown block type {frame.block_type}") from None
    header, footer = frame.header, frame.footer
    if block_type is BlockType.CORRUPT:
        raise LogBlockDecodeError("block type CORRUPT is never written by a valid writer")
    _check_instants(header)
    if block_type is BlockType.COMMAND:
        _check_command(frame)
        return CommandBlock(header, footer, position)
    if block_type is BlockType.DELETE:
        # Columnar when the content allows; the reference decoder reads (or rejects) everything else.
        columns = decode_delete_columns(frame.content)
        if columns is not None:
            return DeleteBlock.from_columns(columns, header, footer, position)
        return DeleteBlock(decode_delete_content(frame.content), header, footer, position)
    if block_type is BlockType.HFILE_DATA:
        _check_hfile(frame.content)
        return HFileBlock(frame.content, header, footer, position)
    if block_type in AVRO_BLOCK_TYPES:
        records = decode_avro_records(frame.content, _header_schema(header, encode=False))
        return DataBlock(records, header, footer, block_type, position)
    return DataBlock(_decode_parquet(frame), header, footer, block_type, position)


def _check_instants(header: Mapping[HeaderKey, str]) -> None:
    # Instant times are digit strings (yyyyMMddHHmmss[SSS]); anything else is a damaged header,
    # and a header damaged in its instant would otherwise attach the block to the wrong write.
    for key in (HeaderKey.INSTANT_TIME, HeaderKey.TARGET_INSTANT_TIME):
        value = header.get(key)
        if value is not None and not (value.isascii() and value.isdigit()):
            raise LogBlockDecodeError(f"{key.name} header {value!r} is not an instant time")


def _check_command(frame: BlockFrame) -> None:
    if frame.content:
        raise LogBlockDecodeError(f"command block holds {len(frame.content)} content bytes, expected none")
    raw = frame.header.get(HeaderKey.COMMAND_BLOCK_TYPE)
    try:
        CommandType(int(raw or "", 10))
    except ValueError:
        raise LogBlockDecodeError(f"command block has an unknown COMMAND_BLOCK_TYPE {raw!r}") from None
    if HeaderKey.TARGET_INSTANT_TIME not in frame.header:
        raise LogBlockDecodeError("rollback command block has no TARGET_INSTANT_TIME")


def _check_hfile(content: bytes) -> None:
    # An HFile ends with its trailer's version int: major version (2 or 3) in the low 3 bytes, minor
    # in the high byte (HBase FixedFileTrailer.materializeVersion). A cheap check that the content
    # is an HFile at all, which catches a damaged block type turning a block into an HFILE_DATA one.
    if len(content) < 4 or int.from_bytes(content[-4:], "big") & 0x00FFFFFF not in _HFILE_MAJOR_VERSIONS:
        raise LogBlockDecodeError("HFILE_DATA content does not end with an HFile version 2 or 3 trailer")


def _header_schema(header: Mapping[HeaderKey, str], *, encode: bool) -> AvroSchema:
    text = header.get(HeaderKey.SCHEMA)
    error: type[LogBlockEncodeError | LogBlockDecodeError] = LogBlockEncodeError if encode else LogBlockDecodeError
    if text is None:
        raise error("data block has no SCHEMA header")
    try:
        schema: AvroSchema = json.loads(text)
    except ValueError as e:
        raise error(f"SCHEMA header is not JSON: {e}") from e
    if not isinstance(schema, dict) or schema.get("type") != "record" or not isinstance(schema.get("fields"), list):
        raise error("SCHEMA header is not an Avro record schema")
    return schema


def _decode_parquet(frame: BlockFrame) -> pa.Table:
    content = frame.content
    if len(content) < 12 or content[:4] != _PARQUET_MAGIC or content[-4:] != _PARQUET_MAGIC:
        raise LogBlockDecodeError("parquet data block content is not a parquet file")
    schema = _header_schema(frame.header, encode=False) if HeaderKey.SCHEMA in frame.header else None
    try:
        # ParquetFile, not pq.read_table: the latter goes through pyarrow.dataset, whose first use
        # imports pandas (~0.2 s of a fresh process's first merged read).
        table = pq.ParquetFile(pa.BufferReader(content), page_checksum_verification=True).read()
        if schema is None:
            _ = table.column_names  # names are decoded lazily; damaged ones must fail here
            return table
        # Same Arrow schema as an Avro block of the same table (Spark writes decimals as INT64...).
        return conform_records(table, schema)
    except LogBlockEncodeError as e:
        raise LogBlockDecodeError(f"parquet records do not match the SCHEMA header: {e.reason}") from e
    except Exception as e:  # pyarrow raises ArrowInvalid, OSError, UnicodeDecodeError... on damaged files
        raise LogBlockDecodeError(f"parquet content does not decode: {type(e).__name__}: {e}") from e
