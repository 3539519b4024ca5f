"""``column_stats`` and ``partition_stats`` on table version 8, in the layout Apache Hudi writes there
(index version V1, as Apache Hudi 1.0 and Apache Hudi 1.2 writing a version-8 table do): values in their
logical wrapper (``DateWrapper`` days, ``DecimalWrapper`` at scale 15), timestamps as the raw
``LongWrapper`` number, no ``valueType``; ``index.json`` says ``V1``. Filtered reads skip files and prune
partitions by them, and equal reads that skip nothing; hudi-rs reads the table the same."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.read.reader import build_options, plan_read, read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

SETTINGS = HudiSettings.from_hoodie_options(
    {"hoodie.parquet.small.file.limit": "0", "hoodie.metadata.enable": "true"}, env=False
)
UTC = datetime.UTC
#: The member of the metadata record's min/max union each wrapper is (the reader schema's order).
MEMBERS = {"BooleanWrapper": 0, "IntWrapper": 1, "LongWrapper": 2, "DoubleWrapper": 4, "StringWrapper": 6,
           "DateWrapper": 7, "DecimalWrapper": 8}  # fmt: skip


def _rows(keys: range, region: str) -> pa.Table:
    return pa.table(
        {
            "id": [f"{region}-{i:03d}" for i in keys],
            "region": [region] * len(keys),
            "qty": pa.array(list(keys), pa.int32()),
            "ts": pa.array(list(keys), pa.int64()),
            "fare": pa.array([i * 1.5 for i in keys], pa.float64()),
            "day": pa.array([datetime.date(2024, 1, 1) + datetime.timedelta(days=i) for i in keys], pa.date32()),
            "at": pa.array(
                [datetime.datetime(2024, 1, 1, tzinfo=UTC) + datetime.timedelta(hours=i) for i in keys],
                pa.timestamp("us", "UTC"),
            ),
            "price": pa.array([Decimal(i) / 4 for i in keys], pa.decimal128(10, 2)),
            "flag": pa.array([i % 3 == 0 for i in keys]),
        }
    )


def _v8_table(path: Path, table_type: str = "COPY_ON_WRITE") -> HudiTable:
    config = new_table_config(
        "t8", table_type=table_type, record_key_fields=["id"], partition_fields=["region"],
        ordering_fields=["ts"], version=8,
    )  # fmt: skip
    client = WriteClient(HudiTable.create(str(path), config), SETTINGS)
    for n, region in enumerate(("a", "b", "c")):
        client.insert(_rows(range(100 * n, 100 * n + 10), region))
        client.insert(_rows(range(100 * n + 50, 100 * n + 60), region))
    if table_type == "MERGE_ON_READ":  # log files (and their statistics) in one partition
        client.upsert(_rows(range(100, 103), "b").set_column(3, "ts", pa.array([7, 8, 9], pa.int64())))
    return HudiTable.open(str(path))


def test_a_version_8_table_keeps_column_and_partition_stats_in_the_v1_layout(tmp_path: Path) -> None:
    table = _v8_table(tmp_path / "t")
    assert table.config.version == 8
    assert {"column_stats", "partition_stats"} <= set(table.config.metadata_partitions)
    definitions = json.loads((tmp_path / "t" / ".hoodie" / ".index_defs" / "index.json").read_text())
    assert definitions["indexDefinitions"]["column_stats"]["version"] == "V1"
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    wrappers = {
        "flag": "BooleanWrapper", "qty": "IntWrapper", "ts": "LongWrapper", "fare": "DoubleWrapper",
        "id": "StringWrapper", "day": "DateWrapper", "price": "DecimalWrapper", "at": "LongWrapper",
    }  # fmt: skip
    for partition in ("column_stats", "partition_stats"):
        stats = mdt._read_slices(mdt.file_slices(partition), ["key", "ColumnStatsMetadata"]).rows
        records = stats.column("ColumnStatsMetadata").to_pylist()
        assert records
        for record in records:
            assert record["valueType"] is None, record
            assert record["isTightBound"] is (partition == "partition_stats")
            wrapper = wrappers.get(record["columnName"])
            if wrapper is None:
                continue
            for bound in (record["minValue"], record["maxValue"]):
                (used,) = [k for k, v in bound.items() if v is not None]
                assert used == f"member{MEMBERS[wrapper]}", (record["columnName"], bound)
        by_column = {(r["fileName"], r["columnName"]): r for r in records}
        if partition == "partition_stats":
            b = by_column[("b", "price")]
            assert b["minValue"]["member8"]["value"] == Decimal("25.000000000000000")  # 100 / 4, at scale 15
            assert b["maxValue"]["member8"]["value"] == Decimal("39.750000000000000")
            day = by_column[("b", "day")]
            assert day["minValue"]["member7"]["value"] == (datetime.date(2024, 4, 10) - datetime.date(1970, 1, 1)).days
            at = by_column[("b", "at")]
            first = datetime.datetime(2024, 1, 1, tzinfo=UTC) + datetime.timedelta(hours=100)
            assert at["minValue"]["member2"]["value"] == int(first.timestamp()) * 1_000_000


FILTERS: list[tuple[str, str, Any]] = [
    ("qty", "=", 205),
    ("ts", ">", 255),
    ("fare", "<", 10.0),
    ("id", "=", "b-150"),
    ("day", "=", datetime.date(2024, 1, 1) + datetime.timedelta(days=155)),
    ("price", ">=", Decimal("62.5")),
    ("flag", "=", True),
]


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_version_8_reads_skip_by_the_statistics_and_equal_reads_that_skip_nothing(
    tmp_path: Path, table_type: str
) -> None:
    table = _v8_table(tmp_path / "t", table_type)
    for column, op, value in FILTERS:
        filters = [(column, op, value)]
        plan = plan_read(table, build_options(filters=filters)).skipping
        assert plan.stats_source == "metadata_table"
        if column not in ("flag", "price"):  # each partition holds both booleans; decimals do not prune
            assert plan.partitions_pruned_by_stats >= 1, column
            if table_type == "COPY_ON_WRITE":  # merge-on-read: b's slice with a log file is not skipped
                assert plan.files_skipped >= 1, column
        ours = read_table(table, filters=filters)
        plain = read_table(table, filters=filters, options={"hoodie.enable.data.skipping": "false"})
        assert ours.num_rows > 0
        assert ours.sort_by("id").equals(plain.sort_by("id"))


def test_hudi_rs_reads_a_version_8_table_with_statistics_the_same(tmp_path: Path) -> None:
    from tests.tools.hudi_rs_check import build_table, canonical_hash, read_via_hudi_rs

    path = tmp_path / "t"
    _v8_table(path)
    with_mdt = canonical_hash(read_via_hudi_rs(build_table(str(path), {"hoodie.metadata.enable": "true"})))
    without = canonical_hash(read_via_hudi_rs(build_table(str(path), {"hoodie.metadata.enable": "false"})))
    ours = canonical_hash(read_table(HudiTable.open(str(path))))
    assert with_mdt == without == ours
