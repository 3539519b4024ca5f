"""Metadata-table log files with HFILE_DATA blocks, on local disk and on S3.

A log file holding HFILE_DATA blocks is written through the storage backend as the metadata-table
writer will write it (one new file per delta commit) and read back record for record; records that
cannot become an HFile are refused with a typed error before anything reaches storage.
"""

from __future__ import annotations

import pytest

from hudi_framework.errors import HFileWriteError
from hudi_framework.log import HeaderKey, HFileBlock, create_next_log_file, read_log_bytes
from hudi_framework.plugin.registry import ComponentRegistry
from hudi_framework.storage.resolve import open_storage
from tests.faults.s3_faults import Place

SCHEMA = {
    "type": "record",
    "name": "HoodieMetadataRecord",
    "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "key", "type": "string"},
        {"name": "type", "type": "int"},
        {"name": "sizes", "type": ["null", {"type": "map", "values": "long"}], "default": None},
    ],
}
INSTANTS = ("20260101000000000", "20260101000000001")


def _records(instant: str, count: int) -> list[dict[str, object]]:
    return [
        {"key": f"region={i:03d}", "type": 2, "sizes": {f"{instant}-{j}.parquet": 1000 + j for j in range(i % 4)}}
        for i in range(count, 0, -1)
    ]


def test_hfile_data_log_files_round_trip(place: Place, registry: ComponentRegistry) -> None:
    storage = open_storage(registry, place.uri, options=place.options)
    written = []
    for n, instant in enumerate(INSTANTS):
        blocks = [HFileBlock.create(_records(instant, 50 + n), instant_time=instant, schema=SCHEMA)]
        written.append(
            create_next_log_file(
                storage,
                partition_path="files",
                file_id="files-0000-0",
                instant_time=instant,
                write_token="0-1-0",
                blocks=blocks,
                existing=(),
            )
        )
    assert [w.name.instant_time for w in written] == list(INSTANTS)
    for log, instant, count in zip(written, INSTANTS, (50, 51), strict=True):
        (block,) = read_log_bytes(storage.read(log.key))
        assert isinstance(block, HFileBlock)
        assert block.header[HeaderKey.INSTANT_TIME] == instant
        table = block.records
        expected = sorted(_records(instant, count), key=lambda r: str(r["key"]))
        assert table.column("key").to_pylist() == [r["key"] for r in expected]
        sizes = [sorted(m) if m is not None else None for m in table.column("sizes").to_pylist()]
        assert sizes == [sorted(dict(r["sizes"]).items()) for r in expected]  # type: ignore[call-overload]


def test_records_that_cannot_be_an_hfile_write_nothing(place: Place, registry: ComponentRegistry) -> None:
    storage = open_storage(registry, place.uri, options=place.options)
    duplicated: list[dict[str, object]] = [*_records(INSTANTS[0], 3), {"key": "region=002", "type": 2, "sizes": None}]
    with pytest.raises(HFileWriteError, match="two records with key 'region=002'"):
        create_next_log_file(
            storage,
            partition_path="files",
            file_id="files-0000-0",
            instant_time=INSTANTS[0],
            write_token="0-1-0",
            blocks=[HFileBlock.create(duplicated, instant_time=INSTANTS[0], schema=SCHEMA)],
            existing=(),
        )
    assert storage.list("", recursive=True) == []
