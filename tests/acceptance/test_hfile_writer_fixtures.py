"""Our HFile writer reproduces Apache Hudi's HFiles byte for byte.

Every metadata-table HFile of the v9 fixture tables (written by Apache Hudi 1.x: ``*.hfile`` base
files of every MDT partition, and the content of every HFILE_DATA log block) is decoded into its
cells, re-written with the same settings, and must equal the original bytes. The only input taken
from the original besides the cells is ``hfile.CREATE_TIME_TS``, the wall-clock time of the Java
writer, which no writer can reproduce.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import fastavro
import pytest

from hudi_framework.log import HeaderKey, HFileBlock, read_log_bytes
from hudi_framework.log.avro_arrow import strip_logical_types
from hudi_framework.log.hfile import _read_block, read_file_info, read_hfile, read_trailer
from hudi_framework.log.hfile_records import encode_hfile_base_file
from hudi_framework.log.hfile_writer import HFileWriteOptions, write_hfile
from tests.fixture_tables import FixtureTable, all_fixture_tables

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]

MDT_FIXTURES = [t for t in all_fixture_tables() if "v9_" in t.id and t.id.endswith("_meta")]
#: File info entries Hudi's base-file writer (HoodieAvroHFileWriter) appends, in its order.
BASE_FILE_INFO = ("schema", "minRecordKey", "maxRecordKey", "bloomFilterTypeCode")


def _mdt(extract_fixture: Extract, fixture: FixtureTable) -> Path:
    base, _ = extract_fixture(fixture)
    mdt = base / ".hoodie" / "metadata"
    assert mdt.is_dir(), f"{fixture.id} has no metadata table"
    return mdt


def _same_settings(data: bytes) -> HFileWriteOptions:
    created = int.from_bytes(read_file_info(data)[b"hfile.CREATE_TIME_TS"], "big")
    return HFileWriteOptions(compression=read_trailer(data).compression, creation_time_ms=created)


def _meta_blocks(data: bytes) -> dict[str, bytes]:
    """Named meta blocks of ``data`` (the meta index is the load-on-open section's second block)."""
    trailer = read_trailer(data)
    end = len(data) - 4096
    root = _read_block(data, trailer.load_on_open_offset, end, trailer.compression)
    index = _read_block(data, root.end, end, trailer.compression).payload
    blocks: dict[str, bytes] = {}
    pos = 0
    while pos < len(index):
        offset = int.from_bytes(index[pos : pos + 8], "big")
        length = index[pos + 12]  # a one-byte vint: Hudi's meta block names are short
        name = index[pos + 13 : pos + 13 + length].decode()
        blocks[name] = _read_block(data, offset, end, trailer.compression).payload
        pos += 13 + length
    return blocks


def _records(data: bytes, schema: str) -> list[dict[str, object]]:
    """The records of an HFile as fastavro values (union branches named), keys restored."""
    parsed = fastavro.parse_schema(strip_logical_types(json.loads(schema)))
    records = []
    for key, value in read_hfile(data):
        record = fastavro.schemaless_reader(
            io.BytesIO(value), parsed, None, return_named_type=True, return_named_type_override=True
        )
        assert isinstance(record, dict)
        records.append({**record, "key": key.decode()})
    return records


def _hfile_blocks(mdt: Path) -> list[HFileBlock]:
    return [
        block
        for log in sorted(mdt.glob("*/.*.log.*"))
        for block in read_log_bytes(log.read_bytes())
        if isinstance(block, HFileBlock)
    ]


@pytest.mark.parametrize("fixture", MDT_FIXTURES, ids=[t.id for t in MDT_FIXTURES])
def test_base_files_are_rewritten_byte_for_byte(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base_files = sorted(_mdt(extract_fixture, fixture).glob("*/*.hfile"))
    assert base_files
    partitions = set()
    for path in base_files:
        original = path.read_bytes()
        cells = list(read_hfile(original))
        info = read_file_info(original)
        ours = write_hfile(
            [k for k, _ in cells],
            [v for _, v in cells],
            file_info={name: info[name.encode()] for name in BASE_FILE_INFO},
            meta_blocks=_meta_blocks(original),
            options=_same_settings(original),
        )
        assert ours == original, f"{path.relative_to(path.parents[1])} differs"
        partitions.add(path.parent.name)
    # files, column_stats, partition_stats, record_index and secondary indexes all take part.
    assert {"files", "column_stats", "record_index"} <= partitions


@pytest.mark.parametrize("fixture", MDT_FIXTURES, ids=[t.id for t in MDT_FIXTURES])
def test_base_files_are_rewritten_from_their_records(fixture: FixtureTable, extract_fixture: Extract) -> None:
    # From the records alone: Avro values, key range and the metadata table's bloom filter are ours.
    for path in sorted(_mdt(extract_fixture, fixture).glob("*/*.hfile")):
        original = path.read_bytes()
        schema = read_file_info(original)[b"schema"].decode()
        ours = encode_hfile_base_file(_records(original, schema), schema, options=_same_settings(original))
        assert ours == original, f"{path.relative_to(path.parents[1])} differs"


@pytest.mark.parametrize("fixture", MDT_FIXTURES, ids=[t.id for t in MDT_FIXTURES])
def test_hfile_data_blocks_are_rewritten_byte_for_byte(fixture: FixtureTable, extract_fixture: Extract) -> None:
    blocks = _hfile_blocks(_mdt(extract_fixture, fixture))
    assert blocks
    for block in blocks:
        schema = block.header[HeaderKey.SCHEMA]
        records = _records(block.content, schema)
        ours = HFileBlock.create(
            records,
            instant_time=block.header[HeaderKey.INSTANT_TIME],
            schema=schema,
            options=_same_settings(block.content),
        )
        assert ours.content == block.content, f"block at {block.position} differs"
        # Java keeps the headers in a HashMap keyed by enum constants (identity hashes), so their
        # order varies between JVM runs; the entries are the same.
        assert dict(ours.header) == dict(block.header)
        assert ours.footer == block.footer
