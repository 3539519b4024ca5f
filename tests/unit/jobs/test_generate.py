"""The trips generator: deterministic, vectorised, in the documented shape."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.jobs import generate
from hudi_framework.jobs.generate import (
    CITIES,
    TRIPS_SCHEMA,
    new_trips,
    sample_rows,
    step_rng,
    trip_ids,
    updated_trips,
)


def test_same_seed_same_rows_other_seed_other_rows() -> None:
    first = new_trips(step_rng(7, 0), 0, 1_000)
    assert first.equals(new_trips(step_rng(7, 0), 0, 1_000))
    assert not first.equals(new_trips(step_rng(8, 0), 0, 1_000))
    assert not first.equals(new_trips(step_rng(7, 1), 0, 1_000))


def test_shape_and_types() -> None:
    rows = new_trips(step_rng(1, 0), 100, 5_000)
    assert rows.schema == TRIPS_SCHEMA
    assert rows.num_rows == 5_000
    assert rows.column("trip_id")[0].as_py() == "trip-000000100"
    assert rows.column("trip_id")[-1].as_py() == "trip-000005099"
    assert pc.count_distinct(rows.column("trip_id")).as_py() == 5_000
    assert set(pc.unique(rows.column("city")).to_pylist()) == set(CITIES)
    assert rows.column("fare").type == pa.decimal128(10, 2)
    assert pc.min(rows.column("fare")).as_py() > Decimal(0)
    # day is the UTC date of ts.
    days = pc.cast(pc.divide(rows.column("ts"), 86_400_000), pa.int32())
    assert pc.all(pc.equal(days, pc.cast(rows.column("day"), pa.int32()))).as_py()
    assert rows.column("driver").type.names == ["id", "rating"]
    assert all(column.null_count == 0 for column in rows.columns)


def test_cities_can_be_restricted() -> None:
    rows = new_trips(step_rng(1, 3), 0, 300, cities=["tokyo", "chennai"])
    assert set(pc.unique(rows.column("city")).to_pylist()) == {"tokyo", "chennai"}


def test_trip_ids_are_zero_padded() -> None:
    import numpy as np

    assert trip_ids(np.array([0, 42, 123_456_789])).to_pylist() == [
        "trip-000000000",
        "trip-000000042",
        "trip-123456789",
    ]


def test_updates_keep_key_and_city_and_move_ts_forward() -> None:
    live = new_trips(step_rng(3, 0), 0, 2_000)
    updates = updated_trips(step_rng(3, 1), live, 500)
    assert updates.schema == TRIPS_SCHEMA
    assert updates.num_rows == 500
    assert pc.count_distinct(updates.column("trip_id")).as_py() == 500
    before = live.select(["trip_id", "city", "ts"]).join(
        updates.select(["trip_id", "city", "ts"]), "trip_id", join_type="inner", right_suffix="_new"
    )
    assert before.num_rows == 500
    assert pc.all(pc.equal(before.column("city"), before.column("city_new"))).as_py()
    assert pc.all(pc.greater(before.column("ts_new"), before.column("ts"))).as_py()
    assert updates.equals(updated_trips(step_rng(3, 1), live, 500))


@pytest.mark.parametrize(("count", "expected"), [(10, 10), (50, 50), (80, 50)])
def test_sample_rows_are_distinct_and_capped(count: int, expected: int) -> None:
    live = new_trips(step_rng(5, 0), 0, 50)
    sample = sample_rows(step_rng(5, 1), live, count)
    assert sample.num_rows == expected
    assert pc.count_distinct(sample.column("trip_id")).as_py() == expected


def test_no_python_row_loops_in_the_generator() -> None:
    # Generating 200k rows stays well under a second's budget of per-row Python work.
    import time

    started = time.perf_counter()
    rows = generate.new_trips(step_rng(9, 0), 0, 200_000)
    assert rows.num_rows == 200_000
    assert time.perf_counter() - started < 5
