"""Driver memory and wall time of a Spark upsert: ``df.write.format("hudi")`` against ``SparkWriteClient``.

``python -m bench.spark_write_memory --rows 1000000 --batch 1000000``

One session (``local[2]``, no start-up tuning). The table (``--rows`` rows, copy-on-write, 8
partitions) is bulk-inserted once and copied for each mode, so every mode upserts the same batch
(``--batch`` rows: half updates of stored keys, half new keys) into the same table. Rows are made
by Spark (``spark.range``): the driver's Python process never holds them, whichever mode runs.

Modes:

* ``datasource``: ``df.write.format("hudi")`` upsert, as a user writes it (batches of at least
  ``write.distributed.min.bytes`` of staged Parquet merge in executors, from the commit);
* ``datasource-local``: the same with the merge in the commit process (``write.distributed.min.bytes``
  set out of reach), the data source's behaviour before the distributed merge;
* ``client``: ``SparkWriteClient.upsert`` on the DataFrame.

Memory is the peak resident set of the whole process tree of the driver, sampled every 100 ms:
this Python process, the JVM, and every Python worker the JVM forks (the commit's included). On
``local[2]`` the executors live in the driver's JVM and their Python workers in its tree, so the
figure holds the executors' work too; the biggest single Python worker is reported apart (the
commit process, for ``datasource-local``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.proctree import PeriodicSampler, descendants, own_rss_bytes

_MB = 1 << 20


@dataclass
class Peak:
    tree_mb: float = 0.0  #: this process + JVM + Python workers, at the sample where the sum peaked
    jvm_mb: float = 0.0
    python_worker_mb: float = 0.0  #: the biggest single Python worker
    samples: int = 0


class Sampler(PeriodicSampler):
    """Peak RSS of this process and its descendants, sampled in a thread."""

    def __init__(self, interval: float = 0.1) -> None:
        super().__init__(interval)
        self.peak = Peak()

    def sample(self) -> None:
        tree = descendants(os.getpid())
        total = own_rss_bytes() + sum(s.rss_bytes for s in tree)
        jvm = sum(s.rss_bytes for s in tree if s.name == "java")
        worker = max((s.rss_bytes for s in tree if s.name != "java"), default=0)
        p = self.peak
        self.peak = Peak(
            max(p.tree_mb, total / _MB), max(p.jvm_mb, jvm / _MB), max(p.python_worker_mb, worker / _MB), p.samples + 1
        )


def write_options(operation: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "bench",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "part",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": operation,
    }


def rows_frame(spark: Any, start: int, count: int, ts: int) -> Any:
    from pyspark.sql import functions as sf

    return spark.range(start, start + count).select(
        sf.format_string("k%010d", sf.col("id")).alias("id"),
        sf.format_string("p%d", sf.col("id") % 8).alias("part"),
        sf.lit(ts).cast("long").alias("ts"),
        (sf.col("id") * 1.5).alias("v1"),
        sf.sha2(sf.col("id").cast("string"), 256).alias("s1"),
    )


def batch_frame(spark: Any, rows: int, batch: int) -> Any:
    updates = batch // 2
    return rows_frame(spark, 0, updates, 2).unionByName(rows_frame(spark, rows, batch - updates, 2))


def _run(mode: str, spark: Any, path: str, rows: int, batch: int) -> dict[str, Any]:
    from hudi_framework import HudiTable
    from hudi_framework.spark import SparkWriteClient

    df = batch_frame(spark, rows, batch)
    with Sampler() as sampler:
        began = time.perf_counter()
        if mode == "client":
            SparkWriteClient(HudiTable.open(path), None, spark).upsert(df)
        else:
            opts = write_options("upsert")
            if mode == "datasource-local":
                opts["write.distributed.min.bytes"] = str(1 << 62)
            df.write.format("hudi").options(**opts).mode("append").save(path)
        wall = time.perf_counter() - began
    count = spark.read.format("hudi").load(path).count()
    return {
        "mode": mode,
        "wall_s": round(wall, 2),
        "rows_after": count,
        "merged_in_executors": merged_in_executors(path),
        **asdict(sampler.peak),
    }


def merged_in_executors(path: str) -> bool:
    """Whether the upsert's files were written by Spark tasks (the local engine's write tokens are
    ``<n>-0-0``; a Spark task's carry its stage id, never 0 for the merge)."""
    from hudi_framework import HudiTable
    from hudi_framework.layout.naming import BaseFileName

    table = HudiTable.open(path)
    latest = table.timeline.completed()[-1].requested_time
    names = [BaseFileName.parse(p.name) for p in Path(path).rglob("*.parquet") if ".hoodie" not in p.parts]
    return all(n.write_token.split("-")[1] != "0" for n in names if n.instant_time == latest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1_000_000)
    parser.add_argument("--modes", default="datasource,client,datasource-local")
    parser.add_argument("--out", type=Path, default=None, help="append the results as JSON lines")
    args = parser.parse_args()

    from hudi_framework.spark import spark_session

    spark = spark_session(
        "bench-spark-write-memory",
        master="local[2]",
        conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"},
    )
    spark.sparkContext.setLogLevel("ERROR")
    work = Path(tempfile.mkdtemp(prefix="bench-spark-write-"))
    try:
        base = str(work / "base")
        rows_frame(spark, 0, args.rows, 1).write.format("hudi").options(**write_options("bulk_insert")).mode(
            "append"
        ).save(base)
        load = os.getloadavg()
        for mode in args.modes.split(","):
            path = str(work / mode)
            shutil.copytree(base, path)
            result = {
                "rows": args.rows,
                "batch": args.batch,
                "load_avg_1m": round(load[0], 1),
                **_run(mode, spark, path, args.rows, args.batch),
            }
            result["load_avg_after_1m"] = round(os.getloadavg()[0], 1)
            print(json.dumps(result), flush=True)
            if args.out is not None:
                with args.out.open("a") as f:
                    f.write(json.dumps(result) + "\n")
            shutil.rmtree(path)
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
