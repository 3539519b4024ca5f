"""``acme-upper``: a transformer that upper-cases text columns, as Acme's reports want item codes.

It shows a transformer plugin's parts: an options model (the columns), the Arrow method the local
engine calls and the Spark method the Spark engine calls, and a typed error naming a column the
batch lacks. A column that is null stays null.
"""

from __future__ import annotations

from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import override

from hudi_framework.contracts.transformer import TransformContext, Transformer
from hudi_framework.errors import TransformerError

NAME: Final = "acme-upper"


class UpperOptions(BaseModel):
    """Which columns to upper-case."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Text columns of the batch, upper-cased in place.
    columns: tuple[str, ...] = Field(min_length=1)


class UpperTransformer(Transformer):
    """Upper-cases the configured text columns of each batch."""

    def __init__(self, options: UpperOptions) -> None:
        """Upper-case ``options.columns``."""
        self.options = options

    def _check(self, present: list[str]) -> None:
        missing = [c for c in self.options.columns if c not in present]
        if missing:
            raise TransformerError(NAME, f"the batch has no column {missing[0]!r} (columns: {present})")

    @override
    def transform_arrow(self, rows: pa.Table, context: TransformContext) -> pa.Table:
        self._check(rows.column_names)
        for name in self.options.columns:
            index = rows.schema.get_field_index(name)
            rows = rows.set_column(index, rows.field(index), pc.utf8_upper(rows.column(index)))
        return rows

    @override
    def transform_spark(self, frame: Any, context: TransformContext) -> Any:
        from pyspark.sql import functions as F  # noqa: N812 - Spark's own convention

        self._check(list(frame.columns))
        for name in self.options.columns:
            frame = frame.withColumn(name, F.upper(F.col(name)))
        return frame
