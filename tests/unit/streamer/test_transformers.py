"""Streamer transformers: resolution of each ``streamer.transformers`` entry, plugin options, engine
refusal, and the built-in ``flatten`` and ``aws-dms`` on Arrow tables and in a local streamer run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from hudi_framework.config import HudiSettings
from hudi_framework.contracts.transformer import TransformContext, Transformer
from hudi_framework.errors import (
    PluginConfigError,
    StreamerError,
    TransformerEngineError,
    TransformerError,
)
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer import run_streamer
from hudi_framework.streamer.transformers import (
    PluginTransformer,
    PythonTransformer,
    SqlTransformer,
    transformers_of,
)
from hudi_transformers_builtin.aws_dms import AwsDmsTransformer
from hudi_transformers_builtin.flatten import FlatteningTransformer, FlattenOptions
from tests.unit.streamer import transformer_plugins
from tests.unit.streamer.test_streamer import SOURCE_MODULE
from tests.unit.streamer.test_streamer import settings as streamer_settings

LOCAL = TransformContext(engine="local", table_name="t", base_path="/t")


def settings(tmp_path: Path, **streamer: Any) -> HudiSettings:
    """The streamer tests' settings, with the test transformer plugins loaded too."""
    modules = [SOURCE_MODULE, *transformer_plugins.modules()]
    return streamer_settings(tmp_path, **{"plugins.modules": modules, **streamer})


def land_nested(landing: Path) -> None:
    landing.mkdir(exist_ok=True)
    rows = [
        {"id": 1, "ts": 1, "who": {"name": "a", "geo": {"lat": 1.5, "lon": 2.5}}, "tags": [{"k": 1}]},
        {"id": 2, "ts": 1, "who": {"name": "b", "geo": None}, "tags": []},
        {"id": 3, "ts": 1, "who": None, "tags": None},
    ]
    (landing / "b000.json").write_text("\n".join(json.dumps(r) for r in rows) + "\n")


# --- resolution ---------------------------------------------------------------------------------


def test_each_entry_resolves_to_sql_a_plugin_or_a_function(tmp_path: Path) -> None:
    s = settings(
        tmp_path,
        transformers=[
            "SqlQueryBasedTransformer",
            "flatten",
            "FlatteningTransformer",
            "org.apache.hudi.utilities.transform.FlatteningTransformer",
            "com.acme.transform.FlatteningTransformer",  # a Java class name resolves by its last part
            "org.example.Tag",
            f"{SOURCE_MODULE}:double_ts",
        ],
        transformer_sql="SELECT * FROM <SRC>",
    )
    steps = transformers_of(s)
    assert isinstance(steps[0], SqlTransformer)
    assert steps[0].query == "SELECT * FROM <SRC>"
    plugins = [step for step in steps[1:6] if isinstance(step, PluginTransformer)]
    assert [type(p.transformer) for p in plugins] == [FlatteningTransformer] * 4 + [transformer_plugins.TagTransformer]
    assert [p.name for p in plugins][-1] == "org.example.Tag"  # named as configured, in errors too
    assert isinstance(steps[6], PythonTransformer)


def test_an_unknown_transformer_lists_the_installed_ones(tmp_path: Path) -> None:
    with pytest.raises(StreamerError, match=re.escape("unknown transformer 'com.acme.Mine'")) as err:
        transformers_of(settings(tmp_path, transformers="com.acme.Mine"))
    assert "flatten" in str(err.value)
    assert "test-tag" in str(err.value)


# --- options ------------------------------------------------------------------------------------


def test_options_reach_the_plugin_under_its_configured_or_registered_name(tmp_path: Path) -> None:
    (step,) = transformers_of(
        settings(tmp_path, transformers="FlatteningTransformer", transformer_options={"flatten": {"separator": "."}})
    )
    assert isinstance(step, PluginTransformer)
    assert isinstance(step.transformer, FlatteningTransformer)
    assert step.transformer.options.separator == "."
    (step,) = transformers_of(
        settings(tmp_path, transformers="org.example.Tag", transformer_options={"org.example.Tag": {"value": "x"}})
    )
    assert isinstance(step, PluginTransformer)
    assert isinstance(step.transformer, transformer_plugins.TagTransformer)
    assert step.transformer.options.value == "x"


