"""One table, two alternating writers: we and Apache Hudi take turns writing and running table services.

After EVERY step both engines' reads are compared row for row: snapshot, read-optimized (merge-on-read),
and Apache Hudi's snapshot without its metadata table as well as with it (we delete its metadata table
before each of our writes; it rebuilds it on its next write, and both must keep reading right).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally
from tests.oracle.selection import full_matrix
from tests.oracle.sequence import trip_rows
from tests.oracle.shared_table import SharedTable, ts_by_key

pytestmark = pytest.mark.oracle

CASES = (
    pytest.param("MERGE_ON_READ", 9, id="MERGE_ON_READ-v9"),
    pytest.param("COPY_ON_WRITE", 9, id="COPY_ON_WRITE-v9", marks=pytest.mark.oracle_full),
    pytest.param("MERGE_ON_READ", 8, id="MERGE_ON_READ-v8", marks=pytest.mark.oracle_full),
    pytest.param("COPY_ON_WRITE", 8, id="COPY_ON_WRITE-v8", marks=pytest.mark.oracle_full),
)
#: The default subset compares Apache Hudi's reads without its metadata table after its writes that follow ours
#: (where it rebuilds that table), and read-optimized reads after services and the last write; the full matrix
#: compares all of them after every step.
FULL = full_matrix()
COMPACT_ONE = "hoodie.compact.inline.max.delta.commits=1"


def _keys(keys: range, ts: int) -> dict[str, int]:
    return {f"k{i:03d}": ts for i in keys}


@pytest.mark.parametrize(("table_type", "version"), CASES)
def test_alternating_writers_and_services(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, version: int
) -> None:
    """we insert, it upserts, we compact, it cleans, it clusters, we upsert, it deletes, we clean, it
    compacts, we upsert (full matrix: then it upserts): both engines' reads agree after every step, and
    hold what was written."""
    table = SharedTable(apache_hudi, oracle_tally, tmp_path / "alternating", table_type, version)
    # Its upserts log updates instead of rewriting small base files, so our compaction has its log blocks to fold in.
    table.their_extra = {"hoodie.parquet.small.file.limit": "0"}
    mor = table_type == "MERGE_ON_READ"
    table.create_ours()
    expected: dict[str, int] = {}

    def step(
        action: Callable[[], object],
        change: dict[str, int] | None = None,
        gone: range = range(0),
        *,
        metadata_off: bool = FULL,
        read_optimized: bool = FULL,
    ) -> None:
        action()
        expected.update(change or {})
        for i in gone:
            expected.pop(f"k{i:03d}")
        checked = table.check(metadata_off=metadata_off, read_optimized=read_optimized)
        assert ts_by_key(checked) == expected, table.steps

    def service(action: Callable[[], object]) -> None:
        step(action, read_optimized=True)  # services rewrite base files: what read-optimized reads

    step(lambda: table.ours("insert", trip_rows(range(30), ts=1)), _keys(range(30), 1))
    step(
        lambda: table.theirs("upsert", pa.concat_tables([trip_rows(range(10), ts=2), trip_rows(range(30, 36), ts=2)])),
        _keys(range(10), 2) | _keys(range(30, 36), 2),
        metadata_off=True,  # its first write rebuilds the metadata table our insert left out
    )
    if mor:
        service(lambda: table.our_service("compaction"))
    # Its cleaner keeping one version per file group: the slices before our compaction go.
    service(lambda: table.call("run_clean", clean_policy="KEEP_LATEST_FILE_VERSIONS", file_versions_retained=1))
    service(lambda: table.call("run_clustering", op="scheduleAndExecute"))
    step(lambda: table.ours("upsert", trip_rows(range(5, 15), ts=3)), _keys(range(5, 15), 3))
    step(lambda: table.theirs("delete", trip_rows(range(20, 24), ts=4)), gone=range(20, 24))
    keep_one = HudiSettings.from_hoodie_options({"hoodie.clean.commits.retained": "1"})
    service(lambda: table.our_service("clean", keep_one))
    if mor:
        service(lambda: table.call("run_compaction", op="scheduleAndExecute", options=COMPACT_ONE))
    step(lambda: table.ours("upsert", trip_rows(range(0, 3), ts=5)), _keys(range(3), 5), read_optimized=True)
    if FULL:
        step(lambda: table.theirs("upsert", trip_rows(range(24, 28), ts=6)), _keys(range(24, 28), 6))
    # Every service did its work: two cleans (its, ours), a clustering, and on merge-on-read two compactions.
    actions = [i.action.value for i in HudiTable.open(str(table.path)).timeline.completed()]
    assert (actions.count("clean"), actions.count("replacecommit")) == (2, 1), actions
    assert actions.count("commit") == (2 if mor else 5 + FULL), actions


#: Inline compaction after 2 delta commits (merge-on-read only: Apache Hudi refuses it on copy-on-write).
INLINE_COMPACTION = {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "2"}
#: Apache Hudi's inline services on its writes: clustering every 2nd commit, cleaning keeping one commit.
THEIR_INLINE = {
    "hoodie.clustering.inline": "true",
    "hoodie.clustering.inline.max.commits": "2",
    "hoodie.clean.commits.retained": "1",
    "hoodie.parquet.small.file.limit": "0",
}
#: Ours: automatic cleaning (the default) keeping one commit.
OUR_INLINE = {"hoodie.clean.commits.retained": "1"}


@pytest.mark.oracle_full
@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_alternating_writers_with_inline_services(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    """Both engines write in turns with their inline services on (its: clustering, compaction, cleaning;
    ours: compaction, cleaning): both read the same after every write, and each engine's services ran."""
    table = SharedTable(apache_hudi, oracle_tally, tmp_path / "inline", table_type)
    compaction = INLINE_COMPACTION if table_type == "MERGE_ON_READ" else {}
    table.their_extra = {**THEIR_INLINE, **compaction}
    table.settings = HudiSettings.from_hoodie_options({**OUR_INLINE, **compaction})
    table.create_ours()
    expected: dict[str, int] = {}
    writes = [
        ("we", "insert", range(30), 1),
        ("it", "upsert", range(0, 12), 2),
        ("we", "upsert", range(6, 18), 3),
        ("it", "upsert", range(12, 24), 4),
        ("we", "upsert", range(18, 33), 5),
        ("it", "delete", range(0, 4), 6),
        ("we", "upsert", range(24, 30), 7),
        ("it", "upsert", range(4, 10), 8),
    ]
    for writer, operation, keys, ts in writes:
        (table.ours if writer == "we" else table.theirs)(operation, trip_rows(keys, ts=ts))
        if operation == "delete":
            for i in keys:
                expected.pop(f"k{i:03d}")
        else:
            expected.update(_keys(keys, ts))
        assert ts_by_key(table.check(metadata_off=True)) == expected, table.steps
    actions = [i.action.value for i in HudiTable.open(str(table.path)).timeline.completed()]
    assert "replacecommit" in actions, actions
    assert "clean" in actions, actions
    if table_type == "MERGE_ON_READ":
        assert "commit" in actions, actions
