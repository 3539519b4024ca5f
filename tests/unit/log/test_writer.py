"""Creating log files: never over an existing file; v6-style appends become the next version."""

from __future__ import annotations

import builtins
import io

import pyarrow as pa
import pytest

from hudi_framework.contracts.storage import FileInfo
from hudi_framework.errors import LogBlockEncodeError, PreconditionFailedError
from hudi_framework.layout.naming import LogFileName
from hudi_framework.log import (
    CommandBlock,
    DeleteBlock,
    LogBlock,
    append_log_file,
    create_next_log_file,
    encode_blocks,
    log_file_key,
    read_log_file,
)
from hudi_framework.log import reader as reader_module
from hudi_framework.testing.memory_storage import MemoryStorageBackend

INSTANT = "20250101000000000"
BLOCKS: list[LogBlock] = [
    DeleteBlock.create(["k"], ["p"], instant_time=INSTANT),
    CommandBlock.rollback(instant_time="20250101000000009", target_instant_time=INSTANT),
]


def test_append_log_file_creates_a_new_file_only() -> None:
    storage = MemoryStorageBackend()
    key = "p/.f-0_20250101000000000.log.1_0-0-0"
    written = append_log_file(storage, key, BLOCKS)
    data, offsets = encode_blocks(BLOCKS)
    assert storage.read(key) == data
    assert (written.size, written.block_offsets) == (len(data), offsets)
    assert written.name.version == 1
    with pytest.raises(PreconditionFailedError):
        append_log_file(storage, key, BLOCKS)
    with pytest.raises(LogBlockEncodeError, match="at least one block"):
        append_log_file(storage, "p/.f-0_20250101000000000.log.2_0-0-0", [])


def test_next_versions_per_file_id_and_instant() -> None:
    storage = MemoryStorageBackend()

    def write(file_id: str, instant: str, partition: str = "p") -> str:
        return create_next_log_file(
            storage, partition_path=partition, file_id=file_id, instant_time=instant, write_token="1-2-3", blocks=BLOCKS
        ).key

    assert write("f-0", INSTANT) == "p/.f-0_20250101000000000.log.1_1-2-3"
    assert write("f-0", INSTANT) == "p/.f-0_20250101000000000.log.2_1-2-3"
    assert write("f-0", "20250101000000001") == "p/.f-0_20250101000000001.log.1_1-2-3"
    assert write("g-0", INSTANT) == "p/.g-0_20250101000000000.log.1_1-2-3"
    assert write("f-0", INSTANT, "") == ".f-0_20250101000000000.log.1_1-2-3"
    assert list(read_log_file(storage, "p/.f-0_20250101000000000.log.2_1-2-3")) == BLOCKS


class _StaleListing(MemoryStorageBackend):
    """A backend whose listing misses files, as if another writer had just created them."""

    def list(self, prefix: str = "", *, recursive: bool = False) -> builtins.list[FileInfo]:
        return []


def test_a_version_taken_by_a_racing_writer_is_skipped() -> None:
    storage = _StaleListing()
    first, second = (
        create_next_log_file(
            storage, partition_path="p", file_id="f-0", instant_time=INSTANT, write_token="0-0-0", blocks=BLOCKS
        )
        for _ in range(2)
    )
    assert (first.name.version, second.name.version) == (1, 2)


def test_log_file_key() -> None:
    name = LogFileName("f-0", INSTANT, 3, "0-1-2")
    assert log_file_key("a/b", name) == "a/b/.f-0_20250101000000000.log.3_0-1-2"
    assert log_file_key("", name) == name.name


class _CountingFile(io.RawIOBase):
    """A seekable stream that records the largest single read."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)
        self.largest = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._data.seek(offset, whence)

    def tell(self) -> int:
        return self._data.tell()

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        self.largest = max(self.largest, len(buffer))
        return self._data.readinto(buffer)


def test_reader_reads_one_block_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader_module, "READ_AHEAD", 256)
    blocks = [DeleteBlock.create([f"k{i}" * 50 for i in range(40)], ["p"] * 40, instant_time=INSTANT)] * 5
    data, offsets = encode_blocks(blocks)
    source = _CountingFile(data)
    out = list(reader_module.iter_log_blocks(pa.PythonFile(source, mode="r"), path="f"))
    assert out == blocks
    assert source.largest == offsets[1] - 14  # one block body (after magic and length), never the file