def test_bad_options_fail_naming_the_option(tmp_path: Path) -> None:
    with pytest.raises(PluginConfigError, match=re.escape("streamer.transformer_options.flatten")) as err:
        transformers_of(settings(tmp_path, transformers="flatten", transformer_options={"flatten": {"sep": "."}}))
    assert "sep" in str(err.value)
    with pytest.raises(PluginConfigError, match="separator"):
        transformers_of(settings(tmp_path, transformers="flatten", transformer_options={"flatten": {"separator": ""}}))
    with pytest.raises(StreamerError, match=re.escape("options for 'flaten', which names no transformer plugin")):
        transformers_of(settings(tmp_path, transformers="flatten", transformer_options={"flaten": {}}))
    with pytest.raises(StreamerError, match="which names no transformer plugin"):  # the SQL one takes none
        transformers_of(
            settings(tmp_path, transformers="sql", transformer_sql="SELECT 1", transformer_options={"sql": {}})
        )
    both = {"flatten": {"separator": "."}, "FlatteningTransformer": {"separator": "-"}}
    with pytest.raises(StreamerError, match=re.escape("under both 'FlatteningTransformer' and 'flatten'")):
        transformers_of(settings(tmp_path, transformers="FlatteningTransformer", transformer_options=both))


def test_options_come_from_a_config_file(tmp_path: Path) -> None:
    config = tmp_path / "job.toml"
    config.write_text(
        '[streamer]\ntransformers = ["flatten"]\n[streamer.transformer_options.flatten]\nseparator = "__"\n'
    )
    s = HudiSettings.load(config, env=False)
    assert s.streamer.transformer_options == {"flatten": {"separator": "__"}}


# --- engines ------------------------------------------------------------------------------------


def test_the_contract_knows_which_engines_a_transformer_runs_on() -> None:
    spark_only = transformer_plugins.SparkOnlyTransformer(None)
    assert (spark_only.supports("local"), spark_only.supports("spark")) == (False, True)
    flatten = FlatteningTransformer(FlattenOptions())
    assert (flatten.supports("local"), flatten.supports("spark")) == (True, True)
    with pytest.raises(TransformerEngineError, match=re.escape('set write.engine = "spark"')):
        spark_only.transform_arrow(pa.table({"a": [1]}), LOCAL)


def test_a_transformer_that_does_not_run_locally_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    land_nested(tmp_path / "landing")
    with pytest.raises(TransformerEngineError, match=re.escape("transformer 'test-spark-only'")) as err:
        run_streamer(settings(tmp_path, transformers=["flatten", "test-spark-only"]))
    assert err.value.engine == "local"
    assert not (tmp_path / "t").exists()


def test_a_plugin_returning_no_table_fails_the_round_and_writes_nothing(tmp_path: Path) -> None:
    land_nested(tmp_path / "landing")
    with pytest.raises(TransformerError, match=re.escape("'test-broken': returned list, not a pyarrow.Table")):
        run_streamer(settings(tmp_path, transformers="test-broken"))
    assert list(HudiTable.open(str(tmp_path / "t")).timeline.commits_timeline()) == []


# --- the built-in transformers ------------------------------------------------------------------


def test_flatten_makes_nested_fields_columns_and_keeps_arrays() -> None:
    geo = pa.struct([("lat", pa.float64()), ("lon", pa.float64())])
    who = pa.struct([("name", pa.string()), ("geo", geo)])
    tags = pa.list_(pa.struct([("k", pa.int64())]))
    rows = pa.table(
        {
            "id": [1, 2, 3],
            "who": pa.array(
                [{"name": "a", "geo": {"lat": 1.5, "lon": 2.5}}, {"name": "b", "geo": None}, None], type=who
            ),
            "tags": pa.array([[{"k": 1}], [], None], type=tags),
        }
    )
    flat = FlatteningTransformer(FlattenOptions()).transform_arrow(rows, LOCAL)
    assert flat.column_names == ["id", "who_name", "who_geo_lat", "who_geo_lon", "tags"]
    assert flat.to_pydict() == {
        "id": [1, 2, 3],
        "who_name": ["a", "b", None],
        "who_geo_lat": [1.5, None, None],
        "who_geo_lon": [2.5, None, None],
        "tags": [[{"k": 1}], [], None],
    }
    assert flat.schema.field("tags").type == tags
    dotted = FlatteningTransformer(FlattenOptions(separator=".")).transform_arrow(rows, LOCAL)
    assert dotted.column_names == ["id", "who.name", "who.geo.lat", "who.geo.lon", "tags"]
    plain = pa.table({"a": [1]})
    assert FlatteningTransformer(FlattenOptions()).transform_arrow(plain, LOCAL) is plain


