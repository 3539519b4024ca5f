"""Log file format errors (data, delete, command and HFile blocks)."""

from __future__ import annotations

from hudi_framework.errors.base import HudiError

__all__ = [
    "CorruptLogBlockError",
    "HFileFormatError",
    "HFileWriteError",
    "LogBlockDecodeError",
    "LogBlockEncodeError",
    "LogFormatError",
    "RecordPositionsError",
    "UnsupportedLogBlockError",
]


class LogFormatError(HudiError):
    """A log file cannot be decoded."""


class CorruptLogBlockError(LogFormatError):
    """A log block is damaged."""

    def __init__(self, path: str, offset: int, reason: str) -> None:
        self.path = path
        self.offset = offset
        super().__init__(f"corrupt log block in {path!r} at offset {offset}: {reason}")


class LogBlockDecodeError(LogFormatError, ValueError):
    """The bytes of one log block (or of its content) do not decode.

    Log readers report such a block as a corrupt block instead of raising; the error reaches
    callers only from the content decoders used directly.

    Attributes:
        reason: What does not decode.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class HFileFormatError(LogBlockDecodeError):
    """An HFile (metadata-table base file or HFILE_DATA block content) is damaged or not an HFile.

    Attributes:
        reason: What does not decode (the trailer magic, a block past the end, a cut-off cell...).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"HFile does not decode: {reason}")
        self.reason = reason


class UnsupportedLogBlockError(LogFormatError, NotImplementedError):
    """A log block is intact but its content cannot be decoded by this project (HFile records...).

    Attributes:
        block_type: The block type name (``HFILE_DATA``...).
        reason: Why it cannot be decoded, and when it will be.
    """

    def __init__(self, block_type: str, reason: str) -> None:
        self.block_type = block_type
        self.reason = reason
        super().__init__(f"cannot decode {block_type} log block: {reason}")


class LogBlockEncodeError(LogFormatError, ValueError):
    """A log block cannot be encoded (records that do not fit its schema, a block type never written).

    Attributes:
        reason: What is wrong.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"cannot encode log block: {reason}")


class HFileWriteError(LogBlockEncodeError):
    """Cells cannot be written as an HFile: keys out of order, a key too long, an unsupported codec.

    Attributes:
        reason: What is wrong, naming the offending key or setting.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"HFile: {reason}")
        self.reason = reason


class RecordPositionsError(LogFormatError, ValueError):
    """A RECORD_POSITIONS header does not decode, or positions cannot be encoded (a negative one).

    Attributes:
        reason: What is wrong.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)
