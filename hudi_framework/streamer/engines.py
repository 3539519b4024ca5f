"""The two engines a streamer round runs on: read the plan's splits, transform, write with the checkpoint.

:class:`LocalEngine` reads every split in this process and writes with the in-process
``WriteClient``; :class:`SparkEngine` reads the splits in Spark executors
(:mod:`hudi_framework.spark.source_frame`), runs SQL transformers with Spark SQL and writes with
``SparkWriteClient``. Both write the batch and its checkpoint entries in one commit
(``extra_metadata``), which is what makes a round exactly once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import pyarrow as pa

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.source import SourcePlan
from hudi_framework.model.conform import conform
from hudi_framework.runtime.sources import SourceRef
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer.transformers import (
    apply_arrow,
    apply_spark,
    check_engine,
    transform_context,
    transformers_of,
)
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.client import WriteClient, WriteResult

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["LocalEngine", "RoundEngine", "SparkEngine", "Written"]


@dataclass(frozen=True, slots=True)
class Written:
    """What a round wrote.

    Attributes:
        rows: Rows of the batch handed to the write (after transformers).
        result: The write's result (its instant, stats and inline services).
    """

    rows: int
    result: WriteResult


class RoundEngine(Protocol):
    """Reads, transforms and writes one round's batch."""

    def write_plan(
        self,
        table: HudiTable,
        plan: SourcePlan,
        schema: pa.Schema | None,
        operation: WriteOperation,
        extra_metadata: Mapping[str, str],
    ) -> Written | None:
        """Write the rows of ``plan`` (cast to ``schema`` when given); None when the splits hold no row."""
        ...


class LocalEngine:
    """Reads splits in this process and writes with :class:`~hudi_framework.write.client.WriteClient`."""

    def __init__(self, settings: HudiSettings, ref: SourceRef) -> None:
        """Refuse what the local engine cannot run (SQL transformers need Spark)."""
        self._steps = transformers_of(settings, ref.context().components)
        check_engine(self._steps, "local")
        self._transform_context = transform_context(settings, "local")
        self._settings = settings
        self._ref = ref

    def read(self, plan: SourcePlan, schema: pa.Schema | None) -> pa.Table:
        """Every row of the plan's splits, in split order."""
        source, context = self._ref.source(), self._ref.context()
        parts: list[pa.Table] = []
        for split in plan.splits:
            batches = list(source.read(split, context))
            if batches:
                part = pa.Table.from_batches(batches)
                parts.append(conform(part, schema) if schema is not None else part)
        if not parts:
            return (schema or pa.schema([])).empty_table()
        return pa.concat_tables(parts, promote_options="permissive")

    def write_plan(
        self,
        table: HudiTable,
        plan: SourcePlan,
        schema: pa.Schema | None,
        operation: WriteOperation,
        extra_metadata: Mapping[str, str],
    ) -> Written | None:
        """Read the plan here and write it as one commit carrying ``extra_metadata``."""
        rows = apply_arrow(self._steps, self.read(plan, schema), self._transform_context)
        if not rows.num_rows:
            return None
        result = WriteClient(table, self._settings).write(rows, operation, extra_metadata=extra_metadata)
        return Written(rows.num_rows, result)


class SparkEngine:
    """Reads splits in Spark executors, runs SQL transformers, writes with ``SparkWriteClient``."""

    def __init__(self, settings: HudiSettings, ref: SourceRef, spark: SparkSession) -> None:
        """Run on ``spark`` (never stopped here)."""
        self._settings = settings
        self._ref = ref
        self._spark = spark
        self._steps = transformers_of(settings, ref.context().components)
        check_engine(self._steps, "spark")
        self._transform_context = transform_context(settings, "spark", spark)

    def write_plan(
        self,
        table: HudiTable,
        plan: SourcePlan,
        schema: pa.Schema | None,
        operation: WriteOperation,
        extra_metadata: Mapping[str, str],
    ) -> Written | None:
        """Read the plan in executors, transform it, and write it as one commit carrying ``extra_metadata``."""
        from hudi_framework.spark.source_frame import infer_split_schema, source_frame
        from hudi_framework.spark.write_engine import SparkWriteClient

        if schema is None:
            schema = infer_split_schema(self._spark, self._ref, plan.splits)
            if schema is None:
                return None
        frame = source_frame(self._spark, self._ref, plan.splits, schema)
        frame = apply_spark(self._steps, frame, self._transform_context)
        # The batch is read once: the write's stages and the row count share the cached rows.
        frame = frame.persist()
        try:
            count = frame.count()
            if not count:
                return None
            client = SparkWriteClient(table, self._settings, self._spark)
            result = client.write(frame, operation, extra_metadata=extra_metadata)
        finally:
            frame.unpersist()
        return Written(count, result)
