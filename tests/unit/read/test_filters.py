"""Read filters: shape validation, SQL semantics on rows, partition pruning."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.contracts.partition_path import PartitionPathFormat
from hudi_framework.errors import InvalidFilterError
from hudi_framework.read.filters import normalize_filters, prune_partitions, restrict, to_expression

ROWS = pa.table(
    {
        "city": pa.array(["sf", "nyc", None, "la"]),
        "day": pa.array([dt.date(2024, 1, d) for d in (1, 2, 3, 4)]),
        "amount": pa.array([Decimal("1.50"), Decimal("100.00"), Decimal("250.25"), None], pa.decimal128(15, 2)),
        "n": pa.array([1, 2, 3, 4], pa.int32()),
    }
)


def _ids(filters: Any) -> list[int]:
    expression = to_expression(normalize_filters(filters), ROWS.schema)
    assert expression is not None
    ids: list[int] = ROWS.filter(expression).column("n").to_pylist()
    return ids


def test_normalize_shapes() -> None:
    assert normalize_filters(None) == ()
    assert normalize_filters([]) == ()
    assert normalize_filters([("a", "=", 1), ["b", "IN", [1, 2]]]) == ((("a", "=", 1), ("b", "in", (1, 2))),)
    assert normalize_filters([[("a", "is null")], [("b", "not  in", {3})]]) == (
        (("a", "is null", None),),
        (("b", "not in", (3,)),),
    )


@pytest.mark.parametrize(
    "filters",
    [
        [("a", "~", 1)],
        [("a",)],
        [(1, "=", 1)],
        [("a", "in", "abc")],
        [("a", "=", None)],
        [("a", "=", 1), [("b", "=", 2)]],
    ],
)
def test_normalize_rejects(filters: Any) -> None:
    with pytest.raises(InvalidFilterError):
        normalize_filters(filters)


def test_comparisons_follow_sql_null_semantics() -> None:
    assert _ids([("city", "=", "sf")]) == [1]
    assert _ids([("city", "!=", "sf")]) == [2, 4]
    assert _ids([("city", "not in", ["sf"])]) == [2, 4]
    assert _ids([("city", "is null")]) == [3]
    assert _ids([("city", "is not null"), ("n", ">=", 2)]) == [2, 4]
    assert _ids([("city", "starts with", "n")]) == [2]


def test_values_are_cast_to_the_column_type() -> None:
    assert _ids([("day", ">=", "2024-01-03")]) == [3, 4]
    assert _ids([("amount", ">", 100)]) == [3]
    assert _ids([("amount", "in", [Decimal("1.5"), 100])]) == [1, 2]
    assert _ids([("n", "<", "3")]) == [1, 2]


def test_disjunction() -> None:
    assert _ids([[("city", "=", "sf")], [("n", ">", 3)]]) == [1, 4]


def test_expression_errors() -> None:
    with pytest.raises(InvalidFilterError, match="unknown column"):
        to_expression(normalize_filters([("nope", "=", 1)]), ROWS.schema)
    with pytest.raises(InvalidFilterError, match="does not convert"):
        to_expression(normalize_filters([("day", "=", "someday")]), ROWS.schema)
    with pytest.raises(InvalidFilterError, match="string column"):
        to_expression(normalize_filters([("n", "starts with", "1")]), ROWS.schema)


def test_restrict_keeps_only_known_columns() -> None:
    filters = normalize_filters([[("city", "=", "sf"), ("n", "=", 1)], [("n", ">", 2)]])
    # The second conjunction becomes "true": no pruning possible.
    assert restrict(filters, ["city"]) == ()
    assert restrict(normalize_filters([("city", "=", "sf"), ("n", "=", 1)]), ["city"]) == ((("city", "=", "sf"),),)


SCHEMA = pa.schema([("region", pa.string()), ("year", pa.int32()), ("fare", pa.float64())])


def test_prune_hive_style_multi_field() -> None:
    fmt = PartitionPathFormat(("region", "year"), hive_style=True)
    paths = [
        "region=us/year=2023",
        "region=us/year=2024",
        "region=eu/year=2024",
        "region=__HIVE_DEFAULT_PARTITION__/year=2024",
    ]

    def prune(filters: Any) -> list[str]:
        return prune_partitions(paths, normalize_filters(filters), path_format=fmt, schema=SCHEMA)

    assert prune([("region", "=", "us")]) == paths[:2]
    assert prune([("year", ">", 2023), ("fare", ">", 1.0)]) == paths[1:]
    assert prune([("region", "is null")]) == paths[3:]
    assert prune([[("region", "=", "eu")], [("year", "=", 2023)]]) == [paths[0], paths[2]]
    # A predicate on a data column in one branch makes that branch unprunable.
    assert prune([[("region", "=", "eu")], [("fare", ">", 1.0)]]) == paths
    assert prune(None) == paths


def test_prune_url_encoded_and_unparsable_values() -> None:
    fmt = PartitionPathFormat(("region", "year"), hive_style=False, url_encode=True)
    paths = ["a%2Fb/2024", "c/2024", "c/not-a-year", "too/many/segments"]
    kept = prune_partitions(paths, normalize_filters([("region", "=", "a/b")]), path_format=fmt, schema=SCHEMA)
    # "too/many/segments" does not decode: never pruned away.
    assert kept == ["a%2Fb/2024", "too/many/segments"]
    # "not-a-year" does not parse as int32: the year field cannot prune at all.
    kept = prune_partitions(paths, normalize_filters([("year", "=", 2025)]), path_format=fmt, schema=SCHEMA)
    assert kept == paths


def test_prunable_fields_excludes_formatted_fields() -> None:
    fmt = PartitionPathFormat(("region",))
    paths = ["us", "eu"]
    filters = normalize_filters([("region", "=", "us")])
    assert prune_partitions(paths, filters, path_format=fmt, schema=SCHEMA, prunable_fields=[]) == paths
    assert prune_partitions(paths, filters, path_format=fmt, schema=SCHEMA, prunable_fields=["region"]) == ["us"]


def test_the_default_partition_is_not_null_only() -> None:
    """``__HIVE_DEFAULT_PARTITION__`` holds nulls, empty strings and that very string (and
    ``default``, before Hudi 0.12, nulls and empty strings): no filter may prune it wrongly."""
    fmt = PartitionPathFormat(("region", "year"), hive_style=True)
    paths = ["region=us/year=2024", "region=__HIVE_DEFAULT_PARTITION__/year=__HIVE_DEFAULT_PARTITION__",
             "region=default/year=2024"]  # fmt: skip

    def prune(filters: Any) -> list[str]:
        return prune_partitions(paths, normalize_filters(filters), path_format=fmt, schema=SCHEMA)

    assert prune([("region", "=", "__HIVE_DEFAULT_PARTITION__")]) == paths[1:2]
    assert prune([("region", "=", "")]) == paths[1:]
    assert prune([("region", "is null")]) == paths[1:]
    assert prune([("region", "is not null")]) == paths
    assert prune([("region", "!=", "us")]) == paths[1:]
    assert prune([("region", "starts with", "__")]) == paths[1:2]
    assert prune([("region", "=", "default")]) == paths[2:]
    # An int column only holds nulls there: its default partition is pruned by value filters.
    assert prune([("year", "=", 2024)]) == [paths[0], paths[2]]
    assert prune([("year", "is null")]) == paths[1:2]
