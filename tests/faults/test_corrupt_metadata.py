"""Damaged timeline and table config, on local disk and on S3: a typed error naming the file, or
recovery (Java semantics for an empty completed instant, ``hoodie.properties.backup`` for the
table config); never a silently empty or changed table.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.errors import InstantMetadataError, TableConfigCorruptError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.properties import parse_properties
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import State
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place, Rows, expected, hudi_rs, ours, snapshot

BEFORE: Rows = [("a", "sf", 2), ("b", "ny", 1), ("c", "sf", 2)]
PROPS = ".hoodie/hoodie.properties"
BACKUP = ".hoodie/hoodie.properties.backup"


def _batch(rows: Rows) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows], "ts": [r[2] for r in rows]})


def _table(place: Place, version: int = 8, table_type: str = "COPY_ON_WRITE") -> WriteClient:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(place.uri, config, storage_options=place.options))
    client.insert(_batch([("a", "sf", 1), ("b", "ny", 1)]))
    client.upsert(_batch([("a", "sf", 2), ("c", "sf", 2)]))
    assert snapshot(place.uri, place.endpoint) == expected(BEFORE)
    return client


def _latest_completed_key(client: WriteClient) -> str:
    timeline = client.table.reload().timeline
    return timeline.file_key(timeline.commits_timeline()[-1], State.COMPLETED)


def _hudi_rs_fails(place: Place) -> None:
    with pytest.raises(Exception):  # noqa: B017 - hudi-rs raises its own HudiCoreError
        hudi_rs(place.uri, place.endpoint)


@pytest.mark.parametrize(
    ("damage", "table_type", "version"), [("garbage", "COPY_ON_WRITE", 8), ("truncated", "MERGE_ON_READ", 6)]
)
def test_corrupt_completed_instant_names_the_file(place: Place, damage: str, table_type: str, version: int) -> None:
    client = _table(place, version, table_type)
    key = _latest_completed_key(client)
    storage = client.table.storage
    good = storage.read(key)
    storage.write(key, b"\x00not{metadata" if damage == "garbage" else good[: len(good) // 2])
    location = storage.uri(key)
    with pytest.raises(InstantMetadataError) as read_error:
        ours(place.uri, place.options)
    assert read_error.value.path == location
    assert location in str(read_error.value)
    _hudi_rs_fails(place)
    commits = len(client.table.reload().timeline.commits_timeline())
    with pytest.raises(InstantMetadataError, match=key.rsplit("/", 1)[-1]):
        WriteClient(place.open()).upsert(_batch([("d", "sf", 3)]))
    timeline = client.table.reload().timeline
    assert len(timeline.commits_timeline()) == commits, "the writer changed nothing"
    assert not timeline.pending()
    storage.write(key, good)  # repaired by hand: the table is as before
    assert snapshot(place.uri, place.endpoint) == expected(BEFORE)


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6)])
def test_empty_completed_instant_keeps_the_data(place: Place, table_type: str, version: int) -> None:
    """A zero-length completed file is an empty commit in Apache Hudi (CommitMetadataSerDeV1/V2); the
    data files of that write stay visible. hudi-rs rejects the file; the next commit (with metadata)
    makes it readable there again, with the same rows."""
    client = _table(place, version, table_type)
    client.table.storage.write(_latest_completed_key(client), b"")
    assert ours(place.uri, place.options) == sorted(BEFORE), "not an empty (or changed) table"
    _hudi_rs_fails(place)
    WriteClient(place.open()).upsert(_batch([("d", "sf", 3)]))
    assert snapshot(place.uri, place.endpoint) == expected([*BEFORE, ("d", "sf", 3)])


def test_corrupt_properties_without_backup_names_the_file(place: Place) -> None:
    """Garbage, empty, wrong checksum, truncated to its comments: reader and writer both refuse."""
    client = _table(place)
    storage = client.table.storage
    good = storage.read(PROPS)
    for damaged in (
        b"\xff\xfe\x00 not a properties file",
        b"",
        good.replace(b"hoodie.table.checksum=", b"hoodie.table.checksum=9"),
        b"\n".join(line for line in good.splitlines() if line.startswith(b"#")),
    ):
        storage.write(PROPS, damaged)
        for action in (lambda: ours(place.uri, place.options), lambda: WriteClient(place.open())):
            with pytest.raises(TableConfigCorruptError) as error:
                action()
            assert error.value.path == storage.uri(PROPS)
            assert "hoodie.properties:" in error.value.reason
            assert "hoodie.properties.backup:" in error.value.reason
    storage.write(PROPS, good)
    assert snapshot(place.uri, place.endpoint) == expected(BEFORE)


@pytest.mark.parametrize("damage", ["missing", "garbage"])
def test_properties_recovered_from_the_backup(place: Place, damage: str) -> None:
    """The update protocol writes the backup, deletes the main file, writes it anew: a crash in
    between leaves it missing or partial. Readers use the backup; the next writer restores the main
    file from it, after which hudi-rs (which knows no backup) reads the same table."""
    client = _table(place)
    storage = client.table.storage
    good = storage.read(PROPS)
    storage.write(BACKUP, good)
    if damage == "missing":
        storage.delete(PROPS)
    else:
        storage.write(PROPS, b"\xff\xfe\x00 garbage")
    assert ours(place.uri, place.options) == sorted(BEFORE)
    _hudi_rs_fails(place)
    WriteClient(place.open()).upsert(_batch([("d", "sf", 3)]))
    assert parse_properties(storage.read(PROPS)) == parse_properties(good), "main file restored from the backup"
    assert not storage.exists(BACKUP)
    assert snapshot(place.uri, place.endpoint) == expected([*BEFORE, ("d", "sf", 3)])


def test_damaged_properties_and_backup(place: Place) -> None:
    client = _table(place)
    storage = client.table.storage
    storage.write(BACKUP, b"hoodie.table.name=\n")
    storage.write(PROPS, b"\xff garbage")
    with pytest.raises(TableConfigCorruptError, match=r"hoodie\.properties\.backup: missing hoodie\.table\.name"):
        ours(place.uri, place.options)
