"""File objects behind ``open_input`` and ``open_output``, wrapped by :class:`pyarrow.PythonFile`.

Reading: objects up to ``whole_object_read_max`` are read with one GET into a
:class:`pyarrow.BufferReader`. Larger ones get a :class:`RangedReader`, which issues ranged GETs
pinned to the ETag seen when opening (``If-Match``), so a parquet reader fetches the footer and the
column chunks it needs instead of the whole file, and never mixes bytes of two object versions.

Writing: :class:`UploadOnClose` spools to memory (then a temporary file) and uploads on ``close()``;
S3 only makes an object visible when its PUT or ``CompleteMultipartUpload`` finishes, so readers see
the old object or the whole new one. A stream that is dropped without ``close()`` publishes nothing.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Final, final

if TYPE_CHECKING:
    from typing_extensions import Buffer

#: Spooled output stays in memory up to this size, then moves to a temporary file.
_SPOOL_MAX: Final = 8 * 1024 * 1024


@final
class RangedReader(io.RawIOBase):
    """A seekable, read-only view of one object version that fetches byte ranges on demand.

    Reads smaller than ``block_size`` fetch a whole block and serve later sequential reads from it,
    so record-by-record readers do not issue one request per record.
    """

    def __init__(self, fetch: Callable[[int, int], bytes], size: int, block_size: int) -> None:
        """Create a reader.

        Args:
            fetch: ``fetch(start, end)`` returns bytes ``[start, end)`` of the pinned version.
            size: Object size in bytes.
            block_size: Minimum bytes fetched per request.
        """
        super().__init__()
        self._fetch = fetch
        self._size = size
        self._block = block_size
        self._pos = 0
        self._buf = b""
        self._buf_start = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self._size + offset
        else:
            raise ValueError(f"invalid whence {whence}")
        if pos < 0:
            raise OSError(f"negative seek position {pos}")
        self._pos = pos
        return pos

    def size(self) -> int:
        """Object size in bytes."""
        return self._size

    def read(self, size: int | None = -1) -> bytes:
        remaining = max(0, self._size - self._pos)
        n = remaining if size is None or size < 0 else min(size, remaining)
        if n == 0:
            return b""
        start, end = self._pos, self._pos + n
        buf_end = self._buf_start + len(self._buf)
        if self._buf_start <= start and end <= buf_end:
            data = self._buf[start - self._buf_start : end - self._buf_start]
        elif n >= self._block:
            # Large reads (parquet column chunks) go straight through, unbuffered.
            data = self._fetch(start, end)
        else:
            block_end = min(self._size, start + self._block)
            self._buf = self._fetch(start, block_end)
            self._buf_start = start
            data = self._buf[:n]
        self._pos += len(data)
        return data

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer: Buffer) -> int:
        view = memoryview(buffer).cast("B")
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._buf = b""
        super().close()


@final
class UploadOnClose(io.RawIOBase):
    """A write-only stream that hands its whole content to ``upload`` when closed."""

    def __init__(self, upload: Callable[[IO[bytes], int], None]) -> None:
        """Create a stream.

        Args:
            upload: ``upload(stream, size)`` publishes the object; ``stream`` is positioned at 0.
        """
        super().__init__()
        self._upload = upload
        self._spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=_SPOOL_MAX)  # noqa: SIM115
        self._size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Buffer) -> int:
        if self.closed:
            raise ValueError("write to a closed stream")
        n = self._spool.write(data)
        self._size += n
        return n

    def tell(self) -> int:
        return self._size

    def close(self) -> None:
        """Upload the content, then release the spool (also when the upload fails)."""
        if self.closed:
            return
        try:
            self._spool.seek(0)
            self._upload(self._spool, self._size)
        finally:
            self._spool.close()
            super().close()

    def discard(self) -> None:
        """Drop the content: nothing is uploaded."""
        if not self.closed:
            self._spool.close()
            super().close()

    def __del__(self) -> None:
        # IOBase.__del__ would call close() and publish a stream the caller abandoned.
        self.discard()
