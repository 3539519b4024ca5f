"""Spark writes hand the record index the keys each written file's group gained and lost (the
executors return those keys with their write stats): the records equal the read-back, no written
base file is read for them, and the index holds the table's keys after every write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from tests.acceptance.test_record_index_handover import random_writes, spy_on_the_upkeep
from tests.acceptance.test_record_index_write import RLI_ON, _create, _settings


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_spark_hands_over_key_changes_equal_to_the_read_back(
    spark: Any, tmp_path: Path, table_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.spark.write_engine import SparkWriteClient

    checked = spy_on_the_upkeep(monkeypatch)
    path = tmp_path / "t"
    _create(path, table_type)
    settings = _settings(RLI_ON)
    settings = settings.model_copy(update={"write": settings.write.model_copy(update={"engine": "spark"})})

    def write(op: str, rows: pa.Table) -> object:
        client = SparkWriteClient(HudiTable.open(str(path)), settings, spark)
        return getattr(client, op)(spark.createDataFrame(rows.to_pandas()))

    random_writes(path, 2, write)
    assert any(changed for _, changed in checked)
