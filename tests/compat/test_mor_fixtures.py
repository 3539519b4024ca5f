"""Merged reads of Apache-Hudi-written merge-on-read fixtures: gold snapshots and hudi-rs.

* Snapshot of every MOR table (Avro and Parquet log blocks, deletes, v6 rollback command blocks,
  v6 and v9) == its ``gold_data/`` (Spark's own read), row for row, meta columns included; also with
  a one-byte merge memory bound, so every file group spills.
* Time travel to every completed instant and incremental windows between consecutive instants (and
  from the start) == hudi-rs.
* Lance base files are refused with :class:`UnsupportedFormatError`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import hudi
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.errors import UnsupportedFormatError
from hudi_framework.read import read_table
from hudi_framework.read.log_records import CorruptLogBlockWarning
from hudi_framework.read.merged_task import MergedReadTask
from hudi_framework.read.reader import build_options, plan_read
from hudi_framework.runtime.table import HudiTable
from tests.compat.test_read_fixtures import _assert_same_rows, _bounds, _hash, _rs, _rs_incremental, _rs_read
from tests.fixture_tables import FixtureTable, all_fixture_tables

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
MOR_ALL = [t for t in all_fixture_tables() if t.id.startswith("mor/")]
MOR = [t for t in MOR_ALL if not t.is_lance]


def _gold(gold_dir: Path) -> pa.Table:
    return pa.concat_tables([pq.read_table(p) for p in sorted(gold_dir.glob("*.parquet"))])


@pytest.mark.parametrize("bound", [None, 1], ids=["in-memory", "spilled"])
@pytest.mark.parametrize("fixture", MOR, ids=lambda t: t.id)
def test_snapshot_equals_gold(fixture: FixtureTable, bound: int | None, extract_fixture: Extract) -> None:
    base, gold_dir = extract_fixture(fixture)
    assert gold_dir is not None
    table = HudiTable.open(str(base))
    gold = _gold(gold_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CorruptLogBlockWarning)
        ours = read_table(table, merge_max_memory_bytes=bound)
    assert ours.column_names == gold.column_names
    assert ours.num_rows == gold.num_rows
    assert _hash(ours) == _hash(gold)


def test_fixtures_exercise_merging(extract_fixture: Extract) -> None:
    """Guard: the latest snapshots of several fixtures really merge log files (rollbacks included)."""
    merged = []
    for fixture in MOR:
        base, _ = extract_fixture(fixture)
        plan = plan_read(HudiTable.open(str(base)), build_options())
        if any(isinstance(task, MergedReadTask) for task in plan.tasks):
            merged.append(fixture.id)
    assert "mor/parquet/v6_nonpartitioned_rollback" in merged
    assert "mor/avro/v9_timebasedkeygen_nonhivestyle" in merged
    assert len(merged) >= 5


@pytest.mark.parametrize("fixture", [t for t in MOR_ALL if t.is_lance], ids=lambda t: t.id)
def test_lance_snapshot_is_refused(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    with pytest.raises(UnsupportedFormatError, match=r"(?i)lance"):
        read_table(HudiTable.open(str(base)))


@pytest.mark.parametrize("fixture", MOR, ids=lambda t: t.id)
def test_time_travel_to_every_instant_matches_hudi_rs(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    table, rs = HudiTable.open(str(base)), _rs(base)
    for instant in table.timeline.commits_timeline():
        as_of = instant.requested_time
        ours = read_table(table, as_of=as_of)
        _assert_same_rows(ours, _rs_read(rs, hudi.HudiReadOptions().with_as_of_timestamp(as_of)), f"as of {as_of}")


@pytest.mark.parametrize("fixture", [t for t in MOR if "no_metafields" not in t.id], ids=lambda t: t.id)
def test_incremental_windows_match_hudi_rs(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    table, rs = HudiTable.open(str(base)), _rs(base)
    bounds = _bounds(table)
    windows = [(None, b) for b in bounds] + list(zip([None, *bounds], bounds, strict=False))
    for begin, end in windows:
        ours = read_table(table, query_type="incremental", begin=begin, end=end)
        _assert_same_rows(ours, _rs_incremental(rs, begin, end), f"({begin}, {end}]")
