"""hoodie.properties: Java-compatible parsing, plain writing, checksum, backup protocol, recovery."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hudi_framework.errors import TableConfigCorruptError, TableNotFoundError
from hudi_framework.table.properties import (
    BACKUP_KEY,
    PROPERTIES_KEY,
    create_properties,
    load_properties,
    parse_properties,
    render_properties,
    table_checksum,
    update_properties,
)
from hudi_storage_local import LocalStorageBackend

BASE = {"hoodie.table.name": "trips", "hoodie.database.name": "default", "hoodie.table.type": "COPY_ON_WRITE",
        "hoodie.table.version": "9"}  # fmt: skip


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorageBackend:
    return LocalStorageBackend(str(tmp_path))


def test_checksum_is_crc32_of_database_dot_table() -> None:
    assert table_checksum("default", "trips") == zlib.crc32(b"default.trips")
    assert table_checksum(None, "trips") == zlib.crc32(b".trips")
    # A value Apache Hudi wrote (fixture v9_txns_mor_simple_meta).
    assert table_checksum("default", "v9_txns_mor_simple_meta") == 1101448031


def test_parses_java_escapes_comments_and_continuations() -> None:
    text = (
        b"#Updated at 2026-03-07T22:26:23Z\n"
        b"! another comment\n"
        b'hoodie.table.create.schema={"type"\\:"record","name"\\:"x"}\n'
        b"a.key = spaced value\n"
        b"multi=one\\\n    two\n"
        b"unicode=caf\\u00e9\n"
        b"colon:value\n"
    )
    props = parse_properties(text)
    assert props["hoodie.table.create.schema"] == '{"type":"record","name":"x"}'
    assert props["a.key"] == "spaced value"
    assert props["multi"] == "onetwo"
    assert props["unicode"] == "café"
    assert props["colon"] == "value"


def test_renders_plain_lines_hudi_rs_can_split() -> None:
    props = {
        **BASE,
        "hoodie.table.create.schema": '{"type":"record","name":"x"}',
        "hoodie.table.checksum": "1",
    }
    lines = render_properties(props).decode().splitlines()
    assert lines[-1] == "hoodie.table.checksum=1"
    assert 'hoodie.table.create.schema={"type":"record","name":"x"}' in lines
    assert all(line.startswith("#") or "=" in line for line in lines)


@given(st.dictionaries(st.from_regex(r"[a-z][a-z.]{0,20}", fullmatch=True), st.text(max_size=40), max_size=8))
def test_render_parse_round_trip(props: dict[str, str]) -> None:
    assert parse_properties(render_properties(props)) == props


def test_create_writes_checksum_once(storage: LocalStorageBackend) -> None:
    written = create_properties(storage, BASE)
    assert written["hoodie.table.checksum"] == str(zlib.crc32(b"default.trips"))
    assert load_properties(storage) == written
    with pytest.raises(Exception, match="already exists"):
        create_properties(storage, BASE)


def test_update_uses_backup_protocol_and_cleans_up(storage: LocalStorageBackend) -> None:
    create_properties(storage, BASE)
    updated = update_properties(storage, {"hoodie.table.metadata.partitions": None, "x.y": "1"})
    assert updated["x.y"] == "1"
    assert not storage.exists(BACKUP_KEY)
    assert load_properties(storage)["x.y"] == "1"


def test_missing_main_file_falls_back_to_backup(storage: LocalStorageBackend) -> None:
    created = create_properties(storage, BASE)
    # A crash between "delete main" and "write new main" leaves only the backup.
    storage.write(BACKUP_KEY, storage.read(PROPERTIES_KEY))
    storage.delete(PROPERTIES_KEY)
    assert load_properties(storage) == created
    assert load_properties(storage, repair=True) == created
    assert storage.exists(PROPERTIES_KEY)
    assert not storage.exists(BACKUP_KEY)


def test_corrupt_main_file_recovers_from_backup(storage: LocalStorageBackend) -> None:
    created = create_properties(storage, BASE)
    storage.write(BACKUP_KEY, storage.read(PROPERTIES_KEY))
    storage.write(PROPERTIES_KEY, b"hoodie.table.name=trips\nhoodie.table.checksum=12345\n")
    assert load_properties(storage) == created


def test_both_bad_is_a_clear_error_naming_the_files(storage: LocalStorageBackend) -> None:
    storage.write(PROPERTIES_KEY, b"")
    storage.write(BACKUP_KEY, b"hoodie.table.name=trips\nhoodie.table.type=COPY_ON_WRITE\nhoodie.table.checksum=1\n")
    with pytest.raises(TableConfigCorruptError) as err:
        load_properties(storage)
    message = str(err.value)
    assert "hoodie.properties: empty file" in message
    assert "hoodie.properties.backup: checksum" in message


def test_wrong_checksum_without_backup_is_an_error(storage: LocalStorageBackend) -> None:
    storage.write(PROPERTIES_KEY, render_properties({**BASE, "hoodie.table.checksum": "7"}))
    with pytest.raises(TableConfigCorruptError, match="checksum"):
        load_properties(storage)


def test_no_table(storage: LocalStorageBackend) -> None:
    with pytest.raises(TableNotFoundError):
        load_properties(storage)
