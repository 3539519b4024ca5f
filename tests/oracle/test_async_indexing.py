"""The record-level index built by our asynchronous ``indexing`` action, against Apache Hudi 1.2.

We write a table without a record index, schedule the ``indexing`` action, upsert (the writer logs
to the partition being built), build the index while another upsert commits, and complete it. Then:

* Apache Hudi reads the table as we do (its reader, with its metadata table on by default, goes
  through our MDT, the completed ``indexing`` instant on the data timeline and the MDT delta commit
  at the indexing instant's time);
* the index holds every key in the file group Apache Hudi reads it from;
* Apache Hudi upserts with ``hoodie.metadata.record.index.enable`` and ``RECORD_INDEX``: it keeps the
  partition (no rebuild), tags from it (no key stored twice) and keeps it in step.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiTable, read_table
from hudi_framework.config import HudiSettings
from hudi_framework.lock.guard import table_lock
from hudi_framework.metadata_writer.indexing import TableLock, execute_indexing, schedule_indexing
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, KEY, SEQUENCE, apache_hudi_options, trip_rows
from tests.oracle.test_record_index import RLI_OPTIONS, _assert_index_holds, _assert_keys_once

pytestmark = pytest.mark.oracle

OURS = {"hoodie.metadata.enable": "true", "hoodie.write.concurrency.mode": "optimistic_concurrency_control"}


def _lock(path: Path) -> TableLock:
    @contextmanager
    def held() -> Iterator[object]:
        table = HudiTable.open(str(path))
        provider = table.components.table_lock(
            base_path=table.base_uri, table_name=table.config.name, storage=table.storage
        )
        with table_lock(provider, table=table.base_uri) as lock:
            yield lock

    return held


# Copy-on-write about 12 s once Apache Hudi's session is warm (default subset); merge-on-read in the full matrix.
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", pytest.param("MERGE_ON_READ", marks=pytest.mark.oracle_full)])
def test_apache_hudi_reads_and_keeps_a_record_index_built_asynchronously(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    path = tmp_path / f"async_rli_{table_type.lower()}"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        path.name, version=9, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    writer = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(OURS, env=False))
    for operation, rows in SEQUENCE:
        getattr(writer, operation)(rows)

    options = MetadataWriteOptions(enable=True, partitions={"record_index": True})
    storage = HudiTable.open(str(path)).storage
    plan = schedule_indexing(storage, "record_index", options, _lock(path))
    assert plan is not None
    writer.upsert(pa.concat_tables([trip_rows(range(10, 22), ts=6), trip_rows(range(60, 66), ts=6)]))

    def during(step: str) -> None:
        writer.upsert(trip_rows(range(66, 70), ts=7))
        writer.delete(trip_rows(range(30, 32), ts=7))

    execute_indexing(storage, plan, options, _lock(path), step=during)
    table = HudiTable.open(str(path))
    assert "record_index" in table.config.metadata_partitions
    assert table.timeline.get(plan.instant_time, Action.INDEXING).is_completed

    theirs = apache_hudi.read(path)
    _assert_index_holds(path, theirs)
    compare_reads(
        oracle_tally, f"{table_type} record index built asynchronously", read_table(table), theirs,
        key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip

    # Apache Hudi's writer with the record index keeps the partition and tags from it.
    apache_options = {**apache_hudi_options(path.name, table_type, 9), **RLI_OPTIONS}
    apache_hudi.write(
        path, pa.concat_tables([trip_rows(range(12, 16), ts=8), trip_rows(range(64, 72), ts=8)]), apache_options
    )
    table = HudiTable.open(str(path))
    assert "record_index" in table.config.metadata_partitions
    assert table.timeline.get(plan.instant_time, Action.INDEXING).is_completed
    theirs = apache_hudi.read(path)
    _assert_keys_once(theirs)
    _assert_index_holds(path, theirs)
    compare_reads(
        oracle_tally, f"{table_type} asynchronous record index, then Apache Hudi's upsert", read_table(table),
        theirs, key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
