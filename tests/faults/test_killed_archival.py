"""Archival killed (SIGKILL) anywhere: while its archive file, manifest or version file is being
published (v8+ LSM history), while it appends to the v6 commits log, or between deleting the
archived instants' active files. Before recovery both readers see the table as before; the next
archival finishes the job: every commit is on the active timeline or in the archive (never both
counted twice), reads are unchanged, and hudi-rs agrees."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.archival import archive_timeline
from hudi_framework.write.client import WriteClient
from tests.faults.processes import kill_writer
from tests.faults.test_killed_writer import _hudi_rs, _ours

KEEP = {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "4", "hoodie.clean.commits.retained": "2"}
COMMITS = 10

#: (table version, where the archiver dies).
POINTS = [
    (9, r"tmp:/history/[^/]*\.parquet$"),  # the layer-0 file, whole but not published
    (9, r"tmp:/history/manifest_"),  # the file is there, no manifest names it
    (9, r"tmp:/history/_version_"),  # the new manifest is there, the version file still old
    (9, "call:hudi_storage_local.backend:LocalStorageBackend.delete@2"),  # half the active files deleted
    (6, r"tmp:/archived/\.commits_\.archive"),  # the v6 log file, whole but not published
    (6, "call:hudi_storage_local.backend:LocalStorageBackend.delete@2"),
]


def _table(path: Path, version: int) -> tuple[HudiTable, list[str]]:
    config = new_table_config(
        "t", version=version, table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(str(path), config)
    client = WriteClient(table, HudiSettings.from_hoodie_options({**KEEP, "hoodie.archive.automatic": "false"}))
    instants = []
    for n in range(COMMITS):
        rows = [{"id": f"k{(n * 3 + j) % 8}", "city": ("sf", "ny")[j % 2], "ts": n} for j in range(3)]
        instants.append(client.upsert(pa.Table.from_pylist(rows)).instant.requested_time)
    return table, instants


@pytest.mark.parametrize(("version", "park"), POINTS)
def test_an_archival_killed_anywhere_changes_nothing(tmp_path: Path, version: int, park: str) -> None:
    path = tmp_path / "t"
    table, instants = _table(path, version)
    before = _ours(path)
    assert _hudi_rs(path) == before
    shutil.copytree(path, tmp_path / "reference")
    archive_timeline(HudiTable.open(str(tmp_path / "reference")), HudiSettings.from_hoodie_options(KEEP))
    kept = {i.requested_time for i in HudiTable.open(str(tmp_path / "reference")).timeline.commits_timeline()}
    assert len(kept) < COMMITS
    kill_writer(str(path), "park", tmp_path, [], KEEP, "archive", park=park)
    assert _ours(path) == _hudi_rs(path) == before, "readers see the table as before"

    result = archive_timeline(HudiTable.open(str(path)), HudiSettings.from_hoodie_options(KEEP))
    table = HudiTable.open(str(path))
    active = {i.requested_time for i in table.timeline.commits_timeline()}
    archived = [a.requested_time for a in table.archived_instants() if a.action == "commit"]
    assert len(archived) == len(set(archived)), "an instant archived twice is read once"
    assert set(archived) | active == set(instants)
    assert not set(archived) & active
    assert active == kept, "the same instants stay active as after an archival never killed"
    assert result.archived or archived, "the recovery's archival (or the killed one) archived"
    assert _ours(path) == _hudi_rs(path) == before
