"""Landing files for the DFS source tests: write rows in a format, with a chosen modification time."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

AVRO_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "Trip",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "rider", "type": ["null", "string"], "default": None},
        {"name": "fare", "type": "double"},
    ],
}


def encode(fmt: str, rows: list[dict[str, Any]]) -> bytes:
    """``rows`` (id, rider, fare) as the content of one file in ``fmt``."""
    if fmt == "json":
        return "".join(json.dumps(r) + "\n" for r in rows).encode()
    table = pa.Table.from_pylist(
        rows, schema=pa.schema([("id", pa.int64()), ("rider", pa.string()), ("fare", pa.float64())])
    )
    sink = io.BytesIO()
    if fmt == "csv":
        pa_csv.write_csv(table, sink)
    elif fmt == "parquet":
        pq.write_table(table, sink)
    else:
        fastavro.writer(sink, fastavro.parse_schema(AVRO_SCHEMA), rows)
    return sink.getvalue()


def land_file(root: Path, name: str, data: bytes, mtime_ms: int) -> Path:
    """Write ``root/name`` and set its modification time to ``mtime_ms`` (epoch ms)."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, ns=(mtime_ms * 1_000_000, mtime_ms * 1_000_000))
    return path


def rows(first: int, count: int) -> list[dict[str, Any]]:
    """``count`` deterministic rows with ids from ``first``."""
    return [{"id": i, "rider": f"rider-{i % 3}", "fare": i * 1.5} for i in range(first, first + count)]
