"""Transformer plugins on Spark: the built-in ones in a streamer round, agreeing with their Arrow side."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.contracts.transformer import TransformContext
from hudi_framework.errors import TransformerEngineError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer import run_streamer
from hudi_transformers_builtin.flatten import FlatteningTransformer, FlattenOptions
from tests.unit.streamer import transformer_plugins
from tests.unit.streamer.test_streamer import SOURCE_MODULE
from tests.unit.streamer.test_transformers import land_nested

pytestmark = pytest.mark.spark


def _settings(tmp_path: Path, transformers: list[str]) -> HudiSettings:
    return HudiSettings.load(
        overrides={
            "table.base_path": str(tmp_path / "t"),
            "table.name": "t",
            "table.record_key_fields": ["id"],
            "table.ordering_fields": ["ts"],
            "write.engine": "spark",
            "plugins.modules": [SOURCE_MODULE, *transformer_plugins.modules()],
            "streamer.source": "TestLandingSource",
            "streamer.source_options": {"root": str(tmp_path / "landing")},
            "streamer.transformers": transformers,
        },
        env=False,
    )


def test_flatten_and_aws_dms_run_on_spark_as_on_arrow(spark: Any, tmp_path: Path) -> None:
    who = pa.struct([("name", pa.string()), ("geo", pa.struct([("lat", pa.float64())]))])
    nested = pa.table(
        {
            "id": [1, 2, 3],
            "who": pa.array([{"name": "a", "geo": {"lat": 1.5}}, {"name": "b", "geo": None}, None], type=who),
            "a.b": [7, 8, 9],  # a dotted top-level name is one column
        }
    )
    flatten = FlatteningTransformer(FlattenOptions())
    context = TransformContext(engine="spark", table_name="t", base_path="/t", spark=spark)
    on_spark = flatten.transform_spark(spark.createDataFrame(nested.to_pandas()), context).toArrow()
    on_arrow = flatten.transform_arrow(nested, TransformContext(engine="local", table_name="t", base_path="/t"))
    assert on_spark.column_names == on_arrow.column_names == ["id", "who_name", "who_geo_lat", "a.b"]
    assert on_spark.to_pylist() == on_arrow.to_pylist()

    land_nested(tmp_path / "landing")
    with pytest.raises(TransformerEngineError, match=re.escape("transformer 'test-tag'")):
        run_streamer(_settings(tmp_path, ["flatten", "test-tag"]), spark=spark)
    report = run_streamer(_settings(tmp_path, ["FlatteningTransformer", "AWSDmsTransformer"]), spark=spark)
    assert report.commits == 1
    got = read_table(HudiTable.open(str(tmp_path / "t")), columns=["id", "who_name", "who_geo_lat", "Op"])
    assert got.sort_by("id").to_pylist() == [
        {"id": 1, "who_name": "a", "who_geo_lat": 1.5, "Op": ""},
        {"id": 2, "who_name": "b", "who_geo_lat": None, "Op": ""},
        {"id": 3, "who_name": None, "who_geo_lat": None, "Op": ""},
    ]
