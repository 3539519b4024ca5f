"""One SparkSession for the whole test session (local[2], 2 shuffle partitions, UI off)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from hudi_framework.spark.session import spark_session

    session = spark_session(
        "hudi_framework-tests",
        master="local[2]",
        conf={
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            # Faster JVM start-up for tests only (halves steady-state throughput: never in benchmarks).
            "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1",
        },
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
