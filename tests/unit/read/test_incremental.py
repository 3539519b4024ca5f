"""Incremental reads of hand-built tables: windows, completion-time order, replacements, fallbacks."""

from __future__ import annotations

import os
from pathlib import Path

import hudi
import pyarrow as pa
import pytest

from hudi_framework.errors import (
    IncrementalPathNotFoundError,
    IncrementalQueryError,
    InvalidInstantTimeError,
)
from hudi_framework.read import ReadOptions, plan_read, read_table
from hudi_framework.timeline import Action
from tests.acceptance.archiving import archive_oldest
from tests.unit.read.builder import FileWrite, TableBuilder, rows, t

Row = tuple[str, float, str]


def _rows(table: pa.Table) -> list[Row]:
    columns = [table.column(c).to_pylist() for c in ("id", "fare", "_hoodie_commit_time")]
    return sorted(zip(*columns, strict=True))


def _incr(b: TableBuilder, begin: str | None = None, end: str | None = None, **kw: object) -> list[Row]:
    return _rows(read_table(b.table, query_type="incremental", begin=begin, end=end, **kw))  # type: ignore[arg-type]


def _rs_incr(path: Path, begin: str | None, end: str) -> list[Row]:
    options = hudi.HudiReadOptions().with_query_type(hudi.HudiQueryType.Incremental)
    batches = (
        hudi.HudiTableBuilder.from_base_uri(str(path))
        .build()
        .read(options.with_start_timestamp(begin or "000").with_end_timestamp(end))
    )
    return _rows(pa.Table.from_batches(batches)) if batches else []


def _three_commits(path: str, version: int = 9, **kw: object) -> TableBuilder:
    """c1 writes a, b (sf) and c (nyc); c2 updates a; c3 updates b."""
    b = TableBuilder(path, version=version, **kw)  # type: ignore[arg-type]
    b.commit(t(1), [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf"), ("b", 1, 2.0, "sf"))),
                    FileWrite("nyc", "f2-0", rows(("c", 1, 3.0, "nyc")))])  # fmt: skip
    b.commit(t(2), [FileWrite("sf", "f1-0", rows(("a", 2, 5.0, "sf"), ("b", 1, 2.0, "sf")), [t(2), t(1)])])
    b.commit(t(3), [FileWrite("sf", "f1-0", rows(("a", 2, 5.0, "sf"), ("b", 3, 7.0, "sf")), [t(2), t(3)])])
    return b


def _bound(b: TableBuilder, n: int) -> str:
    """The n-th commit's window bound: completion time on v8+, requested time on v6."""
    instant = b.table.timeline.commits_timeline()[n - 1]
    return (instant.completion_time or "") if b.table.config.version >= 8 else instant.requested_time


@pytest.mark.parametrize("version", [6, 8, 9])
def test_windows_give_the_latest_state_as_of_end(tmp_path: Path, version: int) -> None:
    b = _three_commits(str(tmp_path), version)
    c1, c2, c3 = (_bound(b, n) for n in (1, 2, 3))
    assert _incr(b, None, c1) == [("a", 1.0, t(1)), ("b", 2.0, t(1)), ("c", 3.0, t(1))]
    assert _incr(b, c1, c2) == [("a", 5.0, t(2))]
    assert _incr(b, c2, c3) == [("b", 7.0, t(3))]
    # b changed after the window, yet the window still returns its state as of end (c2's file).
    assert _incr(b, None, c2) == [("a", 5.0, t(2)), ("b", 2.0, t(1)), ("c", 3.0, t(1))]
    assert _incr(b) == [("a", 5.0, t(2)), ("b", 7.0, t(3)), ("c", 3.0, t(1))]
    assert _incr(b, "earliest", c1) == _incr(b, None, c1)
    assert _incr(b, c3) == []
    for begin, end in [(None, c1), (c1, c2), (c2, c3), (None, c2)]:
        assert _incr(b, begin, end) == _rs_incr(tmp_path, begin, end)


