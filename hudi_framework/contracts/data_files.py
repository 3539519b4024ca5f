"""Reading a table's data files so that an error their content causes names the file.

pyarrow reports a damaged Parquet file as ``ArrowInvalid: Parquet magic bytes not found in footer``
or ``OSError: GZipCodec failed`` without saying which file it was reading. Every read of a base file
(queries, index lookups, rewrites, compaction's merged read) runs under :func:`data_file_errors`,
which turns such errors into :class:`~hudi_framework.errors.CorruptDataFileError` naming the file's
location and table path, the reader's error chained. Errors that are not about the content pass
through unchanged: project errors (a file gone, a storage failure), and operating-system errors
carrying an errno (a disk or socket failing).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.errors import BloomFilterFormatError, CorruptDataFileError, HudiError

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend

__all__ = ["checked_batches", "data_file_errors", "is_content_error", "open_parquet"]


def is_content_error(error: BaseException) -> bool:
    """Whether ``error``, raised while decoding a data file, says the file's bytes are bad."""
    if isinstance(error, BloomFilterFormatError):
        return True  # the footer's bloom filter
    if isinstance(error, (HudiError, MemoryError)):
        return False
    if isinstance(error, (pa.ArrowException, UnicodeDecodeError)):
        return True
    # Arrow's codec, thrift and read-past-the-end failures are plain OSErrors without an errno; a
    # failing device raises one with an errno, or a subclass (ConnectionError, TimeoutError...).
    return type(error) is OSError and error.errno is None


@contextmanager
def data_file_errors(storage: StorageBackend, key: str) -> Iterator[None]:
    """Raise content errors of the block as :class:`CorruptDataFileError` naming ``key``.

    Raises:
        CorruptDataFileError: The block raised a content error (:func:`is_content_error`).
    """
    try:
        yield
    except Exception as e:
        if not is_content_error(e):
            raise
        raise CorruptDataFileError(storage.uri(key), key, f"{type(e).__name__}: {e}") from e


@contextmanager
def open_parquet(storage: StorageBackend, key: str, **options: Any) -> Iterator[pq.ParquetFile]:
    """Open the Parquet data file ``key`` (its footer read); content errors of the block name it.

    Args:
        storage: The table's storage.
        key: The file's path in the table.
        options: ``pq.ParquetFile`` keyword arguments (``metadata``, ``read_dictionary``...).

    Raises:
        CorruptDataFileError: The file, or what the block reads of it, does not decode.
        StorageNotFoundError: The file is gone.
    """
    with storage.open_input(key) as source, data_file_errors(storage, key):
        yield pq.ParquetFile(source, **options)


def checked_batches(batches: Iterator[pa.RecordBatch], storage: StorageBackend, key: str) -> Iterator[pa.RecordBatch]:
    """``batches`` (decoded from ``key`` as they are asked for), content errors naming the file.

    Only the decoding runs under :func:`data_file_errors`; what the consumer does with a batch does not.
    """
    while True:
        with data_file_errors(storage, key):
            batch = next(batches, None)
        if batch is None:
            return
        yield batch
