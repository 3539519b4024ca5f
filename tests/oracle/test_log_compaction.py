"""Log compaction against Apache Hudi, both directions: a merge-on-read table Apache Hudi log-compacted
inline (``hoodie.log.compaction.inline``) reads the same through us as through its reader, and a table
we log-compacted reads the same through Apache Hudi as through us, and Apache Hudi continues writing it.

Besides the shared sequence, a few more update rounds give every slice enough log blocks.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, open_table_service, read_table
from hudi_framework.log.blocks import DataBlock, DeleteBlock, HeaderKey
from hudi_framework.log.reader import read_log_file
from hudi_framework.timeline.instant import Action
from hudi_framework.write.log_compactor import execute_log_compaction, schedule_log_compaction
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.selection import full_matrix
from tests.oracle.sequence import DATA_COLUMNS, KEY, SEQUENCE, apache_hudi_options, trip_rows

pytestmark = pytest.mark.oracle

#: After the shared sequence: updates in log blocks (k000-k011 to ts 5, then k000-k005 to ts 6).
MORE: tuple[tuple[str, pa.Table], ...] = (
    ("upsert", trip_rows(range(12), ts=5)),
    ("upsert", trip_rows(range(6), ts=6)),
)
LOG_COMPACTION = {
    "hoodie.log.compaction.inline": "true",
    "hoodie.log.compaction.blocks.threshold": "2",
    # No regular compaction: it would fold the log-compacted slices into new base files.
    "hoodie.compact.inline.max.delta.commits": "50",
}
VERSIONS = (9, pytest.param(6, marks=pytest.mark.oracle_full))
FULL = full_matrix()


def _log_compactions(table: HudiTable) -> list[str]:
    timeline = table.reload().timeline
    return [
        i.requested_time
        for i in timeline.completed()
        if i.action is Action.DELTA_COMMIT and timeline.read_commit_metadata(i).operation_type == "LOG_COMPACT"
    ]


def _compacted_blocks(table: HudiTable) -> list[DataBlock | DeleteBlock]:
    found: list[DataBlock | DeleteBlock] = []
    for file_slice in table.latest_file_slices():
        for key in file_slice.log_file_keys:
            found += [
                b
                for b in read_log_file(table.storage, key)
                if isinstance(b, DataBlock | DeleteBlock) and HeaderKey.COMPACTED_BLOCK_TIMES in b.header
            ]
    return found


def _compare(apache_hudi: ApacheHudi, tally: Tally, path: Path, label: str) -> None:
    compare_reads(
        tally, label, read_table(HudiTable.open(str(path))), apache_hudi.read(path), key=KEY, data_columns=DATA_COLUMNS
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_we_read_tables_apache_hudi_log_compacted(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, version: int
) -> None:
    path = tmp_path / "log_compacted_by_apache_hudi"
    oracle_tally.tables.add(str(path))
    options = {**apache_hudi_options("lc_apache", "MERGE_ON_READ", version), **LOG_COMPACTION}
    # The shared sequence leaves slices with two log blocks, enough for a log compaction after its
    # last write; the full run writes the further rounds too.
    writes = (*SEQUENCE, *MORE) if FULL else SEQUENCE
    for done, (operation, rows) in enumerate(writes, start=1):
        apache_hudi.write(path, rows, options, operation)
        if FULL or done == len(writes):  # the default subset compares the final table only
            _compare(apache_hudi, oracle_tally, path, f"Apache Hudi log-compacted v{version}, after {done} writes")
    table = HudiTable.open(str(path))
    assert _log_compactions(table), "Apache Hudi ran log compactions inline"
    assert _compacted_blocks(table), "its slices hold compacted blocks"
    # Our compaction of its log-compacted slices: the new base files hold what both readers read.
    service, host = open_table_service(table, HudiSettings(), "compaction")
    planned = service.schedule(host)
    assert planned is not None
    service.execute(host, planned)
    _compare(apache_hudi, oracle_tally, path, f"Apache Hudi log-compacted v{version}, then we compacted")


@pytest.mark.parametrize("version", VERSIONS)
def test_apache_hudi_reads_our_log_compacted_tables(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, version: int
) -> None:
    path = tmp_path / "log_compacted_by_hudi_framework"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        "lc_ours", table_type="MERGE_ON_READ", version=version,
        record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(str(path), config)
    client = WriteClient(table, HudiSettings())
    for operation, rows in (*SEQUENCE, *MORE):
        client.write(rows, operation)
    instant = schedule_log_compaction(table, blocks_threshold=2)
    assert instant is not None
    execute_log_compaction(table, instant)
    assert _compacted_blocks(table)
    _compare(apache_hudi, oracle_tally, path, f"hudi_framework log-compacted v{version}")
    # Apache Hudi continues writing the table; both still read it the same.
    options = apache_hudi_options("lc_ours", "MERGE_ON_READ", version)
    apache_hudi.write(path, trip_rows(range(3, 9), ts=7), options, "upsert")
    _compare(apache_hudi, oracle_tally, path, f"hudi_framework log-compacted v{version}, then Apache Hudi upserted")


def _log_files_per_commit(table: HudiTable) -> int:
    """The most log files one delta commit wrote into one file group."""
    timeline = table.reload().timeline
    most = 0
    for instant in timeline.completed():
        if instant.action is not Action.DELTA_COMMIT:
            continue
        stats = timeline.read_commit_metadata(instant).write_stats()
        per_group: dict[str, int] = {}
        for s in stats:
            if (s.path or "").rsplit("/", 1)[-1].startswith("."):
                per_group[s.file_id or ""] = per_group.get(s.file_id or "", 0) + 1
        most = max(most, *per_group.values(), 0)
    return most


@pytest.mark.oracle_full
@pytest.mark.parametrize("writer", ["apache_hudi", "hudi_framework"])
def test_rolled_over_log_files_read_the_same(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, writer: str
) -> None:
    """``hoodie.logfile.max.size`` small enough that one upsert's append rolls over to further log
    versions (Apache Hudi: with small data blocks, ``hoodie.logfile.data.block.max.size``)."""
    path = tmp_path / f"rolled_over_by_{writer}"
    oracle_tally.tables.add(str(path))
    limit = {"hoodie.logfile.max.size": "2048"}
    options = {
        **apache_hudi_options("rolled", "MERGE_ON_READ", 9),
        **limit,
        "hoodie.logfile.data.block.max.size": "1024",
        # Its own inline compaction would leave us no log files to compact.
        "hoodie.compact.inline.max.delta.commits": "50",
    }
    big = trip_rows(range(40), ts=5)
    client = None
    if writer == "hudi_framework":
        config = new_table_config(
            "rolled", table_type="MERGE_ON_READ", version=9,
            record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
        )  # fmt: skip
        client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(limit, env=False))
    for operation, rows in (*SEQUENCE, ("upsert", big)):
        if client is None:
            apache_hudi.write(path, rows, options, operation)
        else:
            client.write(rows, operation)
    table = HudiTable.open(str(path))
    assert _log_files_per_commit(table) >= 2, "an append rolled over"
    _compare(apache_hudi, oracle_tally, path, f"{writer} rolled over its log files")
    # Compaction by the other engine reads every version too.
    if client is None:
        service, host = open_table_service(table, HudiSettings(), "compaction")
        planned = service.schedule(host)
        assert planned is not None
        service.execute(host, planned)
    else:
        compacted = apache_hudi.sql(
            f"CALL run_compaction(op => 'scheduleAndExecute', path => '{path}', "
            "options => 'hoodie.compact.inline.max.delta.commits=1')"
        )
        assert [row["state"] for row in compacted] == ["COMPLETED"]
    _compare(apache_hudi, oracle_tally, path, f"{writer} rolled over its log files, then the other engine compacted")
