"""Apache Hudi as the oracle for merge semantics: the legacy payload classes (which table version 9
turns into merge modes and partial-update settings, and version 8 keeps), soft deletes, custom merge
strategies and partial updates, both directions.

Every case writes with one engine, then the other writes on top; both engines' snapshot reads are
compared row for row (all data columns and the five meta columns) after every write.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, read_table
from hudi_framework.errors import MergeStrategyNotFoundError
from tests.oracle.client import ApacheHudi, ApacheHudiError
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.payload_sequence import DATA_COLUMNS, FIRST_WRITES, KEY, PAYLOAD_PACKAGE, SECOND_WRITER
from tests.oracle.sequence import apache_hudi_options

pytestmark = pytest.mark.oracle

TABLE_TYPES = ("COPY_ON_WRITE", "MERGE_ON_READ")
PAYLOADS = (
    "DefaultHoodieRecordPayload",
    "OverwriteWithLatestAvroPayload",
    "PartialUpdateAvroPayload",
    "OverwriteNonDefaultsWithLatestAvroPayload",
    "EventTimeAvroPayload",
    "AWSDmsAvroPayload",
)
#: The default subset: Apache Hudi writes the payload that fills nulls on a merge-on-read table of the
#: default version, then we write onto it.
DEFAULT_CASE = ("PartialUpdateAvroPayload", "MERGE_ON_READ", 9)


def _cases(*, with_default: bool) -> list[object]:
    cases: list[object] = []
    for payload in PAYLOADS:
        for table_type in TABLE_TYPES:
            for version in (9, 8):
                default = with_default and (payload, table_type, version) == DEFAULT_CASE
                marks = () if default else (pytest.mark.oracle_full,)
                cases.append(pytest.param(payload, table_type, version, marks=marks))
    return cases


def _their_options(name: str, payload: str, table_type: str, version: int) -> dict[str, str]:
    return {
        **apache_hudi_options(name, table_type, version),
        "hoodie.datasource.write.payload.class": PAYLOAD_PACKAGE + payload,
    }


def _compare(apache_hudi: ApacheHudi, tally: Tally, path: Path, label: str) -> pa.Table:
    ours = read_table(HudiTable.open(str(path)))
    compare_reads(tally, label, ours, apache_hudi.read(path), key=KEY, data_columns=DATA_COLUMNS)
    return ours


def _check_payload_semantics(payload: str, snapshot: pa.Table) -> None:
    """What every payload must have done after the first writer's four writes (both engines agree on
    the rows already; this pins that they did what the payload says)."""
    by_key = {row["id"]: row for row in snapshot.to_pylist()}
    assert "k007" not in by_key  # the delete operation
    assert "k008" not in by_key  # the soft delete
    assert ("k005" in by_key) is (payload != "AWSDmsAvroPayload")  # Op = 'D'
    event_time = payload not in ("OverwriteWithLatestAvroPayload", "OverwriteNonDefaultsWithLatestAvroPayload",
                                 "AWSDmsAvroPayload")  # fmt: skip
    assert by_key["k002"]["ts"] == (5 if event_time else 3)  # a late update
    fills_nulls = payload in ("PartialUpdateAvroPayload", "OverwriteNonDefaultsWithLatestAvroPayload")
    assert (by_key["k000"]["fare"] is not None) is fills_nulls  # null in both updates of k000


@pytest.mark.parametrize(("payload", "table_type", "version"), _cases(with_default=True))
def test_apache_hudi_payload_tables_then_we_write(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, payload: str, table_type: str, version: int
) -> None:
    """Apache Hudi writes a table with a payload class; we read each step as it does, then upsert onto
    it with the merger its table config names, and it reads our write as we do."""
    path = tmp_path / "payload_by_apache_hudi"
    oracle_tally.tables.add(str(path))
    options = _their_options("payload_by_apache_hudi", payload, table_type, version)
    label = f"Apache Hudi wrote {payload} {table_type} v{version}"
    for done, (operation, rows) in enumerate(FIRST_WRITES, start=1):
        apache_hudi.write(path, rows, options, operation)
        snapshot = _compare(apache_hudi, oracle_tally, path, f"{label}, snapshot after {done} writes")
    _check_payload_semantics(payload, snapshot)
    table = HudiTable.open(str(path))
    assert table.config.version == version
    WriteClient(table, HudiSettings()).write(SECOND_WRITER[1], SECOND_WRITER[0])
    _compare(apache_hudi, oracle_tally, path, f"{label}, upserted by us")


@pytest.mark.parametrize(("payload", "table_type", "version"), _cases(with_default=False))
def test_our_payload_tables_then_apache_hudi_writes(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, payload: str, table_type: str, version: int
) -> None:
    """We create and write a table with a payload class; Apache Hudi reads each step as we do, then
    upserts onto it with the same payload class, and we read its write as it does."""
    path = tmp_path / "payload_by_hudi_framework"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        "payload_by_hudi_framework", table_type=table_type, version=version,
        record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
        payload_class=PAYLOAD_PACKAGE + payload,
    )  # fmt: skip
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings())
    label = f"hudi_framework wrote {payload} {table_type} v{version}"
    for done, (operation, rows) in enumerate(FIRST_WRITES, start=1):
        client.write(rows, operation)
        snapshot = _compare(apache_hudi, oracle_tally, path, f"{label}, snapshot after {done} writes")
    _check_payload_semantics(payload, snapshot)
    options = _their_options("payload_by_hudi_framework", payload, table_type, version)
    apache_hudi.write(path, SECOND_WRITER[1], options, SECOND_WRITER[0])
    _compare(apache_hudi, oracle_tally, path, f"{label}, upserted by Apache Hudi")


# ---------------------------------------------------------------------------------------- soft deletes


@pytest.mark.oracle_full
@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("writer", ["apache_hudi", "hudi_framework"])
def test_soft_deletes_both_directions(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, writer: str, table_type: str
) -> None:
    """``_hoodie_is_deleted = true`` rows in upsert batches delete their keys, whichever engine writes them
    and whichever engine wrote the table (no payload class: the table's default event-time ordering)."""
    path = tmp_path / f"soft_deletes_{writer}"
    oracle_tally.tables.add(str(path))
    options = apache_hudi_options(f"soft_deletes_{writer}", table_type, 9)
    label = f"{writer} wrote {table_type} with soft deletes"
    client = None
    if writer == "hudi_framework":
        config = new_table_config(
            f"soft_deletes_{writer}", table_type=table_type,
            record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
        )  # fmt: skip
        client = WriteClient(HudiTable.create(str(path), config), HudiSettings())
    for done, (operation, rows) in enumerate(FIRST_WRITES, start=1):
        if client is None:
            apache_hudi.write(path, rows, options, operation)
        else:
            client.write(rows, operation)
        _compare(apache_hudi, oracle_tally, path, f"{label}, snapshot after {done} writes")
    # The other engine's soft deletes: k012 (and an Op='D' row, an ordinary update here).
    if client is None:
        WriteClient(HudiTable.open(str(path)), HudiSettings()).write(SECOND_WRITER[1], SECOND_WRITER[0])
    else:
        apache_hudi.write(path, SECOND_WRITER[1], options, SECOND_WRITER[0])
    snapshot = _compare(apache_hudi, oracle_tally, path, f"{label}, then the other engine's soft delete")
    keys = set(snapshot["id"].to_pylist())
    assert {"k008", "k012"}.isdisjoint(keys)
    assert {"k005", "k011", "k014"} <= keys


# ------------------------------------------------------------------------------------- partial updates

SQL_COLUMNS = ("id", "city", "ts", "fare", "name", "qty")


def _sql_name(path: Path) -> str:
    # One Spark session serves the whole run: table names must be unique across tests.
    return f"t_{abs(hash(str(path))):x}"


@pytest.mark.oracle_full
def test_we_read_apache_hudi_merge_into_partial_updates(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    """Apache Hudi's Spark SQL ``MERGE INTO ... WHEN MATCHED THEN UPDATE SET`` of some columns on a
    merge-on-read v9 table writes partial-update log blocks; we read them as it does, then upsert a
    narrow batch (our partial update) that it reads as we do."""
    path = tmp_path / "merge_into"
    name = _sql_name(path)
    oracle_tally.tables.add(str(path))
    apache_hudi.sql(
        f"CREATE TABLE {name} (id STRING, city STRING, ts BIGINT, fare DOUBLE, name STRING, qty INT) "
        f"USING hudi PARTITIONED BY (city) LOCATION '{path}' "
        "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')"
    )
    values = ", ".join(
        f"('k{i:03d}', '{('sf', 'ny', 'la')[i % 3]}', 5, {i * 1.5}, 'rider-{i}', {i % 7})" for i in range(9)
    )
    apache_hudi.sql(f"INSERT INTO {name} (id, city, ts, fare, name, qty) VALUES {values}")
    label = "Apache Hudi MERGE INTO partial updates, MERGE_ON_READ v9"
    _compare_sql(apache_hudi, oracle_tally, path, f"{label}: after its insert")
    # Some columns of some keys, with a later and an earlier (late) ordering value.
    apache_hudi.sql(
        f"MERGE INTO {name} t USING (SELECT * FROM VALUES ('k000', 'sf', 6L, 100.0), ('k001', 'ny', 6L, 101.0), "
        "('k002', 'la', 3L, 102.0) AS s(id, city, ts, fare)) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET fare = s.fare, ts = s.ts"
    )
    snapshot = _compare_sql(apache_hudi, oracle_tally, path, f"{label}: after MERGE INTO (fare, ts)")
    by_key = {row["id"]: row for row in snapshot.to_pylist()}
    assert (by_key["k000"]["fare"], by_key["k000"]["name"], by_key["k000"]["qty"]) == (100.0, "rider-0", 0)
    assert by_key["k002"]["fare"] == 3.0  # late: event time keeps the stored row
    apache_hudi.sql(
        f"MERGE INTO {name} t USING (SELECT * FROM VALUES ('k000', 'sf', 7L, 'renamed-0'), "
        "('k003', 'sf', 7L, 'renamed-3') AS s(id, city, ts, name)) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET name = s.name, ts = s.ts"
    )
    _compare_sql(apache_hudi, oracle_tally, path, f"{label}: after MERGE INTO (name, ts)")
    narrow = pa.table(
        {"id": ["k001", "k004"], "city": ["ny", "ny"], "ts": pa.array([8, 8], pa.int64()),
         "qty": pa.array([70, 71], pa.int32())}
    )  # fmt: skip
    WriteClient(HudiTable.open(str(path)), HudiSettings()).upsert(narrow)
    snapshot = _compare_sql(apache_hudi, oracle_tally, path, f"{label}: after our partial upsert (qty, ts)")
    by_key = {row["id"]: row for row in snapshot.to_pylist()}
    assert (by_key["k001"]["fare"], by_key["k001"]["qty"], by_key["k001"]["name"]) == (101.0, 70, "rider-1")


def _compare_sql(apache_hudi: ApacheHudi, tally: Tally, path: Path, label: str) -> pa.Table:
    ours = read_table(HudiTable.open(str(path)))
    compare_reads(tally, label, ours, apache_hudi.read(path), key=KEY, data_columns=SQL_COLUMNS)
    return ours


@pytest.mark.oracle_full
@pytest.mark.parametrize("set_null", [False, True])
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_apache_hudi_reads_our_partial_updates(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, set_null: bool
) -> None:
    """Our upsert of a batch lacking some columns (a partial update; with
    ``write.set_null_for_missing_columns``, null-filled) reads the same in Apache Hudi."""
    path = tmp_path / "partial_by_us"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        "partial_by_us", table_type=table_type,
        record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(str(path), config)
    settings = HudiSettings(write={"set_null_for_missing_columns": set_null})
    label = f"hudi_framework partial updates {table_type}, set_null_for_missing_columns={set_null}"
    full = FIRST_WRITES[0][1].select(list(SQL_COLUMNS))
    WriteClient(table, settings).write(full, "insert")
    _compare_sql(apache_hudi, oracle_tally, path, f"{label}: after insert")
    batches = (
        full.slice(0, 4).select(["id", "city", "ts", "fare"]).set_column(2, "ts", pa.array([6, 6, 3, 6], pa.int64())),
        full.slice(2, 4).select(["id", "city", "ts", "name"]).set_column(2, "ts", pa.array([7, 7, 7, 2], pa.int64())),
    )
    for done, batch in enumerate(batches, start=1):
        WriteClient(HudiTable.open(str(path)), settings).upsert(batch)
        snapshot = _compare_sql(apache_hudi, oracle_tally, path, f"{label}: after partial upsert {done}")
    by_key = {row["id"]: row for row in snapshot.to_pylist()}
    assert (by_key["k002"]["fare"] is None) is set_null  # fare absent from the second batch
    assert by_key["k005"]["ts"] == 5  # a late partial update loses under event time


# ---------------------------------------------------------------------------------- custom strategies

ACME = "8c1f7a52-3c6b-4d2e-9a41-5f0e7d2b6a13"  # examples/acme-merger's strategy
ORDER_COLUMNS = ("id", "ts", "status", "order_updated_at", "order_item", "order_amount", "payment_updated_at",
                 "payment_method", "payment_failure_reason")  # fmt: skip
ORDER_TYPES = (pa.string(), pa.int64(), pa.string(), pa.int64(), pa.string(), pa.float64(), pa.int64(), pa.string(),
               pa.string())  # fmt: skip
NO_JAVA_MERGER = (
    "No valid (spark )?merger implementation set for `hoodie.write.record.merge.custom.implementation.classes`"
)


def _orders(*rows: tuple[object, ...]) -> pa.Table:
    return pa.table(
        {n: pa.array([r[i] for r in rows], t) for i, (n, t) in enumerate(zip(ORDER_COLUMNS, ORDER_TYPES, strict=True))}
    )


def _files(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())


@pytest.mark.oracle_full
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_our_custom_strategy_table_in_apache_hudi(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    """A CUSTOM table with our example merger's strategy UUID (no Java merger implements it): Apache Hudi
    reads its base files as we do and refuses, typed, what needs the merger (merging log records, writing),
    leaving the table as it was."""
    pytest.importorskip("acme_merger", reason="examples/acme-merger is not installed")
    path = tmp_path / "acme"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        "acme", table_type=table_type, record_key_fields=["id"], ordering_fields=["ts"],
        merge_mode="CUSTOM", merge_strategy_id=ACME,
    )  # fmt: skip
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings())
    client.insert(
        _orders(("o1", 1, "new", 1, "book", 9.5, None, None, None), ("o2", 1, "new", 1, "pen", 1.0, None, None, None))
    )
    # The payment service, then a late order-service update: each column group by its own time.
    client.upsert(_orders(("o1", 3, "paid", None, None, None, 3, "card", None)))
    client.upsert(_orders(("o1", 2, "shipped", 2, "book2", 19.5, None, None, None)))
    label = f"hudi_framework wrote {table_type} CUSTOM (acme strategy)"
    ours = read_table(HudiTable.open(str(path)))
    o1 = next(row for row in ours.to_pylist() if row["id"] == "o1")
    assert (o1["status"], o1["order_item"], o1["payment_method"]) == ("paid", "book2", "card")
    optimized = {"hoodie.datasource.query.type": "read_optimized"}
    compare_reads(
        oracle_tally, f"{label}: read_optimized",
        read_table(HudiTable.open(str(path)), query_type="read_optimized"), apache_hudi.read(path, optimized),
        key="id", data_columns=ORDER_COLUMNS,
    )  # fmt: skip
    if table_type == "COPY_ON_WRITE":
        compare_reads(
            oracle_tally, f"{label}: snapshot", ours, apache_hudi.read(path), key="id", data_columns=ORDER_COLUMNS
        )
    else:
        with pytest.raises(ApacheHudiError, match=NO_JAVA_MERGER):
            apache_hudi.read(path)
    before = _files(path)
    their_options = {
        "hoodie.table.name": "acme", "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.partitionpath.field": "",
        "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
    }  # fmt: skip
    with pytest.raises(ApacheHudiError, match=NO_JAVA_MERGER):
        apache_hudi.write(path, _orders(("o2", 5, "x", 5, "y", 1.0, None, None, None)), their_options, "upsert")
    # Its failed write leaves a requested/inflight instant behind (Apache Hudi rolls back later); the data
    # files and what we read are unchanged.
    assert [f for f in _files(path) if not f.startswith(".hoodie")] == [
        f for f in before if not f.startswith(".hoodie")
    ]
    assert read_table(HudiTable.open(str(path))).sort_by("id") == ours.sort_by("id")


@pytest.mark.oracle_full
def test_apache_hudi_custom_strategies(apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path) -> None:
    """What Apache Hudi's Spark writer accepts as CUSTOM: not its built-in modes' UUIDs, and with its
    generic CUSTOM UUID no merger for upserts; a table it leaves with that UUID we refuse, typed."""
    base = {**apache_hudi_options("custom", "MERGE_ON_READ", 9), "hoodie.write.record.merge.mode": "CUSTOM"}
    rows = FIRST_WRITES[0][1]
    for strategy, merger in (
        ("ce9acb64-bde0-424c-9b91-f6ebba25356d", "org.apache.hudi.OverwriteWithLatestSparkRecordMerger"),
        ("eeb8d96f-b1e4-49fd-bbf8-28ac514178e5", "org.apache.hudi.DefaultSparkRecordMerger"),
    ):
        options = {**base, "hoodie.write.record.merge.strategy.id": strategy,
                   "hoodie.write.record.merge.custom.implementation.classes": merger}  # fmt: skip
        with pytest.raises(ApacheHudiError, match="is inconsistent with payload class"):
            apache_hudi.write(tmp_path / strategy, rows, options, "insert")
    path = tmp_path / "generic_custom"
    oracle_tally.tables.add(str(path))
    options = {**base, "hoodie.write.record.merge.strategy.id": "1897ef5f-18bc-4557-939c-9d6a8afd1519",
               "hoodie.write.record.merge.custom.implementation.classes":
                   "org.apache.hudi.common.model.OverwriteWithLatestMerger"}  # fmt: skip
    apache_hudi.write(path, rows, options, "insert")
    with pytest.raises(ApacheHudiError, match=NO_JAVA_MERGER):
        apache_hudi.write(path, FIRST_WRITES[1][1], options, "upsert")
    # Base files only: no merging, both engines read them.
    compare_reads(
        oracle_tally, "Apache Hudi wrote MERGE_ON_READ CUSTOM 1897ef5f…, insert only: snapshot",
        read_table(HudiTable.open(str(path))), apache_hudi.read(path), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
    # Its delete operation succeeds (a delete block); merging it needs the merger neither engine has.
    apache_hudi.write(path, FIRST_WRITES[2][1], options, "delete")
    with pytest.raises(MergeStrategyNotFoundError, match="1897ef5f-18bc-4557-939c-9d6a8afd1519"):
        read_table(HudiTable.open(str(path)))
    with pytest.raises(ApacheHudiError, match=NO_JAVA_MERGER):
        apache_hudi.read(path)


# ---------------------------------------------------------------------------------- Postgres Debezium

TOAST = "__debezium_unavailable_value"  # what Debezium sends for a TOASTed column it did not read
DEBEZIUM_COLUMNS = ("id", "city", "_event_lsn", "name", "note", "_change_operation_type")


def _debezium(*rows: tuple[int, int, str | None, str | None, str]) -> pa.Table:
    """Rows of (key, lsn, name, note, operation)."""
    return pa.table(
        {
            "id": pa.array([f"k{k:03d}" for k, *_ in rows], pa.string()),
            "city": pa.array(["sf" if k % 2 else "ny" for k, *_ in rows], pa.string()),
            "_event_lsn": pa.array([lsn for _, lsn, *_ in rows], pa.int64()),
            "name": pa.array([r[2] for r in rows], pa.string()),
            "note": pa.array([r[3] for r in rows], pa.string()),
            "_change_operation_type": pa.array([r[4] for r in rows], pa.string()),
        }
    )


DEBEZIUM_WRITES = (
    ("insert", _debezium(*((k, 10, f"name-{k}", f"note-{k}", "c") for k in range(6)))),
    # A TOASTed name, a delete, a late update, a new key.
    (
        "upsert",
        _debezium(
            (0, 11, TOAST, "n0", "u"),
            (1, 11, None, None, "d"),
            (2, 5, "late", "late", "u"),
            (6, 11, "name-6", None, "c"),
        ),
    ),
    # A TOASTed note, a late delete (ignored under event time), a null name.
    ("upsert", _debezium((3, 12, "n3", TOAST, "u"), (4, 9, None, None, "d"), (0, 13, None, "n0b", "u"))),
)
DEBEZIUM_SECOND = _debezium((5, 14, None, None, "d"), (2, 15, TOAST, "x", "u"), (7, 15, "name-7", TOAST, "c"))


#: Apache Hudi 1.2.0 disagrees with itself here: on a merge-on-read v8 table (the payload class runs)
#: its snapshot read keeps a TOASTed marker from a log record and applies a late delete, where its
#: copy-on-write write of the same rows keeps the stored value and ignores the late delete (as we do
#: on both). Kept visible as a strict expected failure; docs/compatibility.md describes it.
DEBEZIUM_MOR_V8 = pytest.mark.xfail(
    reason="Apache Hudi 1.2.0's MOR v8 PostgresDebeziumAvroPayload read differs from its own COW merge",
    strict=True,
    raises=AssertionError,
)


@pytest.mark.oracle_full
@pytest.mark.parametrize(
    ("table_type", "version"),
    [("COPY_ON_WRITE", 9), ("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 9),
     pytest.param("MERGE_ON_READ", 8, marks=DEBEZIUM_MOR_V8)],
)  # fmt: skip
@pytest.mark.parametrize("writer", ["apache_hudi", "hudi_framework"])
def test_postgres_debezium_payload_both_directions(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, writer: str, table_type: str, version: int
) -> None:
    """``PostgresDebeziumAvroPayload`` (ordering ``_event_lsn``, ``_change_operation_type = 'd'`` deletes,
    TOASTed values keep the stored ones): one engine writes, the other writes on top."""
    path = tmp_path / "debezium"
    oracle_tally.tables.add(str(path))
    payload = PAYLOAD_PACKAGE + "debezium.PostgresDebeziumAvroPayload"
    options = {
        **apache_hudi_options("debezium", table_type, version),
        "hoodie.datasource.write.precombine.field": "_event_lsn",
        "hoodie.datasource.write.payload.class": payload,
    }
    client = None
    if writer == "hudi_framework":
        config = new_table_config(
            "debezium", table_type=table_type, version=version, record_key_fields=["id"],
            partition_fields=["city"], ordering_fields=["_event_lsn"], payload_class=payload,
        )  # fmt: skip
        client = WriteClient(HudiTable.create(str(path), config), HudiSettings())
    label = f"{writer} wrote PostgresDebeziumAvroPayload {table_type} v{version}"
    for done, (operation, rows) in enumerate(DEBEZIUM_WRITES, start=1):
        if client is None:
            apache_hudi.write(path, rows, options, operation)
        else:
            client.write(rows, operation)
        ours = read_table(HudiTable.open(str(path)))
        compare_reads(
            oracle_tally, f"{label}, after {done} writes", ours, apache_hudi.read(path),
            key=KEY, data_columns=DEBEZIUM_COLUMNS,
        )  # fmt: skip
    by_key = {row["id"]: row for row in ours.to_pylist()}
    assert "k001" not in by_key  # a delete
    assert "k004" in by_key  # a late delete, ignored under event time
    assert by_key["k003"]["note"] == "note-3"  # the TOASTed note kept the stored value
    if client is None:
        WriteClient(HudiTable.open(str(path)), HudiSettings()).upsert(DEBEZIUM_SECOND)
    else:
        apache_hudi.write(path, DEBEZIUM_SECOND, options, "upsert")
    compare_reads(
        oracle_tally, f"{label}, then the other engine's upsert", read_table(HudiTable.open(str(path))),
        apache_hudi.read(path), key=KEY, data_columns=DEBEZIUM_COLUMNS,
    )  # fmt: skip
