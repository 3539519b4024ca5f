"""The ``engine`` fixture: every acceptance test that takes it runs once per engine in ``ENGINES``.

The local engine runs every case. A Spark write costs seconds of job overhead, so by default the
Spark engine runs a subset of each test's cases, picked by greedy set cover over the parameter
values (and the fields of a matrix :class:`~tests.acceptance.test_matrix.Case`): tests marked
``spark_cover`` run until every value appears in a Spark case (so each operation, key generator,
table version, index and partition style of the matrix runs on Spark), the others run the first
:data:`SPARK_CASES_PER_TEST` cases of that cover. ``HUDI_TEST_SPARK=full`` runs every case on
Spark too (about fifteen minutes more).
"""

from __future__ import annotations

import os

import pytest

from tests.acceptance.engines import ENGINES, WriteEngine
from tests.matrix_subset import covering_subset, facets

#: Environment variable that turns the Spark subset off.
FULL_SPARK_ENV = "HUDI_TEST_SPARK"
#: Spark cases per test not marked ``spark_cover``.
SPARK_CASES_PER_TEST = 1


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> WriteEngine:
    factory = request.param
    built: WriteEngine = factory(request)
    return built


def _is_spark(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "engine" in callspec.params and item.get_closest_marker("spark") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(FULL_SPARK_ENV, "").lower() == "full":
        return
    by_test: dict[str, list[pytest.Item]] = {}
    for item in items:
        if _is_spark(item) and item.path.is_relative_to(os.path.dirname(__file__)):
            by_test.setdefault(item.originalname if isinstance(item, pytest.Function) else item.name, []).append(item)
    keep: set[int] = set()
    for group in by_test.values():
        cover = covering_subset(
            (item, facets(item.callspec.params, ("engine",)))
            for item in group  # type: ignore[attr-defined]
        )
        if group[0].get_closest_marker("spark_cover") is None:
            cover = cover[:SPARK_CASES_PER_TEST]
        keep.update(id(item) for item in cover)
    dropped = [item for group in by_test.values() for item in group if id(item) not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        drop = {id(item) for item in dropped}
        items[:] = [item for item in items if id(item) not in drop]
