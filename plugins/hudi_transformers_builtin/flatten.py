"""``flatten``: Apache Hudi's FlatteningTransformer on Arrow tables and Spark DataFrames.

Every field of a struct column, at any depth, becomes a top-level column named by its path joined
with ``separator`` (``address.city.zip`` -> ``address_city_zip``), in schema order; a field of a
null struct is null. Arrays and maps are kept as they are (Apache Hudi does not unnest them
either), structs inside them too. Two paths that flatten to one name (a column ``a_b`` beside a
struct ``a`` with a field ``b``) fail naming it, where Spark would write two columns of one name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field

from hudi_framework.contracts.transformer import TransformContext, Transformer
from hudi_framework.errors import TransformerError

__all__ = ["FlattenOptions", "FlatteningTransformer"]

NAME = "flatten"


class FlattenOptions(BaseModel):
    """How flattened columns are named."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Joins a nested field's path into its column name (Apache Hudi: ``_``).
    separator: str = Field(default="_", min_length=1)


def _check_unique(names: Sequence[str]) -> None:
    clashes = sorted(name for name, count in Counter(names).items() if count > 1)
    if clashes:
        raise TransformerError(NAME, f"flattened columns clash: {', '.join(repr(c) for c in clashes)}")


def _arrow_columns(name: str, column: pa.ChunkedArray, separator: str) -> Iterator[tuple[str, pa.ChunkedArray]]:
    if not pa.types.is_struct(column.type):
        yield name, column
        return
    # ChunkedArray.flatten folds the struct's own nulls into its children's.
    for field, child in zip(column.type, column.flatten(), strict=True):
        yield from _arrow_columns(f"{name}{separator}{field.name}", child, separator)


def _spark_columns(prefix: str, parent: Any, data_type: Any, separator: str) -> Iterator[tuple[str, Any]]:
    from pyspark.sql.types import StructType

    if not isinstance(data_type, StructType):
        yield prefix, parent
        return
    for field in data_type.fields:
        child = parent.getField(field.name)
        yield from _spark_columns(f"{prefix}{separator}{field.name}", child, field.dataType, separator)


class FlatteningTransformer(Transformer):
    """Flattens struct columns into top-level columns; see the module docs."""

    def __init__(self, options: FlattenOptions) -> None:
        """Name columns with ``options.separator``."""
        self.options = options

    def transform_arrow(self, rows: pa.Table, context: TransformContext) -> pa.Table:
        """``rows`` with every struct column replaced by its flattened fields."""
        if not any(pa.types.is_struct(f.type) for f in rows.schema):
            return rows
        columns = [
            flat
            for field, column in zip(rows.schema, rows.columns, strict=True)
            for flat in _arrow_columns(field.name, column, self.options.separator)
        ]
        _check_unique([name for name, _ in columns])
        return pa.table([c for _, c in columns], names=[n for n, _ in columns])

    def transform_spark(self, frame: Any, context: TransformContext) -> Any:
        """``frame`` with every struct column replaced by its flattened fields (a projection)."""
        from pyspark.sql import functions as F  # noqa: N812 - Spark's own convention
        from pyspark.sql.types import StructType

        fields = frame.schema.fields
        if not any(isinstance(f.dataType, StructType) for f in fields):
            return frame
        columns = [
            flat
            for field in fields
            # Backticks: a top-level name with a dot is one column, not a path.
            for flat in _spark_columns(
                field.name, F.col(f"`{field.name.replace('`', '``')}`"), field.dataType, self.options.separator
            )
        ]
        _check_unique([name for name, _ in columns])
        return frame.select(*(column.alias(name) for name, column in columns))
