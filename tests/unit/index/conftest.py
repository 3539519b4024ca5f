"""Helpers for index tests: base files written into in-memory storage."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.contracts.index import PARTITION_PATH, RECORD_KEY, IndexedFile
from hudi_framework.contracts.indexing.bloom_filter import BloomFilterConfig
from hudi_framework.contracts.indexing.footer import bloom_footer_metadata
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.testing.memory_storage import MemoryStorageBackend

WriteBaseFile = Callable[..., IndexedFile]


def write_base_file(
    storage: StorageBackend,
    partition: str,
    file_id: str,
    instant: str,
    keys: Sequence[str],
    *,
    footer: bool = True,
    key_column: bool = True,
    config: BloomFilterConfig | None = None,
) -> IndexedFile:
    """Write a parquet base file holding ``keys`` (with Hudi's footer unless ``footer=False``)."""
    columns: dict[str, pa.Array] = {"value": pa.array(range(len(keys)), pa.int64())}
    if key_column:
        columns = {
            RECORD_KEY: pa.array(keys, pa.string()),
            PARTITION_PATH: pa.array([partition] * len(keys), pa.string()),
            **columns,
        }
    table = pa.table(columns)
    if footer:
        table = table.replace_schema_metadata(bloom_footer_metadata(list(keys), config))
    sink = io.BytesIO()
    pq.write_table(table, sink)
    name = f"{file_id}_0-1-1_{instant}.parquet"
    path = f"{partition}/{name}" if partition else name
    storage.write(path, sink.getvalue())
    return IndexedFile(partition, file_id, instant, path)


@pytest.fixture
def storage() -> MemoryStorageBackend:
    return MemoryStorageBackend("memory://index-tests/table")


@pytest.fixture
def base_file(storage: MemoryStorageBackend) -> WriteBaseFile:
    def _write(*args: object, **kwargs: object) -> IndexedFile:
        return write_base_file(storage, *args, **kwargs)  # type: ignore[arg-type]

    return _write
