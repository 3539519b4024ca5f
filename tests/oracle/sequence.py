"""The rows and write sequence every cross-engine case uses, and Apache Hudi's options for a table.

Record key ``id``, partition path ``city``, ordering field ``ts``; columns of types string, long,
double and int.
"""

from __future__ import annotations

import pyarrow as pa

KEY = "id"
DATA_COLUMNS = ("id", "city", "ts", "fare", "name", "qty")
CITIES = ("sf", "ny", "la")


def trip_rows(keys: range, ts: int) -> pa.Table:
    ids = [f"k{i:03d}" for i in keys]
    return pa.table(
        {
            "id": pa.array(ids, pa.string()),
            "city": pa.array([CITIES[i % len(CITIES)] for i in keys], pa.string()),
            "ts": pa.array([ts] * len(ids), pa.int64()),
            "fare": pa.array([i * 1.5 + ts for i in keys], pa.float64()),
            "name": pa.array([f"rider-{i}-{ts}" for i in keys], pa.string()),
            "qty": pa.array([i % 7 + ts for i in keys], pa.int32()),
        }
    )


#: insert 40 keys; upsert 15 of them (a later ts) and 10 new ones; delete 8; upsert updates only
#: (merge-on-read: log blocks), 5 with a later ts and 5 late ones (an earlier ts: event-time ordering drops them).
SEQUENCE: tuple[tuple[str, pa.Table], ...] = (
    ("insert", trip_rows(range(40), ts=1)),
    ("upsert", pa.concat_tables([trip_rows(range(15), ts=2), trip_rows(range(40, 50), ts=2)])),
    ("delete", trip_rows(range(20, 28), ts=3)),
    ("upsert", pa.concat_tables([trip_rows(range(5), ts=4), trip_rows(range(5, 10), ts=0)])),
)
#: What the sequence leaves: 42 keys; ts 4 on k000-k004, 2 on k005-k014 and k040-k049, 1 elsewhere.
EXPECTED_TS = {
    **{f"k{i:03d}": 1 for i in (*range(15, 20), *range(28, 40))},
    **{f"k{i:03d}": 2 for i in (*range(5, 15), *range(40, 50))},
    **{f"k{i:03d}": 4 for i in range(5)},
}


def apache_hudi_options(name: str, table_type: str, version: int) -> dict[str, str]:
    options = {
        "hoodie.table.name": name,
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
    }
    if version != 9:
        options["hoodie.write.table.version"] = str(version)
    return options
