"""Archived timelines (v8+ LSM timeline) across engines.

* We write a table whose archival (``hoodie.keep.min.commits=3``, ``max=4``) moved most of its
  history into ``.hoodie/timeline/history``: Apache Hudi 1.2.0 reads it (snapshot, time travel to an
  active instant, an incremental read from one), then writes on with its own archival on and runs
  its ``archive_commits`` procedure, which appends to the LSM timeline we started; both engines read
  the same after, and our reader lists every instant either engine archived, each once.
* Apache Hudi writes a table with its archival on (and a timeline compaction batch of 3, so its
  history has a layer-1 file): our snapshot equals its, and its archived and active instants together
  are exactly the commits it made; then we write on with our archival and it reads what we wrote.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework import HudiSettings, HudiTable, read_table
from hudi_framework.timeline.lsm import LsmArchive
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, KEY, trip_rows
from tests.oracle.shared_table import SharedTable

#: Both engines' archival, as the brief of this comparison sets it.
ARCHIVAL = {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "4", "hoodie.clean.commits.retained": "2"}
#: Our metadata table compacts often, so the data table may archive past it.
OURS = HudiSettings.from_hoodie_options({**ARCHIVAL, "hoodie.metadata.compact.max.delta.commits": "3"})


def _lsm(path: Path) -> LsmArchive:
    return LsmArchive(HudiTable.open(str(path)).storage, ".hoodie/timeline/history")


def _commit_times(path: Path) -> tuple[list[str], list[str]]:
    """Requested times of the archived and of the active completed commits."""
    table = HudiTable.open(str(path))
    archived = [a.requested_time for a in table.archived_instants() if a.action in ("commit", "deltacommit")]
    return archived, [i.requested_time for i in table.timeline.commits_timeline()]


def _archived_by_us(apache_hudi: ApacheHudi, tally: Tally, path: Path) -> SharedTable:
    """A copy-on-write table of ten small upserts of ours, most of them archived by our archival."""
    table = SharedTable(apache_hudi, tally, path, "COPY_ON_WRITE", settings=OURS)
    table.create_ours()
    for n in range(10):
        table.ours("upsert", trip_rows(range(n * 3, n * 3 + 5), ts=n + 1))
    return table


@pytest.mark.oracle
def test_apache_hudi_reads_our_archived_table(apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path) -> None:
    table = _archived_by_us(apache_hudi, oracle_tally, tmp_path / "archived_by_us")
    archived, active = _commit_times(table.path)
    assert archived
    assert len(active) <= 4
    assert _lsm(table.path).latest_version() >= 1
    table.check(as_of=active[-2])  # the clean retains only the newest commits
    compare_reads(
        oracle_tally, "our archived COPY_ON_WRITE v9: incremental after an active instant",
        read_table(HudiTable.open(str(table.path)), query_type="incremental", begin=active[-2]),
        apache_hudi.read(table.path, {"hoodie.datasource.query.type": "incremental",
                                      "hoodie.datasource.read.begin.instanttime": active[-2]}),
        key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip


@pytest.mark.oracle
@pytest.mark.oracle_full
def test_apache_hudi_continues_our_archived_table(apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path) -> None:
    table = _archived_by_us(apache_hudi, oracle_tally, tmp_path / "continued_by_it")
    ours_before = {(a.requested_time, a.action) for a in _lsm(table.path).read()}
    table.their_extra = dict(ARCHIVAL)
    for n in range(10, 11):
        table.theirs("upsert", trip_rows(range(n * 3, n * 3 + 5), ts=n + 1))
    table.call("archive_commits", min_commits=3, max_commits=4, retain_commits=2, enable_metadata=False)
    table.check()
    after = _lsm(table.path).read()
    keys = [(a.requested_time, a.action) for a in after]
    assert len(keys) == len(set(keys))
    assert ours_before < set(keys), "Apache Hudi's archival appended to the LSM timeline we wrote"
    archived, active = _commit_times(table.path)
    assert len(archived) + len(active) == 11
    assert not set(archived) & set(active)


@pytest.mark.oracle
@pytest.mark.oracle_full
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_we_read_and_continue_a_table_apache_hudi_archived(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    table = SharedTable(apache_hudi, oracle_tally, tmp_path / "archived_by_it", table_type, settings=OURS)
    table.their_extra = {**ARCHIVAL, "hoodie.timeline.compaction.batch.size": "3"}
    for n in range(12):
        table.theirs("upsert", trip_rows(range(n * 3, n * 3 + 5), ts=n + 1))
    files = _lsm(table.path).manifest()
    assert any(f.layer == 1 for f in files), "its history holds a compacted (layer 1) file"
    table.check()
    archived, active = _commit_times(table.path)
    assert len(archived) + len(active) == 12
    assert len(archived) >= 6
    table.check(as_of=active[-2])  # the clean retains only the newest commits
    for n in range(12, 16):
        table.ours("upsert", trip_rows(range(n * 3, n * 3 + 5), ts=n + 1))
    table.check()
    archived, active = _commit_times(table.path)
    assert len(archived) + len(active) == 16
    keys = [(a.requested_time, a.action) for a in _lsm(table.path).read()]
    assert len(keys) == len(set(keys))
