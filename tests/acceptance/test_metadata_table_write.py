"""Writing the metadata table (MDT) ``files`` partition with ``hoodie.metadata.enable=true``.

After every write operation, compaction, clean, rollback and restore, on copy-on-write and
merge-on-read: the MDT is in step (every file-changing data instant has an MDT instant of the same
time, completed before it), its ``files`` partition equals the committed files on storage, a read
planned from it equals a read planned by listing (no fallback warning), and hudi-rs reading with
``hoodie.metadata.enable=true`` returns the same rows. The layout is Apache Hudi's (fact sheet):
init log with an empty DELETE block and a base HFile at ``00000000000000000``, ``hoodie.properties``
with its checksum, the data table listing ``files`` only once the MDT commit completed.
"""

from __future__ import annotations

import logging
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.log.blocks import DeleteBlock, HeaderKey
from hudi_framework.log.reader import read_log_bytes
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.validate import FILE_CHANGING_ACTIONS, check_in_sync, validate_files
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.properties import load_properties, parse_properties
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import COMPLETES_AS, Action
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.write.client import WriteClient
from hudi_framework.write.savepoint import create_savepoint, restore_to_savepoint, rollback_latest_commit
from hudi_storage_local.backend import LocalStorageBackend
from tests.fixture_tables import FixtureTable, all_fixture_tables
from tests.tools.hudi_rs_check import build_table, read_via_hudi_rs

#: The files partition alone (column statistics have their own tests).
MDT_ON = {"hoodie.metadata.enable": "true", "hoodie.metadata.index.column.stats.enable": "false"}
Rows = list[tuple[str, str, int]]


def _settings(**options: str) -> HudiSettings:
    settings = HudiSettings.from_hoodie_options({**MDT_ON, **options}, env=False)
    return settings.model_copy(update={"write": settings.write.model_copy(update={"engine": "local"})})


def _create(path: Path, table_type: str, version: int = 9) -> HudiTable:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    return HudiTable.create(str(path), config)


def _rows(ids: str, city: str, ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": i, "city": city, "ts": ts} for i in ids])


def _triples(table: pa.Table) -> Rows:
    return sorted((r["id"], r["city"], r["ts"]) for r in table.select(["id", "city", "ts"]).to_pylist())


def _mdt_timeline(path: Path) -> Timeline:
    return Timeline.load(LocalStorageBackend(str(path)), layout_version=2, timeline_path="metadata/.hoodie/timeline")


def _mdt_files(path: Path) -> list[Path]:
    return [p for p in (path / ".hoodie" / "metadata").rglob("*") if p.is_file()]


def check_mdt(path: Path, caplog: pytest.LogCaptureFixture, partitions: tuple[str, ...] = ("files",)) -> Rows:
    """Assert the MDT (with ``partitions``) is in step and complete; return the rows (all readers agree)."""
    table = HudiTable.open(str(path))
    storage = LocalStorageBackend(str(path))
    assert table.config.metadata_partitions == partitions
    mdt = MetadataTable.open(storage, table.properties)
    assert mdt is not None
    for partition in partitions:
        check_in_sync(mdt, table.timeline, partition)
    report = validate_files(storage, table.timeline, table.properties)
    assert report.ok, report
    # Every partition holding a file is listed; one a failed write created (no file) may not be.
    view = table.file_system_view()
    holding = {group.id.partition_path for group in view.all_file_groups(include_replaced=True)}
    assert holding <= set(mdt.all_partitions()) <= set(view.partitions)
    mdt_done = {i.requested_time: i for i in mdt.timeline.completed()}
    for inst in table.timeline.completed():
        if COMPLETES_AS.get(inst.action, inst.action) in FILE_CHANGING_ACTIONS and inst.requested_time in mdt_done:
            mdt_inst = mdt_done[inst.requested_time]
            assert (mdt_inst.completion_time or "") <= (inst.completion_time or ""), "MDT completes first"
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="hudi_framework.metadata.listing"):
        from_mdt = _triples(read_table(table))
    assert not caplog.records, "the read was planned from the MDT"
    from_listing = _triples(read_table(table, options={"hoodie.metadata.enable": "false"}))
    theirs = _triples(read_via_hudi_rs(build_table(str(path), MDT_ON)))
    assert from_mdt == from_listing == theirs
    return from_mdt


