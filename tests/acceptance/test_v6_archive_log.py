"""The v6 ``archived/`` commits log: what ``append`` writes, what ``read`` returns, and the
``hudi-fw show timeline --archived`` listing.

The files must be what Apache Hudi's v6 archiver writes (log files ``.commits_.archive.N_1-0-1`` of
AVRO_DATA blocks of at most 10 ``HoodieArchivedMetaEntry`` records, a SCHEMA header only, one record
per archived instant file) and read back to the active timeline's contents.
"""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, read_table
from hudi_framework.cli.app import app
from hudi_framework.errors import InstantMetadataError
from hudi_framework.layout.naming import LogFileName
from hudi_framework.log.archive_v6 import V6Archive
from hudi_framework.log.blocks import HeaderKey
from hudi_framework.log.framing import PREFIX_SIZE, block_length_of, decode_frame_body
from hudi_framework.read.archived import archive_directory, archived_instants
from hudi_framework.timeline.archive import ArchivedInstant, archive_format
from hudi_framework.timeline.avro_container import read_container
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.metadata import decode_commit_metadata
from tests.acceptance.archiving import archive_oldest, archived_instant


def _rows(keys: range, ts: int) -> pa.Table:
    return pa.table(
        {
            "id": [f"k{k}" for k in keys],
            "city": ["sf" if k % 2 else "ny" for k in keys],
            "ts": pa.array([ts] * len(keys), pa.int64()),
        }
    )


def _table(tmp_path: Path, *, cleaning: bool, table_type: str = "COPY_ON_WRITE") -> HudiTable:
    config = new_table_config(
        "t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
        table_type=table_type, version=6,
    )  # fmt: skip
    table = HudiTable.create(str(tmp_path / "t"), config)
    options = {"hoodie.clean.commits.retained": "2"} if cleaning else {"hoodie.clean.automatic": "false"}
    client = WriteClient(table, HudiSettings.from_hoodie_options(options, env=False))
    for step in range(8):
        client.upsert(_rows(range(step, step + 4), step))
    return table.reload()


def _blocks(data: bytes) -> list[tuple[dict[HeaderKey, str], list[dict[str, object]]]]:
    out = []
    pos = 0
    while pos < len(data):
        length = block_length_of(data[pos : pos + PREFIX_SIZE])
        frame = decode_frame_body(data[pos + PREFIX_SIZE : pos + PREFIX_SIZE + length])
        parsed = fastavro.parse_schema(json.loads(frame.header[HeaderKey.SCHEMA]))
        buf = io.BytesIO(frame.content)
        version, count = struct.unpack(">ii", buf.read(8))
        assert version == 3
        records = []
        for _ in range(count):
            buf.read(4)
            records.append(fastavro.schemaless_reader(buf, parsed, None))
        out.append((dict(frame.header), records))
        pos += PREFIX_SIZE + length
    return out


def test_append_writes_java_archive_files_and_read_returns_the_instants(tmp_path: Path) -> None:
    table = _table(tmp_path, cleaning=True)
    timeline = table.timeline
    chosen = [i for i in timeline.completed() if i.action in (Action.COMMIT, Action.CLEAN)][:5]
    records = [archived_instant(table, i) for i in chosen]
    archive = archive_format(table.storage, 1, ".hoodie/archived")
    assert isinstance(archive, V6Archive)
    archive.append(records)
    archive.append(records[:1])  # an archival retried after a crash: no duplicate on read

    names = sorted(info.name for info in table.storage.list(".hoodie/archived"))
    assert names == [".commits_.archive.1_1-0-1", ".commits_.archive.2_1-0-1"]
    assert [LogFileName.parse(n).version for n in names] == [1, 2]
    blocks = _blocks(table.storage.read(".hoodie/archived/.commits_.archive.1_1-0-1"))
    # 5 instants x (requested, inflight, completed) records, 10 per block, SCHEMA header only.
    assert [len(r) for _, r in blocks] == [10, 5]
    assert all(list(h) == [HeaderKey.SCHEMA] for h, _ in blocks)
    entries = [r for _, rs in blocks for r in rs]
    assert [(e["commitTime"], e["actionType"], e["actionState"]) for e in entries[:3]] == [
        (chosen[0].requested_time, chosen[0].action.value, s) for s in ("REQUESTED", "INFLIGHT", "COMPLETED")
    ]
    assert entries[2]["stateTransitionTime"] == chosen[0].completion_time
    assert entries[2]["hoodieCommitMetadata"] is not None

    back = archive.read()
    assert [(a.requested_time, a.action, a.completion_time) for a in back] == [
        (r.requested_time, r.action, r.completion_time) for r in records
    ]
    for original, read in zip(records, back, strict=True):
        if original.action == "commit":
            assert read.metadata is not None
            assert original.metadata is not None
            assert decode_commit_metadata(read.metadata) == decode_commit_metadata(original.metadata)
            assert read.plan is None
        else:
            assert read.metadata is not None
            assert original.metadata is not None
            assert decode_clean_metadata(read.metadata) == decode_clean_metadata(original.metadata)
            assert original.plan is not None
            assert read.plan is not None
            assert read_container(read.plan).record == read_container(original.plan).record


