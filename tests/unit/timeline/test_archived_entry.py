"""The v6 archive codec on files Apache Hudi 1.2.0 wrote (tests/fixtures/v6-archive): what ``read``
returns, and that our records for the same instants carry what Java's carry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hudi_framework.log.archive_v6 import V6Archive
from hudi_framework.testing import MemoryStorageBackend
from hudi_framework.timeline.archived_entry import entries_of
from hudi_framework.timeline.avro_container import read_container
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.metadata import decode_commit_metadata

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "v6-archive"
NAMES = (".commits_.archive.1_1-0-1", ".commits_.archive.2_1-0-1", ".commits_.archive.3_1-0-1")


def _java_archive() -> V6Archive:
    storage = MemoryStorageBackend()
    for name in NAMES:
        storage.write(f".hoodie/history/{name}", (FIXTURES / name).read_bytes())
    return V6Archive(storage, ".hoodie/history")


def _java_records() -> list[dict[str, Any]]:
    archive = _java_archive()
    return [r for name in NAMES for r in archive._file_records(f".hoodie/history/{name}", newest=False)]


def test_java_archive_reads_as_completed_instants() -> None:
    instants = _java_archive().read()
    assert [i.action for i in instants] == ["deltacommit", "deltacommit", "deltacommit", "clean", "clean"]
    assert [i.requested_time for i in instants] == sorted(i.requested_time for i in instants)
    for instant in instants:
        assert instant.completion_time is not None
        assert instant.completion_time > instant.requested_time
        assert instant.metadata is not None
        if instant.action == "deltacommit":
            metadata = decode_commit_metadata(instant.metadata)
            assert metadata.operation_type == ("INSERT" if instant is instants[0] else "UPSERT")
            assert all(s.path for stats in (metadata.partition_to_write_stats or {}).values() for s in stats)
            assert instant.plan is None
        else:
            clean = decode_clean_metadata(instant.metadata)
            assert clean.partitions
            assert instant.plan is not None
            assert read_container(instant.plan).short_name == "HoodieCleanerPlan"


def test_our_records_carry_what_javas_carry() -> None:
    java = _java_records()
    for instant in _java_archive().read():
        ours = entries_of(instant)
        theirs = [r for r in java if r["commitTime"] == instant.requested_time]
        assert [(r["actionType"], r["actionState"]) for r in ours] == [
            (r["actionType"], r["actionState"]) for r in theirs
        ]
        our_done, their_done = ours[-1], theirs[-1]
        assert our_done["stateTransitionTime"] == their_done["stateTransitionTime"]
        if instant.action == "deltacommit":
            # Read back as JSON and converted again, the commit metadata is Java's record exactly.
            assert our_done["hoodieCommitMetadata"] == their_done["hoodieCommitMetadata"]
        else:
            assert our_done["hoodieCleanMetadata"] == their_done["hoodieCleanMetadata"]
            assert ours[0]["hoodieCleanerPlan"] == theirs[0]["hoodieCleanerPlan"]
