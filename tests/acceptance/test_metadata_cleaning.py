"""The metadata table (MDT) cleans its own file slices after compactions, as Apache Hudi's MDT does.

With the data table's policy and retention raised (20 commits at least for ``KEEP_LATEST_COMMITS``,
``ceil(1.2 x versions)`` slices for ``KEEP_LATEST_FILE_VERSIONS``), at the start of a write, once 3
MDT instants completed after its latest compaction: an MDT ``clean`` instant with Apache Hudi's
plan and metadata deletes the obsolete slices; every reader (ours from the MDT, from a listing,
hudi-rs with the MDT) still reads the model, and ``validate_files`` passes after every write.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clean_plan import decode_cleaner_plan
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.client import WriteClient
from tests.acceptance.test_metadata_table_write import MDT_ON, _mdt_timeline, check_mdt


def _client(path: Path, **options: str) -> WriteClient:
    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    settings = HudiSettings.from_hoodie_options(
        {**MDT_ON, "hoodie.metadata.compact.max.delta.commits": "3", "hoodie.clean.automatic": "false", **options},
        env=False,
    )
    return WriteClient(HudiTable.create(str(path), config), settings)


def _slices(path: Path) -> list[int]:
    """Slices of each MDT ``files`` file group."""
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    return [len(group.slices) for group in mdt.file_groups("files")]


def _write(client: WriteClient, n: int) -> None:
    client.upsert(pa.Table.from_pylist([{"id": f"k{n % 7}", "city": ("sf", "ny")[n % 2], "ts": n}]))


def _model(writes: int) -> list[tuple[str, str, int]]:
    latest: dict[tuple[str, str], int] = {}
    for n in range(writes):
        latest[(f"k{n % 7}", ("sf", "ny")[n % 2])] = n
    return sorted((k, c, t) for (k, c), t in latest.items())


def test_keep_latest_commits_cleans_slices_older_than_twenty_commits(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "t"
    client = _client(path)
    cleans_seen = 0
    for n in range(34):
        _write(client, n)
        mdt = _mdt_timeline(path)
        cleans = mdt.completed({Action.CLEAN})
        if len(cleans) > cleans_seen:
            cleans_seen = len(cleans)
            # Apache Hudi's rule: 3 MDT instants completed after the latest compaction first.
            compactions = mdt.completed({Action.COMMIT})
            before = [c for c in compactions if c.requested_time < cleans[-1].requested_time]
            after = [
                i for i in mdt.completed() if before[-1].requested_time < i.requested_time < cleans[-1].requested_time
            ]
            assert len(after) >= 3
        if n % 11 == 10:
            caplog.set_level(logging.WARNING)
            assert check_mdt(path, caplog) == _model(n + 1)
    assert cleans_seen >= 2
    # A slice per compaction, and the first: the cleaned ones are gone, 20 commits' worth stay.
    made = len(_mdt_timeline(path).completed({Action.COMMIT})) + 1
    assert made >= 9
    assert _slices(path) == [7]

    mdt = _mdt_timeline(path)
    clean = mdt.completed({Action.CLEAN})[-1]
    metadata = decode_clean_metadata(mdt.read_bytes(clean), path="clean")
    plan = decode_cleaner_plan(mdt.read_bytes(clean, State.REQUESTED), path="plan")
    assert plan.policy == "KEEP_LATEST_COMMITS"
    assert plan.earliest_instant_to_retain is not None
    commits = [i for i in mdt.completed() if i.action in (Action.DELTA_COMMIT, Action.COMMIT)]
    earlier = [c for c in commits if c.requested_time < clean.requested_time]
    assert plan.earliest_instant_to_retain.timestamp == earlier[len(earlier) - 20].requested_time
    deleted = metadata.partitions["files"].success_delete_files
    assert deleted
    assert not [p for p in (path / ".hoodie" / "metadata" / "files").iterdir() if p.name in deleted]
    assert {info.file_path.rsplit("/", 1)[-1] for info in plan.files["files"]} == set(deleted)
    caplog.set_level(logging.WARNING)
    assert check_mdt(path, caplog) == _model(34)


def test_keep_latest_file_versions_keeps_ceil_one_point_two_slices(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "t"
    client = _client(
        path, **{"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": "1"}
    )
    for n in range(16):
        _write(client, n)
        # ceil(1.2 x 1) = 2 slices, plus the one the compaction after the clean may add.
        assert max(_slices(path)) <= 3
    assert _mdt_timeline(path).completed({Action.CLEAN})
    caplog.set_level(logging.WARNING)
    assert check_mdt(path, caplog) == _model(16)