def test_flatten_refuses_names_that_clash() -> None:
    rows = pa.table({"a": pa.array([{"b": 1}]), "a_b": [2]})
    with pytest.raises(TransformerError, match=re.escape("flattened columns clash: 'a_b'")):
        FlatteningTransformer(FlattenOptions()).transform_arrow(rows, LOCAL)


_LEAVES = st.sampled_from([pa.int64(), pa.string(), pa.list_(pa.int32())])
_TYPES = st.recursive(
    _LEAVES,
    lambda children: st.lists(children, min_size=1, max_size=3).map(
        lambda types: pa.struct([(f"f{i}", t) for i, t in enumerate(types)])
    ),
    max_leaves=8,
)


def _values(data_type: pa.DataType) -> st.SearchStrategy[Any]:
    """Python values of ``data_type``, null at any depth."""
    if pa.types.is_struct(data_type):
        present: st.SearchStrategy[Any] = st.fixed_dictionaries({f.name: _values(f.type) for f in data_type})
    elif pa.types.is_int64(data_type):
        present = st.integers(-3, 3)
    elif pa.types.is_string(data_type):
        present = st.text(max_size=2)
    else:
        present = st.lists(st.integers(0, 3), max_size=2)
    return st.none() | present


def _leaves(data_type: pa.DataType, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    if not pa.types.is_struct(data_type):
        return [path]
    return [leaf for f in data_type for leaf in _leaves(f.type, (*path, f.name))]


def _lookup(row: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = row
    for part in path:
        value = None if value is None else value[part]
    return value


@hypothesis_settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), types=st.lists(_TYPES, min_size=1, max_size=3), size=st.integers(0, 4))
def test_flatten_laws(data: st.DataObject, types: list[pa.DataType], size: int) -> None:
    schema = pa.schema([(f"c{i}", t) for i, t in enumerate(types)])
    rows = data.draw(st.lists(st.fixed_dictionaries({f.name: _values(f.type) for f in schema}), min_size=size))
    table = pa.Table.from_pylist(rows, schema=schema)
    flatten = FlatteningTransformer(FlattenOptions(separator="."))
    flat = flatten.transform_arrow(table, LOCAL)
    paths = [leaf for f in schema for leaf in _leaves(f.type, (f.name,))]
    # One column per leaf, in schema order, holding the leaf's value (null under a null struct).
    assert flat.column_names == [".".join(p) for p in paths]
    assert flat.to_pylist() == [{".".join(p): _lookup(row, p) for p in paths} for row in rows]
    assert flatten.transform_arrow(flat, LOCAL).equals(flat)  # idempotent


def test_aws_dms_adds_an_empty_op_only_when_missing() -> None:
    dms = AwsDmsTransformer(None)
    full_load = dms.transform_arrow(pa.table({"id": [1, 2]}), LOCAL)
    assert full_load.to_pydict() == {"id": [1, 2], "Op": ["", ""]}
    assert full_load.schema.field("Op").type == pa.string()
    changes = pa.table({"id": [1], "Op": ["D"]})
    assert dms.transform_arrow(changes, LOCAL) is changes


def test_a_local_streamer_flattens_then_runs_the_next_steps_in_order(tmp_path: Path) -> None:
    land_nested(tmp_path / "landing")
    run_streamer(
        settings(
            tmp_path,
            transformers=["org.apache.hudi.utilities.transform.FlatteningTransformer", "AWSDmsTransformer", "test-tag"],
            transformer_options={"test-tag": {"value": "v1"}},
        )
    )
    table = read_table(HudiTable.open(str(tmp_path / "t")))
    assert {"who_name", "who_geo_lat", "who_geo_lon", "Op", "tag", "table"} <= set(table.column_names)
    assert "who" not in table.column_names
    got = table.select(["id", "who_name", "who_geo_lat", "Op", "tag", "table"]).sort_by("id").to_pylist()
    assert got == [
        {"id": 1, "who_name": "a", "who_geo_lat": 1.5, "Op": "", "tag": "v1", "table": "local:t"},
        {"id": 2, "who_name": "b", "who_geo_lat": None, "Op": "", "tag": "v1", "table": "local:t"},
        {"id": 3, "who_name": None, "who_geo_lat": None, "Op": "", "tag": "v1", "table": "local:t"},
    ]


def test_every_shipped_transformer_implements_the_contract() -> None:
    from hudi_transformers_builtin import hudi_transformers

    for spec in hudi_transformers():
        built = spec.load_factory()(spec.load_options_model()())
        assert isinstance(built, Transformer)
        assert built.supports("local")
        assert built.supports("spark")