def test_restore_has_no_place_in_a_v6_archive(tmp_path: Path) -> None:
    table = _table(tmp_path, cleaning=False)
    archive = archive_format(table.storage, 1, ".hoodie/archived")
    with pytest.raises(InstantMetadataError, match="restore"):
        archive.append([ArchivedInstant("20240101000000000", None, "restore", None)])
    assert table.storage.list(".hoodie/archived") == []


def test_damage_is_tolerated_in_the_newest_archive_file_only(tmp_path: Path) -> None:
    table = _table(tmp_path, cleaning=False)
    commits = table.timeline.commits_timeline()
    archive = archive_format(table.storage, 1, ".hoodie/archived")
    archive.append([archived_instant(table, commits[0])])
    archive.append([archived_instant(table, commits[1])])
    newest = ".hoodie/archived/.commits_.archive.2_1-0-1"
    intact = table.storage.read(newest)
    table.storage.write(newest, intact[:-20])  # an append cut short
    assert [a.requested_time for a in archive.read()] == [commits[0].requested_time]
    oldest = ".hoodie/archived/.commits_.archive.1_1-0-1"
    table.storage.write(oldest, table.storage.read(oldest)[:-20])
    with pytest.raises(InstantMetadataError, match=r"commits_\.archive\.1"):
        archive.read()


def test_show_timeline_archived_lists_archived_then_active(tmp_path: Path) -> None:
    table = _table(tmp_path, cleaning=False)
    moved = archive_oldest(table, keep=3)
    runner = CliRunner()
    plain = json.loads(runner.invoke(app, ["show", "timeline", str(tmp_path / "t"), "--json"]).output)
    result = runner.invoke(app, ["show", "timeline", str(tmp_path / "t"), "--json", "--archived"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r.pop("archived") for r in rows] == [True] * len(moved) + [False] * len(plain)
    assert rows[len(moved) :] == plain
    assert [(r["requested"], r["action"], r["state"]) for r in rows[: len(moved)]] == [
        (i.requested_time, i.action.value, "completed") for i in moved
    ]
    args = ["show", "timeline", str(tmp_path / "t"), "--json", "--archived", "--commits"]
    commits = json.loads(runner.invoke(app, args).output)
    active = table.reload().timeline.commits_timeline()
    assert [r["requested"] for r in commits] == [i.requested_time for i in (*moved, *active)]
    assert len(commits) == 8


def test_v6_fallback_scans_fully_when_the_window_reaches_the_archive(tmp_path: Path) -> None:
    """``hoodie.datasource.read.incr.fallback.fulltablescan.enable=true``: the latest snapshot,
    filtered by commit time, as Java's v6 reader does for a begin before the active timeline."""
    table = _table(tmp_path, cleaning=False)
    commits = table.timeline.commits_timeline()
    archive_oldest(table, keep=3)
    table = table.reload()
    begin = commits[1].requested_time
    columns = ["id", "ts", "_hoodie_commit_time"]

    def rows(t: pa.Table) -> list[tuple[object, ...]]:
        return sorted(zip(*(t[c].to_pylist() for c in columns), strict=True))

    snapshot = read_table(table)
    expected = [r for r in rows(snapshot) if str(r[2]) > begin]
    on = {"hoodie.datasource.read.incr.fallback.fulltablescan.enable": "true"}
    assert rows(read_table(table, query_type="incremental", begin=begin, options=on)) == expected
    assert rows(read_table(table, query_type="incremental", begin=begin)) == expected
    assert len(expected) == 9  # k2..k10, each last written after commit 1
    assert archived_instants(table)
    assert archive_directory(table.config) == ".hoodie/archived"
