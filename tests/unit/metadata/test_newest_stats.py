"""Partition statistics of a few partitions (read from the newest ``partition_stats`` log file when
it settles them, else from the whole slice) are the ones a read of the whole file group gives,
whichever partitions the last commits touched; when the newest file settles a set of keys."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.newest_stats import newest_log_slices, settled
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

COLUMNS = ["id", "ts", "v"]


def _rows(table: pa.Table) -> list[tuple[object, ...]]:
    return sorted(
        (r["file_name"], r["column_name"], str(r["min_value"]), str(r["max_value"]), r["value_count"])
        for r in table.to_pylist()
    )


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_newest_log_file_gives_what_the_whole_slice_gives(tmp_path: Path, table_type: str) -> None:
    config = new_table_config(
        "t", version=9, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(str(tmp_path / "t"), config)
    client = WriteClient(table, HudiSettings.from_hoodie_options({"hoodie.metadata.enable": "true"}, env=False))
    client.insert(
        pa.Table.from_pylist([{"id": f"k{i}", "city": f"c{i % 3}", "ts": 1, "v": float(i)} for i in range(9)])
    )
    # Commits touching one partition, then another, then two: the newest log file holds some only.
    for n, cities in enumerate([["c0"], ["c1"], ["c0", "c2"], ["c1"], ["c0", "c1", "c2"], ["c2"]]):
        rows = [{"id": f"k{i}", "city": c, "ts": 2 + n, "v": float(-n - i)} for i, c in enumerate(cities)]
        client.upsert(pa.Table.from_pylist(rows))
        storage = HudiTable.open(str(tmp_path / "t")).storage
        mdt = MetadataTable.open(storage, load_properties(storage))
        assert mdt is not None
        whole = mdt.partition_stats(COLUMNS)
        for partitions in (["c0"], ["c1"], ["c2"], ["c0", "c1", "c2"], cities):
            some = mdt.partition_stats(COLUMNS, partitions)
            expected = whole.filter(pa.compute.is_in(whole.column("file_name"), value_set=pa.array(partitions)))
            assert _rows(some) == _rows(expected), (n, partitions)
            assert len(some) == len(partitions) * len(COLUMNS)


def test_settled_needs_a_tight_record_or_tombstone_of_every_key() -> None:
    def rows(keys: list[str], tight: list[bool | None], deleted: list[bool | None]) -> pa.Table:
        meta = pa.StructArray.from_arrays(
            [pa.array(tight, pa.bool_()), pa.array(deleted, pa.bool_())], names=["isTightBound", "isDeleted"]
        )
        return pa.table({"key": pa.array(keys, pa.string()), "ColumnStatsMetadata": meta})

    wanted = pa.array(["a", "b"], pa.string())
    assert settled(rows(["a", "b"], [True, False], [False, True]), wanted)
    assert settled(rows(["a", "a", "b", "z"], [False, True, True, False], [False, False, None, False]), wanted)
    assert not settled(rows(["a", "b"], [True, False], [False, False]), wanted)  # b only loose: older ones merge
    assert not settled(rows(["a"], [True], [False]), wanted)  # b not in the newest file
    assert not settled(rows([], [], []), wanted)
    assert settled(rows([], [], []), pa.array([], pa.string()))


def test_a_slice_of_one_log_file_is_read_whole() -> None:
    assert newest_log_slices([]) is None
