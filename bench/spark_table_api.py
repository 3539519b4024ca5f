"""``HudiSparkTable.upsert`` and ``df.write.format("hudi")`` against a naive Spark upsert, on the same
session and the same data.

The naive upsert is what a Spark user without a table format does: read the whole table (plain
Parquet, partitioned like the Hudi table), full outer join it with the batch on the key, keep the
batch's row where there is one, and rewrite everything. Ours tags the batch's keys, rewrites only
the file groups they touch and commits.

    python -m bench.spark_table_api --rows 2000000 --batch 0.12

The data-source upsert writes a copy of the same table (made after the bulk insert). Prints the
wall times and the ratios (ours / naive; below 1.0 is faster). The session is the
benchmarks' own (``bench.spark_session``: ``local[2]``, no test start-up tuning); start-up and
warm-up are not timed, and each side runs once after an untimed warm-up upsert of a tiny batch.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from bench.spark_session import start, stop

CITIES = ("sf", "ny", "la", "sea", "chi", "bos", "aus", "den")
#: Share of the batch that updates existing keys (the rest are new keys).
UPDATE_SHARE = 0.8


def _rows(ids: np.ndarray, rng: np.random.Generator, ts: int) -> pa.Table:
    n = len(ids)
    return pa.table(
        {
            "id": pa.array([f"k{i:010d}" for i in ids]),
            "city": pa.array(np.array(CITIES)[ids % len(CITIES)]),
            "ts": pa.array(np.full(n, ts, dtype=np.int64)),
            "amount": pa.array(rng.random(n) * 1000),
            "qty": pa.array(rng.integers(0, 100, n, dtype=np.int64)),
            "note": pa.array(np.array(["fresh", "late", "bulk", "promo"])[rng.integers(0, 4, n)]),
        }
    )


def _batch(rows: int, fraction: float, rng: np.random.Generator) -> pa.Table:
    size = int(rows * fraction)
    updates = rng.choice(rows, int(size * UPDATE_SHARE), replace=False)
    inserts = np.arange(rows, rows + size - len(updates))
    return _rows(np.concatenate([updates, inserts]), rng, ts=2)


def naive_upsert(spark: Any, table_dir: str, batch: Any, out_dir: str) -> None:
    """Read everything, full outer join on the key, prefer the batch's row, rewrite everything."""
    from pyspark.sql import functions as F  # noqa: N812 - the conventional alias

    stored = spark.read.parquet(table_dir).alias("o")
    incoming = batch.alias("n")
    joined = stored.join(incoming, F.col("o.id") == F.col("n.id"), "full_outer")
    columns = [F.coalesce(F.col(f"n.{c}"), F.col(f"o.{c}")).alias(c) for c in batch.columns]
    joined.select(*columns).write.mode("overwrite").partitionBy("city").parquet(out_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows in the table")
    parser.add_argument("--batch", type=float, default=0.12, help="upsert batch size, as a share of the table")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()

    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.spark import HudiSparkTable, SparkWriteClient
    from hudi_framework.table.table_config import new_table_config

    rng = np.random.default_rng(args.seed)
    root = Path(tempfile.mkdtemp(prefix="bench-table-api-"))
    started = start()
    spark = started.spark
    try:
        initial = _rows(np.arange(args.rows), rng, ts=1)
        batch = spark.createDataFrame(_batch(args.rows, args.batch, rng)).cache()
        batch.count()

        path = str(root / "hudi")
        config = new_table_config("bench", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
        HudiTable.create(path, config)
        table = HudiSparkTable.for_path(spark, path, {"hoodie.clean.automatic": "false"})
        SparkWriteClient(table.table, table.settings, spark).bulk_insert(spark.createDataFrame(initial))
        plain = str(root / "plain")
        spark.createDataFrame(initial).write.partitionBy("city").parquet(plain)
        copy = str(root / "hudi-df-write")
        shutil.copytree(path, copy)
        warm = spark.createDataFrame(_rows(np.arange(3), rng, ts=1))
        table.upsert(warm)  # warm-up: workers import the write path
        options = {"hoodie.datasource.write.operation": "upsert", "hoodie.clean.automatic": "false"}
        warm.write.format("hudi").options(**options).mode("append").save(copy)

        t0 = time.perf_counter()
        result = table.upsert(batch)
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        naive_upsert(spark, plain, batch, str(root / "plain-out"))
        naive = time.perf_counter() - t0
        t0 = time.perf_counter()
        batch.write.format("hudi").options(**options).mode("append").save(copy)
        df_write = time.perf_counter() - t0
        print(
            f"table: {args.rows} rows, batch: {batch.count()} rows ({args.batch:.0%}), "
            f"session start {started.startup_s:.1f}s"
        )
        print(f"HudiSparkTable.upsert: {ours:.2f}s ({result.num_updates} updates, {result.num_inserts} inserts)")
        print(f"naive Spark upsert:    {naive:.2f}s")
        print(f"df.write.format(hudi): {df_write:.2f}s")
        print(f"ratio table API/naive: {ours / naive:.2f}x (target <= 1.0)")
        print(f"ratio df.write/naive:  {df_write / naive:.2f}x (target <= 1.0)")
    finally:
        stop(spark)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
