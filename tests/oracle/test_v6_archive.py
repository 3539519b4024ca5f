"""A table version 6 Apache Hudi archived (its ``archived/`` commits log, ``hoodie.archivelog.folder``):
we read its archive, and our snapshot, time travel to archived instants and incremental windows
starting in the archive equal Apache Hudi's reads of the same table.

Apache Hudi writes with ``hoodie.keep.min.commits=2`` / ``max=3`` (archiving after every few writes),
cleaning off (so a time travel into the archive is allowed by both: with cleaning, both refuse it) and
its metadata table off (which would hold the archival back until its first compaction).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, read_table
from hudi_framework.read.archived import archive_directory, archived_instants
from tests.acceptance.archiving import archive_oldest
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, KEY, apache_hudi_options, trip_rows

WRITES = 5


def _its_archived_table(
    apache_hudi: ApacheHudi, path: Path, table_type: str, writes: int = WRITES, **extra: str
) -> HudiTable:
    options = {
        **apache_hudi_options(f"v6arch_{table_type.lower()}", table_type, 6),
        "hoodie.keep.min.commits": "2",
        "hoodie.keep.max.commits": "3",
        "hoodie.clean.automatic": "false",
        "hoodie.metadata.enable": "false",
        **extra,
    }
    for step in range(writes):
        apache_hudi.write(path, trip_rows(range(step * 3, step * 3 + 6), ts=step + 1), options, "upsert")
    return HudiTable.open(str(path))


def _reads(apache_hudi: ApacheHudi, tally: Tally, path: Path, label: str, *, windows: int = 1) -> None:
    table = HudiTable.open(str(path))
    # Its writes (a compaction completes as a commit too, and is archived with its plan).
    archived = [a for a in archived_instants(table) if a.action in ("commit", "deltacommit")]
    active = table.timeline.commits_timeline()
    assert len(archived) >= 2, "Apache Hudi archived too little for the comparison to mean anything"
    commits = [a.requested_time for a in archived] + [i.requested_time for i in active]

    def both(what: str, options: dict[str, str]) -> None:
        compare_reads(
            tally, f"{label} {what}", read_table(table, options=options), apache_hudi.read(path, options),
            key=KEY, data_columns=DATA_COLUMNS,
        )  # fmt: skip

    both("snapshot", {})
    for index in (0, len(archived) - 1):
        both(f"as of archived commit {index}", {"as.of.instant": commits[index]})
    incremental = {"hoodie.datasource.query.type": "incremental"}
    for first, last in ((0, len(archived) + 1), (1, len(commits) - 1))[:windows]:
        for fallback in ("true", "false"):
            window = {
                **incremental,
                "hoodie.datasource.read.begin.instanttime": commits[first],
                "hoodie.datasource.read.end.instanttime": commits[last],
                "hoodie.datasource.read.incr.fallback.fulltablescan.enable": fallback,
            }
            both(f"incremental ({first}, {last}] fallback {fallback}", window)


@pytest.mark.oracle
def test_we_read_the_archive_of_its_copy_on_write_table(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    table = _its_archived_table(apache_hudi, tmp_path / "cow", "COPY_ON_WRITE")
    assert table.storage.list(archive_directory(table.config))
    _reads(apache_hudi, oracle_tally, tmp_path / "cow", "v6 cow archived")


@pytest.mark.oracle_full
def test_we_read_the_archive_of_its_merge_on_read_table(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    # Its archiver keeps the delta commits a compaction still needs: compact every 2 of them.
    compaction = {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "2"}
    table = _its_archived_table(apache_hudi, tmp_path / "mor", "MERGE_ON_READ", 9, **compaction)
    assert table.storage.list(archive_directory(table.config))
    _reads(apache_hudi, oracle_tally, tmp_path / "mor", "v6 mor archived", windows=2)


@pytest.mark.oracle_full
def test_it_reads_our_archive_and_keeps_archiving_into_it(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    """We write a v6 table and archive its oldest commits into our ``archived/`` log; Apache Hudi's
    reads (snapshot, time travel to an archived commit, incremental windows from the archive) equal
    ours, then its writes archive more into the same log, and both still agree."""
    path = tmp_path / "ours"
    config = new_table_config(
        "v6arch_ours", table_type="COPY_ON_WRITE", version=6,
        record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(str(path), config)
    settings = HudiSettings.from_hoodie_options(
        {"hoodie.clean.automatic": "false", "hoodie.metadata.enable": "false"}, env=False
    )
    client = WriteClient(table, settings)
    for step in range(6):
        client.upsert(trip_rows(range(step * 3, step * 3 + 6), ts=step + 1))
    moved = archive_oldest(table, keep=3)
    assert len(moved) == 3
    _reads(apache_hudi, oracle_tally, path, "v6 cow we archived", windows=2)
    options = {
        **apache_hudi_options("v6arch_ours", "COPY_ON_WRITE", 6),
        "hoodie.keep.min.commits": "2",
        "hoodie.keep.max.commits": "3",
        "hoodie.clean.automatic": "false",
        "hoodie.metadata.enable": "false",
    }
    for step in range(6, 8):
        apache_hudi.write(path, trip_rows(range(step * 3, step * 3 + 6), ts=step + 1), options, "upsert")
    table = HudiTable.open(str(path))
    assert len(table.storage.list(archive_directory(table.config))) > 1, "its archiver appended no file"
    assert len(archived_instants(table)) > len(moved)
    _reads(apache_hudi, oracle_tally, path, "v6 cow it archived on ours", windows=2)
