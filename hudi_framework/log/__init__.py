"""Hudi log files: typed blocks, their binary codec, and a corruption-tolerant reader.

The format is hudi-format.md section 4; ``docs/log-format.md`` describes this package.

Internal package: not a stable API; import from the public modules (docs/api.md).

The names are imported on first use (PEP 562): readers of log files (the metadata table's, in
Spark's planner processes) do not import the writing side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from hudi_framework.contracts.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from hudi_framework.log.avro_records import AVRO_CONTENT_VERSION, decode_avro_records, encode_avro_records
    from hudi_framework.log.blocks import (
        Block,
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
    from hudi_framework.log.codec import decode_block, encode_block
    from hudi_framework.log.delete_records import (
        COMMIT_TIME_ORDERING,
        DELETE_CONTENT_VERSION,
        DeleteRecord,
        OrderingType,
        OrderingValue,
        decode_delete_content,
        encode_delete_content,
    )
    from hudi_framework.log.framing import LOG_FORMAT_VERSION, MAGIC
    from hudi_framework.log.reader import iter_log_blocks, read_log_bytes, read_log_file
    from hudi_framework.log.writer import (
        WrittenLogFile,
        append_log_file,
        create_next_log_file,
        encode_blocks,
        log_file_key,
    )

__all__ = [
    "AVRO_CONTENT_VERSION",
    "COMMIT_TIME_ORDERING",
    "DELETE_CONTENT_VERSION",
    "LOG_FORMAT_VERSION",
    "MAGIC",
    "Block",
    "BlockPosition",
    "BlockType",
    "CommandBlock",
    "CommandType",
    "CorruptBlock",
    "DataBlock",
    "DeleteBlock",
    "DeleteRecord",
    "HFileBlock",
    "HeaderKey",
    "LogBlock",
    "OrderingType",
    "OrderingValue",
    "WrittenLogFile",
    "append_log_file",
    "create_next_log_file",
    "decode_avro_records",
    "decode_block",
    "decode_delete_content",
    "encode_avro_records",
    "encode_block",
    "encode_blocks",
    "encode_delete_content",
    "iter_log_blocks",
    "log_file_key",
    "read_log_bytes",
    "read_log_file",
]

#: Public name -> the module it is imported from on first access (tests/unit/test_public_api.py
#: checks that they agree with the imports above).
_EXPORTS: Final[Mapping[str, str]] = {
    "AVRO_CONTENT_VERSION": "hudi_framework.log.avro_records",
    "Block": "hudi_framework.log.blocks",
    "BlockPosition": "hudi_framework.log.blocks",
    "BlockType": "hudi_framework.log.blocks",
    "COMMIT_TIME_ORDERING": "hudi_framework.log.delete_records",
    "CommandBlock": "hudi_framework.log.blocks",
    "CommandType": "hudi_framework.log.blocks",
    "CorruptBlock": "hudi_framework.log.blocks",
    "DELETE_CONTENT_VERSION": "hudi_framework.log.delete_records",
    "DataBlock": "hudi_framework.log.blocks",
    "DeleteBlock": "hudi_framework.log.blocks",
    "DeleteRecord": "hudi_framework.log.delete_records",
    "HFileBlock": "hudi_framework.log.blocks",
    "HeaderKey": "hudi_framework.log.blocks",
    "LOG_FORMAT_VERSION": "hudi_framework.log.framing",
    "LogBlock": "hudi_framework.log.blocks",
    "MAGIC": "hudi_framework.log.framing",
    "OrderingType": "hudi_framework.log.delete_records",
    "OrderingValue": "hudi_framework.log.delete_records",
    "WrittenLogFile": "hudi_framework.log.writer",
    "append_log_file": "hudi_framework.log.writer",
    "create_next_log_file": "hudi_framework.log.writer",
    "decode_avro_records": "hudi_framework.log.avro_records",
    "decode_block": "hudi_framework.log.codec",
    "decode_delete_content": "hudi_framework.log.delete_records",
    "encode_avro_records": "hudi_framework.log.avro_records",
    "encode_block": "hudi_framework.log.codec",
    "encode_blocks": "hudi_framework.log.writer",
    "encode_delete_content": "hudi_framework.log.delete_records",
    "iter_log_blocks": "hudi_framework.log.reader",
    "log_file_key": "hudi_framework.log.writer",
    "read_log_bytes": "hudi_framework.log.reader",
    "read_log_file": "hudi_framework.log.reader",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
