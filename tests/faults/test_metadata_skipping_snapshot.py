"""A filtered read planned from the metadata table, on local disk and on S3: the listing and the data
skipping share one MDT snapshot, opened for the table's loaded timeline, and a reloaded table opens
the MDT again, so a read never mixes a newer MDT with an older timeline or the reverse."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.read.reader import build_options, collect_plan, plan_read, read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place

#: Each insert makes new file groups (one per city), the MDT kept with column statistics.
SETTINGS = HudiSettings.from_hoodie_options(
    {"hoodie.parquet.small.file.limit": "0", "hoodie.metadata.enable": "true"}, env=False
)
ROWS = 20


def _batch(k: int) -> pa.Table:
    """Batch ``k``: ``ts`` in ``[1000 k, 1000 k + ROWS)``, so a ``ts`` range picks the batch's files."""
    return pa.table(
        {
            "id": [f"k{k:02d}-{i:03d}" for i in range(ROWS)],
            "city": ["sf" if i % 2 else "ny" for i in range(ROWS)],
            "ts": pa.array([1000 * k + i for i in range(ROWS)], pa.int64()),
        }
    )


def _client(place: Place, batches: int) -> WriteClient:
    config = new_table_config(
        "t", table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    client = WriteClient(HudiTable.create(place.uri, config, storage_options=place.options), SETTINGS)
    for k in range(batches):
        client.insert(_batch(k))
    return client


@pytest.fixture(scope="module")
def _written() -> dict[str | None, Place]:
    """The four-batch table of each storage place, written once per module."""
    return {}


@pytest.fixture
def four_batches(place: Place, _written: dict[str | None, Place]) -> HudiTable:
    """The module's four-batch table on ``place``'s storage (local disk or the module's moto server),
    written by the first test asking: the tests taking it only read it."""
    if place.endpoint not in _written:
        _client(place, 4)
        _written[place.endpoint] = place
    return _written[place.endpoint].open()


def _of_batch(k: int) -> list[tuple[str, str, Any]]:
    return [("ts", ">=", 1000 * k), ("ts", "<", 1000 * k + ROWS)]


def _ids(batches: list[pa.RecordBatch] | pa.Table) -> list[str]:
    table = batches if isinstance(batches, pa.Table) else pa.Table.from_batches(batches)
    return sorted(table.column("id").to_pylist())


def test_listing_and_skipping_share_one_metadata_table_open(four_batches: HudiTable) -> None:
    table = four_batches
    opened = mock.patch.object(MetadataTable, "open", wraps=MetadataTable.open)
    with opened as counted:
        plan = plan_read(table, build_options(filters=_of_batch(2)))
    assert counted.call_count == 1
    assert plan.skipping.stats_source == "metadata_table"
    assert plan.skipping.files_considered == 8
    assert plan.skipping.files_skipped == 6  # the two files of batch 2 are read
    assert _ids(collect_plan(plan, table.storage)) == _ids(_batch(2))
    # A second read of the same loaded table plans from the same snapshot: no second open.
    with opened as counted:
        assert _ids(read_table(table, filters=_of_batch(1))) == _ids(_batch(1))
    assert counted.call_count == 0


@pytest.mark.s3_full  # planning rules: the S3 side is the shared-table tests'
def test_a_reloaded_table_reads_the_metadata_table_again(place: Place) -> None:
    client = _client(place, 3)
    table = place.open()
    assert _ids(read_table(table, filters=_of_batch(1))) == _ids(_batch(1))
    client.insert(_batch(3))  # another writer's commit, after this table loaded its timeline
    # Until reloaded, the table reads the snapshot its timeline describes, listing and statistics alike.
    assert read_table(table, filters=_of_batch(3)).num_rows == 0
    assert _ids(read_table(table)) == _ids(pa.concat_tables([_batch(k) for k in range(3)]))
    table.reload()
    plan = plan_read(table, build_options(filters=_of_batch(3)))
    assert plan.skipping.stats_source == "metadata_table"
    assert (plan.skipping.files_considered, plan.skipping.files_skipped) == (8, 6)
    assert _ids(collect_plan(plan, table.storage)) == _ids(_batch(3))


@pytest.mark.parametrize("column", ["ts", "city"])
def test_reads_filtered_by_each_indexed_column_equal_filtering_everything(four_batches: HudiTable, column: str) -> None:
    table = four_batches
    value: Any = 2005 if column == "ts" else "sf"
    everything = read_table(table, options={"hoodie.metadata.enable": "false"})
    expected = everything.filter(pc.equal(everything.column(column), value))
    plan = plan_read(table, build_options(filters=[(column, "=", value)]))
    assert plan.skipping.stats_source == "metadata_table"
    assert _ids(collect_plan(plan, table.storage)) == _ids(expected)


@pytest.mark.s3_full  # planning rules: the S3 side is the shared-table tests'
def test_replaced_file_groups_and_a_pending_writes_files_are_not_read(
    place: Place, caplog: pytest.LogCaptureFixture
) -> None:
    client = _client(place, 4)
    sf = _batch(9).filter(pc.equal(_batch(9).column("city"), "sf"))
    client.insert_overwrite(sf)  # replaces every sf file group of batches 0-3
    table = place.open()
    # A write left pending: its requested and inflight instants, and a data file it wrote (a copy
    # of the batch-1 ny file, in a new file group), which no snapshot may read.
    pending = "29990101000000000"
    timeline = table.timeline.directory
    table.storage.write(f"{timeline}/{pending}.commit.requested", b"")
    table.storage.write(f"{timeline}/{pending}.inflight", b"")
    of_batch_1 = read_table(table, filters=_of_batch(1), columns=["_hoodie_file_name", "city"])
    (file_name,) = {r["_hoodie_file_name"] for r in of_batch_1.to_pylist() if r["city"] == "ny"}
    source = next(s for s in table.latest_file_slices() if s.base_file_name == file_name)
    name = f"00000000-0000-0000-0000-000000000001-0_0-0-0_{pending}.parquet"  # a file group of its own
    table.storage.write(f"ny/{name}", table.storage.read(source.base_file_key or ""))
    table = place.open()
    with caplog.at_level("WARNING"):
        plan = plan_read(table, build_options(filters=_of_batch(1)))
        rows = _ids(collect_plan(plan, table.storage))
    assert not [r for r in caplog.records if "instead of the metadata table" in r.getMessage()]
    assert plan.skipping.stats_source == "metadata_table"
    ny_of_batch_1 = _batch(1).filter(pc.equal(_batch(1).column("city"), "ny"))
    assert rows == _ids(ny_of_batch_1)
    assert plan.skipping.files_considered == 5  # 4 ny files, 1 new sf file
    assert plan.skipping.files_skipped == 4
