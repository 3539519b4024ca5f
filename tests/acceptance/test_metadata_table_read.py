"""Reading Apache Hudi's metadata table (MDT) of the v9 fixture tables, and planning reads from it.

* the ``files`` partition equals the committed files on storage; the record keys of every MDT
  partition are the encodings :mod:`hudi_framework.metadata.keys` computes;
* ``column_stats`` agree with the Parquet footers of the files they describe;
* the record-level index puts every key where the gold read finds it;
* reads planned from the MDT list no data partition and equal the gold data; a damaged or
  out-of-sync MDT falls back to listing with a warning and still reads right.
"""

from __future__ import annotations

import logging
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi_framework.errors import HudiError, MetadataTableUnusableError
from hudi_framework.metadata.keys import (
    column_stats_key,
    decode_column_stats_key,
    file_id,
    partition_id,
    partition_stats_key,
)
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import MetadataPartition
from hudi_framework.metadata.stat_values import stat_values
from hudi_framework.metadata.validate import check_in_sync, validate_files
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_storage_local.backend import LocalStorageBackend
from tests.compat.test_read_fixtures import _hash
from tests.fixture_tables import FixtureTable, all_fixture_tables

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]


def _has_mdt(fixture: FixtureTable) -> bool:
    with zipfile.ZipFile(fixture.zip_path) as zf:
        return any("/.hoodie/metadata/.hoodie/hoodie.properties" in n for n in zf.namelist())


MDT_FIXTURES = [t for t in all_fixture_tables() if _has_mdt(t)]
READABLE = [t for t in MDT_FIXTURES if not t.is_lance]
_IDS = [t.id for t in MDT_FIXTURES]


def _open(base: Path) -> tuple[HudiTable, MetadataTable]:
    table = HudiTable.open(str(base))
    mdt = MetadataTable.open(LocalStorageBackend(str(base)), table.properties)
    assert mdt is not None
    return table, mdt


def _gold(gold_dir: Path) -> pa.Table:
    return pa.concat_tables([pq.read_table(p) for p in sorted(gold_dir.glob("*.parquet"))])


def _rows(table: pa.Table) -> str:
    return _hash(table)


