"""Rows and writes that exercise what each legacy payload class does: nulls in updates, late ordering
values, ``Op = 'D'`` (AWS DMS) deletes, ``_hoodie_is_deleted`` soft deletes and ``delete`` operations.

Record key ``id``, partition path ``city``, ordering field ``ts``. Every batch carries every column
(``Op`` and ``_hoodie_is_deleted`` are ordinary data columns of the table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

KEY = "id"
DATA_COLUMNS = ("id", "city", "ts", "fare", "name", "qty", "Op", "_hoodie_is_deleted")
PAYLOAD_PACKAGE = "org.apache.hudi.common.model."
CITIES = ("sf", "ny", "la")

SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("city", pa.string()),
        ("ts", pa.int64()),
        ("fare", pa.float64()),
        ("name", pa.string()),
        ("qty", pa.int32()),
        ("Op", pa.string()),
        ("_hoodie_is_deleted", pa.bool_()),
    ]
)


@dataclass(frozen=True)
class Change:
    """One row of a batch: key number, ordering value, and what is special about it."""

    key: int
    ts: int
    nulls: Sequence[str] = ()
    op: str = "U"
    soft_delete: bool = False


def rows(changes: Sequence[Change]) -> pa.Table:
    def value(change: Change, column: str, full: object) -> object:
        return None if column in change.nulls else full

    columns: dict[str, list[object]] = {name: [] for name in SCHEMA.names}
    for c in changes:
        columns["id"].append(f"k{c.key:03d}")
        columns["city"].append(CITIES[c.key % len(CITIES)])
        columns["ts"].append(c.ts)
        columns["fare"].append(value(c, "fare", c.key * 1.5 + c.ts))
        columns["name"].append(value(c, "name", f"rider-{c.key}-{c.ts}"))
        columns["qty"].append(value(c, "qty", c.key % 7 + c.ts))
        columns["Op"].append(c.op)
        columns["_hoodie_is_deleted"].append(c.soft_delete)
    return pa.table(columns, schema=SCHEMA)


#: Four writes by one engine: insert; upsert with null columns, late ordering values, an Op='D' row and
#: new keys; a delete operation; an upsert (merge-on-read: log blocks) with a soft delete, more nulls,
#: a late Op='D' row and late updates.
FIRST_WRITES: tuple[tuple[str, pa.Table], ...] = (
    ("insert", rows([Change(k, 5, op="I") for k in range(12)])),
    (
        "upsert",
        rows(
            [
                Change(0, 6, nulls=("name", "fare")),
                Change(1, 6, nulls=("name",)),
                Change(2, 3),
                Change(3, 3),
                Change(4, 3, nulls=("name",)),
                Change(5, 7, op="D"),
                Change(12, 6, op="I"),
                Change(13, 6, nulls=("name",), op="I"),
            ]
        ),
    ),
    ("delete", rows([Change(7, 8)])),
    (
        "upsert",
        rows(
            [
                Change(0, 7, nulls=("fare", "qty")),
                Change(1, 4, nulls=("qty",)),
                Change(8, 9, soft_delete=True),
                Change(9, 9, nulls=("name", "qty")),
                Change(10, 2, nulls=("name",), op="D"),
                Change(13, 7, nulls=("fare",)),
            ]
        ),
    ),
)
#: Then the other engine upserts: nulls, late updates, an Op='D' row, a soft delete, a new key.
SECOND_WRITER: tuple[str, pa.Table] = (
    "upsert",
    rows(
        [
            Change(2, 10, nulls=("name",)),
            Change(3, 1, nulls=("qty",)),
            Change(11, 10, op="D"),
            Change(12, 10, soft_delete=True),
            Change(9, 10, nulls=("fare",)),
            Change(14, 10, nulls=("qty",), op="I"),
            Change(13, 1),  # late, onto a stored row with a null column (k013's name)
        ]
    ),
)
