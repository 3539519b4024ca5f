"""Archival of v8/v9 tables into the LSM timeline, on local disk and on S3.

Many small commits with ``hoodie.keep.min.commits=5`` / ``max=8``: the active timeline stays within
the bound, every instant written is either active or archived (with its commit metadata readable),
and snapshot reads equal the model of the rows written and what hudi-rs reads. A crash after the
archive was written but before the active files were deleted (or half way through deleting them)
changes nothing a reader sees, and the next archival finishes the job without duplicates.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.config import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.lsm import LsmArchive
from hudi_framework.timeline.metadata import decode_commit_metadata
from hudi_framework.write import archival
from hudi_framework.write.archival import archive_timeline
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place, Rows, hudi_rs, rows_of

OPTIONS = {
    "hoodie.keep.min.commits": "5",
    "hoodie.keep.max.commits": "8",
    "hoodie.clean.commits.retained": "4",
    # The data table archives only what the metadata table compacted past: compact it often.
    "hoodie.metadata.compact.max.delta.commits": "4",
}
CITIES = ("sf", "ny", "la")


class Writer:
    """Upserts small batches (keys rotate over three partitions; a fourth is written once) and keeps the model."""

    def __init__(self, place: Place, table_type: str, version: int, options: dict[str, str]) -> None:
        config = new_table_config(
            "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
            ordering_fields=["ts"],
        )  # fmt: skip
        self.place = place
        self.settings = HudiSettings.from_hoodie_options(options)
        table = HudiTable.create(place.uri, config, storage_options=place.options)
        self.client = WriteClient(table, self.settings)
        self.rows: dict[str, tuple[str, str, int]] = {}
        self.instants: list[str] = []

    def upsert(self, n: int) -> None:
        keys = [(n * 3 + j) % 50 for j in range(4)]
        rows = [(f"k{k:03d}", CITIES[k % 3], n) for k in keys]
        if n == 0:  # a partition never written again: its only file slice is an archived commit's
            rows.append(("k-old", "old", 0))
        batch = pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows], "ts": [r[2] for r in rows]})
        result = self.client.upsert(batch)
        assert not result.post_commit_failures, result.post_commit_failures
        self.rows.update({r[0]: r for r in rows})
        self.instants.append(result.instant.requested_time)

    @property
    def model(self) -> Rows:
        return sorted(self.rows.values())

    def table(self) -> HudiTable:
        return self.place.open()


def _lsm(table: HudiTable) -> LsmArchive:
    return LsmArchive(table.storage, table.archive_directory)


@pytest.mark.s3_cases(version=9, table_type="MERGE_ON_READ")  # the other layouts run on local disk
@pytest.mark.matrix  # on local disk each version and table type by default, every layout with HUDI_TEST_SLOW=1
@pytest.mark.parametrize(
    ("version", "table_type"), [(9, "MERGE_ON_READ"), (9, "COPY_ON_WRITE"), (8, "MERGE_ON_READ"), (8, "COPY_ON_WRITE")]
)
def test_many_commits_keep_the_active_timeline_within_max(place: Place, version: int, table_type: str) -> None:
    commits = 60 if place.endpoint is None else 20
    writer = Writer(place, table_type, version, OPTIONS)
    for n in range(commits):
        writer.upsert(n)
    table = writer.table()
    active = table.timeline.commits_timeline()
    assert len(active) <= 8
    archived = table.archived_instants()
    archived_writes = {a.requested_time for a in archived if a.action in ("commit", "deltacommit")}
    assert archived_writes | {i.requested_time for i in active} >= set(writer.instants)
    assert archived_writes & {i.requested_time for i in active} == set()
    for entry in archived:
        if entry.action in ("commit", "deltacommit"):
            assert entry.metadata is not None
            assert entry.completion_time is not None
            assert decode_commit_metadata(entry.metadata).partition_to_write_stats
    assert rows_of(read_table(table)) == writer.model
    assert hudi_rs(place.uri, place.endpoint) == writer.model
    # The metadata table's own timeline is archived too.
    mdt = table.metadata_table()
    assert mdt is not None
    assert LsmArchive(table.storage, f"{mdt.timeline.directory}/history").read()


def test_automatic_off_keeps_everything_until_hudi_fw_archive(place: Place) -> None:
    if place.endpoint is not None:
        pytest.skip("the CLI reads the same storage; local disk is enough")
    writer = Writer(place, "COPY_ON_WRITE", 9, {**OPTIONS, "hoodie.archive.automatic": "false"})
    for n in range(14):
        writer.upsert(n)
    assert len(writer.table().timeline.commits_timeline()) == 14
    assert writer.table().archived_instants() == []
    runner = CliRunner()
    options = [arg for key, value in OPTIONS.items() for arg in ("-o", f"{key}={value}")]
    result = runner.invoke(app, ["archive", place.uri, *options, "--json"])
    assert result.exit_code == 0, result.output
    moved = json.loads(result.output)
    data = [r["requested"] for r in moved if r["timeline"] == "data" and r["action"] == "commit"]
    assert data
    assert data == writer.instants[: len(data)]
    table = writer.table()
    assert len(table.timeline.commits_timeline()) == 14 - len(data)
    shown = runner.invoke(app, ["show", "timeline", place.uri, "--archived", "--json"])
    assert shown.exit_code == 0, shown.output
    listed = json.loads(shown.output)
    # The archived instants first (flagged), then the active ones.
    assert [r["requested"] for r in listed if r["archived"] and r["action"] == "commit"] == data
    assert [r["requested"] for r in listed if not r["archived"] and r["action"] == "commit"] == writer.instants[
        len(data) :
    ]
    assert all(r["state"] == "completed" and r["completed"] for r in listed if r["archived"])
    assert rows_of(read_table(table)) == writer.model


def _writer_due(place: Place) -> Writer:
    """A table with 12 commits and archival off, so one archival has work."""
    writer = Writer(place, "MERGE_ON_READ", 9, {**OPTIONS, "hoodie.archive.automatic": "false"})
    for n in range(12):
        writer.upsert(n)
    return writer


def test_crash_after_the_archive_is_written_changes_nothing(place: Place, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = _writer_due(place)
    before = rows_of(read_table(writer.table()))
    active_before = writer.table().timeline.instants
    original = LsmArchive.append

    def append_then_die(self: LsmArchive, instants: Any) -> None:
        original(self, instants)
        raise RuntimeError("killed after the archive was written")

    monkeypatch.setattr(LsmArchive, "append", append_then_die)
    with pytest.raises(RuntimeError, match="killed"):
        archive_timeline(writer.table(), writer.settings)
    monkeypatch.setattr(LsmArchive, "append", original)
    table = writer.table()
    assert table.timeline.instants == active_before  # nothing left the active timeline
    assert _lsm(table).read()  # the archive holds them...
    assert table.archived_instants() == []  # ...but the active ones win
    assert rows_of(read_table(table)) == before == writer.model
    assert hudi_rs(place.uri, place.endpoint) == writer.model
    result = archive_timeline(table, writer.settings)
    assert result.archived
    table = writer.table()
    archived = _lsm(table).read()
    keys = [(a.requested_time, a.action) for a in archived]
    assert len(keys) == len(set(keys))
    assert {a.requested_time for a in result.archived} <= {a.requested_time for a in archived}
    assert rows_of(read_table(table)) == writer.model


def test_crash_while_deleting_active_files_changes_nothing(place: Place, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = _writer_due(place)
    table = writer.table()
    storage = table.storage
    deleted: list[str] = []
    original = type(storage).delete

    def delete_then_die(self: Any, key: str, *, missing_ok: bool = True) -> None:
        # Die after the pending files and the first two completed instant files are gone.
        completed = key.endswith(("commit", "clean")) and "_" in key.rsplit("/", 1)[-1]
        if completed and sum(1 for k in deleted if "_" in k.rsplit("/", 1)[-1]) == 2:
            raise RuntimeError("killed while deleting the active files")
        original(self, key, missing_ok=missing_ok)
        deleted.append(key)

    monkeypatch.setattr(type(storage), "delete", delete_then_die)
    with pytest.raises(RuntimeError, match="killed"):
        archive_timeline(table, writer.settings)
    monkeypatch.setattr(type(storage), "delete", original)
    table = writer.table()
    assert rows_of(read_table(table)) == writer.model
    assert hudi_rs(place.uri, place.endpoint) == writer.model
    # Every instant is still completed somewhere: active (with or without its pending files) or archived.
    active = {i.requested_time for i in table.timeline.completed()}
    archived = {a.requested_time for a in table.archived_instants()}
    assert set(writer.instants) <= active | archived
    assert not table.timeline.pending()
    archive_timeline(table, writer.settings)
    table = writer.table()
    assert len(table.timeline.commits_timeline()) <= 8
    assert rows_of(read_table(table)) == writer.model
    keys = [(a.requested_time, a.action) for a in _lsm(table).read()]
    assert len(keys) == len(set(keys))


def test_clean_and_rollback_instants_are_archived_with_their_commits(place: Place) -> None:
    if place.endpoint is not None:
        pytest.skip("the rule reads only the timeline; local disk is enough")
    writer = Writer(place, "COPY_ON_WRITE", 9, OPTIONS)
    for n in range(20):
        writer.upsert(n)
    archived = writer.table().archived_instants()
    actions = {a.action for a in archived}
    assert {Action.COMMIT.value, Action.CLEAN.value} <= actions
    cleans = [a for a in archived if a.action == "clean"]
    assert all(c.plan for c in cleans)  # the clean plan (requested file) is kept with it
    newest_commit = max(a.requested_time for a in archived if a.action == "commit")
    assert all(c.requested_time < newest_commit for c in cleans)


def test_timeline_compaction_batch_size_acts(place: Place) -> None:
    if place.endpoint is not None:
        pytest.skip("the LSM format runs on S3 in the other cases; local disk is enough")
    writer = Writer(place, "COPY_ON_WRITE", 9, {**OPTIONS, "hoodie.timeline.compaction.batch.size": "2"})
    for n in range(24):
        writer.upsert(n)
    table = writer.table()
    files = _lsm(table).manifest()
    assert any(f.layer >= 1 for f in files)  # two layer-0 files were merged into the next layer
    assert sum(1 for f in files if f.layer == 0) < 2
    assert rows_of(read_table(table)) == writer.model
    keys = [(a.requested_time, a.action) for a in _lsm(table).read()]
    assert len(keys) == len(set(keys))


def test_archival_holds_the_table_lock_under_optimistic_concurrency(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    if place.endpoint is not None:
        pytest.skip("the lock is the in-process provider; local disk is enough")
    occ = {
        "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
        "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.InProcessLockProvider",
        "hoodie.archive.automatic": "false",
    }
    writer = Writer(place, "COPY_ON_WRITE", 9, {**OPTIONS, **occ})
    for n in range(12):
        writer.upsert(n)
    held: list[bool] = []
    original = archival.table_lock

    @contextlib.contextmanager
    def watched(*args: Any, **kwargs: Any) -> Iterator[Any]:
        with original(*args, **kwargs) as lock:
            held.append(True)
            yield lock

    original_move = archival._move

    def move(*args: Any, **kwargs: Any) -> None:
        assert held, "archived without the table lock"
        original_move(*args, **kwargs)

    monkeypatch.setattr(archival, "table_lock", watched)
    monkeypatch.setattr(archival, "_move", move)
    assert archive_timeline(writer.table(), writer.settings).archived
    assert rows_of(read_table(writer.table())) == writer.model


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_v6_tables_archive_into_the_commits_log(tmp_path: Path, table_type: str) -> None:
    """Table version 6: the same archiver appends to the ``archived/`` commits log."""
    place = Place(str(tmp_path / "t"), None)
    writer = Writer(place, table_type, 6, OPTIONS)
    for n in range(40):
        writer.upsert(n)
    table = writer.table()
    active = table.timeline.commits_timeline()
    assert len(active) <= 8
    assert table.archive_directory == ".hoodie/archived"
    assert any(info.name.startswith(".commits_.archive.") for info in table.storage.list(".hoodie/archived"))
    archived = table.archived_instants()
    archived_writes = {a.requested_time for a in archived if a.action in ("commit", "deltacommit")}
    assert archived_writes | {i.requested_time for i in active} >= set(writer.instants)
    assert archived_writes & {i.requested_time for i in active} == set()
    for entry in archived:
        if entry.action in ("commit", "deltacommit"):
            assert entry.metadata is not None
            assert decode_commit_metadata(entry.metadata).partition_to_write_stats
    assert rows_of(read_table(table)) == writer.model
    assert hudi_rs(place.uri, place.endpoint) == writer.model
