"""Hudi log files: typed blocks, their binary codec, and a corruption-tolerant reader.

The format is hudi-format.md section 4; ``docs/log-format.md`` describes this package.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

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
