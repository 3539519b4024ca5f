"""Apache Hudi as the oracle for schema evolution: it evolves a table's schema write by write (an added
column, a type promotion int -> long, a batch without a column), we read every step as it does; our
writer refuses an incompatible change (typed error, table unchanged), upserts rows of the schema
Apache Hudi evolved, then evolves the table itself (a new column, a widened type): Apache Hudi reads
our evolved table as we do and writes on into it.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, read_table
from hudi_framework.errors import ColumnTypeError
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, KEY, apache_hudi_options, trip_rows

pytestmark = pytest.mark.oracle

TABLE_TYPES = ("COPY_ON_WRITE", pytest.param("MERGE_ON_READ", marks=pytest.mark.oracle_full))


def _with_tip(rows: pa.Table, ts: int) -> pa.Table:
    return rows.append_column("tip", pa.array([i * 0.25 + ts for i in range(rows.num_rows)], pa.float64()))


def _compare(apache_hudi: ApacheHudi, tally: Tally, path: Path, label: str, columns: tuple[str, ...]) -> pa.Table:
    ours = read_table(HudiTable.open(str(path)))
    compare_reads(tally, label, ours, apache_hudi.read(path), key=KEY, data_columns=columns)
    return ours


def _table_state(path: Path) -> tuple[list[str], list[str], pa.Table]:
    """Timeline instants, every file under the table and its snapshot: what a failed write must not change."""
    table = HudiTable.open(str(path))
    files = sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())
    instants = [f"{i.requested_time}.{i.action.value}.{i.state.value}" for i in table.timeline.instants]
    return instants, files, read_table(table).sort_by(KEY)


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_we_read_every_step_of_apache_hudis_schema_evolution(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    path = tmp_path / "evolved"
    oracle_tally.tables.add(str(path))
    options = apache_hudi_options("evolved", table_type, 9)
    label = f"Apache Hudi evolved {table_type} v9"
    apache_hudi.write(path, trip_rows(range(12), ts=1), options, "insert")
    _compare(apache_hudi, oracle_tally, path, f"{label}: insert", DATA_COLUMNS)

    # An added column: older rows read it as null.
    apache_hudi.write(path, _with_tip(trip_rows(range(4), ts=2), 2), options, "upsert")
    with_tip = (*DATA_COLUMNS, "tip")
    snapshot = _compare(apache_hudi, oracle_tally, path, f"{label}: upsert adding column tip", with_tip)
    assert snapshot.schema.field("tip").type == pa.float64()
    assert snapshot.filter(pa.compute.field("id") == "k010")["tip"].to_pylist() == [None]

    # Our writer refuses an incompatible change, typed, and leaves the table as it was.
    before = _table_state(path)
    extra = _with_tip(trip_rows(range(2), ts=3), 3).set_column(6, "tip", pa.array([True, False]))
    with pytest.raises(ColumnTypeError, match="tip"):
        WriteClient(HudiTable.open(str(path)), HudiSettings()).upsert(extra)
    assert _table_state(path) == before

    # A type promotion int -> long.
    promoted = _with_tip(trip_rows(range(2, 6), ts=4), 4)
    promoted = promoted.set_column(5, "qty", promoted["qty"].cast(pa.int64()))
    apache_hudi.write(path, promoted, options, "upsert")
    snapshot = _compare(apache_hudi, oracle_tally, path, f"{label}: upsert promoting qty to long", with_tip)
    assert snapshot.schema.field("qty").type == pa.int64()

    # A batch without a column (name), reconciled to the table's schema: Apache Hudi writes nulls.
    dropped = _with_tip(trip_rows(range(5, 8), ts=5), 5).drop_columns(["name"])
    dropped = dropped.set_column(4, "qty", dropped["qty"].cast(pa.int64()))
    apache_hudi.write(path, dropped, {**options, "hoodie.datasource.write.reconcile.schema": "true"}, "upsert")
    _compare(apache_hudi, oracle_tally, path, f"{label}: upsert without column name (reconciled)", with_tip)

    # Our writer upserts rows of the evolved schema (tip, qty long): Apache Hudi reads them as we do.
    ours = _with_tip(pa.concat_tables([trip_rows(range(0, 3), ts=6), trip_rows(range(12, 14), ts=6)]), 6)
    ours = ours.set_column(5, "qty", ours["qty"].cast(pa.int64()))
    WriteClient(HudiTable.open(str(path)), HudiSettings()).upsert(ours)
    snapshot = _compare(apache_hudi, oracle_tally, path, f"{label}: our upsert of the evolved schema", with_tip)
    assert snapshot.num_rows == 14

    # Our writer evolves the table: a column of its own (coupon) and qty widened from long to double.
    evolved = _with_tip(trip_rows(range(1, 4), ts=7), 7).append_column("coupon", pa.array(["c1", "c2", "c3"]))
    evolved = evolved.set_column(5, "qty", evolved["qty"].cast(pa.float64()))
    WriteClient(HudiTable.open(str(path)), HudiSettings()).upsert(evolved)
    table = HudiTable.open(str(path))
    assert table.schema().names[-2:] == ["tip", "coupon"]
    assert table.schema().field("qty").type == pa.float64()
    with_coupon = (*with_tip, "coupon")
    snapshot = _compare(
        apache_hudi, oracle_tally, path, f"{label}: our upsert adding coupon, qty as double", with_coupon
    )
    assert snapshot.filter(pa.compute.field("id") == "k010")["coupon"].to_pylist() == [None]

    # Apache Hudi writes on into the table we evolved.
    theirs = _with_tip(trip_rows(range(8, 11), ts=8), 8).append_column("coupon", pa.array(["h1", "h2", "h3"]))
    theirs = theirs.set_column(5, "qty", theirs["qty"].cast(pa.float64()))
    apache_hudi.write(path, theirs, options, "upsert")
    snapshot = _compare(
        apache_hudi, oracle_tally, path, f"{label}: Apache Hudi upserts our evolved schema", with_coupon
    )
    assert snapshot.num_rows == 14