def test_init_layout_is_apache_hudis(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "t"
    table = _create(path, "COPY_ON_WRITE")
    WriteClient(table, _settings()).insert(_rows("ab", "sf", 1))
    meta = path / ".hoodie" / "metadata"
    props = parse_properties((meta / ".hoodie" / "hoodie.properties").read_bytes())
    assert props["hoodie.table.name"] == "t_metadata"
    assert props["hoodie.table.checksum"] == str(zlib.crc32(b".t_metadata"))
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.table.base.file.format"] == "HFILE"
    assert props["hoodie.populate.meta.fields"] == "false"
    assert props["hoodie.table.version"] == "9"
    init_log = meta / "files" / ".files-0000-0_00000000000000000.log.1_0-0-0"
    (block,) = read_log_bytes(init_log.read_bytes(), path=str(init_log))
    assert isinstance(block, DeleteBlock)
    assert dict(block.header) == {HeaderKey.INSTANT_TIME: "00000000000000000"}
    assert block.record_keys == ()
    assert (meta / "files" / "files-0000-0_0-0-0_00000000000000000.hfile").is_file()
    data_props = load_properties(LocalStorageBackend(str(path)))
    assert data_props["hoodie.table.metadata.partitions"] == "files"
    assert data_props["hoodie.table.metadata.partitions.inflight"] == ""
    mdt = _mdt_timeline(path)
    data_instant = HudiTable.open(str(path)).timeline.completed()[-1].requested_time
    assert [(i.requested_time, i.action) for i in mdt.completed()] == [
        ("00000000000000000", Action.DELTA_COMMIT),
        (data_instant, Action.DELTA_COMMIT),
    ]
    assert (meta / "files" / f".files-0000-0_{data_instant}.log.1_0-0-0").is_file()
    assert check_mdt(path, caplog) == [("a", "sf", 1), ("b", "sf", 1)]


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_every_write_operation_keeps_the_mdt_in_step(
    tmp_path: Path, table_type: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "t"
    client = WriteClient(_create(path, table_type), _settings())
    client.insert(_rows("abc", "sf", 1))
    assert check_mdt(path, caplog) == [("a", "sf", 1), ("b", "sf", 1), ("c", "sf", 1)]
    client.upsert(pa.concat_tables([_rows("a", "sf", 2), _rows("xy", "ny", 1)]))
    client.bulk_insert(_rows("l", "la", 1))
    client.delete(_rows("b", "sf", 3))
    assert check_mdt(path, caplog) == [("a", "sf", 2), ("c", "sf", 1), ("l", "la", 1), ("x", "ny", 1), ("y", "ny", 1)]
    client.insert_overwrite(_rows("q", "sf", 4))
    assert check_mdt(path, caplog) == [("l", "la", 1), ("q", "sf", 4), ("x", "ny", 1), ("y", "ny", 1)]
    client.delete_partition(["la"])
    assert check_mdt(path, caplog) == [("q", "sf", 4), ("x", "ny", 1), ("y", "ny", 1)]
    client.insert_overwrite_table(_rows("z", "ny", 5))
    assert check_mdt(path, caplog) == [("z", "ny", 5)]


def test_compaction_clean_rollback_and_restore_keep_the_mdt_in_step(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from hudi_framework import open_table_service

    path = tmp_path / "t"
    settings = _settings(**{"hoodie.clean.commits.retained": "1", "hoodie.clean.automatic": "false"})
    table = _create(path, "MERGE_ON_READ")
    client = WriteClient(table, settings)
    client.insert(_rows("ab", "sf", 1))
    for ts in (2, 3):
        client.upsert(_rows("a", "sf", ts))
    compactor, host = open_table_service(table.reload(), settings, "compaction")
    pending = compactor.schedule(host)  # type: ignore[attr-defined]
    assert pending is not None
    compactor.execute(host, pending)  # type: ignore[attr-defined]
    assert check_mdt(path, caplog) == [("a", "sf", 3), ("b", "sf", 1)]
    for ts in (4, 5):
        client.upsert(_rows("b", "sf", ts))
    cleaner, host = open_table_service(table.reload(), settings, "clean")
    cleaner.run(host, force=True)  # type: ignore[attr-defined]
    timeline = HudiTable.open(str(path)).timeline
    (clean,) = timeline.completed({Action.CLEAN})
    assert clean.requested_time in {i.requested_time for i in _mdt_timeline(path).completed()}
    assert check_mdt(path, caplog) == [("a", "sf", 3), ("b", "sf", 5)]

    savepoint = timeline.completed({Action.DELTA_COMMIT})[-1].requested_time
    create_savepoint(table.reload(), savepoint)
    client.upsert(_rows("c", "sf", 6))
    last = HudiTable.open(str(path)).timeline.completed()[-1].requested_time
    rollback_latest_commit(table.reload())
    mdt = _mdt_timeline(path)
    (rollback,) = mdt.completed({Action.ROLLBACK})
    assert last not in {i.requested_time for i in mdt.instants}, "the MDT delta commit was rolled back"
    assert not list((path / ".hoodie" / "metadata" / "files").glob(f"*{last}*"))
    data_rollback = HudiTable.open(str(path)).timeline.completed({Action.ROLLBACK})[-1]
    assert rollback.requested_time == data_rollback.requested_time
    assert check_mdt(path, caplog) == [("a", "sf", 3), ("b", "sf", 5)]

    client.upsert(_rows("d", "sf", 7))
    restore_to_savepoint(table.reload(), savepoint)
    assert not _mdt_files(path), "a restore drops the MDT"
    assert load_properties(LocalStorageBackend(str(path))).get("hoodie.table.metadata.partitions") is None
    client.upsert(_rows("e", "sf", 8))  # the next writer with the MDT on rebuilds it from a listing
    assert check_mdt(path, caplog) == [("a", "sf", 3), ("b", "sf", 5), ("e", "sf", 8)]


def test_an_existing_table_gets_its_files_from_a_listing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "t"
    table = _create(path, "MERGE_ON_READ")
    off = WriteClient(table, _settings(**{"hoodie.metadata.enable": "false"}))
    off.insert(pa.concat_tables([_rows("ab", "sf", 1), _rows("x", "ny", 1)]))
    off.upsert(_rows("a", "sf", 2))
    assert not _mdt_files(path)
    WriteClient(table.reload(), _settings()).upsert(_rows("y", "ny", 3))
    assert check_mdt(path, caplog) == [("a", "sf", 2), ("b", "sf", 1), ("x", "ny", 1), ("y", "ny", 3)]
    base = path / ".hoodie" / "metadata" / "files" / "files-0000-0_0-0-0_00000000000000000.hfile"
    assert base.is_file()


def test_a_writer_with_the_mdt_off_deletes_it(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "t"
    table = _create(path, "COPY_ON_WRITE")
    WriteClient(table, _settings()).insert(_rows("ab", "sf", 1))
    assert check_mdt(path, caplog)
    WriteClient(table.reload(), _settings(**{"hoodie.metadata.enable": "false"})).upsert(_rows("a", "sf", 2))
    assert not _mdt_files(path)
    assert "hoodie.table.metadata.partitions" not in load_properties(LocalStorageBackend(str(path)))


def test_a_failed_write_rolls_back_its_mdt_delta_commit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write failing after its MDT delta commit completed: its abort undoes both, leaving no trace."""
    from hudi_framework.timeline import transitions

    path = tmp_path / "t"
    client = WriteClient(_create(path, "COPY_ON_WRITE"), _settings())
    client.insert(_rows("ab", "sf", 1))
    real = transitions.TimelineWriter._create_completed
    failed: list[str] = []

    def fail_data_completion(self: transitions.TimelineWriter, key: str, requested_time: str, data: bytes) -> None:
        if "/metadata/" not in key and not failed:  # the data commit, once; its rollback goes through
            failed.append(requested_time)
            raise OSError("disk gone")
        real(self, key, requested_time, data)

    monkeypatch.setattr(transitions.TimelineWriter, "_create_completed", fail_data_completion)
    with pytest.raises(Exception, match="disk gone"):
        client.upsert(_rows("a", "sf", 2))
    monkeypatch.undo()
    mdt = _mdt_timeline(path)
    assert failed[0] not in {i.requested_time for i in mdt.instants}
    assert not list((path / ".hoodie" / "metadata" / "files").glob(f"*{failed[0]}*"))
    assert check_mdt(path, caplog) == [("a", "sf", 1), ("b", "sf", 1)]
    client.upsert(_rows("c", "sf", 3))
    assert check_mdt(path, caplog) == [("a", "sf", 1), ("b", "sf", 1), ("c", "sf", 3)]


def test_an_instant_completing_after_a_newer_one_gets_its_mdt_delta_commit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A compaction scheduled before a write and executed after it: its MDT delta commit is older than
    the write's, as Apache Hudi's MDT timeline allows."""
    from hudi_framework import open_table_service

    path = tmp_path / "t"
    settings = _settings()
    table = _create(path, "MERGE_ON_READ", version=8)
    client = WriteClient(table, settings)
    client.insert(_rows("ab", "sf", 1))
    client.upsert(_rows("a", "sf", 2))
    compactor, host = open_table_service(table.reload(), settings, "compaction")
    pending = compactor.schedule(host)  # type: ignore[attr-defined]
    assert pending is not None
    client.upsert(_rows("b", "sf", 3))
    compactor, host = open_table_service(table.reload(), settings, "compaction")
    compactor.execute(host, pending)  # type: ignore[attr-defined]
    assert pending in {i.requested_time for i in _mdt_timeline(path).completed()}
    assert check_mdt(path, caplog) == [("a", "sf", 2), ("b", "sf", 3)]


@pytest.mark.parametrize("version", [8, 9])
def test_non_partitioned_tables(tmp_path: Path, caplog: pytest.LogCaptureFixture, version: int) -> None:
    path = tmp_path / "t"
    config = new_table_config(
        "t", version=version, table_type="MERGE_ON_READ", record_key_fields=["id"], ordering_fields=["ts"]
    )
    client = WriteClient(HudiTable.create(str(path), config), _settings())
    client.insert(_rows("ab", "", 1))
    client.upsert(_rows("a", "", 2))
    props = parse_properties((path / ".hoodie" / "metadata" / ".hoodie" / "hoodie.properties").read_bytes())
    assert props["hoodie.table.version"] == props["hoodie.table.initial.version"] == str(version)
    assert check_mdt(path, caplog) == [("a", "", 2), ("b", "", 1)]


def test_concurrent_writers_each_commit_their_mdt_delta_commit_under_the_lock(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Optimistic concurrency control: writers on disjoint partitions all commit, each with its MDT
    delta commit (written inside the locked section), whatever order they complete in."""
    from tests.concurrent_writers import race_upserts

    path = tmp_path / "t"
    occ = _settings(**{"hoodie.write.concurrency.mode": "optimistic_concurrency_control"})
    table = _create(path, "COPY_ON_WRITE")
    WriteClient(table, occ).insert(_rows("s", "p0", 0))
    cities = [f"p{i}" for i in range(1, 5)]
    jobs = [(WriteClient(HudiTable.open(str(path)), occ), _rows("ab", city, i)) for i, city in enumerate(cities, 1)]
    results = race_upserts(monkeypatch, jobs)
    assert not [r for r in results if isinstance(r, Exception)], results
    expected = [("s", "p0", 0)] + [(k, c, i) for i, c in enumerate(cities, 1) for k in "ab"]
    assert check_mdt(path, caplog) == sorted(expected)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_the_mdt_is_compacted_after_max_delta_commits(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, table_type: str
) -> None:
    """``hoodie.metadata.compact.max.delta.commits`` delta commits (the bootstrap counts): the next write
    first compacts the MDT into a new base HFile at a fresh instant, older than the write's."""
    path = tmp_path / "t"
    client = WriteClient(_create(path, table_type), _settings(**{"hoodie.metadata.compact.max.delta.commits": "3"}))
    client.insert(_rows("ab", "sf", 1))  # MDT: bootstrap + 1
    client.upsert(_rows("x", "ny", 2))  # + 1 = 3 delta commits
    assert not _mdt_timeline(path).completed({Action.COMMIT})
    client.upsert(_rows("a", "sf", 3))  # compacts first, then its own delta commit
    mdt = _mdt_timeline(path)
    (compaction,) = mdt.completed({Action.COMMIT})
    data = HudiTable.open(str(path)).timeline.completed()
    assert data[-2].requested_time < compaction.requested_time < data[-1].requested_time
    files = path / ".hoodie" / "metadata" / "files"
    assert (files / f"files-0000-0_0-0-0_{compaction.requested_time}.hfile").is_file()
    assert check_mdt(path, caplog) == [("a", "sf", 3), ("b", "sf", 1), ("x", "ny", 2)]
    for ts in (4, 5, 6):
        client.upsert(_rows("b", "sf", ts))
    assert len(_mdt_timeline(path).completed({Action.COMMIT})) == 2
    assert check_mdt(path, caplog) == [("a", "sf", 3), ("b", "sf", 6), ("x", "ny", 2)]


def test_a_version_6_table_refuses_the_mdt(tmp_path: Path) -> None:
    from hudi_framework.errors import UnsupportedOptionError

    path = tmp_path / "t"
    client = WriteClient(_create(path, "COPY_ON_WRITE", version=6), _settings())
    with pytest.raises(UnsupportedOptionError, match=r"hoodie\.metadata\.enable"):
        client.insert(_rows("ab", "sf", 1))
    assert not HudiTable.open(str(path)).timeline.instants, "nothing was written"
    assert not _mdt_files(path)


def test_writing_apache_hudis_mdt_keeps_files_and_column_stats_and_drops_the_indexes_we_do_not_keep(
    tmp_path: Path, extract_fixture: Callable[[FixtureTable], tuple[Path, Path | None]]
) -> None:
    """A table Apache Hudi 1.1 wrote with files, column stats, partition stats, record index and two
    secondary indexes: our writer with the MDT and column statistics on keeps its ``files``,
    ``column_stats`` and ``partition_stats`` partitions (no rebuild) and drops the partitions it would
    not keep in step (properties first), as Apache Hudi drops a disabled one."""
    fixture = next(t for t in all_fixture_tables() if t.id == "mor/avro/v9_txns_simple_meta")
    base = tmp_path / "t"
    shutil.copytree(extract_fixture(fixture)[0], base)  # the extracted fixture is shared: never write to it
    before = HudiTable.open(str(base))
    listed = set(before.config.metadata_partitions)
    assert {"files", "column_stats", "record_index"} <= listed
    mdt_before = {i.requested_time for i in _mdt_timeline(base).completed()}
    rows = read_table(before)
    one = rows.slice(0, 1).drop_columns([c for c in rows.column_names if c.startswith("_hoodie_")])
    WriteClient(before, _settings(**{"hoodie.metadata.index.column.stats.enable": "true"})).upsert(one)
    after = HudiTable.open(str(base))
    kept = ("column_stats", "files", "partition_stats")
    assert after.config.metadata_partitions == kept
    assert load_properties(LocalStorageBackend(str(base)))["hoodie.table.metadata.partitions.inflight"] == ""
    for partition in listed - set(kept):
        assert not [p for p in (base / ".hoodie" / "metadata" / partition).rglob("*") if p.is_file()], partition
    assert mdt_before <= {i.requested_time for i in _mdt_timeline(base).completed()}, "files was not rebuilt"
    storage = LocalStorageBackend(str(base))
    mdt = MetadataTable.open(storage, after.properties)
    assert mdt is not None
    check_in_sync(mdt, after.timeline)
    check_in_sync(mdt, after.timeline, "column_stats")
    assert validate_files(storage, after.timeline, after.properties).ok
    assert read_table(after).num_rows == rows.num_rows
    # Our upsert's files have statistics next to Apache Hudi's.
    written = after.timeline.completed()[-1]
    stats = after.timeline.read_commit_metadata(written).partition_to_write_stats or {}
    names = {s.path.rsplit("/", 1)[-1] for per_partition in stats.values() for s in per_partition if s.path}
    assert names <= set(mdt.column_stats().column("file_name").to_pylist())


def test_schemas_are_apache_hudis_text(
    tmp_path: Path, extract_fixture: Callable[[FixtureTable], tuple[Path, Path | None]]
) -> None:
    """Commit metadata and block headers carry Java's ``HoodieMetadataRecord`` text to the byte: Apache
    Hudi takes its MDT write schema from the latest commit and fails on any other text."""
    from hudi_framework.log.blocks import HFileBlock
    from hudi_framework.timeline.avro_container import read_container

    fixture = next(t for t in all_fixture_tables() if t.id == "cow/v9_txns_simple_meta")
    theirs, _ = extract_fixture(fixture)
    their_timeline = theirs / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    their_commit = read_container(next(their_timeline.glob("*_*.deltacommit")).read_bytes()).record
    their_log = next((theirs / ".hoodie" / "metadata" / "files").glob(".files-0000-0_2*.log.*"))
    (their_block,) = [
        b for b in read_log_bytes(their_log.read_bytes(), path=str(their_log)) if isinstance(b, HFileBlock)
    ]

    path = tmp_path / "t"
    WriteClient(_create(path, "COPY_ON_WRITE"), _settings()).insert(_rows("ab", "sf", 1))
    timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    for done in timeline.glob("*_*.deltacommit"):
        ours = read_container(done.read_bytes()).record
        assert ours["extraMetadata"]["schema"] == their_commit["extraMetadata"]["schema"]
    log = next((path / ".hoodie" / "metadata" / "files").glob(".files-0000-0_2*.log.*"))
    (block,) = read_log_bytes(log.read_bytes(), path=str(log))
    assert isinstance(block, HFileBlock)
    assert block.header[HeaderKey.SCHEMA] == their_block.header[HeaderKey.SCHEMA]
