"""Write engines the scenarios run on: one class per engine, one entry per engine in :data:`ENGINES`.

A scenario never calls a write client itself; it hands each :class:`Step` to ``engine.run``, so the
same scenarios, checks and expected model apply to every engine. The Spark engine takes the
session-scoped ``spark`` fixture (``tests/conftest.py``) through the pytest request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.client import WriteClient


@dataclass(frozen=True)
class Step:
    """One write of a scenario.

    Attributes:
        operation: The write operation.
        data: The batch (None for ``delete_partition``).
        partitions: Partition paths for ``delete_partition``.
    """

    operation: WriteOperation
    data: pa.Table | None = None
    partitions: Sequence[str] = field(default=())


class WriteEngine(Protocol):
    """Runs one step against a table; the step's write must be one completed instant (or none on error)."""

    name: str

    def run(self, table: HudiTable, settings: HudiSettings, step: Step) -> None:
        """Write ``step`` to ``table`` with ``settings``."""


class SparkEngine:
    """The Spark engine: :class:`~hudi_framework.spark.write_engine.SparkWriteClient` on a DataFrame."""

    name = "spark"

    def __init__(self, spark: Any) -> None:
        self._spark = spark

    def run(self, table: HudiTable, settings: HudiSettings, step: Step) -> None:
        """Write ``step`` with a fresh ``SparkWriteClient``; the batch becomes a DataFrame (from Arrow)."""
        from hudi_framework.spark.write_engine import SparkWriteClient

        client = SparkWriteClient(table, settings, self._spark)
        if step.operation is WriteOperation.DELETE_PARTITION:
            client.delete_partition(list(step.partitions))
        else:
            assert step.data is not None
            client.write(self._spark.createDataFrame(step.data), step.operation)


class LocalEngine:
    """The in-process engine: :class:`~hudi_framework.write.client.WriteClient`."""

    name = "local"

    def run(self, table: HudiTable, settings: HudiSettings, step: Step) -> None:
        """Write ``step`` with a fresh ``WriteClient`` (as a new job would)."""
        client = WriteClient(table, settings)
        if step.operation is WriteOperation.DELETE_PARTITION:
            client.delete_partition(list(step.partitions))
        else:
            assert step.data is not None
            client.write(step.data, step.operation)


EngineFactory = Callable[[Any], WriteEngine]

#: Every engine the acceptance suite runs on, as ``pytest.param(factory, id=...)``; the factory gets
#: the pytest request (for session fixtures such as ``spark``).
ENGINES: list[Any] = [
    pytest.param(lambda request: LocalEngine(), id="local"),
    pytest.param(lambda request: SparkEngine(request.getfixturevalue("spark")), id="spark", marks=pytest.mark.spark),
]
