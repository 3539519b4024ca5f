"""The metadata table's ``column_stats`` and ``partition_stats`` partitions as our writers keep them: a
record per (file, indexed column) equal to the file's footer (log files: over their records), value
wrappers and value types as Apache Hudi 1.1 writes for table version 9, the indexed columns in
``index.json``; per (partition, column) bounds over the latest files; deletion on clean; a filtered
read skips files by these statistics and returns the rows of an unfiltered read, filtered."""

from __future__ import annotations

import datetime
import decimal
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.keys import column_stats_key, partition_stats_key
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.stat_values import stat_values
from hudi_framework.metadata.validate import check_in_sync
from hudi_framework.metadata_writer.builders import builder_for
from hudi_framework.metadata_writer.slice_records import SliceRecords
from hudi_framework.read import read_table
from hudi_framework.read.parquet_stats import ParquetFooterStats
from hudi_framework.read.reader import build_options, plan_read
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

_NS = "org.apache.hudi.avro.model."
MDT_ON = {"hoodie.metadata.enable": "true"}
INDEXED = [
    "_hoodie_commit_time",
    "_hoodie_partition_path",
    "_hoodie_record_key",
    "id",
    "city",
    "ts",
    "amount",
    "day",
    "at",
]


def _settings(**options: str) -> HudiSettings:
    settings = HudiSettings.from_hoodie_options({**MDT_ON, **options}, env=False)
    return settings.model_copy(update={"write": settings.write.model_copy(update={"engine": "local"})})


