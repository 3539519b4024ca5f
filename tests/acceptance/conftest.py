"""The ``engine`` fixture: every acceptance test that takes it runs once per engine in ``ENGINES``."""

from __future__ import annotations

import pytest

from tests.acceptance.engines import ENGINES, WriteEngine


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> WriteEngine:
    factory = request.param
    built: WriteEngine = factory(request)
    return built
