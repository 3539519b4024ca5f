"""The Apache Hudi oracle: one session per test run, provisioned (or reused) from the user's cache.

Tests here skip only when provisioning is impossible offline (no network and nothing cached); any
other provisioning or start-up failure fails them. The heavier cases carry ``oracle_full`` and run
with ``HUDI_ORACLE_FULL=1``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracle.client import ApacheHudi
from tests.oracle.compare import TALLY, Tally
from tests.oracle.provision import OracleUnavailableError, provision
from tests.oracle.selection import FULL_ENV, full_matrix


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if full_matrix():
        return
    skip = pytest.mark.skip(reason=f"the full Apache Hudi matrix runs with {FULL_ENV}=1")
    for item in items:
        if "oracle_full" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def oracle_tally(request: pytest.FixtureRequest) -> Tally:
    tally = Tally()
    request.config.stash[TALLY] = tally
    return tally


@pytest.fixture(scope="session")
def apache_hudi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApacheHudi]:
    """Apache Hudi's Spark bundle in a local[2] session of its own, for the whole test run."""
    try:
        env = provision()
    except OracleUnavailableError as exc:
        pytest.skip(f"Apache Hudi oracle unavailable offline (no network, nothing cached): {exc}")
    oracle = ApacheHudi(env, tmp_path_factory.mktemp("apache-hudi"))
    yield oracle
    oracle.close()