def _create(path: Path, table_type: str) -> HudiTable:
    config = new_table_config(
        "t", version=9, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    return HudiTable.create(str(path), config)


def _rows(ids: str | list[str], city: str, ts: int) -> pa.Table:
    n = len(ids)
    return pa.table(
        {
            "id": list(ids),
            "city": [city] * n,
            "ts": pa.array([ts] * n, pa.int64()),
            "amount": pa.array([decimal.Decimal(f"{ts}9.99")] * n, pa.decimal128(10, 2)),
            "day": pa.array([datetime.date(2024, 1, ts)] * n),
            "at": pa.array([datetime.datetime(2024, 1, 1, ts, tzinfo=datetime.UTC)] * n, pa.timestamp("us", tz="UTC")),
            "tags": pa.array([[ts]] * n, pa.list_(pa.int64())),  # not indexable: left out
        }
    )


def _latest_files(table: HudiTable) -> set[tuple[str, str]]:
    view = table.file_system_view()
    return {
        (p, n)
        for p in view.partitions
        for s in view.latest_file_slices(p)
        for n in ([s.base_file_name] if s.base_file_name else []) + list(s.log_file_names)
    }


def _partition_records(table: HudiTable, partition: str) -> dict[str, dict[str, object]]:
    """The merged records of an MDT partition, by key."""
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    builder = builder_for(partition)
    assert builder is not None
    reader = SliceRecords(table.storage, mdt)
    return {r["key"]: r for s in mdt.file_slices(partition) for r in reader.merge(builder, s)}


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_column_stats_are_the_files_statistics_in_apache_hudis_shape(tmp_path: Path, table_type: str) -> None:
    path = tmp_path / "t"
    client = WriteClient(_create(path, table_type), _settings())
    client.insert(_rows("ab", "sf", 1))
    client.insert(_rows("cd", "ny", 2))
    client.upsert(_rows("a", "sf", 3))
    table = HudiTable.open(str(path))
    assert table.config.metadata_partitions == ("column_stats", "files", "partition_stats")
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    check_in_sync(mdt, table.timeline, "column_stats")
    inits = [i.requested_time for i in mdt.timeline.completed() if i.requested_time.startswith("0000")]
    assert inits == ["00000000000000000", "00000000000000001", "00000000000000002"]
    init_logs = (path / ".hoodie/metadata/column_stats").glob(".col-stats-*_00000000000000001.log*")
    assert sorted(p.name for p in init_logs) == [
        ".col-stats-0000-0_00000000000000001.log.1_0-0-0", ".col-stats-0001-0_00000000000000001.log.1_0-0-0",
    ]  # fmt: skip
    index = json.loads((path / ".hoodie/.index_defs/index.json").read_text())
    assert index["indexDefinitions"]["column_stats"]["sourceFields"] == INDEXED
    assert index["indexDefinitions"]["column_stats"]["version"] == "V2"
    assert table.properties["hoodie.table.index.defs.path"] == ".hoodie/.index_defs/index.json"

    stats = mdt.column_stats()
    files = {
        (p, n)
        for p, n in zip(stats.column("partition_path").to_pylist(), stats.column("file_name").to_pylist(), strict=True)
    }
    assert _latest_files(table) <= files
    assert stats.num_rows == len(files) * len(INDEXED)
    # Base files: the footer's numbers.
    bases = sorted(f for f in files if f[1].endswith(".parquet"))
    footer = ParquetFooterStats(table.storage).column_stats(bases, INDEXED)
    assert footer is not None
    for row in footer.to_pylist():
        mine = stats.filter(
            pc.and_(
                pc.equal(stats.column("file_name"), row["fileName"]),
                pc.equal(stats.column("column_name"), row["columnName"]),
            )
        )
        assert mine.num_rows == 1
        got = mine.to_pylist()[0]
        assert (got["null_count"], got["value_count"], got["total_size"], got["total_uncompressed_size"]) == (
            row["nullCount"], row["valueCount"], row["totalSize"], row["totalUncompressedSize"],
        )  # fmt: skip
        assert got["is_tight_bound"] is False
    # Value wrappers and types (fact sheet: physical wrapper, logical value type).
    kinds = dict(zip(stats.column("column_name").to_pylist(), stats.column("value_type").to_pylist(), strict=False))
    assert {c: kinds[c] for c in ("id", "ts", "amount", "day", "at")} == {
        "id": 7,
        "ts": 4,
        "amount": 10,
        "day": 12,
        "at": 16,
    }
    records = _partition_records(table, "column_stats")
    (base_name,) = [n for p, n in bases if p == "ny"]
    amount = records[column_stats_key("amount", "ny", base_name)]["ColumnStatsMetadata"]
    assert amount["minValue"] == (f"{_NS}BytesWrapper", {"value": b"\x0b\xb7"})  # 29.99 -> unscaled 2999
    assert amount["valueType"] == {"typeOrdinal": 10, "additionalInfo": "10,2"}
    day = records[column_stats_key("day", "ny", base_name)]["ColumnStatsMetadata"]
    assert day["minValue"] == (
        f"{_NS}IntWrapper",
        {"value": (datetime.date(2024, 1, 2) - datetime.date(1970, 1, 1)).days},
    )
    if table_type == "MERGE_ON_READ":
        logs = [f for f in files if ".log." in f[1]]
        assert logs
        log_rows = stats.filter(pc.is_in(stats.column("file_name"), pa.array([n for _, n in logs])))
        assert set(log_rows.column("total_size").to_pylist()) == {0}
        ts = log_rows.filter(pc.equal(log_rows.column("column_name"), "ts"))
        assert stat_values(ts.column("min_value")).to_pylist() == [3]

    # partition_stats: bounds over each partition's latest files, tight: every stored value inside.
    per_partition = mdt.partition_stats(["ts", "amount", "id"])
    everything = read_table(table)
    for row in per_partition.to_pylist():
        values = everything.filter(pc.equal(everything.column("city"), row["partition_path"])).column(
            row["column_name"]
        )
        info = row["value_type_info"]
        low = stat_values(pa.array([row["min_value"]], per_partition.schema.field("min_value").type), info)[0].as_py()
        high = stat_values(pa.array([row["max_value"]], per_partition.schema.field("max_value").type), info)[0].as_py()
        assert low <= pc.min(values).as_py(), row
        assert pc.max(values).as_py() <= high, row
    assert len(per_partition) == 2 * 3
    part = _partition_records(table, "partition_stats")
    sf_ts = part[partition_stats_key("ts", "sf")]["ColumnStatsMetadata"]
    assert sf_ts["fileName"] == "sf"
    assert sf_ts["isTightBound"] is True
    assert sf_ts["minValue"][0] == f"{_NS}LongWrapper"
    low, high = sf_ts["minValue"][1]["value"], sf_ts["maxValue"][1]["value"]
    rows = read_table(table).filter(pc.equal(read_table(table).column("city"), "sf"))
    if table_type == "COPY_ON_WRITE":
        assert (low, high) == (pc.min(rows.column("ts")).as_py(), pc.max(rows.column("ts")).as_py())
    else:  # base file 1..1, log 3: the bounds hold every stored value
        assert (low, high) == (1, 3)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_filtered_reads_skip_files_by_our_column_stats(tmp_path: Path, table_type: str) -> None:
    path = tmp_path / "t"
    client = WriteClient(_create(path, table_type), _settings())
    for ts, city in ((1, "sf"), (2, "ny"), (3, "la"), (4, "sea")):
        client.insert(_rows([f"{city}{ts}", f"{city}{ts}x"], city, ts))
    table = HudiTable.open(str(path))
    everything = read_table(table, options={"hoodie.metadata.enable": "false"})
    cases = [
        ([("ts", "=", 2)], 3), ([("ts", ">=", 3)], 2),
        ([("at", "<", datetime.datetime(2024, 1, 1, 2, tzinfo=datetime.UTC))], 3),
        ([("amount", "=", decimal.Decimal("49.99"))], 3), ([("id", "=", "la3")], 3),
    ]  # fmt: skip
    for filters, skipped in cases:
        plan = plan_read(table, build_options(filters=filters))
        assert plan.skipping.stats_source == "metadata_table"
        # One file per partition: a partition its statistics prune is not counted as a file.
        left = plan.skipping.files_considered - plan.skipping.files_skipped
        assert left == 4 - skipped, (filters, plan.skipping)
        ours = read_table(table, filters=filters)
        column, op, value = filters[0]
        compare = {"=": pc.equal, ">=": pc.greater_equal, "<": pc.less}[op]
        expected = everything.filter(
            compare(everything.column(column), pa.scalar(value, everything.schema.field(column).type))
        )
        key = ["id"]
        assert (
            ours.select(["id", "ts"]).sort_by([(k, "ascending") for k in key]).to_pylist()
            == expected.select(["id", "ts"]).sort_by([(k, "ascending") for k in key]).to_pylist()
        )
        assert ours.num_rows >= 1


def test_clean_deletes_statistics_and_turning_the_option_off_drops_both_partitions(tmp_path: Path) -> None:
    from hudi_framework import open_table_service

    path = tmp_path / "t"
    settings = _settings(**{"hoodie.clean.commits.retained": "1", "hoodie.clean.automatic": "false"})
    table = _create(path, "COPY_ON_WRITE")
    client = WriteClient(table, settings)
    client.insert(_rows("ab", "sf", 1))
    first = {n for _, n in _latest_files(HudiTable.open(str(path)))}
    for ts in (2, 3):
        client.upsert(_rows("a", "sf", ts))
    cleaner, host = open_table_service(table.reload(), settings, "clean")
    cleaner.run(host, force=True)  # type: ignore[attr-defined]
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    held = set(mdt.column_stats().column("file_name").to_pylist())
    assert not (first & held), "the cleaned file's statistics are deleted"
    assert _latest_files(table) <= {("sf", n) for n in held}

    WriteClient(table, _settings(**{"hoodie.metadata.index.column.stats.enable": "false"})).upsert(_rows("b", "sf", 4))
    table = HudiTable.open(str(path))
    assert table.config.metadata_partitions == ("files",)
    assert not list((path / ".hoodie/metadata").glob("*_stats/*"))
    assert "column_stats" not in json.loads((path / ".hoodie/.index_defs/index.json").read_text())["indexDefinitions"]
    plan = plan_read(table, build_options(filters=[("ts", "=", 4)]))
    assert plan.skipping.stats_source is None


def test_an_explicit_column_list_and_file_group_count_act(tmp_path: Path) -> None:
    path = tmp_path / "t"
    client = WriteClient(_create(path, "COPY_ON_WRITE"), _settings())
    client.insert(_rows("ab", "sf", 1))  # the MDT first without column stats, then enabled with options
    settings = _settings(**{
        "hoodie.metadata.index.column.stats.column.list": "ts,id",
        "hoodie.metadata.index.column.stats.file.group.count": "3",
    })  # fmt: skip
    table = HudiTable.open(str(path))
    # Rebuild column_stats with the options: turn it off, then on.
    WriteClient(table, _settings(**{"hoodie.metadata.index.column.stats.enable": "false"})).upsert(_rows("c", "ny", 2))
    WriteClient(HudiTable.open(str(path)), settings).upsert(_rows("d", "ny", 3))
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    assert [s.file_id for s in mdt.file_slices("column_stats")] == [f"col-stats-000{i}-0" for i in range(3)]
    assert set(mdt.column_stats().column("column_name").to_pylist()) == {
        "_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "ts", "id",
    }  # fmt: skip


def test_the_mdt_compaction_keeps_the_statistics(tmp_path: Path) -> None:
    from hudi_framework.timeline.instant import Action

    path = tmp_path / "t"
    client = WriteClient(
        _create(path, "MERGE_ON_READ"), _settings(**{"hoodie.metadata.compact.max.delta.commits": "5"})
    )
    client.insert(_rows("ab", "sf", 1))
    client.insert(_rows("cd", "ny", 2))
    for ts in (3, 4, 5):
        client.upsert(_rows("a", "sf", ts))
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    (compaction,) = mdt.timeline.completed({Action.COMMIT})
    for partition, groups in (("column_stats", 2), ("partition_stats", 1)):
        bases = list((path / ".hoodie/metadata" / partition).glob(f"*_{compaction.requested_time}.hfile"))
        assert len(bases) == groups, partition
    stats = mdt.column_stats()
    files = set(zip(stats.column("partition_path").to_pylist(), stats.column("file_name").to_pylist(), strict=True))
    assert _latest_files(table) <= files
    assert stats.num_rows == len(files) * len(INDEXED)
    ts = mdt.partition_stats(["ts"]).filter(pc.equal(mdt.partition_stats(["ts"]).column("partition_path"), "sf"))
    assert stat_values(ts.column("max_value")).to_pylist() == [5]
    everything = read_table(table, options={"hoodie.metadata.enable": "false"})
    assert (
        read_table(table, filters=[("ts", "=", 2)]).num_rows
        == everything.filter(pc.equal(everything.column("ts"), 2)).num_rows
    )


def test_a_rollback_removes_the_statistics_of_the_rolled_back_write(tmp_path: Path) -> None:
    from hudi_framework.write.savepoint import rollback_latest_commit

    path = tmp_path / "t"
    client = WriteClient(_create(path, "MERGE_ON_READ"), _settings())
    client.insert(_rows("ab", "sf", 1))
    client.upsert(_rows("a", "sf", 2))
    table = HudiTable.open(str(path))
    last = table.timeline.completed()[-1].requested_time
    rollback_latest_commit(table)
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    for partition in ("files", "column_stats", "partition_stats"):
        check_in_sync(mdt, table.timeline, partition)
        assert not list((path / ".hoodie/metadata" / partition).glob(f"*{last}*")), partition
    held = set(mdt.column_stats().column("file_name").to_pylist())
    assert not [n for n in held if last in n]
    ts = mdt.partition_stats(["ts"])
    assert stat_values(ts.column("max_value")).to_pylist() == [1], "the rolled-back write's bounds are gone"