@pytest.mark.parametrize("fixture", MDT_FIXTURES, ids=_IDS)
def test_files_partition_equals_committed_files_on_storage(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    table, mdt = _open(base)
    check_in_sync(mdt, table.timeline)
    report = validate_files(LocalStorageBackend(str(base)), table.timeline, table.properties)
    assert report.ok, report
    assert mdt.all_partitions() == table.file_system_view().partitions


@pytest.mark.parametrize("fixture", MDT_FIXTURES, ids=_IDS)
def test_hashed_keys_are_apache_hudis(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    _, mdt = _open(base)
    stats = mdt.column_stats()
    assert stats.num_rows > 0 or fixture.is_lance  # Apache Hudi keeps no column stats for Lance files
    if stats.num_rows == 0:
        return
    keys = mdt._read_slices(mdt.file_slices("column_stats"), ["key"]).rows.column("key").to_pylist()
    expected = {
        column_stats_key(c, p, f)
        for c, p, f in zip(
            stats.column("column_name").to_pylist(),
            stats.column("partition_path").to_pylist(),
            stats.column("file_name").to_pylist(),
            strict=True,
        )
    }
    assert expected <= set(keys)
    parts = decode_column_stats_key(keys[0])
    assert parts.partition_id in {partition_id(p) for p in mdt.all_partitions()}
    if "partition_stats" in mdt.partitions_available():
        ps = mdt._read_slices(mdt.file_slices("partition_stats"), ["key", "ColumnStatsMetadata"]).rows
        meta = ps.column("ColumnStatsMetadata").to_pylist()
        for key, m in zip(ps.column("key").to_pylist(), meta, strict=True):
            assert key == partition_stats_key(m["columnName"], m["fileName"] if m["fileName"] != "." else "")


def test_file_id_is_md5_base64() -> None:
    # Known value from the v9_txns_simple_meta fixture's column_stats keys.
    assert (
        file_id("3e93c8a9-fda0-4e8a-91dc-b4ade7dab76d-0_1-27-53_20260307162557587.parquet")
        == "F01d3NbdD9QcFpSCtykrRA=="
    )


@pytest.mark.parametrize("fixture", READABLE, ids=[t.id for t in READABLE])
def test_column_stats_agree_with_parquet_footers(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    _, mdt = _open(base)
    stats = mdt.column_stats()
    parquet = stats.filter(pc.ends_with(stats.column("file_name"), ".parquet"))
    assert parquet.num_rows > 0
    checked = 0
    for partition, name in {tuple(r.values()) for r in parquet.select(["partition_path", "file_name"]).to_pylist()}:
        path = base / partition / name if partition else base / name
        if not path.exists():
            continue  # cleaned: the MDT dropped its stats with the file, or keeps them for replaced groups
        meta = pq.ParquetFile(path).metadata
        rows = parquet.filter(
            pc.and_(pc.equal(parquet.column("file_name"), name), pc.equal(parquet.column("partition_path"), partition))
        )
        for i in range(rows.num_rows):
            row = rows.slice(i, 1)
            column = row.column("column_name")[0].as_py()
            idx = [meta.schema.column(j).path for j in range(meta.num_columns)].index(column)
            chunks = [meta.row_group(g).column(idx) for g in range(meta.num_row_groups)]
            assert row.column("value_count")[0].as_py() == sum(c.num_values for c in chunks)
            assert row.column("null_count")[0].as_py() == sum(c.statistics.null_count for c in chunks)
            lo = stat_values(row.column("min_value"), row.column("value_type_info")[0].as_py())[0].as_py()
            hi = stat_values(row.column("max_value"), row.column("value_type_info")[0].as_py())[0].as_py()
            table = pq.read_table(path, columns=[column]).column(0)
            if (
                pa.types.is_decimal(table.type)
                or pa.types.is_integer(table.type)
                or pa.types.is_string(table.type)
                or pa.types.is_floating(table.type)
            ):
                mm = pc.min_max(table)
                assert (lo, hi) == (mm["min"].as_py(), mm["max"].as_py()), (name, column)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("fixture", READABLE, ids=[t.id for t in READABLE])
def test_record_index_points_at_the_file_holding_each_key(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, gold_dir = extract_fixture(fixture)
    assert gold_dir is not None
    _, mdt = _open(base)
    gold = _gold(gold_dir)
    keys = gold.column("_hoodie_record_key").combine_chunks()
    found = mdt.record_index(pa.concat_arrays([keys, pa.array(["no-such-key"])]))
    assert sorted(found.column("record_key").to_pylist()) == sorted(set(keys.to_pylist()))
    # A key in two partitions (possible with a non-global index) has one entry: check unique keys.
    once = {k for k in keys.to_pylist() if keys.to_pylist().count(k) == 1}
    where = dict(zip(found.column("record_key").to_pylist(), found.column("file_id").to_pylist(), strict=True))
    part = dict(zip(found.column("record_key").to_pylist(), found.column("partition_path").to_pylist(), strict=True))
    for key, name, partition in zip(
        keys.to_pylist(),
        gold.column("_hoodie_file_name").to_pylist(),
        gold.column("_hoodie_partition_path").to_pylist(),
        strict=True,
    ):
        if key in once:
            # Spark names a merge-on-read row from a log by its file group id alone.
            assert name == where[key] or name.startswith(where[key] + "_"), (key, name, where[key])
            assert part[key] == partition


class _CountingStorage(LocalStorageBackend):
    """Counts listings of anything outside ``.hoodie`` (data partitions)."""

    data_lists = 0

    def list(self, prefix: str = "", *, recursive: bool = False) -> list:  # type: ignore[override]
        if not prefix.startswith(".hoodie"):
            type(self).data_lists += 1
        return super().list(prefix, recursive=recursive)


@pytest.mark.parametrize("fixture", READABLE, ids=[t.id for t in READABLE])
def test_reads_planned_from_the_mdt_list_no_data_partition_and_equal_gold(
    fixture: FixtureTable, extract_fixture: Extract, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, gold_dir = extract_fixture(fixture)
    assert gold_dir is not None
    table = HudiTable.open(str(base))
    counting = _CountingStorage(str(base))
    monkeypatch.setattr(table, "_storage", counting)
    _CountingStorage.data_lists = 0
    from_mdt = read_table(table)
    assert _CountingStorage.data_lists == 0
    listed = read_table(HudiTable.open(str(base)), options={"hoodie.metadata.enable": "false"})
    assert _CountingStorage.data_lists == 0
    gold = _gold(gold_dir)
    assert _rows(from_mdt) == _rows(listed) == _rows(gold)


def _copy(extract_fixture: Extract, tmp_path: Path, name: str = "mor/avro/v9_txns_simple_meta") -> tuple[Path, Path]:
    fixture = next(t for t in all_fixture_tables() if t.id == name)
    base, gold_dir = extract_fixture(fixture)
    assert gold_dir is not None
    dest = tmp_path / base.name
    shutil.copytree(base, dest)
    return dest, gold_dir


def _read_with_fallback(base: Path, caplog: pytest.LogCaptureFixture, reason: str) -> pa.Table:
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="hudi_framework.metadata.listing"):
        out = read_table(HudiTable.open(str(base)))
    messages = [r.getMessage() for r in caplog.records if r.name == "hudi_framework.metadata.listing"]
    assert any("listing storage instead of the metadata table" in m and reason in m for m in messages), messages
    return out


def _unfinished_mdt_commit(base: Path) -> None:
    """The MDT delta commit of the last data write never completed."""
    writes = [i for i in HudiTable.open(str(base)).timeline.completed() if i.action in ("commit", "deltacommit")]
    timeline = base / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    (latest,) = timeline.glob(f"{writes[-1].requested_time}_*.deltacommit")
    latest.unlink()


def _files_not_listed(base: Path) -> None:
    """``hoodie.table.metadata.partitions`` no longer lists ``files``."""
    props = base / ".hoodie" / "hoodie.properties"
    lines = [
        line.replace("column_stats,files,", "column_stats,")
        if line.startswith("hoodie.table.metadata.partitions=")
        else line
        for line in props.read_text().splitlines()
    ]
    props.write_text("\n".join(lines) + "\n")
    (base / ".hoodie" / "hoodie.properties.backup").unlink(missing_ok=True)


def _truncated_log(base: Path) -> None:
    """The newest log file of the files partition is cut in half."""
    _, mdt = _open(base)
    victim = base / ".hoodie" / "metadata" / mdt.file_slices("files")[0].log_file_keys[-1]
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 2])


def _lost_logs(base: Path) -> None:
    """In sync by its timeline, but every log file of the files partition is gone: recent files are missing."""
    _, mdt = _open(base)
    for key in mdt.file_slices("files")[0].log_file_keys:
        (base / ".hoodie" / "metadata" / key).unlink()


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_unfinished_mdt_commit, "out of sync"),
        (_files_not_listed, "'files'"),
        (_truncated_log, "corrupt"),
        (_lost_logs, "which the timeline names"),
    ],
    ids=["out-of-sync", "files-not-listed", "truncated-log", "lost-logs"],
)
def test_damaged_mdt_falls_back_to_listing(
    damage: Callable[[Path], None],
    reason: str,
    extract_fixture: Extract,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    base, gold_dir = _copy(extract_fixture, tmp_path)
    damage(base)
    out = _read_with_fallback(base, caplog, reason)
    assert _rows(out) == _rows(_gold(gold_dir))


def test_metadata_enable_false_never_opens_the_mdt(extract_fixture: Extract, tmp_path: Path) -> None:
    base, gold_dir = _copy(extract_fixture, tmp_path)
    (base / ".hoodie" / "metadata" / ".hoodie" / "hoodie.properties").write_bytes(b"\x00garbage=")
    out = read_table(HudiTable.open(str(base)), options={"hoodie.metadata.enable": "false"})
    assert _rows(out) == _rows(_gold(gold_dir))


def test_record_index_with_a_missing_file_group_is_refused(extract_fixture: Extract, tmp_path: Path) -> None:
    """Keys are routed by the number of file groups: with one gone, lookups would silently miss keys."""
    base, _ = _copy(extract_fixture, tmp_path)
    for path in (base / ".hoodie" / "metadata" / "record_index").glob("*record-index-0003-0*"):
        path.unlink()
    _, mdt = _open(base)
    with pytest.raises(MetadataTableUnusableError, match="record-index-0000-0"):
        mdt.record_index(["TXN-001"])


@pytest.mark.parametrize("name", ["mor/avro/v9_txns_simple_meta", "cow/v9_txns_simple_meta"])
def test_time_travel_planned_from_the_mdt_equals_listing(name: str, extract_fixture: Extract) -> None:
    fixture = next(t for t in all_fixture_tables() if t.id == name)
    base, _ = extract_fixture(fixture)
    table = HudiTable.open(str(base))
    instants = [i.requested_time for i in table.timeline.commits_timeline()]
    assert len(instants) > 3
    for as_of in instants:
        try:
            listed = read_table(HudiTable.open(str(base)), as_of=as_of, options={"hoodie.metadata.enable": "false"})
        except HudiError as e:  # history cleaning removed: the MDT-planned read must refuse alike
            with pytest.raises(type(e)):
                read_table(HudiTable.open(str(base)), as_of=as_of)
            continue
        assert _rows(read_table(HudiTable.open(str(base)), as_of=as_of)) == _rows(listed), as_of


def _sorted_stats(table: pa.Table) -> list[dict[str, object]]:
    rows = table.to_pylist()
    return sorted(rows, key=lambda r: (str(r["partition_path"]), str(r["file_name"]), str(r["column_name"])))


@pytest.mark.parametrize("fixture", READABLE, ids=[t.id for t in READABLE])
def test_stats_of_some_columns_are_those_of_a_full_read(fixture: FixtureTable, extract_fixture: Extract) -> None:
    """A read of some columns' statistics decodes only their keys' records (the keys start with the
    column id) and returns exactly the full read's rows of those columns, for both stats partitions."""
    base, _ = extract_fixture(fixture)
    _, mdt = _open(base)
    partitions = [(mdt.column_stats, MetadataPartition.COLUMN_STATS.value)]
    if MetadataPartition.PARTITION_STATS.value in mdt.partitions_available():
        partitions.append((mdt.partition_stats, MetadataPartition.PARTITION_STATS.value))
    for read, _name in partitions:
        full = read()
        names = sorted(set(full.column("column_name").to_pylist()))
        assert names
        for picked in ([names[0]], names[1::2], [*names[:2], "no_such_column"], []):
            expected = full.filter(pc.is_in(full.column("column_name"), value_set=pa.array(picked, pa.string())))
            assert _sorted_stats(read(picked)) == _sorted_stats(expected), picked
