"""Plain values of the metadata table's stored column statistics (``column_stats`` and
``partition_stats`` min/max: Avro unions of value wrappers) as Arrow arrays."""

from __future__ import annotations

from decimal import Decimal
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["DAYS_MEMBERS", "stat_values"]

#: Members of the stored min/max union (the reader schema's branch order, nulls left out) whose
#: wrapper holds a date as days: ``DateWrapper`` and ``LocalDateWrapper`` (index version V1).
DAYS_MEMBERS: Final = ("member7", "member11")


def stat_values(wrapped: pa.Array | pa.ChunkedArray, value_type_info: str | None = None) -> pa.Array:
    """Plain values of stored min/max statistics of ONE data column (rows of one type).

    Picks the union member the rows use (the first member with a non-null value); decimals stored
    as unscaled big-endian bytes are turned into ``decimal128(precision, scale)`` when
    ``value_type_info`` (``"precision,scale"``) is given, and days in a date wrapper into dates.
    Rows of other members become null.
    """
    struct = wrapped.combine_chunks() if isinstance(wrapped, pa.ChunkedArray) else wrapped
    assert isinstance(struct, pa.StructArray)
    for i in range(struct.type.num_fields):
        member = struct.field(i)
        if member.null_count == len(member):
            continue
        names = [f.name for f in member.type]
        if "value" not in names:
            continue
        values = member.field("value")
        if pa.types.is_binary(values.type) and value_type_info:
            precision, scale = (int(x) for x in value_type_info.split(","))
            return _decimals(values, pc.is_null(member), precision, scale)
        if struct.type.field(i).name in DAYS_MEMBERS and pa.types.is_int32(values.type):
            values = values.cast(pa.date32())
        return pc.if_else(pc.is_null(member), pa.nulls(len(member), values.type), values)
    return pa.nulls(len(struct))


def _decimals(values: pa.Array, null: pa.Array, precision: int, scale: int) -> pa.Array:
    # One statistic per file: a short Python loop over files, not rows of data.
    out: list[Decimal | None] = []
    for raw, missing in zip(values.to_pylist(), null.to_pylist(), strict=True):
        if missing or raw is None:
            out.append(None)
        else:
            out.append(Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-scale))
    return pa.array(out, pa.decimal128(max(precision, 1), scale))
