"""A heartbeat must not outlive the failed write it belonged to.

Found by the fault campaign (``kill-local``, ``rollback_failed-mor-v9``, campaign seed 4242, trial
seed 1554942585: SIGKILL while the next writer deleted the markers of the failed write it had just
rolled back): the failed instant was gone from the timeline, its heartbeat stayed, and no later
writer removed the heartbeat of an instant the timeline holds in no state. Rollbacks now delete the
heartbeat before the instant; whatever order a dead process left them in, the next single writer
(EAGER) removes such a heartbeat. Here the state is made directly: the failed write's instant
files are removed, its heartbeat is not.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.faults.processes import kill_writer


class _CrashError(Exception):
    """Stands in for the next writer dying inside its rollback of the failed write."""


def _batch(ids: list[str], ts: int) -> pa.Table:
    return pa.table({"id": ids, "city": ["sf"] * len(ids), "ts": [ts] * len(ids)})


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 6), ("MERGE_ON_READ", 9)])
def test_heartbeat_of_a_rolled_back_write_is_removed_by_the_next_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table_type: str, version: int
) -> None:
    path = tmp_path / "t"
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    WriteClient(HudiTable.create(str(path), config)).insert(_batch(["a", "b"], 1))
    rows = [{"id": "c", "city": "sf", "ts": 2}]
    kill_writer(str(path), "before", tmp_path, rows)  # a writer dies before completing its instant
    (dead,) = HudiTable.open(str(path)).timeline.pending()
    heartbeat = path / ".hoodie" / ".heartbeat" / dead.requested_time
    assert heartbeat.is_file()

    for timeline_dir in (path / ".hoodie", path / ".hoodie" / "timeline"):
        for instant_file in timeline_dir.glob(f"{dead.requested_time}*"):
            instant_file.unlink()
    assert dead.requested_time not in {i.requested_time for i in HudiTable.open(str(path)).timeline.instants}
    assert heartbeat.is_file()
    WriteClient(HudiTable.open(str(path))).upsert(_batch(["e"], 4))
    assert not heartbeat.exists(), "the heartbeat of the rolled-back write is removed"
