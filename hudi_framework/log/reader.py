"""Read a log file block by block, reporting damaged bytes instead of failing on them.

The reader streams through :meth:`StorageBackend.open_input`: it reads a block's 14-byte prefix,
checks its trailer with one small read, and only then reads the block itself, so memory holds one
block at a time however large the file is.

A block is accepted when its magic, length and trailer agree (Java's ``isBlockCorrupted``) *and*
its header and content decode exactly. Otherwise the reader yields a :class:`CorruptBlock` for
the damaged range and resynchronises on the next ``#HUDI#`` magic that starts an intact frame, as
Java's ``HoodieLogFileReader.createCorruptBlock`` does. Two differences from Java, both so that no
intact row is lost:

* Java also marks a block corrupt when the bytes after it are not a magic; here the next block is
  judged on its own, so damage in one block never discards its predecessor.
* Adjacent damaged ranges (a false magic inside damaged bytes) are reported as one corrupt block.

The log format has no checksum: damage that leaves every length consistent and every value
decodable (a flipped bit inside a string or a number) cannot be detected by any reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

import pyarrow as pa

from hudi_framework.errors import LogBlockDecodeError
from hudi_framework.log.blocks import Block, BlockPosition, CorruptBlock
from hudi_framework.log.codec import frame_to_block
from hudi_framework.log.framing import (
    MAGIC,
    MIN_BLOCK_LENGTH,
    PREFIX_SIZE,
    block_length_of,
    decode_frame_body,
    header_instant_best_effort,
    trailer_matches,
)

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend

#: Bytes read per step while scanning damaged bytes for the next magic.
SCAN_CHUNK: Final = 1 << 20
#: Small reads are served from a window of this many bytes, so a file of small blocks costs one
#: read per window rather than three per block (each read may be a ranged GET on object stores).
READ_AHEAD: Final = 64 << 10
#: Most bytes of a damaged block read to recover its INSTANT_TIME (the SCHEMA header may be large).
_HEADER_PROBE: Final = 4 << 20


def read_log_file(storage: StorageBackend, key: str, *, strict: bool = False) -> Iterator[Block]:
    """Yield the blocks of the log file ``key`` in file order.

    Args:
        storage: The table's storage.
        key: The log file's key.
        strict: Raise at the first damaged block instead of yielding a :class:`CorruptBlock`.

    Yields:
        Decoded blocks, and a :class:`CorruptBlock` per damaged byte range.

    Raises:
        StorageNotFoundError: The file does not exist.
        CorruptLogBlockError: With ``strict``, at the first damaged block.
    """
    with storage.open_input(key) as source:
        yield from iter_log_blocks(source, path=key, strict=strict)


def read_log_bytes(data: bytes, *, path: str = "<memory>", strict: bool = False) -> Iterator[Block]:
    """Like :func:`read_log_file` for a log file already in memory."""
    yield from iter_log_blocks(pa.BufferReader(data), path=path, strict=strict)


def iter_log_blocks(source: pa.NativeFile, *, path: str, strict: bool = False) -> Iterator[Block]:
    """Yield the blocks of an open, seekable log file (see :func:`read_log_file`)."""
    for block in _Scanner(source, path).blocks():
        if strict and isinstance(block, CorruptBlock):
            raise block.error()
        yield block


class _Scanner:
    """Walks one file: frames, damage ranges and resynchronisation."""

    def __init__(self, source: pa.NativeFile, path: str) -> None:
        self._source = source
        self._path = path
        self._size = int(source.size())
        self._window = b""
        self._window_start = 0

    def blocks(self) -> Iterator[Block]:
        pos = 0
        while pos < self._size:
            length, problem = self._frame_at(pos)
            if problem is not None:
                end = self._next_frame(pos + 1)
                yield self._corrupt(pos, end, problem, intact_frame=False)
                pos = end
                continue
            size = PREFIX_SIZE + length
            body = self._read(pos + PREFIX_SIZE, length)
            block: Block
            try:
                block = frame_to_block(decode_frame_body(body), BlockPosition(self._path, pos, size))
            except LogBlockDecodeError as e:
                # The frame's extent is sound, so the next block starts right after it; scanning
                # inside it could only find a false magic in its content.
                block = self._corrupt(pos, pos + size, e.reason, intact_frame=True)
            except Exception as e:  # damage no decoder check anticipated must still not stop the read
                reason = f"content does not decode: {type(e).__name__}: {e}"
                block = self._corrupt(pos, pos + size, reason, intact_frame=True)
            yield block
            pos += size

    def _frame_at(self, pos: int) -> tuple[int, str | None]:
        """(blockLength, None) if an intact frame starts at ``pos``, else (0, what is wrong)."""
        prefix = self._read(pos, PREFIX_SIZE)
        if len(prefix) < len(MAGIC):
            return 0, "truncated block magic" if MAGIC.startswith(prefix) else "no block magic"
        if prefix[: len(MAGIC)] != MAGIC:
            return 0, "no block magic"
        if len(prefix) < PREFIX_SIZE:
            return 0, "truncated: the file ends inside the block length"
        length = block_length_of(prefix)
        if length < MIN_BLOCK_LENGTH:
            return 0, f"implausible block length {length}"
        if pos + PREFIX_SIZE + length > self._size:
            return 0, f"truncated: block length {length} runs past the end of the file"
        if not trailer_matches(length, self._read(pos + PREFIX_SIZE + length - 8, 8)):
            return 0, f"block length {length} does not match the trailer"
        return length, None

    def _next_frame(self, start: int) -> int:
        """Offset of the next intact frame at or after ``start``, or the file size."""
        for candidate in self._magics(start):
            if self._frame_at(candidate)[1] is None:
                return candidate
        return self._size

    def _magics(self, start: int) -> Iterator[int]:
        """Offsets of every magic at or after ``start``, reading one chunk at a time."""
        pos = start
        while pos < self._size:
            chunk = self._read(pos, SCAN_CHUNK)
            found = chunk.find(MAGIC)
            while found != -1:
                yield pos + found
                found = chunk.find(MAGIC, found + 1)
            if len(chunk) < SCAN_CHUNK:
                return
            # Overlap by len(MAGIC) - 1 so a magic split across chunks is still found.
            pos += len(chunk) - (len(MAGIC) - 1)

    def _corrupt(self, start: int, end: int, reason: str, *, intact_frame: bool) -> CorruptBlock:
        probe = self._read(start, min(end - start, _HEADER_PROBE))
        instant = header_instant_best_effort(probe) if probe[: len(MAGIC)] == MAGIC else None
        return CorruptBlock(self._path, start, end - start, reason, instant, intact_frame)

    def _read(self, pos: int, size: int) -> bytes:
        """Bytes ``[pos, pos + size)``, fewer at the end of the file."""
        limit = self._window_start + len(self._window)
        if self._window_start <= pos and (pos + size <= limit or limit == self._size):
            start = pos - self._window_start
            return self._window[start : start + size]
        if size >= READ_AHEAD:
            return self._read_direct(pos, size)
        self._window = self._read_direct(pos, READ_AHEAD)
        self._window_start = pos
        return self._window[:size]

    def _read_direct(self, pos: int, size: int) -> bytes:
        self._source.seek(pos)
        return bytes(self._source.read(size))
