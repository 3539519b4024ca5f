"""On Spark, the bloom index with ``hoodie.bloom.index.use.metadata=true`` tags from the metadata
table's ``bloom_filters`` (each lookup task reads its files' filters) exactly as the local engine
does, in narrow and shuffled tagging."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.write_engine import SparkWriteClient
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.acceptance.test_metadata_bloom_filters import BLOOM_ON, _rows

pytestmark = pytest.mark.spark


def _table(path: Path) -> HudiTable:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    return HudiTable.create(str(path), config)


def _triples(path: Path) -> list[tuple[str, str, int]]:
    rows = read_table(HudiTable.open(str(path))).select(["id", "city", "ts"]).to_pylist()
    return sorted((r["id"], r["city"], r["ts"]) for r in rows)


@pytest.mark.parametrize(
    ("narrow", "prune"), [(True, "true"), (False, "false")], ids=["narrow-ranges", "shuffled-no-ranges"]
)
def test_spark_tags_from_bloom_filters_like_the_local_engine(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, narrow: bool, prune: str
) -> None:
    from hudi_framework.metadata import index_source
    from hudi_framework.spark import tagging_stage

    if not narrow:
        monkeypatch.setattr(tagging_stage, "NARROW_FILE_OPENS", 0)
    sources: list[Any] = []
    original = index_source.metadata_index_source
    monkeypatch.setattr(
        "hudi_framework.spark.write_engine.metadata_index_source",
        lambda *a, **k: sources.append(original(*a, **k)) or sources[-1],
    )
    settings = HudiSettings.from_hoodie_options({**BLOOM_ON, "hoodie.bloom.index.prune.by.ranges": prune}, env=False)
    local = WriteClient(_table(tmp_path / "local"), settings)
    remote = SparkWriteClient(_table(tmp_path / "spark"), settings, spark)
    steps = [
        ("insert", _rows(range(0, 30), 1)),
        ("upsert", _rows(range(20, 40), 2)),
        ("upsert", _rows(range(0, 45, 3), 3)),
    ]
    for operation, rows in steps:
        local.write(rows, operation)
        remote.write(spark.createDataFrame(rows.to_pandas()), operation)
    assert _triples(tmp_path / "spark") == _triples(tmp_path / "local")
    assert len(_triples(tmp_path / "spark")) == 41
    assert [s is not None and s.bloom_filters for s in sources] == [True, True], "both upserts used the MDT"
