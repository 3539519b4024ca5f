"""Small helpers shared by the merger tests."""

from __future__ import annotations

import pyarrow as pa

from hudi_framework.contracts.merger import RECORD_KEY_FIELD


def table(rows: list[dict[str, object]], schema: pa.Schema | None = None) -> pa.Table:
    """Rows as a table; ``key`` is renamed to the record key column."""
    renamed = [{(RECORD_KEY_FIELD if k == "key" else k): v for k, v in r.items()} for r in rows]
    if schema is None:
        # from_pylist infers columns from the first row only; take every row's columns.
        names = list(dict.fromkeys(name for row in renamed for name in row))
        return pa.table({name: [row.get(name) for row in renamed] for name in names})
    return pa.Table.from_pylist(renamed, schema=schema)


def picked(merged: pa.Table, column: str = "name") -> list[object]:
    return merged.column(column).to_pylist()
