"""Deterministic rows for the scenarios: string keys, an ordering column, a few payload types.

Every key has fixed "home" values (region, day, kind) so that a key stays in its partition unless a
scenario moves it on purpose; what changes between versions of a key is the payload and ``seq``,
the ordering field. ``ts`` is epoch millis inside the key's day (the timestamp key generator's input),
so it may change on an update without moving the key.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

import pyarrow as pa

#: The data schema of every scenario table (no meta fields). ``seq`` is the ordering field.
SCHEMA = pa.schema(
    [
        pa.field("id", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("region", pa.string()),
        pa.field("ts", pa.int64()),
        pa.field("seq", pa.int64()),
        pa.field("amount", pa.decimal128(12, 2)),
        pa.field("day", pa.date32()),
        pa.field("event_time", pa.timestamp("us", tz="UTC")),
        pa.field("qty", pa.int32()),
        pa.field("note", pa.string()),
    ]
)
ORDERING_FIELD = "seq"
PLAIN_REGIONS = ("eu", "us", "ap")
#: Region values that need url-encoding (``/``, ``:``, ``#``, space, ``=``).
SPECIAL_REGIONS = ("eu/west", "us:east", "ap #1=x")
KINDS = ("x", "y")
DAYS = (dt.date(2024, 1, 15), dt.date(2024, 1, 16), dt.date(2024, 1, 17))
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

Row = dict[str, Any]


def key_id(n: int) -> str:
    """The ``id`` of key number ``n``."""
    return f"k{n:04d}"


class RowFactory:
    """Versions of keys ``k0000``, ``k0001``... with fixed home values and fresh payloads.

    Args:
        seed: Seed of the payload generator (the same seed gives the same rows).
        regions: Region values (three), e.g. :data:`SPECIAL_REGIONS` for url-encoding.
    """

    def __init__(self, seed: int, regions: Sequence[str] = PLAIN_REGIONS) -> None:
        self._rng = random.Random(seed)
        self._regions = tuple(regions)
        self._seq = 0

    def home(self, n: int) -> tuple[str, str, dt.date]:
        """Region, kind and day of key ``n``."""
        return self._regions[n % len(self._regions)], KINDS[(n // 3) % len(KINDS)], DAYS[(n // 2) % len(DAYS)]

    def row(self, n: int, *, seq: int | None = None, region: str | None = None, **overrides: Any) -> Row:
        """A new version of key ``n`` (``seq`` grows with every row unless given)."""
        rng = self._rng
        home_region, kind, day = self.home(n)
        if seq is None:
            self._seq += 1
            seq = 1_000 + self._seq
        day_start = dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
        ts_ms = int((day_start - _EPOCH).total_seconds() * 1000) + rng.randrange(86_400_000)
        row: Row = {
            "id": key_id(n),
            "kind": kind,
            "region": region if region is not None else home_region,
            "ts": ts_ms,
            "seq": seq,
            "amount": Decimal(rng.randrange(-1_000_000, 1_000_000)).scaleb(-2),
            "day": day,
            "event_time": day_start + dt.timedelta(microseconds=rng.randrange(86_400_000_000)),
            "qty": rng.randrange(-(2**31), 2**31),
            "note": None if rng.random() < 0.2 else f"note-{rng.randrange(10_000)}",
        }
        row.update(overrides)
        return row

    def rows(self, keys: Iterable[int], **kwargs: Any) -> list[Row]:
        """One new version per key."""
        return [self.row(n, **kwargs) for n in keys]


def to_table(rows: Sequence[Row], *, is_deleted: Sequence[bool] | None = None) -> pa.Table:
    """Rows as a table in :data:`SCHEMA` (plus ``_hoodie_is_deleted`` when given)."""
    table = pa.Table.from_pylist(list(rows), schema=SCHEMA)
    if is_deleted is not None:
        table = table.append_column("_hoodie_is_deleted", pa.array(list(is_deleted), pa.bool_()))
    return table
