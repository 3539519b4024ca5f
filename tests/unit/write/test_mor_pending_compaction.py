"""A pending compaction is respected: writers append to the slice it opened, never to its input."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.layout.file_group import FileGroupId
from hudi_framework.layout.naming import LogFileName
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.avro_container import AvroSchemaName, write_container
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from hudi_framework.write.transaction import timeline_writer


def _batch(ids: list[str], ts: int) -> pa.Table:
    return pa.table({"id": ids, "city": ["sf"] * len(ids), "ts": [ts] * len(ids), "v": [float(ts)] * len(ids)})


@pytest.mark.parametrize("version", [6, 9])
def test_appends_go_to_the_pending_compactions_slice(version: int, tmp_path: Path) -> None:
    config = new_table_config(
        "t", version=version, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(str(tmp_path), config))
    client.insert(_batch(["a", "b"], 1))
    client.upsert(_batch(["a"], 2))
    table = client.table.reload()
    (before,) = table.latest_file_slices()
    assert before.base_file is not None
    assert len(before.log_files) == 1
    operation = {
        "baseInstantTime": before.base_instant_time,
        "deltaFilePaths": before.log_file_names,
        "dataFilePath": before.base_file_name,
        "fileId": before.file_id,
        "partitionPath": "sf",
        "metrics": {},
        "bootstrapFilePath": None,
    }
    plan = {"operations": [operation], "extraMetadata": {}, "version": 2}
    writer = timeline_writer(table.storage, table.config)
    compaction = writer.create_requested(
        Action.COMPACTION, content=write_container(AvroSchemaName.COMPACTION_PLAN, plan)
    )
    # Upsert b (an update) and c (an insert): the file group is under compaction, so it is neither a
    # small-file candidate nor rewritten; b is appended to the compaction's new slice.
    result = client.upsert(_batch(["b", "c"], 3))
    stats = {s.file_id: s for s in result.stats}
    log_stat = stats[before.file_id]
    log = LogFileName.parse((log_stat.path or "").rsplit("/", 1)[-1])
    if version >= 8:
        assert log.instant_time == result.instant.requested_time
    else:
        assert log.instant_time == compaction.requested_time  # named after the pending slice
        assert log_stat.prev_commit == compaction.requested_time
        assert log_stat.base_file == ""
    assert len(stats) == 2, "the insert went to a new file group"
    view = client.table.reload().file_system_view()
    (pending_slice,) = [
        s for s in view.latest_file_slices(merge_pending_compaction=False) if s.file_id == before.file_id
    ]
    assert pending_slice.base_instant_time == compaction.requested_time
    assert pending_slice.log_file_names == [log.name]
    merged = view.latest_file_slice(FileGroupId("sf", before.file_id))
    assert merged is not None
    assert merged.base_file == before.base_file
    assert merged.log_file_names == [*before.log_file_names, log.name]
    # The compaction's input is untouched.
    assert view.file_slices(FileGroupId("sf", before.file_id))[0].log_file_names == before.log_file_names
