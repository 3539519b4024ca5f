"""The oracle's comparison fails on any difference, and counts what it checked (no JVM needed)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.oracle.compare import Tally, compare_reads

META = ("_hoodie_commit_time", "_hoodie_record_key", "_hoodie_partition_path")


def _read(values: list[float], ids: tuple[str, ...] = ("a", "b")) -> pa.Table:
    return pa.table({**{c: [f"{c}-{i}" for i in ids] for c in META}, "id": list(ids), "v": values})


def _compare(tally: Tally, ours: pa.Table, theirs: pa.Table) -> None:
    compare_reads(tally, "t", ours, theirs, key="id", data_columns=("id", "v"), meta_columns=META)


def test_equal_reads_in_any_row_order_agree() -> None:
    tally = Tally()
    _compare(tally, _read([1.0, 2.0]), _read([2.0, 1.0], ids=("b", "a")))
    assert (tally.comparisons, tally.agreements, tally.rows) == (1, 1, 2)


@pytest.mark.parametrize(
    "theirs",
    [
        _read([1.0, 2.5]),  # a value
        _read([1.0], ids=("a",)),  # a row
        _read([1.0, 2.0]).drop_columns(["_hoodie_record_key"]),  # a column
    ],
    ids=["value", "row", "column"],
)
def test_any_difference_fails_and_is_counted(theirs: pa.Table) -> None:
    tally = Tally()
    with pytest.raises(AssertionError, match=r"^t: "):
        _compare(tally, _read([1.0, 2.0]), theirs)
    assert (tally.comparisons, tally.agreements, len(tally.disagreements)) == (1, 0, 1)
