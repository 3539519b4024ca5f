"""Partition paths: hive style, url encoding, the default partition, several fields, custom fields."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.partition_path import DEFAULT_PARTITION_PATH, PartitionPathFormat
from hudi_framework.errors import PartitionPathError
from hudi_keygen_builtin import KeyGenOptions, SimpleKeyGenerator
from tests.unit.keygen.conftest import MakeKeyGen

TS = {"timestamp_type": "EPOCHMILLISECONDS", "output_date_format": "yyyy/MM/dd"}


def paths(make_keygen: MakeKeyGen, name: str, batch: pa.Table, **options: object) -> list[str]:
    kg = make_keygen(name, record_key_fields=["id"], **options)
    result: list[str] = kg.partition_paths(batch).to_pylist()
    return result


def test_plain_and_hive_style(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1, 2], "city": ["chennai", "sf"]})
    assert paths(make_keygen, "simple", batch, partition_fields=["city"]) == ["chennai", "sf"]
    assert paths(make_keygen, "simple", batch, partition_fields=["city"], hive_style_partitioning=True) == [
        "city=chennai",
        "city=sf",
    ]


def test_several_fields_join_with_slash(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1], "byteField": pa.array([10], pa.int8()), "shortField": pa.array([300], pa.int16())})
    options = {"partition_fields": ["byteField", "shortField"]}
    assert paths(make_keygen, "complex", batch, **options) == ["10/300"]
    assert paths(make_keygen, "complex", batch, **options, hive_style_partitioning=True) == [
        "byteField=10/shortField=300"
    ]


def test_null_and_empty_values_use_the_default_partition(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1, 2, 3], "p": ["a", None, ""], "q": [None, "x", "y"]})
    assert paths(make_keygen, "complex", batch, partition_fields=["p", "q"], hive_style_partitioning=True) == [
        f"p=a/q={DEFAULT_PARTITION_PATH}",
        f"p={DEFAULT_PARTITION_PATH}/q=x",
        f"p={DEFAULT_PARTITION_PATH}/q=y",
    ]


def test_url_encoding_escapes_hive_characters(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1, 2, 3], "p": ["2024/01/15", "a:b=c?d%e", "plain value"]})
    assert paths(make_keygen, "simple", batch, partition_fields=["p"], url_encode_partitions=True) == [
        "2024%2F01%2F15",
        "a%3Ab%3Dc%3Fd%25e",
        "plain value",
    ]


def test_url_encoding_with_hive_style_keeps_the_prefix_plain(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1], "p": ["x/y"]})
    options = {"partition_fields": ["p"], "url_encode_partitions": True, "hive_style_partitioning": True}
    assert paths(make_keygen, "simple", batch, **options) == ["p=x%2Fy"]


def test_values_render_as_java_does(make_keygen: MakeKeyGen) -> None:
    batch = pa.table(
        {
            "id": [1],
            "d": [dt.date(2023, 4, 1)],
            "n": pa.array([Decimal("1.50")], pa.decimal128(5, 2)),
            "b": [True],
            "f": pa.array([2.0], pa.float32()),
        }
    )
    assert paths(make_keygen, "complex", batch, partition_fields=["d", "n", "b", "f"]) == ["2023-04-01/1.50/true/2.0"]


def test_nested_partition_field_keeps_its_dotted_name(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1, 2], "a": pa.array([{"b": "x"}, None])})
    options = {"partition_fields": ["a.b"], "hive_style_partitioning": True}
    assert paths(make_keygen, "simple", batch, **options) == ["a.b=x", f"a.b={DEFAULT_PARTITION_PATH}"]


def test_non_partitioned_generators_give_empty_paths(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1, 2], "p": ["a", "b"]})
    assert paths(make_keygen, "non-partition", batch, partition_fields=["p"]) == ["", ""]
    assert paths(make_keygen, "complex", batch) == ["", ""]
    assert paths(make_keygen, "simple", batch) == ["", ""]


def test_traversal_segments_are_refused(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1], "p": ["a/../b"]})
    with pytest.raises(PartitionPathError):
        paths(make_keygen, "simple", batch, partition_fields=["p"])


def test_custom_mixes_simple_and_timestamp_fields(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1, 2], "city": ["sf", None], "ts": pa.array([1705311000000, None], pa.int64())})
    options = {"partition_fields": ["city:simple", "ts:TIMESTAMP"], "timestamp": TS}
    assert paths(make_keygen, "custom", batch, **options) == ["sf/2024/01/15", f"{DEFAULT_PARTITION_PATH}/1970/01/01"]
    hive = paths(make_keygen, "custom", batch, **options, hive_style_partitioning=True, url_encode_partitions=True)
    assert hive == ["city=sf/ts=2024%2F01%2F15", f"city={DEFAULT_PARTITION_PATH}/ts=1970%2F01%2F01"]


def test_custom_without_partition_fields_is_non_partitioned(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"id": [1]})
    assert paths(make_keygen, "custom", batch) == [""]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.text(alphabet=st.characters(codec="utf-8"), max_size=6)), min_size=1, max_size=20),
    st.booleans(),
    st.booleans(),
)
def test_vectorised_paths_equal_the_scalar_encoder(values: list[str | None], hive: bool, url: bool) -> None:
    fmt = PartitionPathFormat(("p",), hive_style=hive, url_encode=url)
    kg = SimpleKeyGenerator(
        KeyGenOptions(
            record_key_fields=("id",), partition_fields=("p",), hive_style_partitioning=hive, url_encode_partitions=url
        )
    )
    batch = pa.table({"id": list(range(len(values))), "p": pa.array(values, pa.string())})
    try:
        expected = [fmt.encode([v]) for v in values]
    except PartitionPathError:
        with pytest.raises(PartitionPathError):
            kg.partition_paths(batch)
        return
    assert kg.partition_paths(batch).to_pylist() == expected