def test_v8_windows_select_by_completion_time(tmp_path: Path) -> None:
    b = TableBuilder(str(tmp_path), version=9)
    slow = b.start(t(1))
    fast = b.start(t(2))
    b.finish(fast, [FileWrite("nyc", "f2-0", rows(("c", 2, 3.0, "nyc")))], completion_time=t(3))
    b.finish(slow, [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf")))], completion_time=t(4))
    # (., t3]: only the write completed by then, although the other was requested earlier.
    assert _incr(b, None, t(3)) == [("c", 3.0, t(2))]
    assert _incr(b, t(3), t(4)) == [("a", 1.0, t(1))]
    # Requested times as bounds are still compared with completion times.
    assert _incr(b, t(1), t(2)) == []
    for begin, end in [(None, t(3)), (t(3), t(4)), (t(1), t(2))]:
        assert _incr(b, begin, end) == _rs_incr(tmp_path, begin, end)
    plan = plan_read(b.table, ReadOptions(query_type="incremental", begin=t(3)))
    assert plan.instants == (t(1),)
    assert not plan.full_table_scan


@pytest.mark.parametrize("version", [6, 9])
def test_insert_overwrite_in_window_drops_replaced_groups(tmp_path: Path, version: int) -> None:
    b = TableBuilder(str(tmp_path), version=version)
    b.commit(
        t(1), [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf"))), FileWrite("nyc", "f2-0", rows(("c", 1, 3.0, "nyc")))]
    )
    b.commit(t(2), [FileWrite("sf", "f3-0", rows(("z", 2, 9.0, "sf")))], replaced=[("sf", "f1-0")])
    c1, c2 = _bound(b, 1), _bound(b, 2)
    assert _incr(b, None, c1) == [("a", 1.0, t(1)), ("c", 3.0, t(1))]
    assert _incr(b, None, c2) == [("c", 3.0, t(1)), ("z", 9.0, t(2))]
    assert _incr(b, c1, c2) == [("z", 9.0, t(2))]


def test_clustering_in_window_keeps_commit_times_without_duplicates(tmp_path: Path) -> None:
    b = TableBuilder(str(tmp_path))
    b.commit(t(1), [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf"), ("b", 1, 2.0, "sf")))])
    clustering = b.start(t(2), Action.CLUSTERING)
    clustered = FileWrite("sf", "f2-0", rows(("a", 1, 1.0, "sf"), ("b", 1, 2.0, "sf")), [t(1), t(1)])
    b.finish(clustering, [clustered], replaced=[("sf", "f1-0")])
    assert _incr(b, _bound(b, 1), _bound(b, 2)) == []
    assert _incr(b) == [("a", 1.0, t(1)), ("b", 2.0, t(1))]


def test_cleaned_files_fall_back_to_a_full_scan_on_v8(tmp_path: Path) -> None:
    b = _three_commits(str(tmp_path), 9)
    (tmp_path / "sf" / f"f1-0_0-0-0_{t(1)}.parquet").unlink()
    c2 = _bound(b, 2)
    plan = plan_read(b.table, ReadOptions(query_type="incremental", end=c2))
    assert plan.full_table_scan
    # Java's fallback scans the *latest* snapshot: b has moved on to t3, so only a and c are left.
    assert _incr(b, None, c2) == [("a", 5.0, t(2)), ("c", 3.0, t(1))]
    with pytest.raises(IncrementalPathNotFoundError, match="fulltablescan") as err:
        _incr(b, None, c2, options={"hoodie.datasource.read.incr.fallback.fulltablescan.enable": "false"})
    assert err.value.key == f"sf/f1-0_0-0-0_{t(1)}.parquet"


def test_cleaned_files_fail_on_v6_unless_fallback_is_on(tmp_path: Path) -> None:
    b = _three_commits(str(tmp_path), 6)
    (tmp_path / "sf" / f"f1-0_0-0-0_{t(1)}.parquet").unlink()
    # v6 checks only the files it reads: c2's version of f1 is still there.
    assert _incr(b, None, t(2)) == [("a", 5.0, t(2)), ("b", 2.0, t(1)), ("c", 3.0, t(1))]
    with pytest.raises(IncrementalPathNotFoundError):
        _incr(b, None, t(1))
    on = {"hoodie.datasource.read.incr.fallback.fulltablescan.enable": "true"}
    # Fallback: the latest snapshot with begin < commit time <= end.
    assert _incr(b, None, t(1), options=on) == [("c", 3.0, t(1))]


def test_window_reaching_into_the_archive(tmp_path: Path) -> None:
    b = TableBuilder(str(tmp_path))
    b.commit(t(0), [FileWrite("la", "f0-0", rows(("old", 0, 0.5, "la")))])
    b.commit(t(5), [FileWrite("sf", "f1-0", rows(("a", 5, 1.0, "sf")))])
    b.commit(t(6), [FileWrite("nyc", "f2-0", rows(("c", 6, 3.0, "nyc")))])
    first = _bound(b, 1)
    assert [i.requested_time for i in archive_oldest(b.table, keep=2)] == [t(0)]
    b.table.reload()
    on = {"hoodie.datasource.read.incr.fallback.fulltablescan.enable": "true"}
    off = {"hoodie.datasource.read.incr.fallback.fulltablescan.enable": "false"}
    incremental = ReadOptions(query_type="incremental")
    assert plan_read(b.table, incremental.model_copy(update={"incremental_fallback_full_scan": True})).full_table_scan
    fallback_off = incremental.model_copy(update={"incremental_fallback_full_scan": False})
    assert not plan_read(b.table, fallback_off).full_table_scan
    everything = [("a", 1.0, t(5)), ("c", 3.0, t(6)), ("old", 0.5, t(0))]
    # Either way the archived commit's rows are in the window: by a full scan, or by the files its
    # archived commit metadata names.
    assert _incr(b, options=on) == _incr(b, options=off) == everything
    assert _incr(b, None, first, options=on) == _incr(b, None, first, options=off) == [("old", 0.5, t(0))]
    # Windows after the first active instant never reach the archive.
    assert not plan_read(b.table, ReadOptions(query_type="incremental", begin=_bound(b, 2))).full_table_scan


def test_hollow_commit_fails_on_v6(tmp_path: Path) -> None:
    b = TableBuilder(str(tmp_path), version=6)
    b.commit(t(1), [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf")))])
    b.start(t(2))
    b.commit(t(3), [FileWrite("nyc", "f2-0", rows(("c", 3, 3.0, "nyc")))])
    with pytest.raises(IncrementalQueryError, match="hollow commit"):
        _incr(b, None, t(1))


def test_columns_and_filters(tmp_path: Path) -> None:
    b = _three_commits(str(tmp_path))
    out = read_table(b.table, query_type="incremental", columns=["id"], filters=[("city", "=", "sf")])
    assert out.column_names == ["id"]
    assert sorted(out.column("id").to_pylist()) == ["a", "b"]


def test_empty_window_has_the_schema(tmp_path: Path) -> None:
    b = _three_commits(str(tmp_path))
    out = read_table(b.table, query_type="incremental", begin=t(100))
    assert out.num_rows == 0
    assert out.column_names[0] == "_hoodie_commit_time"
    with pytest.raises(InvalidInstantTimeError):
        read_table(b.table, query_type="incremental", begin="not a time")


def test_refused_without_meta_fields(tmp_path: Path) -> None:
    no_meta = _three_commits(str(tmp_path / "a"), populate_meta_fields=False)
    with pytest.raises(IncrementalQueryError, match="_hoodie_commit_time"):
        read_table(no_meta.table, query_type="incremental")


def test_merge_on_read_without_log_files_reads_like_copy_on_write(tmp_path: Path) -> None:
    cow = _three_commits(str(tmp_path / "cow"))
    mor = _three_commits(str(tmp_path / "mor"), table_type="MERGE_ON_READ")
    for begin in (None, t(1), t(2)):
        ours = read_table(mor.table, query_type="incremental", begin=begin)
        theirs = read_table(cow.table, query_type="incremental", begin=begin)
        assert (
            ours.drop_columns(["_hoodie_file_name"])
            .sort_by("id")
            .equals(theirs.drop_columns(["_hoodie_file_name"]).sort_by("id"))
        )


def test_v6_uses_requested_times_even_when_completions_cross(tmp_path: Path) -> None:
    b = TableBuilder(str(tmp_path), version=6)
    slow = b.start(t(1))
    fast = b.start(t(2))
    b.finish(fast, [FileWrite("nyc", "f2-0", rows(("c", 2, 3.0, "nyc")))])
    b.finish(slow, [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf")))])
    os.utime(tmp_path / ".hoodie" / f"{t(1)}.commit", (1e9, 1e9))  # completion times play no part
    b.table.reload()
    assert _incr(b, None, t(1)) == [("a", 1.0, t(1))]
    assert _incr(b, t(1), t(2)) == [("c", 3.0, t(2))]
