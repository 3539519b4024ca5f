"""``aws-dms``: Apache Hudi's AWSDmsTransformer on Arrow tables and Spark DataFrames.

AWS DMS change files carry an ``Op`` column (``I``, ``U``, ``D``) that the ``AWSDmsAvroPayload``
merger reads (``D`` deletes); a full load's files have none. The transformer adds ``Op`` as an empty
string to a batch without it, so both kinds of files write with one schema, and leaves a batch
that has it unchanged.
"""

from __future__ import annotations

from typing import Any, Final

import pyarrow as pa

from hudi_framework.contracts.transformer import TransformContext, Transformer

__all__ = ["OP_FIELD", "AwsDmsTransformer"]

#: The operation column of AWS DMS output (Apache Hudi's AWSDmsAvroPayload.OP_FIELD).
OP_FIELD: Final = "Op"


class AwsDmsTransformer(Transformer):
    """Adds an empty ``Op`` column to a batch without one."""

    def __init__(self, options: object) -> None:
        """No options."""

    def transform_arrow(self, rows: pa.Table, context: TransformContext) -> pa.Table:
        """``rows``, with ``Op = ''`` appended when it has no ``Op`` column."""
        if OP_FIELD in rows.column_names:
            return rows
        return rows.append_column(pa.field(OP_FIELD, pa.string()), pa.repeat(pa.scalar("", pa.string()), rows.num_rows))

    def transform_spark(self, frame: Any, context: TransformContext) -> Any:
        """``frame``, with ``Op = ''`` added when it has no ``Op`` column."""
        from pyspark.sql import functions as F  # noqa: N812 - Spark's own convention

        if OP_FIELD in frame.columns:
            return frame
        return frame.withColumn(OP_FIELD, F.lit(""))
