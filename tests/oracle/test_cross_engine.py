"""Apache Hudi as the oracle, both directions: tables it writes read the same with ``read_table`` as
with its own Spark reader, and tables ``WriteClient`` writes read the same with its reader as with ours.

Each table goes through insert, upsert (updates and new keys) and delete; both engines' snapshot reads
are compared row for row (data columns, and the commit time, record key and partition path meta
columns) after every write, then a time-travel read to the first commit and, on merge-on-read tables,
a read-optimized read.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hudi_framework import (
    HudiSettings,
    HudiTable,
    WriteClient,
    list_savepoints,
    new_table_config,
    open_table_service,
    read_table,
)
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.selection import full_matrix
from tests.oracle.sequence import DATA_COLUMNS, EXPECTED_TS, KEY, SEQUENCE, apache_hudi_options, trip_rows

pytestmark = pytest.mark.oracle

TABLE_TYPES = ("COPY_ON_WRITE", "MERGE_ON_READ")
VERSIONS = (9, pytest.param(8, marks=pytest.mark.oracle_full))
#: The full matrix also compares incremental reads and Apache Hudi's reads without its metadata table.
FULL = full_matrix()


def _first_commit_completion(table: HudiTable) -> str:
    first = table.reload().timeline.commits_timeline()[0]
    assert first.completion_time is not None
    # The first commit's completion time: the same snapshot whether as.of.instant is compared with
    # requested or completion times (the next write was requested after it completed).
    return first.completion_time


def _compare_all(
    apache_hudi: ApacheHudi,
    tally: Tally,
    path: Path,
    table_type: str,
    label: str,
    *,
    steps_done: int,
    expected_ts: dict[str, int] = EXPECTED_TS,
) -> None:
    table = HudiTable.open(str(path))
    snapshot = read_table(table)
    compare_reads(
        tally, f"{label} snapshot after {steps_done} writes",
        snapshot, apache_hudi.read(path), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
    if steps_done < len(SEQUENCE):
        return
    assert dict(zip(snapshot["id"].to_pylist(), snapshot["ts"].to_pylist(), strict=True)) == expected_ts
    as_of = _first_commit_completion(table)
    travelled = read_table(table, as_of=as_of)
    assert set(travelled["ts"].to_pylist()) == {1}
    assert travelled.num_rows == SEQUENCE[0][1].num_rows
    compare_reads(
        tally, f"{label} time travel to {as_of}",
        travelled, apache_hudi.read(path, {"as.of.instant": as_of}), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
    if table_type == "MERGE_ON_READ" or FULL:
        optimized = read_table(table, query_type="read_optimized")
        # Merge-on-read: the last upsert is in log files only, so base files alone are older.
        assert (optimized.sort_by(KEY) == snapshot.sort_by(KEY)) is (table_type == "COPY_ON_WRITE")
        compare_reads(
            tally, f"{label} read_optimized",
            optimized, apache_hudi.read(path, {"hoodie.datasource.query.type": "read_optimized"}),
            key=KEY, data_columns=DATA_COLUMNS,
        )  # fmt: skip
    if not FULL:
        return
    compare_reads(
        tally, f"{label} snapshot, Apache Hudi without its metadata table",
        read_table(table), apache_hudi.read(path, {"hoodie.metadata.enable": "false"}),
        key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
    compare_reads(
        tally, f"{label} incremental after {as_of}",
        read_table(table, query_type="incremental", begin=as_of),
        apache_hudi.read(
            path, {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.read.begin.instanttime": as_of}
        ),
        key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip


@pytest.fixture(scope="module")
def by_apache_hudi(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str, int], Path]:
    """``written(table_type, version)``: the table Apache Hudi wrote with the sequence, both engines'
    reads compared after every write; written once per module (our compaction test starts from a copy)."""
    done: dict[tuple[str, int], Path] = {}

    def written(table_type: str, version: int) -> Path:
        if (table_type, version) not in done:
            path = tmp_path_factory.mktemp(f"{table_type}-v{version}") / "by_apache_hudi"
            oracle_tally.tables.add(str(path))
            options = apache_hudi_options("by_apache_hudi", table_type, version)
            label = f"Apache Hudi wrote {table_type} v{version}"
            for steps, (operation, rows) in enumerate(SEQUENCE, start=1):
                apache_hudi.write(path, rows, options, operation)
                _compare_all(apache_hudi, oracle_tally, path, table_type, label, steps_done=steps)
            done[(table_type, version)] = path
        return done[(table_type, version)]

    return written


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_we_read_apache_hudi_tables(by_apache_hudi: Callable[[str, int], Path], table_type: str, version: int) -> None:
    table = HudiTable.open(str(by_apache_hudi(table_type, version)))
    assert table.config.version == version
    assert table.config.table_type.value == table_type


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_apache_hudi_reads_our_tables(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, version: int
) -> None:
    path = tmp_path / "by_hudi_framework"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        "by_hudi_framework", table_type=table_type, version=version,
        record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(str(path), config)
    client = WriteClient(table, HudiSettings())
    label = f"hudi_framework wrote {table_type} v{version}"
    for done, (operation, rows) in enumerate(SEQUENCE, start=1):
        client.write(rows, operation)
        _compare_all(apache_hudi, oracle_tally, path, table_type, label, steps_done=done)


@dataclass(frozen=True)
class Variant:
    """One table layout or write setting, spelled for both engines."""

    their_options: dict[str, str]
    our_config: dict[str, Any]
    first_operation: str = "insert"
    expected_ts: dict[str, int] = field(default_factory=lambda: EXPECTED_TS)


VARIANTS = {
    "non_partitioned": Variant(
        {
            "hoodie.datasource.write.partitionpath.field": "",
            "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
        },
        {"partition_fields": []},
    ),
    "complex_key": Variant(
        {
            "hoodie.datasource.write.recordkey.field": "id,city",
            "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator",
        },
        {"record_key_fields": ["id", "city"], "key_generator_type": "COMPLEX"},
    ),
    "hive_style": Variant(
        {"hoodie.datasource.write.hive_style_partitioning": "true"}, {"hive_style_partitioning": True}
    ),
    "commit_time_ordering": Variant(
        {"hoodie.write.record.merge.mode": "COMMIT_TIME_ORDERING"},
        {"merge_mode": "COMMIT_TIME_ORDERING"},
        # The later write wins, late ordering values too.
        expected_ts={**EXPECTED_TS, **{f"k{i:03d}": 0 for i in range(5, 10)}},
    ),
    "bulk_insert": Variant({}, {}, first_operation="bulk_insert"),
}


@pytest.mark.oracle_full
@pytest.mark.parametrize("writer", ["apache_hudi", "hudi_framework"])
@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_variants_both_directions(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, variant: str, table_type: str, writer: str
) -> None:
    """Key generators, hive-style partitions, merge modes and bulk_insert, written by either engine."""
    spec = VARIANTS[variant]
    path = tmp_path / variant
    oracle_tally.tables.add(str(path))
    options = {**apache_hudi_options(variant, table_type, 9), **spec.their_options}
    config_args: dict[str, Any] = {
        "table_type": table_type, "record_key_fields": ["id"], "partition_fields": ["city"],
        "ordering_fields": ["ts"], **spec.our_config,
    }  # fmt: skip
    client = None if writer == "apache_hudi" else WriteClient(
        HudiTable.create(str(path), new_table_config(variant, **config_args)), HudiSettings()
    )  # fmt: skip
    label = f"{writer} wrote {table_type} {variant}"
    sequence = [(spec.first_operation, SEQUENCE[0][1]), *SEQUENCE[1:]]
    for done, (operation, rows) in enumerate(sequence, start=1):
        if client is None:
            apache_hudi.write(path, rows, options, operation)
        else:
            client.write(rows, operation)
        _compare_all(apache_hudi, oracle_tally, path, table_type, label, steps_done=done, expected_ts=spec.expected_ts)


def test_apache_hudi_services_on_our_merge_on_read_table(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    """Apache Hudi compacts and savepoints a table we wrote (its CALL procedures), then we upsert on top:
    both engines read the same after each step, and we see its compaction and savepoint."""
    path = tmp_path / "shared_mor"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        "shared_mor", table_type="MERGE_ON_READ",
        record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings())
    results = [client.write(rows, operation) for operation, rows in SEQUENCE]
    first = results[0].instant.requested_time
    label = "hudi_framework wrote MERGE_ON_READ v9"

    compacted = apache_hudi.sql(
        f"CALL run_compaction(op => 'scheduleAndExecute', path => '{path}', "
        "options => 'hoodie.compact.inline.max.delta.commits=1')"
    )
    assert [row["state"] for row in compacted] == ["COMPLETED"]
    table = HudiTable.open(str(path))
    latest = table.timeline.commits_timeline()[-1]
    assert (latest.requested_time, latest.action.value) == (compacted[0]["timestamp"], "commit")
    optimized = read_table(table, query_type="read_optimized")
    compare_reads(
        oracle_tally, f"{label}, compacted by Apache Hudi: read_optimized",
        optimized, apache_hudi.read(path, {"hoodie.datasource.query.type": "read_optimized"}),
        key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
    assert optimized.sort_by(KEY) == read_table(table).sort_by(KEY)  # compaction folded every log in

    apache_hudi.sql(f"CREATE TABLE IF NOT EXISTS shared_mor USING hudi LOCATION '{path}'")
    assert apache_hudi.sql(f"CALL create_savepoint(table => 'shared_mor', commit_time => '{first}')") == [
        {"create_savepoint_result": "True"}
    ]
    assert [s.instant_time for s in list_savepoints(table.reload())] == [first]

    client = WriteClient(HudiTable.open(str(path)), HudiSettings())
    client.upsert(trip_rows(range(30, 45), ts=5))
    compare_reads(
        oracle_tally, f"{label}, compacted by Apache Hudi, upserted by us: snapshot",
        read_table(HudiTable.open(str(path))), apache_hudi.read(path), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip


def test_we_compact_apache_hudis_merge_on_read_table(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, by_apache_hudi: Callable[[str, int], Path]
) -> None:
    """Our compaction service compacts a table Apache Hudi wrote (its log blocks), then Apache Hudi
    upserts on top: both read the same after each step."""
    path = tmp_path / "compacted_by_us"
    shutil.copytree(by_apache_hudi("MERGE_ON_READ", 9), path)  # the sequence as Apache Hudi wrote it
    oracle_tally.tables.add(str(path))
    options = apache_hudi_options("by_apache_hudi", "MERGE_ON_READ", 9)
    label = "Apache Hudi wrote MERGE_ON_READ v9"
    settings = HudiSettings()
    service, host = open_table_service(HudiTable.open(str(path), settings=settings), settings, "compaction")
    instant = service.schedule(host)
    assert instant is not None
    service.execute(host, instant)
    table = HudiTable.open(str(path))
    assert table.timeline.commits_timeline()[-1].action.value == "commit"
    optimized = read_table(table, query_type="read_optimized")
    assert optimized.sort_by(KEY) == read_table(table).sort_by(KEY)  # every log folded in
    read_optimized = {"hoodie.datasource.query.type": "read_optimized"}
    for name, read_options in (("snapshot", {}), ("read_optimized", read_optimized)):
        compare_reads(
            oracle_tally, f"{label}, compacted by us: {name}",
            read_table(table, options=read_options), apache_hudi.read(path, read_options),
            key=KEY, data_columns=DATA_COLUMNS,
        )  # fmt: skip
    apache_hudi.write(path, trip_rows(range(30, 45), ts=5), options, "upsert")
    compare_reads(
        oracle_tally, f"{label}, compacted by us, upserted by Apache Hudi: snapshot",
        read_table(HudiTable.open(str(path))), apache_hudi.read(path), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
