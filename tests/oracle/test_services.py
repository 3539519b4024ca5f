"""Apache Hudi's table services on tables either engine wrote, and ours on its tables; both engines read.

Its services run through its Spark SQL procedures (``run_clean``, ``run_clustering``,
``archive_commits``, ``create_savepoint`` + ``rollback_to_savepoint``, ``rollback_to_instant``); ours
through ``open_table_service``. After every service both engines' snapshot reads (merge-on-read: also
read-optimized) are compared row for row, and the table is written on again by the other engine.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, read_table
from hudi_framework.errors import CleanedInstantError
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally
from tests.oracle.sequence import EXPECTED_TS, SEQUENCE, trip_rows
from tests.oracle.shared_table import SharedTable, ts_by_key

TABLE_TYPES = ("COPY_ON_WRITE", "MERGE_ON_READ")
WRITERS = ("apache_hudi", "hudi_framework")
#: Every case runs on both table types, on a table each engine wrote.
pytestmark = [
    pytest.mark.oracle,
    pytest.mark.oracle_full,
    pytest.mark.parametrize("writer", WRITERS),
    pytest.mark.parametrize("table_type", TABLE_TYPES),
]


#: What the common sequence and then Apache Hudi's upsert of k030-k039 with ts 6 leave.
AFTER_ITS_UPSERT = {**EXPECTED_TS, **{f"k{i:03d}": 6 for i in range(30, 40)}}


def _written(
    apache_hudi: ApacheHudi, tally: Tally, path: Path, table_type: str, writer: str, *, its_upsert: bool = False
) -> SharedTable:
    """The table after the common sequence (insert, upsert, delete, upsert), written by ``writer``;
    ``its_upsert``: then Apache Hudi upserts k030-k039 with ts 6 (see ``AFTER_ITS_UPSERT``)."""
    table = SharedTable(apache_hudi, tally, path, table_type)
    if writer == "hudi_framework":
        table.create_ours()
    for operation, rows in SEQUENCE:
        if writer == "hudi_framework":
            table.ours(operation, rows)
        else:
            table.theirs(operation, rows)
    if its_upsert:
        table.theirs("upsert", trip_rows(range(30, 40), ts=6))
    return table


def _completed(path: Path) -> list[tuple[str, str, str | None]]:
    """(requested time, action, completion time) of every completed instant of the active timeline."""
    timeline = HudiTable.open(str(path)).timeline
    return [(i.requested_time, i.action.value, i.completion_time) for i in timeline.completed()]


def _upsert_and_check(
    table: SharedTable, writer: str, keys: range, ts: int, expected: dict[str, int], *, metadata_off: bool = True
) -> None:
    """``writer`` (``we``/``it``) upserts ``keys`` with ``ts``; both engines read the same, and ``expected``."""
    write = table.ours if writer == "we" else table.theirs
    write("upsert", trip_rows(keys, ts=ts))
    expected.update({f"k{i:03d}": ts for i in keys})
    assert ts_by_key(table.check(metadata_off=metadata_off)) == expected


def test_apache_hudi_cleans(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, writer: str
) -> None:
    """Its cleaner (keeping one commit) deletes old slices; both read the same; we upsert and clean after it."""
    table = _written(apache_hudi, oracle_tally, tmp_path / "cleaned", table_type, writer, its_upsert=True)
    files_before = {p.name for p in table.path.rglob("*") if p.is_file() and ".hoodie" not in p.parts}
    cleaned = table.call("run_clean", retain_commits=1)
    assert len(cleaned) == 1
    assert int(cleaned[0]["total_files_deleted"] or 0) > 0
    files_after = {p.name for p in table.path.rglob("*") if p.is_file() and ".hoodie" not in p.parts}
    assert files_after < files_before
    assert "clean" in [action for _, action, _ in _completed(table.path)]
    expected = dict(AFTER_ITS_UPSERT)
    assert ts_by_key(table.check(metadata_off=True)) == expected

    table.ours("upsert", trip_rows(range(0, 10), ts=7))
    ours = HudiSettings.from_hoodie_options({"hoodie.clean.commits.retained": "1"})
    assert table.our_service("clean", ours) is not None
    expected.update({f"k{i:03d}": 7 for i in range(10)})
    assert ts_by_key(table.check(metadata_off=True)) == expected
    _upsert_and_check(table, "it", range(45, 50), 8, expected, metadata_off=False)


def test_we_clean_apache_hudi_tables(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, writer: str
) -> None:
    """Our cleaner on a table (keeping one commit); both read the same; it upserts and cleans after us."""
    table = _written(apache_hudi, oracle_tally, tmp_path / "we_clean", table_type, writer, its_upsert=True)
    ours = HudiSettings.from_hoodie_options({"hoodie.clean.commits.retained": "1"})
    assert table.our_service("clean", ours) is not None
    expected = dict(AFTER_ITS_UPSERT)
    assert ts_by_key(table.check(metadata_off=True)) == expected
    _upsert_and_check(table, "it", range(0, 10), 7, expected)
    table.call("run_clean", retain_commits=1)
    _upsert_and_check(table, "we", range(45, 50), 8, expected)


def _replaced_groups(path: Path) -> set[tuple[str, str]]:
    return set(HudiTable.open(str(path)).timeline.replaced_file_groups())


def _file_groups(rows: pa.Table) -> set[str]:
    # Base and log file names start with the file id: <fileId>_<token>_<instant>.parquet, .<fileId>_<instant>.log.N_...
    return {name.lstrip(".").split("_")[0] for name in rows["_hoodie_file_name"].to_pylist()}


def test_apache_hudi_clusters(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, writer: str
) -> None:
    """It clusters (a replacecommit): we hide the replaced file groups, time travel before it still sees
    them, and our upsert after it goes to the new file groups, never a replaced one."""
    table = _written(apache_hudi, oracle_tally, tmp_path / "clustered", table_type, writer)
    before = _completed(table.path)[-1][2]
    assert before is not None
    clustered = table.call("run_clustering", op="scheduleAndExecute")
    assert [row["state"] for row in clustered] == ["COMPLETED"]
    assert _completed(table.path)[-1][1] == "replacecommit"
    replaced = _replaced_groups(table.path)
    assert replaced
    snapshot = table.check(metadata_off=True, as_of=before)
    assert ts_by_key(snapshot) == EXPECTED_TS
    assert not _file_groups(snapshot) & {file_id for _, file_id in replaced}

    table.ours("upsert", pa.concat_tables([trip_rows(range(0, 10), ts=7), trip_rows(range(50, 53), ts=7)]))
    snapshot = table.check(metadata_off=True)
    assert ts_by_key(snapshot) == {**EXPECTED_TS, **{f"k{i:03d}": 7 for i in (*range(10), *range(50, 53))}}
    assert not _file_groups(snapshot) & {file_id for _, file_id in replaced}
    table.theirs("upsert", trip_rows(range(15, 20), ts=8))
    snapshot = table.check()
    assert {k: v for k, v in ts_by_key(snapshot).items() if v == 8} == {f"k{i:03d}": 8 for i in range(15, 20)}


def test_apache_hudi_archives(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, writer: str
) -> None:
    """It archives older instants into its LSM timeline (``.hoodie/timeline/history``): snapshot reads stay
    right in both engines, and we keep writing."""
    table = _written(apache_hudi, oracle_tally, tmp_path / "archived", table_type, writer)
    expected = dict(EXPECTED_TS)
    for ts in range(6, 10):
        table.theirs("upsert", trip_rows(range(30, 35), ts=ts))
        expected.update({f"k{i:03d}": ts for i in range(30, 35)})
    table.call("run_clean", retain_commits=2)
    active_before = _completed(table.path)
    # With its metadata table on, its archiver keeps every instant after the metadata table's latest
    # compaction; on our tables that table is rebuilt at its first write there, too young to let any go.
    archived = table.call(
        "archive_commits", min_commits=2, max_commits=3, retain_commits=1, enable_metadata=writer == "apache_hudi"
    )
    assert archived == [{"result": "0"}]
    active_after = _completed(table.path)
    assert len(active_after) < len(active_before)
    assert any((table.path / ".hoodie" / "timeline" / "history").iterdir())
    first = active_before[0]
    assert first not in active_after
    # Time travel into archived history is not read yet; here the clean before the archival refuses it.
    with pytest.raises(CleanedInstantError):
        read_table(HudiTable.open(str(table.path)), as_of=first[2])
    assert ts_by_key(table.check(metadata_off=True)) == expected
    _upsert_and_check(table, "we", range(0, 5), 11, expected)
    _upsert_and_check(table, "it", range(40, 45), 12, expected, metadata_off=False)


def test_apache_hudi_restores_a_savepoint(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, writer: str
) -> None:
    """It savepoints the second commit, two more writes follow, it restores: both read the second
    commit's state; we upsert on the restored table."""
    table = SharedTable(apache_hudi, oracle_tally, tmp_path / "restored", table_type)
    write = table.theirs if writer == "apache_hudi" else table.ours
    if writer == "hudi_framework":
        table.create_ours()
    for operation, rows in SEQUENCE[:2]:
        write(operation, rows)
    second = _completed(table.path)[-1]
    at_second = table.snapshot()
    assert table.call("create_savepoint", commit_time=second[0]) == [{"create_savepoint_result": "True"}]
    for operation, rows in SEQUENCE[2:]:
        write(operation, rows)
    assert table.call("rollback_to_savepoint", instant_time=second[0]) == [{"rollback_savepoint_result": "True"}]
    restored = table.check(metadata_off=True)
    assert restored.sort_by("id").select(["id", "ts", "_hoodie_commit_time"]) == at_second.sort_by("id").select(
        ["id", "ts", "_hoodie_commit_time"]
    )
    assert "restore" in [action for _, action, _ in _completed(table.path)]
    _upsert_and_check(table, "we", range(20, 25), 9, ts_by_key(at_second))


def test_apache_hudi_rolls_back_an_instant(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, writer: str
) -> None:
    """It rolls back its last write (``rollback_to_instant``, newest instant first): both read the state
    before it; we upsert.

    On merge-on-read its fifth delta commit also compacts (its datasource's default trigger), so it
    first rolls back that compaction (the snapshot stays, read-optimized goes back), then the upsert.
    """
    table = _written(apache_hudi, oracle_tally, tmp_path / "rolled_back", table_type, writer)
    last = _completed(table.path)[-1]
    table.theirs("upsert", trip_rows(range(30, 40), ts=6))  # the write it rolls back
    newer = [i for i in _completed(table.path) if i[0] > last[0]]
    assert [action for _, action, _ in newer] == (
        ["commit"] if table_type == "COPY_ON_WRITE" else ["deltacommit", "commit"]
    )
    for requested, _, _ in reversed(newer):
        assert table.call("rollback_to_instant", instant_time=requested) == [{"rollback_result": "True"}]
        rows = table.check(metadata_off=True)
    assert ts_by_key(rows) == EXPECTED_TS
    assert [action for _, action, _ in _completed(table.path)].count("rollback") == len(newer)
    _upsert_and_check(table, "we", range(30, 35), 7, dict(EXPECTED_TS))
