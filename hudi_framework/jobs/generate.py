"""A deterministic ``trips`` sample dataset and its change batches, built column-wise with numpy and pyarrow.

Every function takes a ``numpy.random.Generator`` and is a pure function of it and its arguments, so
one seed reproduces the same rows on every machine. Rows are never built one at a time in Python:
each column is one vectorised draw.

The dataset: ``trip_id`` (record key, ``trip-000000042``), ``city`` (partition), ``ts`` (ordering:
epoch milliseconds), ``day`` (the UTC date of ``ts``), ``fare`` (``decimal(10,2)``), ``distance_km``
(double) and ``driver`` (a struct of ``id`` and ``rating``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "CITIES",
    "KEY_FIELD",
    "ORDERING_FIELD",
    "PARTITION_FIELD",
    "TRIPS_SCHEMA",
    "new_trips",
    "sample_rows",
    "step_rng",
    "trip_ids",
    "updated_trips",
]

KEY_FIELD: Final = "trip_id"
PARTITION_FIELD: Final = "city"
ORDERING_FIELD: Final = "ts"

#: Partition values, with how often each one occurs (partitions of different sizes, like real data).
CITIES: Final = ("amsterdam", "chennai", "new_york", "san_francisco", "sao_paulo", "tokyo")
_CITY_WEIGHTS: Final = np.array([0.10, 0.15, 0.25, 0.20, 0.18, 0.12])

DRIVER_TYPE: Final = pa.struct([pa.field("id", pa.string()), pa.field("rating", pa.float64())])
TRIPS_SCHEMA: Final = pa.schema(
    [
        pa.field(KEY_FIELD, pa.string(), nullable=False),
        pa.field(PARTITION_FIELD, pa.string(), nullable=False),
        pa.field(ORDERING_FIELD, pa.int64(), nullable=False),
        pa.field("day", pa.date32()),
        pa.field("fare", pa.decimal128(10, 2)),
        pa.field("distance_km", pa.float64()),
        pa.field("driver", DRIVER_TYPE),
    ]
)

#: 2026-01-01T00:00:00Z in epoch milliseconds; first trips start within 30 days of it.
_START_MS: Final = 1_767_225_600_000
_DAY_MS: Final = 86_400_000
_KEY_DIGITS: Final = 9
_DRIVERS: Final = 800


def step_rng(seed: int, step: int) -> np.random.Generator:
    """The random generator of one job step: independent of how much earlier steps drew."""
    return np.random.default_rng([seed, step])


def trip_ids(ids: np.ndarray) -> pa.Array:
    """Record keys ``trip-<zero-padded id>`` for integer ids."""
    digits = pc.utf8_lpad(pa.array(ids, pa.int64()).cast(pa.string()), _KEY_DIGITS, "0")
    return pc.binary_join_element_wise("trip-", digits, "")


def _decimal_cents(cents: np.ndarray, precision: int = 10) -> pa.Array:
    # decimal128 values are 16-byte little-endian integers in units of 10^-scale: exact, no float rounding.
    high = np.where(cents < 0, -1, 0).astype(np.int64)
    data = np.column_stack([cents.astype(np.int64), high]).ravel().tobytes()
    return pa.Array.from_buffers(pa.decimal128(precision, 2), len(cents), [None, pa.py_buffer(data)])


def _measures(rng: np.random.Generator, ts: np.ndarray) -> dict[str, pa.Array]:
    # Columns that change when a trip is updated: day (follows ts), fare, distance, driver.
    n = len(ts)
    distance = np.round(rng.gamma(shape=2.0, scale=4.0, size=n) + 0.3, 3)
    cents = np.round(250 + distance * 180 + rng.normal(0, 120, size=n).clip(-200, 2000)).astype(np.int64)
    drivers = pc.binary_join_element_wise(
        "driver-", pc.utf8_lpad(pa.array(rng.integers(0, _DRIVERS, size=n)).cast(pa.string()), 4, "0"), ""
    )
    rating = np.round(rng.uniform(3.0, 5.0, size=n), 2)
    return {
        "day": pa.array((ts // _DAY_MS).astype(np.int32), pa.int32()).cast(pa.date32()),
        "fare": _decimal_cents(cents),
        "distance_km": pa.array(distance, pa.float64()),
        "driver": pa.StructArray.from_arrays([drivers, pa.array(rating, pa.float64())], fields=list(DRIVER_TYPE)),
    }


def _assemble(keys: pa.Array, cities: pa.Array, ts: np.ndarray, measures: dict[str, pa.Array]) -> pa.Table:
    columns = {KEY_FIELD: keys, PARTITION_FIELD: cities, ORDERING_FIELD: pa.array(ts, pa.int64()), **measures}
    return pa.Table.from_pydict(columns, schema=TRIPS_SCHEMA)


def new_trips(rng: np.random.Generator, first_id: int, count: int, *, cities: Sequence[str] = CITIES) -> pa.Table:
    """``count`` trips with new keys ``first_id .. first_id + count - 1``.

    Args:
        rng: The step's random generator.
        first_id: Id of the first new key; ids are consecutive.
        count: Number of rows.
        cities: Partition values to spread the rows over (weighted like :data:`CITIES` when all are used).

    Returns:
        A table in :data:`TRIPS_SCHEMA`.
    """
    ids = np.arange(first_id, first_id + count, dtype=np.int64)
    if tuple(cities) == CITIES:
        city_index = rng.choice(len(CITIES), size=count, p=_CITY_WEIGHTS)
    else:
        city_index = rng.integers(0, len(cities), size=count)
    city_values = pa.array(list(cities), pa.string()).take(pa.array(city_index))
    ts = _START_MS + rng.integers(0, 30 * _DAY_MS, size=count, dtype=np.int64)
    return _assemble(trip_ids(ids), city_values, ts, _measures(rng, ts))


def sample_rows(rng: np.random.Generator, rows: pa.Table, count: int) -> pa.Table:
    """``count`` distinct rows of ``rows`` (all of them if it has fewer), in random order."""
    take = min(count, rows.num_rows)
    return rows.take(pa.array(rng.choice(rows.num_rows, size=take, replace=False)))


def updated_trips(rng: np.random.Generator, live: pa.Table, count: int) -> pa.Table:
    """New versions of ``count`` existing trips: same key and city, a later ``ts``, new measures.

    Args:
        rng: The step's random generator.
        live: The trips the table holds now (in :data:`TRIPS_SCHEMA`).
        count: Number of trips to update; capped at ``live.num_rows``.

    Returns:
        A table in :data:`TRIPS_SCHEMA` whose ``ts`` values are larger than the stored ones, so the
        updates win under both event-time and commit-time ordering.
    """
    chosen = sample_rows(rng, live, count)
    old_ts = chosen.column(ORDERING_FIELD).to_numpy()
    ts = old_ts + rng.integers(60_000, 6 * 3_600_000, size=chosen.num_rows, dtype=np.int64)
    return _assemble(
        chosen.column(KEY_FIELD).combine_chunks(),
        chosen.column(PARTITION_FIELD).combine_chunks(),
        ts,
        _measures(rng, ts),
    )
