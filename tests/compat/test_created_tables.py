"""Tables we create open in hudi-rs with the same name, type and schema."""

from __future__ import annotations

from pathlib import Path

import hudi
import pyarrow as pa
import pytest

from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config

SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("name", pa.string()),
        ("ts", pa.timestamp("us", tz="UTC")),
        ("amount", pa.decimal128(10, 2)),
        ("day", pa.date32()),
        ("tags", pa.list_(pa.string())),
        ("city", pa.string()),
    ]
)


@pytest.mark.parametrize("version", [6, 8, 9])
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_created_table_opens_in_hudi_rs(tmp_path: Path, version: int, table_type: str) -> None:
    name = f"trips_v{version}"
    config = new_table_config(
        name, table_type=table_type, version=version, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"], hive_style_partitioning=True,
    )  # fmt: skip
    ours = HudiTable.create(str(tmp_path), config, schema=SCHEMA)
    rs = hudi.HudiTableBuilder.from_base_uri(str(tmp_path)).build()
    assert rs.table_name == name
    assert rs.table_type == table_type
    rs_schema = rs.get_schema()
    assert [f.name for f in rs_schema] == SCHEMA.names
    assert [f.type for f in rs_schema] == [f.type for f in SCHEMA]
    assert rs.hudi_options()["hoodie.table.version"] == str(version)
    assert rs.get_file_slices() == []
    assert ours.schema() == SCHEMA
    reopened = HudiTable.open(str(tmp_path))
    assert reopened.config == ours.config
