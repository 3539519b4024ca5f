"""The standalone cluster (a master and two workers on 127.0.0.1) and its driver, once per session.

The tests using them share one xdist worker (group ``jvm-cluster``, tests/parallel.py); the driver
runs in a child process (tests/cluster/driver.py), so the ``local[2]`` ``spark`` fixture may live in
the same pytest process.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster.driver import ClusterDriver
from tests.cluster.standalone import StandaloneCluster, start_cluster


@pytest.fixture(scope="session")
def standalone_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    cluster = start_cluster(tmp_path_factory.mktemp("spark-cluster"))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def cluster(standalone_cluster: StandaloneCluster) -> Iterator[ClusterDriver]:
    """The driver of a SparkSession on the standalone cluster (``cluster.run(fn, *args)``)."""
    driver = ClusterDriver(standalone_cluster)
    try:
        yield driver
    finally:
        driver.stop()
