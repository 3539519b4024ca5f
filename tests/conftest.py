"""Shared fixtures: fixture tables extracted once per session, a fresh plugin manager per test, one
SparkSession for the whole test session (local[2], 2 shuffle partitions, UI off), and one Kafka broker
(KRaft, 127.0.0.1) for the tests that ask for it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hudi_framework import Components
from hudi_framework.config.settings import HudiSettings
from hudi_framework.plugin import ComponentRegistry, HudiPluginManager, build_plugin_manager
from tests.fixture_tables import FixtureTable, all_fixture_tables
from tests.matrix_subset import uncovered_matrix_cases
from tests.s3_subset import FULL_S3_ENV, full_s3, redundant_s3_cases
from tests.slow_subset import SLOW_ENV, run_slow, slow_items

pytest_plugins = ["tests.parallel"]


def pytest_report_header(config: pytest.Config) -> list[str]:
    if full_s3():
        s3 = f"S3: every S3 case ({FULL_S3_ENV}=full)"
    else:
        s3 = f"S3: one S3 case per place-parametrised test ({FULL_S3_ENV}=full runs every one)"
    if run_slow(config):
        slow = "slow: run; matrix: every case"
    else:
        slow = f"slow: left out, matrix: a covering subset ({SLOW_ENV}=1 or -m slow runs them all)"
    return [s3, slow]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not run_slow(config):
        _deselect(config, items, slow_items(items))
        _deselect(config, items, uncovered_matrix_cases(items))
    # After the slow and matrix ones: the S3 case kept is one of those that run.
    _deselect(config, items, redundant_s3_cases(items, full=full_s3()))


def _deselect(config: pytest.Config, items: list[pytest.Item], dropped: list[pytest.Item]) -> None:
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        drop = {id(item) for item in dropped}
        items[:] = [item for item in items if id(item) not in drop]


@pytest.fixture(scope="session")
def fixtures_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    all_fixture_tables()  # raises when the vendored tables are missing
    return tmp_path_factory.mktemp("hudi-fixtures")


@pytest.fixture(scope="session")
def extract_fixture(fixtures_root: Path) -> Callable[[FixtureTable], tuple[Path, Path | None]]:
    def _extract(table: FixtureTable) -> tuple[Path, Path | None]:
        return table.extract(fixtures_root)

    return _extract


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A running :class:`tests.tools.kafka_broker.KafkaBroker` (``.bootstrap`` is ``127.0.0.1:<port>``),
    started once per session (its tests share one xdist worker, see tests/parallel.py) and stopped at
    the end; skips when Kafka cannot be provisioned here (no Java, Maven or network)."""
    pytest.importorskip("kafka", reason="the kafka extra (kafka-python) is not installed")
    from tests.tools.kafka_broker import KafkaUnavailableError, start_broker

    try:
        broker = start_broker(tmp_path_factory.mktemp("kafka-broker"))
    except KafkaUnavailableError as e:
        pytest.skip(f"no Kafka broker: {e}")
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def plugin_manager() -> HudiPluginManager:
    """A fresh manager with the installed (entry-point) plugins."""
    return build_plugin_manager()


@pytest.fixture
def registry(plugin_manager: HudiPluginManager) -> ComponentRegistry:
    return ComponentRegistry.from_manager(plugin_manager)


@pytest.fixture
def components(plugin_manager: HudiPluginManager) -> Components:
    """The installed components with default settings."""
    return Components(plugin_manager, HudiSettings())


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
        # No background job in the session the tests count jobs and tasks of.
        prestart_planners=False,
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def moto_url() -> Iterator[str]:
    """One moto S3 server on 127.0.0.1 for the session: moto's state is the process's whatever the
    server, so tests keep to buckets of their own; stopping a server takes half a second."""
    from hudi_framework.testing import moto_server

    with moto_server() as url:
        yield url


@pytest.fixture(scope="module")
def endpoint(moto_url: str) -> Iterator[str]:
    """The moto S3 server, for a test module with dummy credentials and serialised requests (moto's
    conditional PUT checks then writes without a lock)."""
    from hudi_framework.testing import DUMMY_AWS_ENV, serialized_moto_s3

    with pytest.MonkeyPatch.context() as mp:
        for name, value in DUMMY_AWS_ENV.items():
            mp.setenv(name, value)
        with serialized_moto_s3():
            yield moto_url


__all__ = ["all_fixture_tables"]
