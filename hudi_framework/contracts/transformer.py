"""The transformer contract: what the streamer does to each batch between reading and writing it.

A transformer takes a batch and returns the batch to write (columns added, renamed, flattened, rows
filtered), as Apache Hudi's ``org.apache.hudi.utilities.transform.Transformer`` does. The local
engine hands it a ``pyarrow.Table`` (:meth:`Transformer.transform_arrow`), the Spark engine a Spark
``DataFrame`` (:meth:`Transformer.transform_spark`, typed ``Any`` so that contracts need no pyspark).
A transformer implements the engines it can run on; the other method keeps its default, which
raises :class:`~hudi_framework.errors.TransformerEngineError`, and :meth:`Transformer.supports` tells
the streamer so before its first round.

A transformer is built once per job, in the driver, from its validated options (see
:class:`~hudi_framework.plugin.spec.ComponentSpec`); on Spark it plans DataFrame operations, which
Spark runs in executors, so nothing of it is pickled.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from hudi_framework.errors import TransformerEngineError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ENGINES", "Engine", "TransformContext", "Transformer"]

#: The engines a batch is transformed on: ``local`` (Arrow tables) and ``spark`` (DataFrames).
Engine = Literal["local", "spark"]
ENGINES: Final[tuple[Engine, ...]] = ("local", "spark")


@dataclass(frozen=True, slots=True)
class TransformContext:
    """What the streamer tells a transformer about the job (Apache Hudi hands its transformers the
    Spark session and the job's properties; here the table's identity and keys are typed).

    Attributes:
        engine: ``local`` or ``spark``.
        table_name: The table written (``hoodie.table.name``).
        base_path: The table's base URI.
        record_key_fields: The table's record key fields (a transformer must keep them).
        partition_fields: The table's partition fields.
        ordering_fields: The table's ordering fields.
        spark: The job's ``SparkSession`` on the Spark engine (for ``spark.sql``, temporary views);
            None on the local engine.
    """

    engine: Engine
    table_name: str
    base_path: str
    record_key_fields: tuple[str, ...] = ()
    partition_fields: tuple[str, ...] = ()
    ordering_fields: tuple[str, ...] = ()
    spark: Any = None


class Transformer(abc.ABC):  # noqa: B024 - either method may be the one implemented
    """A plugin that rewrites each batch of an ingestion job; see the module docs.

    A transformer must be deterministic for a given batch: a round that fails is read and
    transformed again, and must write the same rows.
    """

    def transform_arrow(self, rows: pa.Table, context: TransformContext) -> pa.Table:
        """The batch to write instead of ``rows`` (local engine).

        Raises:
            TransformerEngineError: This transformer does not run on the local engine (the default).
            TransformerError: The batch cannot be transformed (a column it needs is missing...).
        """
        raise TransformerEngineError(type(self).__name__, "local")

    def transform_spark(self, frame: Any, context: TransformContext) -> Any:
        """The Spark ``DataFrame`` to write instead of ``frame`` (Spark engine; ``context.spark`` is set).

        Raises:
            TransformerEngineError: This transformer does not run on Spark (the default).
            TransformerError: The batch cannot be transformed.
        """
        raise TransformerEngineError(type(self).__name__, "spark")

    def supports(self, engine: Engine) -> bool:
        """Whether this transformer runs on ``engine``: by default, whether its class overrides that
        engine's method. Override it when support depends on the options."""
        method = {"local": "transform_arrow", "spark": "transform_spark"}[engine]
        return getattr(type(self), method) is not getattr(Transformer, method)
