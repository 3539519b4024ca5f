from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import fastavro
import pytest

from hudi_framework.errors import InstantMetadataError
from hudi_framework.timeline.avro_container import (
    AVRO_NAMESPACE,
    AvroSchemaName,
    encode_datum,
    read_container,
    schema_text,
    write_container,
)
from tests.fixture_tables import FixtureTable, all_fixture_tables


@pytest.mark.parametrize("name", list(AvroSchemaName))
def test_every_schema_loads_with_the_java_namespace(name: AvroSchemaName) -> None:
    text = schema_text(name)
    schema = json.loads(text)
    assert schema["name"] == name.value
    assert schema["namespace"] == AVRO_NAMESPACE
    fastavro.parse_schema(schema, named_schemas={})
    # Java's Schema.toString() is compact: no whitespace between tokens.
    assert text == json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def test_container_layout_matches_java() -> None:
    record = {"operationType": None, "clusteringPlan": None, "extraMetadata": None, "version": None}
    sync = bytes(range(16))
    data = write_container(AvroSchemaName.REQUESTED_REPLACE_METADATA, record, sync_marker=sync)
    assert data.startswith(b"Obj\x01")
    assert data.endswith(sync)
    reader = fastavro.reader(io.BytesIO(data))
    assert set(reader.metadata) == {"avro.schema"}  # no avro.codec key, like Java
    assert list(reader) == [record]
    back = read_container(data)
    assert back.record == record
    assert back.datum == encode_datum(AvroSchemaName.REQUESTED_REPLACE_METADATA, record) == b"\x00\x00\x00\x02"
    assert back.short_name == "HoodieRequestedReplaceMetadata"


def test_sync_marker_must_be_16_bytes() -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        write_container(AvroSchemaName.RESTORE_PLAN, {"instantsToRollback": []}, sync_marker=b"x")


def test_corrupt_containers_raise() -> None:
    good = write_container(AvroSchemaName.RESTORE_PLAN, {"instantsToRollback": [], "version": 1})
    with pytest.raises(InstantMetadataError, match="not an Avro"):
        read_container(b"{}")
    with pytest.raises(InstantMetadataError, match="corrupt"):
        read_container(good[:-20])
    with pytest.raises(InstantMetadataError, match="corrupt"):
        read_container(good[:-1] + b"\xff")  # sync marker mismatch
    block_start = good.index(good[-16:]) + 16  # the header ends with the sync marker
    with pytest.raises(InstantMetadataError, match="one record"):
        read_container(good + good[block_start:])  # two blocks, two records


def test_deflate_codec_is_read() -> None:
    buf = io.BytesIO()
    schema = json.loads(schema_text(AvroSchemaName.RESTORE_PLAN))
    fastavro.writer(buf, schema, [{"instantsToRollback": [], "version": 1}], codec="deflate")
    assert read_container(buf.getvalue()).record == {"instantsToRollback": [], "version": 1}


@pytest.mark.parametrize(
    "table",
    [
        t
        for t in all_fixture_tables()
        if t.name.startswith(("v6_non", "v9_txns_simple_meta", "v9_nonpartitioned_rollback"))
    ],
    ids=lambda t: t.id,
)
def test_fixture_plans_reencode_byte_identical(
    table: FixtureTable, extract_fixture: Callable[[FixtureTable], tuple[Path, Path | None]]
) -> None:
    base, _ = extract_fixture(table)
    names = {n.value for n in AvroSchemaName}
    for directory in (base / ".hoodie", base / ".hoodie" / "timeline"):
        if not directory.is_dir():
            continue
        for path in directory.iterdir():
            data = path.read_bytes() if path.is_file() and path.name[:1].isdigit() else b""
            if not data.startswith(b"Obj\x01"):
                continue
            java = read_container(data, path=str(path))
            name = AvroSchemaName(java.short_name) if java.short_name in names else None
            assert name is not None, path
            if java.writer_schema == schema_text(name):
                assert write_container(name, java.record, sync_marker=data[-16:]) == data, path
            else:  # an older writer schema (v6's HoodieRequestedReplaceMetadata): the record still encodes
                assert read_container(write_container(name, java.record)).record.keys() >= java.record.keys()
