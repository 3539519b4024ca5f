"""Content errors of data files are told apart from failures of the storage or the device."""

from __future__ import annotations

import errno
from collections.abc import Iterator

import pyarrow as pa
import pytest

from hudi_framework.contracts.data_files import checked_batches, data_file_errors, is_content_error
from hudi_framework.errors import BloomFilterFormatError, CorruptDataFileError, StorageNotFoundError
from hudi_framework.testing import MemoryStorageBackend


@pytest.mark.parametrize(
    ("error", "content"),
    [
        (pa.ArrowInvalid("Parquet magic bytes not found in footer"), True),
        (OSError("GZipCodec failed: incorrect header check"), True),
        (BloomFilterFormatError("bloom filter is not valid base64"), True),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), True),
        (StorageNotFoundError("t/f.parquet"), False),
        (FileNotFoundError(errno.ENOENT, "gone"), False),
        (OSError(errno.EIO, "Input/output error"), False),
        (ConnectionResetError("reset by peer"), False),
        (pa.ArrowMemoryError("out of memory"), False),
        (KeyError("x"), False),
    ],
)
def test_content_errors(error: BaseException, content: bool) -> None:
    assert is_content_error(error) is content


def test_a_content_error_names_the_file_and_chains_the_cause() -> None:
    storage = MemoryStorageBackend()
    cause = pa.ArrowInvalid("Parquet magic bytes not found in footer")
    with pytest.raises(CorruptDataFileError) as info, data_file_errors(storage, "sf/f.parquet"):
        raise cause
    assert info.value.key == "sf/f.parquet"
    assert info.value.path == storage.uri("sf/f.parquet")
    assert info.value.__cause__ is cause
    assert "ArrowInvalid: Parquet magic bytes" in str(info.value)


def test_other_errors_pass_unchanged() -> None:
    storage = MemoryStorageBackend()
    with pytest.raises(StorageNotFoundError), data_file_errors(storage, "f.parquet"):
        raise StorageNotFoundError("f.parquet")


def test_batches_decoded_later_name_the_file() -> None:
    def batches() -> Iterator[pa.RecordBatch]:
        yield pa.record_batch({"a": [1]})
        raise OSError("Couldn't deserialize thrift")

    checked = checked_batches(batches(), MemoryStorageBackend(), "f.parquet")
    assert next(checked).num_rows == 1
    with pytest.raises(CorruptDataFileError, match=r"f\.parquet"):
        next(checked)
