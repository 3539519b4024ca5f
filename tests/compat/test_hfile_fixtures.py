"""HFiles written by Apache Hudi: the metadata tables of the v9 fixture tables decode and agree with the table."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from hudi_framework.log import HeaderKey, HFileBlock, read_log_bytes
from hudi_framework.log.hfile import read_hfile, read_trailer
from hudi_framework.log.hfile_records import decode_hfile_records
from tests.fixture_tables import FixtureTable, all_fixture_tables

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]

MDT_FIXTURES = [t for t in all_fixture_tables() if "v9_" in t.id and t.id.endswith("_meta")]
_LOG_INSTANT = re.compile(r"^\.(?P<file_id>.+)_(?P<instant>\d+)\.log\.\d+_")


def _mdt(extract_fixture: Extract, fixture: FixtureTable) -> Path:
    base, _ = extract_fixture(fixture)
    mdt = base / ".hoodie" / "metadata"
    if not mdt.is_dir():
        pytest.skip(f"{fixture.id} has no metadata table")
    return mdt


def _hfile_blocks(path: Path) -> list[HFileBlock]:
    return [b for b in read_log_bytes(path.read_bytes()) if isinstance(b, HFileBlock)]


def _completed(mdt: Path) -> dict[str, str]:
    """Requested instant -> completion time of every completed MDT instant."""
    done = (re.match(r"^(\d+)_(\d+)\.", p.name) for p in (mdt / ".hoodie" / "timeline").iterdir())
    return {m[1]: m[2] for m in done if m}


def _schema(mdt: Path) -> str:
    for log in sorted((mdt / "files").glob(".*.log.*")):
        for block in _hfile_blocks(log):
            return block.header[HeaderKey.SCHEMA]
    raise AssertionError("no HFILE_DATA block in the files partition")


@pytest.mark.parametrize("fixture", MDT_FIXTURES, ids=[t.id for t in MDT_FIXTURES])
def test_every_hfile_data_block_decodes(fixture: FixtureTable, extract_fixture: Extract) -> None:
    mdt = _mdt(extract_fixture, fixture)
    blocks = 0
    for log in sorted(mdt.glob("*/.*.log.*")):
        for block in _hfile_blocks(log):
            table = block.records
            assert table.num_rows == read_trailer(block.content).entry_count > 0
            keys = table.column("_hoodie_record_key").to_pylist()
            assert keys == table.column("key").to_pylist() == sorted(keys, key=str.encode)
            # The partition's record type: files 1/2, column stats 3, partition stats 6, secondary index 7...
            assert set(table.column("type").to_pylist()) <= {1, 2, 3, 4, 5, 6, 7}
            blocks += 1
    assert blocks > 0


@pytest.mark.parametrize("fixture", MDT_FIXTURES, ids=[t.id for t in MDT_FIXTURES])
def test_hfile_base_files_decode(fixture: FixtureTable, extract_fixture: Extract) -> None:
    mdt = _mdt(extract_fixture, fixture)
    schema = _schema(mdt)
    base_files = sorted(mdt.glob("*/*.hfile"))
    assert base_files
    for path in base_files:
        data = path.read_bytes()
        cells = list(read_hfile(data))
        table = decode_hfile_records(data, schema)
        assert table.column("key").to_pylist() == [k.decode() for k, _ in cells]
        assert len(cells) == read_trailer(data).entry_count


@pytest.mark.parametrize("fixture", MDT_FIXTURES, ids=[t.id for t in MDT_FIXTURES])
def test_files_partition_lists_the_data_files_on_disk(fixture: FixtureTable, extract_fixture: Extract) -> None:
    mdt = _mdt(extract_fixture, fixture)
    table_path = mdt.parent.parent
    schema = _schema(mdt)
    completed = _completed(mdt)
    # The latest slice of the single files file group: newest HFile base file, then the log files of
    # delta commits completed after it was requested (v8+ slicing by completion time), in order.
    base = max((mdt / "files").glob("*.hfile"), key=lambda p: p.stem.rsplit("_", 1)[1])
    base_instant = base.stem.rsplit("_", 1)[1]
    batches = [decode_hfile_records(base.read_bytes(), schema)]
    logs = []
    for log in (mdt / "files").glob(".*.log.*"):
        m = _LOG_INSTANT.match(log.name)
        assert m
        completion = completed.get(m["instant"])
        if completion is not None and completion > base_instant:
            logs.append((completion, log.name, log))
    for _, _, log in sorted(logs):
        batches += [b.records for b in _hfile_blocks(log) if b.instant_time in completed]

    partitions: set[str] = set()
    listed: dict[str, dict[str, int]] = {}
    for batch in batches:
        for row in batch.select(["key", "type", "filesystemMetadata"]).to_pylist():
            entries = row["filesystemMetadata"] or []
            if row["type"] == 1:  # __all_partitions__
                partitions |= {name for name, info in entries if not info["isDeleted"]}
                partitions -= {name for name, info in entries if info["isDeleted"]}
                continue
            files = listed.setdefault(row["key"], {})
            for name, info in entries:
                if info["isDeleted"]:
                    files.pop(name, None)
                else:
                    files[name] = info["size"]

    # Hudi lists a non-partitioned table's files under the partition ".".
    disk_partitions = {
        p.relative_to(table_path).parent.as_posix()
        for p in table_path.rglob("*")
        if p.is_file() and ".hoodie" not in p.relative_to(table_path).parts
    }
    assert partitions == disk_partitions == set(listed)
    seen: set[Path] = set()
    for partition, files in listed.items():
        folder = table_path if partition in (".", "") else table_path / partition
        for name, size in files.items():
            path = folder / name
            assert path.is_file(), f"{fixture.id}: MDT lists missing {partition}/{name}"
            assert path.stat().st_size == size, f"{fixture.id}: {partition}/{name} size"
            seen.add(path)
    data_files = {
        p
        for p in table_path.rglob("*")
        if p.is_file() and ".hoodie" not in p.relative_to(table_path).parts and not p.name.startswith(".hoodie_")
    }
    # Every data file of the table is listed (the fixtures keep no uncommitted or cleaned files).
    assert data_files == seen
